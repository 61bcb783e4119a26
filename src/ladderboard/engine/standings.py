"""A team's standing on the public board after its submission, as the
columns the store keeps (``team_standings``), by the rule the whole board is
built by (:func:`~ladderboard.rules.boards.team_standing`)."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from ladderboard.engine.results import (
    aware,
)
from ladderboard.engine.targets import Target
from ladderboard.mechanisms import MECHANISMS
from ladderboard.rules.boards import Record, Standing, by_team, team_standing
from ladderboard.store import statements

__all__ = ["standing_after", "standing_columns"]


def standing_after(
    connection: Connection,
    target: Target,
    release: tuple[int, datetime, float, int, bool],
    previous: statements.StoredStanding | None,
) -> dict[str, Any]:
    """The team's standing on the public board after its submission
    ``release`` (``(id, created_at, public_score, number, improved)``, just
    stored), as the columns :func:`~ladderboard.store.statements.store_standing`
    writes, by the rule the whole board is built by
    (:func:`~ladderboard.rules.boards.team_standing`), from ``previous``,
    the standing before it (read with the team's counts, under the lock):
    under full disclosure the team's best release, given by the first
    submission to reach it; on a ladder its latest release, given by the file
    the mechanism holds as best (or by this submission, where the releases hide
    which file that is). Reads no row, rather than the team's whole history,
    when the submission is the team's latest in time (as it is unless clocks
    disagree)."""
    ident, created, score, number, improved = release
    if math.isnan(score) or (previous is not None and created < aware(previous.last_submission_at)):
        # NaN never compares better, and a submission stamped before the
        # team's latest (a worker's clock behind another's) is not the last
        # in the board's order: apply the rule to the whole history.
        return _standing_from_history(connection, target)
    reached = (ident, created, number)
    if previous is not None:
        kept = (previous.submission_id, previous.submission_at, previous.submission_number)
        mechanism = MECHANISMS[target.config.mechanism]
        if mechanism.release_is_current_best:
            if not (improved or mechanism.release_hides_decision):
                reached = kept
        elif not target.scoring.direction.key(score) < target.scoring.direction.key(
            previous.score
        ):  # the best release stays (a later one wins no tie)
            score, reached = previous.score, kept
    return {
        "score": score,
        "entries": 1 if previous is None else previous.entries + 1,
        "last_submission_at": created,
        "submission_id": reached[0],
        "submission_number": reached[2],
        "submission_at": reached[1],
    }


def _standing_from_history(connection: Connection, target: Target) -> dict[str, Any]:
    """:func:`standing_after` by the rule applied to all the team's releases."""
    rows = statements.team_releases(connection, target.team_id)
    records = [
        Record(r.id, "", r.created_at, r.public_score, r.public_score, improved=bool(r.improved))
        for r in rows
    ]
    (ordered,) = by_team(records).values()
    mechanism = MECHANISMS[target.config.mechanism]
    standing, reached_at = team_standing(
        ordered,
        direction=target.scoring.direction,
        release_is_current_best=mechanism.release_is_current_best,
        release_hides_decision=mechanism.release_hides_decision,
    )
    numbers = {r.id: r.number for r in rows}
    return standing_columns(standing, reached_at, numbers[standing.submission_id])


def standing_columns(standing: Standing, reached_at: datetime, number: int) -> dict[str, Any]:
    """The stored columns of a team's ``standing`` (as
    :func:`~ladderboard.rules.boards.team_standing` gives it, with the time
    its score was reached), ``number`` being the team's own number of the
    submission that gives it."""
    return {
        "score": standing.score,
        "entries": standing.entries,
        "last_submission_at": standing.last_submission,
        "submission_id": standing.submission_id,
        "submission_number": number,
        "submission_at": reached_at,
    }
