"""Ranking teams: the public board as released, final selection, and the
private board at the close. Pure functions over submission records, shared
by the live engine, the audit's rescoring and the replays of
:mod:`ladderboard.replay`."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from ladderboard.direction import Direction

__all__ = [
    "BoardRow",
    "Record",
    "Standing",
    "auto_select",
    "by_team",
    "current_best",
    "final_selection",
    "private_board",
    "public_board",
    "public_order",
    "rank_entries",
    "rank_standings",
    "ranked",
    "same_score",
    "team_standing",
]

When = TypeVar("When", datetime, int)
"""When a submission was made: a time (live boards), or a replay's submission index."""
_When_co = TypeVar("_When_co", covariant=True)
_Id_co = TypeVar("_Id_co", covariant=True)


@dataclass(frozen=True)
class BoardRow:
    """A team's place; ``number`` is the team's own number of the
    submission that gives its score (``None`` when the board does not say).
    (A kept board copies rows to new ranks through their ``__dict__``,
    :func:`ladderboard.engine.kept_board._renumbered`: a test holds it to
    ``dataclasses.replace``.)"""

    rank: int
    team: str
    score: float
    entries: int
    last_submission: datetime | None
    number: int | None


@dataclass(frozen=True)
class Record(Generic[When]):
    """One scored submission, as the boards need it. ``id`` names it: its
    database id in the engine (never the team's own number, which the engine
    gives a board's rows), or its index in a replay. ``created_at`` orders a
    team's submissions: a time, or a replay's submission index."""

    id: int
    team: str
    created_at: When
    public_score: float
    private_score: float
    selected: bool = False
    improved: bool = False  # the mechanism took it as the team's best (organiser-side)


@dataclass(frozen=True)
class Standing(Generic[_When_co, _Id_co]):
    """A team's score on a board, before it is numbered. ``last_submission``
    is its latest submission's time (or index, in a replay; ``None`` on a
    per-rank board for a team with no records); ``submission_id`` is the id of
    the submission that gives the score (``None`` on a per-rank board)."""

    team: str
    score: float
    entries: int
    last_submission: _When_co
    submission_id: _Id_co


def same_score(a: float, b: float) -> bool:
    """Equal scores, NaN equal to NaN (a metric undefined on both)."""
    return a == b or (math.isnan(a) and math.isnan(b))


def _key(direction: Direction):
    """Best score first (NaN last), then the earlier submission."""
    return lambda score, when, ident: (direction.key(score), when, ident)


def by_team(records: Iterable[Record[When]]) -> dict[str, list[Record[When]]]:
    """Each team's records, oldest first."""
    teams: dict[str, list[Record[When]]] = {}
    for record in sorted(records, key=lambda r: (r.created_at, r.id)):
        teams.setdefault(record.team, []).append(record)
    return teams


def current_best(rows: Sequence[Record[When]]) -> Record[When] | None:
    """The record the mechanism holds as the team's best: the latest one it
    took as a new best (``improved``), or ``None`` if it took none (a Shaky
    Ladder's file that never passed its noisy test, a first file that did not
    beat a baseline). ``rows`` are the team's records, oldest first.

    On a ladder this, not the latest file, is what the board's score is
    about: a release states the current best (Blum & Hardt 2015, Fig. 1-2;
    Chaibub Neto et al. 2016, Alg. 4-6)."""
    return next((r for r in reversed(rows) if r.improved), None)


def team_standing(
    rows: Sequence[Record[When]],
    *,
    direction: Direction,
    release_is_current_best: bool,
    release_hides_decision: bool = False,
) -> tuple[Standing[When, int], When]:
    """One team's place on the public board from its records, oldest first
    (as :func:`by_team` gives them): its standing and the time that orders it
    against teams with the same score (:func:`public_order`).

    Under full disclosure the team's score is its best release, given by the
    first submission to reach it. On a ladder the score is the latest release,
    which states the current best, and it is given by the file the mechanism
    holds as best (:func:`current_best`; the first file while there is none).
    On a board whose releases hide the mechanism's decision
    (``release_hides_decision``: a fresh estimate of the best at every file),
    the standing names the latest submission, whose answer the score is, and
    is ordered by its time: naming or ordering by the best file would tell
    every team which of its files were accepted.
    """
    key = _key(direction)
    if not release_is_current_best:
        reached = min(rows, key=lambda r: key(r.public_score, r.created_at, r.id))
        score = reached.public_score
    else:
        score = rows[-1].public_score
        reached = rows[-1] if release_hides_decision else current_best(rows) or rows[0]
    standing = Standing(rows[0].team, score, len(rows), rows[-1].created_at, reached.id)
    return standing, reached.created_at


def public_order(
    standings: Iterable[tuple[Standing[Any, int], Any]], *, direction: Direction
) -> list[Standing[Any, int]]:
    """Team standings with the time each one's score was reached, as
    :func:`team_standing` gives them, best first: by score (NaN last), then the
    team that reached it first (then the lower submission id)."""
    key = _key(direction)
    return [
        standing
        for standing, _ in sorted(
            standings, key=lambda item: key(item[0].score, item[1], item[0].submission_id)
        )
    ]


def public_board(
    records: Iterable[Record[When]],
    *,
    direction: Direction,
    release_is_current_best: bool,
    release_hides_decision: bool = False,
) -> list[Standing[When, int]]:
    """Teams ranked by their released public score.

    A team's score is its latest release when each release states the current
    best (the ladders), and its best release otherwise (full disclosure). Ties
    go to the team whose score was reached first (:func:`team_standing`).

    >>> from datetime import datetime, UTC
    >>> from ladderboard.direction import LOWER_IS_BETTER
    >>> t = [datetime(2026, 1, d, tzinfo=UTC) for d in (1, 2, 3, 4)]
    >>> records = [Record(1, "a", t[0], 0.3, 0.31), Record(2, "b", t[1], 0.3, 0.29),
    ...            Record(3, "a", t[2], 0.3, 0.30), Record(4, "c", t[3], 0.2, 0.35)]
    >>> [(s.team, s.score, s.entries) for s in public_board(
    ...     records, direction=LOWER_IS_BETTER, release_is_current_best=True)]
    [('c', 0.2, 1), ('a', 0.3, 2), ('b', 0.3, 1)]
    """
    return public_order(
        (
            team_standing(
                rows,
                direction=direction,
                release_is_current_best=release_is_current_best,
                release_hides_decision=release_hides_decision,
            )
            for rows in by_team(records).values()
        ),
        direction=direction,
    )


def auto_select(
    records: Sequence[Record[When]],
    n_selections: int,
    *,
    direction: Direction,
    by_decision: bool = False,
) -> list[int]:
    """The ids of the submissions a team that selected nothing is given.

    ``by_decision`` (a ladder, whose release states the current best): the
    ``n_selections`` most recent files the mechanism took as the team's best
    (fewer if it took fewer; the team's latest file if it took none, as a
    Shaky Ladder that no file passed). A ladder's release after a
    file that did not become the best is no score of that file (on a bootstrap
    board it is a fresh draw of the best's), so ranking files by their
    releases would pick files by the board's noise. Otherwise (full
    disclosure, each release the file's own score): the best released ones,
    earlier first among equals.

    >>> from ladderboard.direction import LOWER_IS_BETTER
    >>> rows = [Record(1, "a", 1, 0.30, 0.3, improved=True), Record(2, "a", 2, 0.28, 0.9),
    ...         Record(3, "a", 3, 0.29, 0.2, improved=True), Record(4, "a", 4, 0.27, 0.9)]
    >>> auto_select(rows, 2, direction=LOWER_IS_BETTER, by_decision=True)
    [3, 1]
    >>> auto_select(rows, 3, direction=LOWER_IS_BETTER, by_decision=True)
    [3, 1]
    >>> auto_select(rows, 2, direction=LOWER_IS_BETTER)
    [4, 2]
    """
    if by_decision:
        latest_first = sorted(records, key=lambda r: (r.created_at, r.id), reverse=True)
        ranked = [r for r in latest_first if r.improved] or latest_first[:1]
    else:
        key = _key(direction)
        ranked = sorted(records, key=lambda r: key(r.public_score, r.created_at, r.id))
    return [r.id for r in ranked[:n_selections]]


def final_selection(
    records: Iterable[Record[When]],
    n_selections: int,
    *,
    direction: Direction,
    by_decision: bool = False,
) -> set[int]:
    """The ids selected at the close: each team's own choice, or, for a team
    that chose nothing, its :func:`auto_select` ones."""
    chosen: set[int] = set()
    for rows in by_team(records).values():
        own = {r.id for r in rows if r.selected}
        chosen |= own or set(
            auto_select(rows, n_selections, direction=direction, by_decision=by_decision)
        )
    return chosen


def private_board(
    records: Iterable[Record[When]], *, direction: Direction
) -> list[Standing[When, int]]:
    """Teams ranked by the best private score among their selected submissions;
    ties go to the earlier submission."""
    key = _key(direction)
    standings = []
    for team, rows in by_team(records).items():
        chosen = [r for r in rows if r.selected]
        if not chosen:
            continue
        best = min(chosen, key=lambda r: key(r.private_score, r.created_at, r.id))
        standings.append(
            (
                key(best.private_score, best.created_at, best.id),
                Standing(team, best.private_score, len(rows), rows[-1].created_at, best.id),
            )
        )
    return [standing for _, standing in sorted(standings, key=lambda item: item[0])]


def ranked(
    standings: Iterable[Standing[datetime | None, int | None]],
    numbers: Mapping[int, int] | None = None,
) -> list[BoardRow]:
    """Standings, best first, as ranked board rows, each naming its
    submission by the team's own number: ``numbers`` maps a standing's
    submission id to it (a per-rank board's standings name none, and need
    no ``numbers``).

    >>> standings = [Standing("a", 0.2, 3, None, 7), Standing("b", 0.3, 1, None, None)]
    >>> [(row.rank, row.team, row.number) for row in ranked(standings, {7: 2})]
    [(1, 'a', 2), (2, 'b', None)]
    """
    found = numbers or {}
    return [
        BoardRow(
            rank,
            s.team,
            s.score,
            s.entries,
            s.last_submission,
            None if s.submission_id is None else found[s.submission_id],
        )
        for rank, s in enumerate(standings, 1)
    ]


def rank_standings(
    entries: list[dict[str, Any]], names: dict[int, str], records: Iterable[Record[datetime]]
) -> list[Standing[datetime | None, None]]:
    """The public standings of a per-rank board: its ranked entries, best
    first (``names`` maps team ids to names; ``records`` give each team's
    count and time of submissions)."""
    activity = {team: (len(rows), rows[-1].created_at) for team, rows in by_team(records).items()}
    return rank_entries(entries, names, activity)


def rank_entries(
    entries: list[dict[str, Any]],
    names: dict[int, str],
    activity: Mapping[str, tuple[int, datetime]],
) -> list[Standing[datetime | None, None]]:
    """:func:`rank_standings` from each team's count of submissions and the
    time of its latest (``activity``, by team name; a team absent has none)."""
    standings = []
    for entry in entries:
        name = names[entry["team"]]
        count, last = activity.get(name, (0, None))
        standings.append(Standing(name, entry["score"], count, last, None))
    return standings
