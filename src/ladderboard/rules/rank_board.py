"""The per-rank leaderboard (Blum & Hardt 2015, §2.1, variant 2).

The paper keeps one mechanism instance per leaderboard rank and tests a new
submission against the instances from the top to find its place, so that the
board does not rely on one account per team. It leaves the details open; these
are ladderboard's:

* The board has ``size`` ranks. Rank ``r`` holds an entry (a team, its
  submission, the released score, and the rank's mechanism instance whose best
  is that submission) or is empty.
* A submission from team ``T`` is tested against the instances of rank 1, 2, …
  down to ``T``'s own rank if ``T`` is ranked, else down to rank ``size``. An
  empty rank has a fresh instance, which accepts as every ladder accepts its
  first submission.
* At the first rank whose instance accepts it, the submission takes that
  rank: it replaces ``T``'s entry if that is the rank, otherwise it is inserted
  there, the entries below move down one rank, ``T``'s former entry (if any)
  leaves the board, and an entry pushed below rank ``size`` leaves the board.
  The inserted entry continues the accepting instance under a fresh key, so no
  two instances share random draws.
* A test that rejects still advances that instance (its submission count and
  random stream), as a rejected submission advances any mechanism.
* If no instance accepts, the team is answered with the release of the last
  instance it was tested against: its own rank's if it is ranked, rank
  ``size``'s otherwise. Either way the answer is a number the board already
  showed or a fresh draw around it, so it carries no new information.

Hence the Sybil resistance: once the board is full, any number of accounts
learn nothing unless a submission beats a ranked entry by the mechanism's
margin, whereas on a per-team board every new account's first submission is
released as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ladderboard.mechanisms import Mechanism

__all__ = ["RankBoard", "RankOutcome"]


@dataclass(frozen=True)
class RankOutcome:
    """The answer to one submission: the released score, whether it took a
    rank (organiser-side), and the rank it holds afterwards (None if off)."""

    score: float
    improved: bool
    rank: int | None


class RankBoard:
    """A per-rank board over mechanism instances.

    ``entries`` is the JSON-serialisable list of ranked entries, best first:
    dicts with ``team``, ``submission``, ``score``, ``instance`` (the number
    that keys its random stream) and ``state`` (the mechanism's state).
    ``load(entry)`` rebuilds an entry's mechanism, ``fresh(instance)`` makes a
    new instance numbered ``instance``, ``dump(mechanism)`` gives its state.

    >>> from ladderboard.mechanisms import ParameterFreeLadder
    >>> board = RankBoard(
    ...     size=2, entries=[], created=0,
    ...     load=lambda e: ParameterFreeLadder.from_state(e["state"]),
    ...     fresh=lambda i: ParameterFreeLadder(), dump=lambda m: m.get_state())
    >>> a, b, c = [1.0] * 4 + [0.0] * 4, [1.0] * 2 + [0.0] * 6, [1.0] * 8
    >>> [(o.score, o.rank) for o in (board.submit(1, 1, a), board.submit(2, 2, b))]
    [(0.5, 1), (0.25, 1)]
    >>> board.teams(), board.submit(3, 3, c).rank is None   # full: c beats no one
    ([2, 1], True)
    """

    def __init__(
        self,
        *,
        size: int,
        entries: list[dict[str, Any]],
        created: int,
        load: Callable[[dict[str, Any]], Mechanism],
        fresh: Callable[[int], Mechanism],
        dump: Callable[[Mechanism], dict[str, Any]],
    ):
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}")
        self.size = size
        self.entries = entries
        self.created = created
        self._load, self._fresh, self._dump = load, fresh, dump

    def teams(self) -> list[int]:
        return [entry["team"] for entry in self.entries]

    def rank_of(self, team: int) -> int | None:
        for position, entry in enumerate(self.entries):
            if entry["team"] == team:
                return position + 1
        return None

    def _new_instance(self) -> int:
        self.created += 1
        return self.created

    def submit(self, team: int, submission: int, x: np.ndarray) -> RankOutcome:
        own = self.rank_of(team)
        last = own if own is not None else self.size
        score = float("nan")
        for position in range(last):
            entry = self.entries[position] if position < len(self.entries) else None
            if entry is None:
                instance = self._new_instance()
                mechanism = self._fresh(instance)
            else:
                mechanism = self._load(entry)
            release = mechanism.submit(x)
            score = release.score
            if release.improved:
                self._place(position, own, team, submission, release.score, mechanism, entry)
                return RankOutcome(release.score, True, position + 1)
            if entry is not None:
                entry["state"] = self._dump(mechanism)
        return RankOutcome(score, False, own)

    def _place(
        self,
        position: int,
        own: int | None,
        team: int,
        submission: int,
        score: float,
        mechanism: Mechanism,
        beaten: dict[str, Any] | None,
    ) -> None:
        in_place = own is not None and position == own - 1
        if beaten is None:
            instance = self.created  # the fresh instance just made
        elif in_place:
            instance = beaten["instance"]
        else:
            instance = self._new_instance()  # a copy continues under a fresh key
        new = {
            "team": team,
            "submission": submission,
            "score": score,
            "instance": instance,
            "state": self._dump(mechanism),
        }
        if beaten is None:
            self.entries.append(new)
        elif in_place:
            self.entries[position] = new
        else:
            self.entries.insert(position, new)
            if own is not None:
                del self.entries[own]  # the team's former entry, now one rank lower
        del self.entries[self.size :]
