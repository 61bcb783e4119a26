"""The statements of a competition in phases: the phases of a series, and
the rows a later phase keeps for the first phase's teams.

A series is a first phase (a competition whose ``first_phase_id`` is
``NULL``) and the competitions naming it as their first phase, in the order
they were created. Teams form in the first phase; a later phase holds a row
per first-phase team (``teams.home_team_id``), without a token or members of
its own, so that its submissions, numbers, quotas and boards are the
phase's own.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ladderboard.store.models import CompetitionRow, SubmissionRow, TeamRow

__all__ = [
    "later_phases",
    "later_submissions",
    "team_at_home",
    "team_in_phases",
]


def later_phases(session: Session, first_phase_id: int) -> list[CompetitionRow]:
    """The later phases of the series whose first phase has this id, in order."""
    return list(
        session.scalars(
            select(CompetitionRow)
            .where(CompetitionRow.first_phase_id == first_phase_id)
            .order_by(CompetitionRow.id)
        )
    )


def team_in_phases(session: Session, home_team_id: int) -> list[TeamRow]:
    """The rows of a first-phase team in the later phases, in order."""
    return list(
        session.scalars(
            select(TeamRow)
            .where(TeamRow.home_team_id == home_team_id, TeamRow.id != home_team_id)
            .order_by(TeamRow.id)
        )
    )


def team_at_home(session: Session, competition_id: int, home_team_id: int) -> TeamRow | None:
    """The competition's row of the first-phase team ``home_team_id``."""
    return session.scalars(
        select(TeamRow).where(
            TeamRow.competition_id == competition_id, TeamRow.home_team_id == home_team_id
        )
    ).first()


def later_submissions(session: Session, home_team_ids: tuple[int, ...]) -> int:
    """The submissions of these first-phase teams in the later phases."""
    return (
        session.scalar(
            select(func.count(SubmissionRow.id))
            .join(TeamRow, TeamRow.id == SubmissionRow.team_id)
            .where(TeamRow.home_team_id.in_(home_team_ids), TeamRow.id.not_in(home_team_ids))
        )
        or 0
    )
