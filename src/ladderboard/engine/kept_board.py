"""The public board of a per-team competition as a process keeps it, patched
with the standings that changed rather than built again.

A board is the teams' stored standings sorted by the rule of
:func:`ladderboard.rules.boards.public_order`: best score first, then the
team that reached it first, then the lower submission id, a key that no two
standings share. A board kept at board version ``v`` takes the standings
stamped after ``v`` (a team's submission, the team disabled or enabled): each
changed team leaves its place and, if enabled, goes in at its new key, found
by bisection; the ranks of the rows between are renumbered. So the first read
after a submission costs the few standings that changed and the rows that
moved, not a read and sort of every team. A change that is not one of
standings (the close, the publication, a selection) is marked by the
competition's ``board_reset_version``, and a board kept from before it is
built afresh.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ladderboard.direction import Direction
from ladderboard.engine.views import aware
from ladderboard.rules.boards import BoardRow

__all__ = ["KeptBoard"]

Key = tuple[tuple[bool, float], Any, int]


def _key(direction: Direction, row: Sequence[Any]) -> Key:
    """The standing's place in the board's order (as ``public_order`` sorts)."""
    _, score, _, _, submission_id, _, reached_at = row[:7]
    return (direction.key(score), reached_at, submission_id)


def _board_row(rank: int, row: Sequence[Any]) -> BoardRow:
    name, score, entries, last, _, number = row[:6]
    return BoardRow(rank, name, score, entries, aware(last), number)


def _renumbered(row: BoardRow, rank: int) -> BoardRow:
    """``row`` at ``rank``: a copy of its fields with the rank replaced, at
    a third of the cost of the frozen dataclass's ``__init__`` (a board of
    10,000 teams renumbers up to every row after a submission)."""
    copy = object.__new__(BoardRow)
    fields = copy.__dict__
    fields.update(row.__dict__)
    fields["rank"] = rank
    return copy


@dataclass(frozen=True)
class KeptBoard:
    """A public board at board ``version``: its rows best first, their sort
    keys in the same order, and each team's key by its name. Never changed
    once made: a patch makes another."""

    version: int
    keys: list[Key]
    rows: tuple[BoardRow, ...]
    where: dict[str, Key]

    @classmethod
    def build(cls, version: int, standings: Iterable[Sequence[Any]], direction: Direction):
        """The board of ``standings`` (the rows of
        :func:`ladderboard.store.queries.standings`)."""
        ordered = sorted(((_key(direction, row), row) for row in standings), key=lambda e: e[0])
        return cls(
            version,
            [key for key, _ in ordered],
            tuple(_board_row(rank, row) for rank, (_, row) in enumerate(ordered, 1)),
            {row[0]: key for key, row in ordered},
        )

    def patched(
        self, version: int, changed: Iterable[Sequence[Any]], direction: Direction
    ) -> KeptBoard:
        """This board with the ``changed`` standings (the rows of
        :func:`ladderboard.store.queries.standings_since`, each ending with
        whether its team is disabled) put in their places, at ``version``.
        Applying a standing already in place changes nothing, so a change
        read twice (committed between the version's read and the standings')
        is harmless."""
        keys, rows, where = list(self.keys), list(self.rows), dict(self.where)
        first = len(keys)  # rows from here on may have moved
        for row in changed:
            name, disabled = row[0], row[-1]
            old = where.pop(name, None)
            if old is not None:
                at = bisect_left(keys, old)
                del keys[at], rows[at]
                first = min(first, at)
            if not disabled:
                key = _key(direction, row)
                at = bisect_left(keys, key)
                keys.insert(at, key)
                rows.insert(at, _board_row(at + 1, row))
                where[name] = key
                first = min(first, at)
        for at in range(first, len(rows)):
            if rows[at].rank != at + 1:
                rows[at] = _renumbered(rows[at], at + 1)
        return KeptBoard(version, keys, tuple(rows), where)
