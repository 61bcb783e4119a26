"""The statements of people: accounts, their identities, sessions and API
tokens, their teams and registrations, the organisers of each competition,
and the log of organiser actions.

Every secret here (a session cookie, an API token) is kept as its SHA-256
only: a copy of the store signs nobody in.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, func, select, true, update
from sqlalchemy.orm import Session

from ladderboard.store.models import (
    AccountIdentityRow,
    AccountRow,
    AccountSessionRow,
    ApiTokenRow,
    CompetitionOrganiserRow,
    CompetitionRegistrationRow,
    CompetitionRow,
    OrganiserActionRow,
    TeamMemberRow,
    TeamRow,
    table_of,
)

__all__ = [
    "account_by_handle_key",
    "account_of_session",
    "account_of_token",
    "accounts_by_email",
    "actions",
    "add_action",
    "competition_id",
    "competitions_of",
    "count_members",
    "delete_expired_sessions",
    "identity_account",
    "identity_emails",
    "member_of",
    "members",
    "organiser_role",
    "organisers",
    "people",
    "registrations",
    "team_of_account",
    "tokens",
    "touch_token",
]


def competition_id(connection: Connection, slug: str) -> int | None:
    return connection.execute(select(CompetitionRow.id).where(CompetitionRow.slug == slug)).scalar()


def account_by_handle_key(connection: Connection, handle_key: str) -> Any:
    return connection.execute(select(AccountRow).where(AccountRow.handle_key == handle_key)).first()


def accounts_by_email(connection: Connection, email: str) -> list[Any]:
    return list(
        connection.execute(
            select(AccountRow).where(AccountRow.email == email).order_by(AccountRow.id)
        ).all()
    )


def identity_account(connection: Connection, issuer: str, subject: str) -> Any:
    return connection.execute(
        select(AccountRow)
        .join(AccountIdentityRow, AccountIdentityRow.account_id == AccountRow.id)
        .where(AccountIdentityRow.issuer == issuer, AccountIdentityRow.subject == subject)
    ).first()


def account_of_session(connection: Connection, sha256: str, now: datetime) -> Any:
    """The enabled account of the session with this cookie hash, unexpired."""
    return connection.execute(
        select(AccountRow)
        .join(AccountSessionRow, AccountSessionRow.account_id == AccountRow.id)
        .where(
            AccountSessionRow.sha256 == sha256,
            AccountSessionRow.expires_at > now,
            AccountRow.disabled_at.is_(None),
        )
    ).first()


def delete_expired_sessions(connection: Connection, now: datetime) -> None:
    connection.execute(delete(AccountSessionRow).where(AccountSessionRow.expires_at <= now))


def account_row(connection: Connection, account_id: int) -> Any:
    return connection.execute(select(AccountRow).where(AccountRow.id == account_id)).first()


def password_hash(connection: Connection, account_id: int) -> str | None:
    return connection.execute(
        select(AccountRow.password_hash).where(AccountRow.id == account_id)
    ).scalar()


def add_session(
    connection: Connection, sha256: str, account_id: int, now: datetime, expires_at: datetime
) -> None:
    connection.execute(
        table_of(AccountSessionRow)
        .insert()
        .values(sha256=sha256, account_id=account_id, created_at=now, expires_at=expires_at)
    )


def delete_session(connection: Connection, sha256: str) -> None:
    connection.execute(delete(AccountSessionRow).where(AccountSessionRow.sha256 == sha256))


def delete_sessions_of(connection: Connection, account_id: int) -> None:
    """Every session of the account (disabling it signs every browser out)."""
    connection.execute(delete(AccountSessionRow).where(AccountSessionRow.account_id == account_id))


def account_of_token(connection: Connection, token_hash: str) -> Any:
    """The account's columns, ``token_id`` and ``token_used_at`` of the live
    token with this hash."""
    return connection.execute(
        select(
            AccountRow,
            ApiTokenRow.id.label("token_id"),
            ApiTokenRow.last_used_at.label("token_used_at"),
        )
        .join(ApiTokenRow, ApiTokenRow.account_id == AccountRow.id)
        .where(
            ApiTokenRow.token_hash == token_hash,
            ApiTokenRow.revoked_at.is_(None),
            AccountRow.disabled_at.is_(None),
        )
    ).first()


def touch_token(connection: Connection, token_id: int, now: datetime) -> None:
    connection.execute(
        update(ApiTokenRow).where(ApiTokenRow.id == token_id).values(last_used_at=now)
    )


def tokens(connection: Connection, account_id: int) -> list[Any]:
    return list(
        connection.execute(
            select(ApiTokenRow).where(ApiTokenRow.account_id == account_id).order_by(ApiTokenRow.id)
        ).all()
    )


def team_of_account(connection: Connection, slug: str, account_id: int) -> Any:
    """``(id, name, created_at, disabled_at, role)`` of the account's team in
    competition ``slug``, or ``None``. The account is a member of a team of
    the series' first phase; in a later phase its team is that team's row
    there (``TeamRow.home_team_id``)."""
    return connection.execute(
        select(
            TeamRow.id, TeamRow.name, TeamRow.created_at, TeamRow.disabled_at, TeamMemberRow.role
        )
        .select_from(TeamMemberRow)
        .join(TeamRow, TeamRow.home_team_id == TeamMemberRow.team_id)
        .join(CompetitionRow, CompetitionRow.id == TeamRow.competition_id)
        .where(CompetitionRow.slug == slug, TeamMemberRow.account_id == account_id)
    ).first()


def member_of(session: Session, competition_id: int, account_id: int) -> TeamMemberRow | None:
    return session.scalars(
        select(TeamMemberRow).where(
            TeamMemberRow.competition_id == competition_id,
            TeamMemberRow.account_id == account_id,
        )
    ).first()


def members(connection: Connection, team_id: int) -> list[Any]:
    """``(account id, handle, role, joined_at)`` of a team's members, oldest first."""
    return list(
        connection.execute(
            select(AccountRow.id, AccountRow.handle, TeamMemberRow.role, TeamMemberRow.joined_at)
            .join(TeamMemberRow, TeamMemberRow.account_id == AccountRow.id)
            .where(TeamMemberRow.team_id == team_id)
            .order_by(TeamMemberRow.joined_at, TeamMemberRow.id)
        ).all()
    )


def competitions_of(connection: Connection, account_id: int) -> list[Any]:
    """``(slug, how)`` of every competition the account belongs to: as a
    team's member ("member", in every phase of its team's series), a
    registered account ("registered"), or an organiser (its role)."""
    teams = (
        select(CompetitionRow.slug, TeamMemberRow.role)
        .select_from(TeamMemberRow)
        .join(TeamRow, TeamRow.home_team_id == TeamMemberRow.team_id)
        .join(CompetitionRow, CompetitionRow.id == TeamRow.competition_id)
        .where(TeamMemberRow.account_id == account_id)
    )
    registered = (
        select(CompetitionRow.slug)
        .join(
            CompetitionRegistrationRow,
            CompetitionRegistrationRow.competition_id == CompetitionRow.id,
        )
        .where(CompetitionRegistrationRow.account_id == account_id)
    )
    organised = (
        select(CompetitionRow.slug, CompetitionOrganiserRow.role)
        .join(
            CompetitionOrganiserRow,
            CompetitionOrganiserRow.competition_id == CompetitionRow.id,
        )
        .where(CompetitionOrganiserRow.account_id == account_id)
    )
    found: dict[str, str] = {}
    for slug in connection.execute(registered).scalars():
        found[slug] = "registered"
    for slug, _ in connection.execute(teams).all():
        found[slug] = "member"
    for slug, role in connection.execute(organised).all():
        found[slug] = role
    return sorted(found.items())


def registrations(
    connection: Connection, competition_id: int, account_id: int | None = None
) -> list[Any]:
    """Each registration of the competition (of ``account_id`` alone, when
    given) with the account's handle and its team's name (``None`` without
    a team), oldest first."""
    team = (
        select(TeamRow.name)
        .join(TeamMemberRow, TeamMemberRow.team_id == TeamRow.id)
        .where(
            TeamMemberRow.competition_id == competition_id,
            TeamMemberRow.account_id == CompetitionRegistrationRow.account_id,
        )
        .scalar_subquery()
    )
    one = true() if account_id is None else CompetitionRegistrationRow.account_id == account_id
    return list(
        connection.execute(
            select(
                CompetitionRegistrationRow.account_id,
                AccountRow.handle,
                team.label("team"),
                CompetitionRegistrationRow.accepted_rules_at,
                CompetitionRegistrationRow.rules_sha256,
                CompetitionRegistrationRow.via,
                CompetitionRegistrationRow.invitation,
            )
            .join(AccountRow, AccountRow.id == CompetitionRegistrationRow.account_id)
            .where(CompetitionRegistrationRow.competition_id == competition_id, one)
            .order_by(CompetitionRegistrationRow.accepted_rules_at, AccountRow.id)
        ).all()
    )


def organiser_role(connection: Connection, slug: str, account_id: int) -> str | None:
    return connection.execute(
        select(CompetitionOrganiserRow.role)
        .join(CompetitionRow, CompetitionRow.id == CompetitionOrganiserRow.competition_id)
        .where(CompetitionRow.slug == slug, CompetitionOrganiserRow.account_id == account_id)
    ).scalar()


def organisers(connection: Connection, competition_id: int) -> list[Any]:
    """``(account id, handle, role, added_at, added_by)``, owners first."""
    return list(
        connection.execute(
            select(
                AccountRow.id,
                AccountRow.handle,
                CompetitionOrganiserRow.role,
                CompetitionOrganiserRow.added_at,
                CompetitionOrganiserRow.added_by,
            )
            .join(AccountRow, AccountRow.id == CompetitionOrganiserRow.account_id)
            .where(CompetitionOrganiserRow.competition_id == competition_id)
            .order_by(CompetitionOrganiserRow.role.desc(), CompetitionOrganiserRow.added_at)
        ).all()
    )


def add_action(
    connection: Connection,
    competition_id: int | None,
    actor: str,
    account_id: int | None,
    action: str,
    detail: dict[str, Any],
    at: datetime,
    address: str,
) -> None:
    connection.execute(
        table_of(OrganiserActionRow)
        .insert()
        .values(
            competition_id=competition_id,
            actor=actor,
            account_id=account_id,
            action=action,
            detail=detail,
            at=at,
            address=address,
        )
    )


def actions(connection: Connection, competition_id: int | None, limit: int) -> list[Any]:
    """The newest ``limit`` actions on the competition (server-wide ones for ``None``)."""
    where = (
        OrganiserActionRow.competition_id.is_(None)
        if competition_id is None
        else OrganiserActionRow.competition_id == competition_id
    )
    return list(
        connection.execute(
            select(
                OrganiserActionRow.at,
                OrganiserActionRow.actor,
                OrganiserActionRow.account_id,
                OrganiserActionRow.action,
                OrganiserActionRow.detail,
                OrganiserActionRow.address,
            )
            .where(where)
            .order_by(OrganiserActionRow.id.desc())
            .limit(limit)
        ).all()
    )


def count_members(session: Session, team_id: int) -> int:
    return (
        session.scalar(
            select(func.count()).select_from(TeamMemberRow).where(TeamMemberRow.team_id == team_id)
        )
        or 0
    )


def people(connection: Connection, competition_id: int) -> list[Any]:
    """``(id, handle, email, created_at, created_from, team)`` of every
    account that joined the competition itself (registered openly or with
    an invitation; ``team`` its team's name, ``None`` without one), in the
    order of their ids. An account the organiser put on the list is left
    out: it never chose to join, and its addresses are not the
    organiser's to read."""
    team = (
        select(TeamRow.name)
        .join(TeamMemberRow, TeamMemberRow.team_id == TeamRow.id)
        .where(
            TeamMemberRow.competition_id == competition_id,
            TeamMemberRow.account_id == AccountRow.id,
        )
        .scalar_subquery()
    )
    joined = select(CompetitionRegistrationRow.account_id).where(
        CompetitionRegistrationRow.competition_id == competition_id,
        CompetitionRegistrationRow.via != "list",
    )
    return list(
        connection.execute(
            select(
                AccountRow.id,
                AccountRow.handle,
                AccountRow.email,
                AccountRow.created_at,
                AccountRow.created_from,
                team.label("team"),
            )
            .where(AccountRow.id.in_(joined))
            .order_by(AccountRow.id)
        ).all()
    )


def identity_emails(connection: Connection, account_ids: list[int]) -> list[Any]:
    """``(account_id, issuer, email)`` of the OpenID Connect identities of
    these accounts that carry an address."""
    if not account_ids:
        return []
    return list(
        connection.execute(
            select(
                AccountIdentityRow.account_id, AccountIdentityRow.issuer, AccountIdentityRow.email
            )
            .where(
                AccountIdentityRow.account_id.in_(account_ids),
                AccountIdentityRow.email.is_not(None),
            )
            .order_by(AccountIdentityRow.id)
        ).all()
    )
