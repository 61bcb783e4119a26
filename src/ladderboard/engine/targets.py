"""Where a submission goes: a competition and a team as a submission reads
them (:class:`Target`, kept in process: :mod:`~ladderboard.engine.caches`),
and the refusals that need no file: a closed competition, a disabled team."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from ladderboard.engine import lookup
from ladderboard.engine.context import EngineContext
from ladderboard.engine.errors import (
    CompetitionClosed,
    NotOpenYet,
    TeamDisabled,
)
from ladderboard.engine.results import (
    BOARD_SCOPE,
    aware,
    is_closed,
    team_scope,
)
from ladderboard.engine.scorable import refuse_unscorable
from ladderboard.files.solution import Solution
from ladderboard.files.submission import (
    parse_submission,
)
from ladderboard.rules.config import CompetitionConfig, Scoring
from ladderboard.rules.scoring import Scored, ScoringScratch, score_predictions
from ladderboard.store import statements
from ladderboard.store.clock import store_time

__all__ = [
    "StaleTarget",
    "Target",
    "open_target",
    "read_target",
    "refuse_if_closed",
    "refuse_if_disabled",
    "refuse_if_not_open",
]


@dataclass(frozen=True, slots=True)
class Target:
    """Where a submission goes: what never changes of a competition and a
    team, read once per process. What does change (the close, the team's
    counts) is read under the lock, with the competition's
    ``settings_version``: a target kept from before an edit of the quotas,
    the size limit or the deadline is read again."""

    competition_id: int
    team_id: int
    config: CompetitionConfig
    scoring: Scoring  # config.scoring(), built once
    deadline: datetime | None
    solution: Solution
    checked: bool  # the solution's targets suit the scoring (check_targets)
    classes: Any  # the solution's classes a prediction must be one of, or None
    commitment: str  # unique to the competition's creation
    settings_version: int  # counts the edits of ``config`` and ``deadline``

    @property
    def scope(self) -> str:
        """The lock scope of the target's board: its team's, or the whole per-rank board."""
        return BOARD_SCOPE if self.config.board == "per-rank" else team_scope(self.team_id)

    def parse(self, data: bytes) -> Any:
        """``data``'s predictions, aligned with this competition's solution."""
        return parse_submission(
            data,
            self.solution,
            max_bytes=self.config.max_bytes,
            probabilities=self.scoring.requires_probabilities,
            classes=self.classes,
        )

    def score(self, predictions: Any, scratch: ScoringScratch | None = None) -> Scored:
        """The public and private scores of ``predictions`` (the losses
        written into ``scratch`` when given).

        Whether a file is scored is decided on all its scored rows together,
        never on one part, so that no refusal tells a public row from a
        private one: a file whose score of all rows is not a finite number is
        refused (a correlation of predictions all the same; a loss past the
        largest float on some row, or in all), as no board can rank it and
        SQLite cannot even store it. A part on which the metric alone is
        undefined (predictions constant on the public rows, or on the
        private ones) is scored as the metric's worst value, as the metric
        mechanisms score it (see :class:`~ladderboard.rules.scoring.Scored`)."""
        solution = self.solution
        scored = score_predictions(
            self.scoring,
            solution.targets,
            predictions,
            solution.public_rows,
            solution.private_rows,
            checked=self.checked,
            scratch=scratch,
        )
        refuse_unscorable(self.scoring, scored)
        return scored


class StaleTarget(Exception):
    """The competition under a slug is not the one a cached target read (it
    was created again): nothing was written, and the submission is retried."""


def refuse_if_closed(
    slug: str, closed_at: datetime | None, deadline: datetime | None, now: datetime
) -> None:
    """:class:`CompetitionClosed` if the competition is closed at ``now``."""
    if is_closed(aware(closed_at), aware(deadline), now):
        raise CompetitionClosed(f"competition {slug!r} is closed")


def refuse_if_not_open(slug: str, opens_at: datetime | None, now: datetime) -> None:
    """:class:`NotOpenYet` if the competition's submissions open after ``now``."""
    if opens_at is not None and now < opens_at:
        raise NotOpenYet(
            f"competition {slug!r} opens at {opens_at:%Y-%m-%d %H:%M:%S} UTC: "
            "no file is taken before it"
        )


def refuse_if_disabled(team: str, disabled_at: datetime | None) -> None:
    """:class:`TeamDisabled` if the organiser disabled the team."""
    if disabled_at is not None:
        raise TeamDisabled(f"team {team!r} is disabled by the organiser")


def open_target(context: EngineContext, slug: str, team: str, now: datetime) -> Target:
    """The target, refused at once when its deadline has passed by the
    store's time. The deadline a target was read with may since have
    been extended (by this process or another): a target past it by this
    host's clock is read afresh, and the store's time asked, before the
    refusal. The close itself is decided again under the lock.

    Likewise before the opening time by this host's clock: the target is
    read afresh (the organiser may have moved the opening) and refused
    unless the store's time has passed it (:class:`NotOpenYet`); the
    opening is checked again under the lock."""
    target = read_target(context, slug, team)
    opens_at = target.config.opens_at
    if opens_at is not None and now < opens_at:
        context.caches.targets.pop((slug, team), None)
        target = read_target(context, slug, team)
        with context.reader.connect() as connection:
            store_now = store_time(connection, context.store_now())
        refuse_if_not_open(slug, target.config.opens_at, store_now)
    if target.deadline is not None and now >= target.deadline:
        context.caches.targets.pop((slug, team), None)
        target = read_target(context, slug, team)
        with context.reader.connect() as connection:
            store_now = store_time(connection, context.store_now())
        refuse_if_closed(slug, None, target.deadline, store_now)
    return target


def read_target(context: EngineContext, slug: str, team: str) -> Target:
    """The competition and team a submission goes to: one query the first
    time, then this process's copy. What of them may change (the
    deadline, the team's being disabled) is read again where it decides."""
    targets = context.caches.targets
    found = targets.get((slug, team))
    if found is not None:
        return found
    lookup.refuse_impossible(slug, team)
    caches = context.caches
    with context.reader.connect() as connection:
        row = statements.target(connection, slug, team)
        if row is None:  # say which of the two is missing
            with Session(bind=connection) as session:
                lookup.team(session, lookup.competition(session, slug), team)
        solution = caches.solutions.lookup(row.competition_id, row.solution_sha256, connection)
    config = lookup.config(row.config)
    scoring = config.scoring()
    target = Target(
        competition_id=row.competition_id,
        team_id=row.team_id,
        config=config,
        scoring=scoring,
        deadline=aware(row.deadline),
        solution=solution,
        checked=caches.solutions.suits((row.competition_id, row.commitment), solution, scoring),
        classes=solution.classes if scoring.takes_labels else None,
        commitment=row.commitment,
        settings_version=row.settings_version,
    )
    targets[slug, team] = target
    return target
