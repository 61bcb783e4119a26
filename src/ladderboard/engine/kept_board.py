"""The public board of a per-team competition as a process keeps it, patched
with the standings that changed rather than built again.

A board is the teams' stored standings sorted by the rule of
:func:`ladderboard.rules.boards.public_order`: best score first, then the
team that reached it first, then the lower submission id, a key that no two
standings share. A board kept at board version ``v`` takes the standings
stamped after ``v`` (a team's submission, the team disabled or enabled): each
changed team leaves its place and, if enabled, goes in at its new key, found
by bisection. The rows between change rank: a kept board ranks its rows only
when they are asked for (:attr:`KeptBoard.rows`), and says how it was patched
from the board before (:attr:`KeptBoard.edits`), so that a serialiser of the
board before (:mod:`ladderboard.server.board_json`) makes the next board's
JSON by the same few edits. So the first read after a submission costs the
few standings that changed, not a read and sort of every team, nor a row for
every rank that moved. A change that is not one of
standings (the close, the publication, a selection) is marked by the
competition's ``board_reset_version``, and a board kept from before it is
built afresh.
"""

from __future__ import annotations

import weakref
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ladderboard.direction import Direction
from ladderboard.engine.results import aware
from ladderboard.rules.boards import BoardRow
from ladderboard.store.queries import ChangedStanding, StandingRow

__all__ = ["KeptBoard"]

Key = tuple[tuple[bool, float], Any, int]


def _key(direction: Direction, row: StandingRow | ChangedStanding) -> Key:
    """The standing's place in the board's order (as ``public_order`` sorts)."""
    return (direction.key(row.score), row.submission_at, row.submission_id)


def _board_row(rank: int, row: StandingRow | ChangedStanding) -> BoardRow:
    """The standing as the board shows it at ``rank``: the submission named
    by the team's own number."""
    return BoardRow(
        rank, row.name, row.score, row.entries, aware(row.last_submission_at), row.submission_number
    )


def _renumbered(row: BoardRow, rank: int) -> BoardRow:
    """``row`` at ``rank``: a copy of its fields with the rank replaced, at
    a third of the cost of the frozen dataclass's ``__init__`` (the first
    reader of a board of 10,000 teams after a submission may rank up to
    every row anew)."""
    copy = object.__new__(BoardRow)
    fields = copy.__dict__
    fields.update(row.__dict__)
    fields["rank"] = rank
    return copy


Edit = tuple[int, BoardRow | None]  # (place, None): the row there left; (place, row): row put there


@dataclass(frozen=True, eq=False)
class KeptBoard:
    """A public board at board ``version``: its rows best first
    (``placed``: a row's rank may be stale, the rank it had where it was put
    or last ranked, never to be shown; :attr:`rows` and :meth:`ranked` have
    them at their places), their sort keys in the same order, and each
    team's key by its name. Never changed once made: a patch makes another,
    which holds the board it came from (``parent``, weakly) and the
    ``edits`` that made it from that board's rows, in order."""

    version: int
    keys: list[Key]
    placed: tuple[BoardRow, ...]
    where: dict[str, Key]
    parent: weakref.ref[KeptBoard] | None = None
    edits: tuple[Edit, ...] = ()

    @property
    def rows(self) -> tuple[BoardRow, ...]:
        """The rows best first, each at its rank (its place, from 1). The
        same tuple every time it is asked for: two threads that rank the
        rows at once keep the first one's."""
        found = self.__dict__.get("_rows")
        if found is None:
            found = tuple(
                row if row.rank == at else _renumbered(row, at)
                for at, row in enumerate(self.placed, 1)
            )
            found = self.__dict__.setdefault("_rows", found)
        return found

    def ranked(self, start: int, stop: int) -> tuple[BoardRow, ...]:
        """``rows[start:stop]`` without ranking the rest (a page of a board)."""
        rows = self.__dict__.get("_rows")
        if rows is not None:
            return rows[start:stop]
        return tuple(
            row if row.rank == at else _renumbered(row, at)
            for at, row in enumerate(self.placed[start:stop], start + 1)
        )

    @classmethod
    def build(cls, version: int, standings: Iterable[StandingRow], direction: Direction):
        """The board of ``standings`` (the rows of
        :func:`ladderboard.store.queries.standings`, or :class:`StandingRow`)."""
        ordered = sorted(((_key(direction, row), row) for row in standings), key=lambda e: e[0])
        return cls(
            version,
            [key for key, _ in ordered],
            tuple(_board_row(rank, row) for rank, (_, row) in enumerate(ordered, 1)),
            {row.name: key for key, row in ordered},
        )

    def patched(
        self, version: int, changed: Iterable[ChangedStanding], direction: Direction
    ) -> KeptBoard:
        """This board with the ``changed`` standings (the rows of
        :func:`ladderboard.store.queries.standings_since`, or
        :class:`ChangedStanding`) put in their places, at ``version``.
        Applying a standing already in place changes nothing, so a change
        read twice (committed between the version's read and the standings')
        is harmless."""
        # Rows already ranked are copied from, so that ranks left behind by
        # patch after patch are mended once, by the first reader of rows.
        ranked = self.__dict__.get("_rows", self.placed)
        keys, rows, where = list(self.keys), list(ranked), dict(self.where)
        edits: list[Edit] = []
        for row in changed:
            name, disabled = row.name, row.disabled
            old = where.pop(name, None)
            if old is not None:
                at = bisect_left(keys, old)
                del keys[at], rows[at]
                edits.append((at, None))
            if not disabled:
                key = _key(direction, row)
                at = bisect_left(keys, key)
                keys.insert(at, key)
                rows.insert(at, _board_row(at + 1, row))
                where[name] = key
                edits.append((at, rows[at]))
        return KeptBoard(version, keys, tuple(rows), where, weakref.ref(self), tuple(edits))
