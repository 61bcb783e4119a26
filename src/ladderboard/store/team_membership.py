"""The statements of teams of several members: invitation codes (kept as
their SHA-256 only), merge requests, each team's history, and the counts a
merge is decided on."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func, or_, select, update
from sqlalchemy.orm import Session, aliased

from ladderboard.store.models import (
    AccountRow,
    CompetitionRow,
    SubmissionRow,
    TeamEventRow,
    TeamInvitationRow,
    TeamMergeRow,
    TeamRow,
    table_of,
)

__all__ = [
    "add_event",
    "drop_selections",
    "events",
    "invitation_by_hash",
    "live_invitations",
    "merge_teams",
    "merges_of",
    "pending_merges",
    "quota_submissions",
    "repoint_merged",
    "revoke_invitations",
]


def add_event(
    connection: Connection,
    *,
    competition_id: int,
    team_id: int,
    at: datetime,
    actor: str,
    account_id: int | None,
    event: str,
    detail: dict[str, Any],
) -> None:
    connection.execute(
        table_of(TeamEventRow)
        .insert()
        .values(
            competition_id=competition_id,
            team_id=team_id,
            at=at,
            actor=actor,
            account_id=account_id,
            event=event,
            detail=detail,
        )
    )


def events(connection: Connection, team_id: int) -> list[Any]:
    """``(at, actor, event, detail)`` of the team's history, oldest first."""
    return list(
        connection.execute(
            select(TeamEventRow.at, TeamEventRow.actor, TeamEventRow.event, TeamEventRow.detail)
            .where(TeamEventRow.team_id == team_id)
            .order_by(TeamEventRow.id)
        ).all()
    )


def invitation_by_hash(session: Session, code_hash: str) -> TeamInvitationRow | None:
    return session.scalars(
        select(TeamInvitationRow).where(TeamInvitationRow.code_hash == code_hash)
    ).first()


def live_invitations(connection: Connection, team_id: int, now: datetime) -> list[Any]:
    """``(id, created_at, expires_at, created_by handle)`` of the team's
    invitations not used, revoked or expired, oldest first."""
    return list(
        connection.execute(
            select(
                TeamInvitationRow.id,
                TeamInvitationRow.created_at,
                TeamInvitationRow.expires_at,
                AccountRow.handle,
            )
            .outerjoin(AccountRow, AccountRow.id == TeamInvitationRow.created_by)
            .where(
                TeamInvitationRow.team_id == team_id,
                TeamInvitationRow.used_at.is_(None),
                TeamInvitationRow.revoked_at.is_(None),
                TeamInvitationRow.expires_at > now,
            )
            .order_by(TeamInvitationRow.id)
        ).all()
    )


def revoke_invitations(connection: Connection, team_id: int, now: datetime) -> None:
    """Revoke every unused invitation of the team."""
    connection.execute(
        update(TeamInvitationRow)
        .where(
            TeamInvitationRow.team_id == team_id,
            TeamInvitationRow.used_at.is_(None),
            TeamInvitationRow.revoked_at.is_(None),
        )
        .values(revoked_at=now)
    )


_FROM = aliased(TeamRow, name="from_team")
_INTO = aliased(TeamRow, name="into_team")
_MERGE_COLUMNS = (
    TeamMergeRow.id,
    TeamMergeRow.from_team_id,
    _FROM.name.label("from_team"),
    TeamMergeRow.into_team_id,
    _INTO.name.label("into_team"),
    TeamMergeRow.requested_at,
    TeamMergeRow.status,
    TeamMergeRow.answered_at,
)


def _merges() -> Any:
    return (
        select(*_MERGE_COLUMNS)
        .join(_FROM, _FROM.id == TeamMergeRow.from_team_id)
        .join(_INTO, _INTO.id == TeamMergeRow.into_team_id)
    )


def pending_merges(connection: Connection, team_id: int) -> list[Any]:
    """The pending merge requests from or into the team, oldest first."""
    return list(
        connection.execute(
            _merges()
            .where(
                or_(TeamMergeRow.from_team_id == team_id, TeamMergeRow.into_team_id == team_id),
                TeamMergeRow.status == "pending",
            )
            .order_by(TeamMergeRow.id)
        ).all()
    )


def merges_of(session: Session, team_ids: tuple[int, ...]) -> list[TeamMergeRow]:
    """The pending merge requests from or into any of the teams."""
    return list(
        session.scalars(
            select(TeamMergeRow).where(
                or_(
                    TeamMergeRow.from_team_id.in_(team_ids),
                    TeamMergeRow.into_team_id.in_(team_ids),
                ),
                TeamMergeRow.status == "pending",
            )
        ).all()
    )


def quota_submissions(session: Session, team_id: int) -> int:
    """The valid submissions a team's quotas count: its own and those of
    the retired teams merged into it."""
    merged = select(TeamRow.id).where(TeamRow.merged_into_id == team_id)
    return (
        session.scalar(
            select(func.count())
            .select_from(SubmissionRow)
            .where(or_(SubmissionRow.team_id == team_id, SubmissionRow.team_id.in_(merged)))
        )
        or 0
    )


def merge_teams(connection: Connection, slug: str, merge_id: int) -> Any:
    """``(competition id, from team id, into team id, competition config)``
    of merge ``merge_id`` in competition ``slug``, or ``None``."""
    return connection.execute(
        select(
            TeamMergeRow.competition_id,
            TeamMergeRow.from_team_id,
            TeamMergeRow.into_team_id,
            CompetitionRow.config,
        )
        .join(CompetitionRow, CompetitionRow.id == TeamMergeRow.competition_id)
        .where(TeamMergeRow.id == merge_id, CompetitionRow.slug == slug)
    ).first()


def repoint_merged(connection: Connection, retired_id: int, into_id: int) -> None:
    """The teams merged into ``retired_id`` now count in ``into_id``'s quotas,
    with ``retired_id`` itself."""
    connection.execute(
        update(TeamRow)
        .where(or_(TeamRow.merged_into_id == retired_id, TeamRow.id == retired_id))
        .values(merged_into_id=into_id)
    )


def drop_selections(connection: Connection, team_id: int) -> None:
    """Unselect every submission of the team."""
    connection.execute(
        update(SubmissionRow)
        .where(SubmissionRow.team_id == team_id, SubmissionRow.selected.is_(True))
        .values(selected=False)
    )
