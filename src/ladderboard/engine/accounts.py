"""People: accounts and how they sign in, their personal API tokens, their
teams, their registrations, the organisers of each competition, and the log
of what organisers did.

An account is one person. In a competition it is a member of at most one
team (quotas stay per team: every member's token spends the team's), is
registered with the rules it accepted, or organises it (an owner or a
co-organiser). A team on the organiser's list keeps its own token as
before; a team an account creates has no token of its own, only its
members' personal tokens.

The per-team board's guarantee (Blum & Hardt 2015, Sec. 2.1) counts one
adaptive analyst per team: one account per person, one team per account
and competition is what makes that count honest, which is why membership is
unique per competition in the store itself.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ladderboard.engine import lookup
from ladderboard.engine.context import EngineContext
from ladderboard.engine.errors import CompetitionClosed, Conflict, NotFound
from ladderboard.engine.results import TeamInfo, aware
from ladderboard.engine.teams import Teams
from ladderboard.rules.text import check_text, name_key
from ladderboard.store import accounts as queries
from ladderboard.store.database import writer_turn
from ladderboard.store.models import (
    AccountIdentityRow,
    AccountRow,
    ApiTokenRow,
    CompetitionOrganiserRow,
    CompetitionRegistrationRow,
    TeamMemberRow,
)

__all__ = [
    "ACCOUNT_ROLES",
    "ORGANISER_ROLES",
    "AccountInfo",
    "Accounts",
    "ActionInfo",
    "ApiTokenInfo",
    "MemberInfo",
    "OrganiserInfo",
    "RegistrationInfo",
    "token_digest",
]

ACCOUNT_ROLES = ("participant", "organiser", "admin")
"""An account's standing on the server: a participant; an organiser, who
may create competitions; an administrator, who may do anything."""
ORGANISER_ROLES = ("owner", "co-organiser")
"""An account's role in a competition it organises."""
HANDLE_CHARS = 100
EMAIL_CHARS = 320
LABEL_CHARS = 100
TOUCH_EVERY = timedelta(minutes=5)
"""How stale a token's recorded last use may be before a use writes it."""


def token_digest(secret: str) -> str:
    """The SHA-256 under which a cookie or token is stored (the same as a
    team token's, :func:`ladderboard.server.deps.hash_token`)."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class AccountInfo:
    id: int
    handle: str
    email: str | None
    email_verified: bool
    role: str
    created_at: datetime
    created_from: str
    disabled: bool
    has_password: bool

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    @property
    def may_organise(self) -> bool:
        """Whether the account may create competitions."""
        return self.role in ("organiser", "admin")


@dataclass(frozen=True)
class ApiTokenInfo:
    id: int
    label: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


@dataclass(frozen=True)
class MemberInfo:
    account_id: int
    handle: str
    role: str  # captain | member
    joined_at: datetime


@dataclass(frozen=True)
class RegistrationInfo:
    account_id: int
    handle: str
    team: str | None
    accepted_rules_at: datetime
    rules_sha256: str
    via: str
    invitation: str | None


@dataclass(frozen=True)
class OrganiserInfo:
    account_id: int
    handle: str
    role: str
    added_at: datetime
    added_by: str


@dataclass(frozen=True)
class ActionInfo:
    at: datetime
    actor: str
    account_id: int | None
    action: str
    detail: dict[str, Any]
    address: str


def _account(row: Any) -> AccountInfo:
    return AccountInfo(
        id=row.id,
        handle=row.handle,
        email=row.email,
        email_verified=row.email_verified_at is not None,
        role=row.role,
        created_at=aware(row.created_at),
        created_from=row.created_from,
        disabled=row.disabled_at is not None,
        has_password=row.password_hash is not None,
    )


def _token(row: Any) -> ApiTokenInfo:
    return ApiTokenInfo(
        row.id,
        row.label,
        aware(row.created_at),
        aware(row.last_used_at),
        aware(row.revoked_at),
    )


def _email(email: str | None) -> str | None:
    """An address as stored: trimmed and lower-cased (two spellings of one
    address are one address), or ``None``."""
    if email is None:
        return None
    check_text("email", email, max_chars=EMAIL_CHARS)
    email = email.strip().lower()
    local, at, domain = email.partition("@")
    if not (local and at and domain) or any(c.isspace() for c in email):
        raise ValueError(f"{email!r} is not an email address")
    return email


def _competition_id(connection: Any, slug: str) -> int:
    lookup.refuse_impossible(slug)
    found = queries.competition_id(connection, slug)
    if found is None:
        raise NotFound(f"no competition {slug!r}")
    return found


def _handle_key(handle: str) -> str:
    return hashlib.sha256(name_key(handle).encode()).hexdigest()


class Accounts:
    """The people of the server, over ``context``; ``teams`` registers the
    teams accounts create."""

    def __init__(self, context: EngineContext, teams: Teams) -> None:
        self.context = context
        self._teams = teams

    # ------------------------------------------------------------ accounts
    def create(
        self,
        handle: str,
        *,
        email: str | None = None,
        email_verified: bool = False,
        password_hash: str | None = None,
        role: str = "participant",
        created_from: str = "",
    ) -> AccountInfo:
        """A new account. Handles are unique under the same folding as team
        names (case, Unicode form, look-alike letters): :class:`Conflict`
        for a taken one, :class:`ValueError` for a bad value."""
        handle = handle.strip() if isinstance(handle, str) else handle
        check_text("handle", handle, max_chars=HANDLE_CHARS)
        if not handle:
            raise ValueError("handle must not be empty")
        if role not in ACCOUNT_ROLES:
            raise ValueError(f"role must be one of {ACCOUNT_ROLES}, got {role!r}")
        email = _email(email)
        now = self.context.clock()
        row = AccountRow(
            handle=handle,
            handle_key=_handle_key(handle),
            email=email,
            email_verified_at=now if email is not None and email_verified else None,
            password_hash=password_hash,
            role=role,
            created_at=now,
            created_from=str(created_from)[:64],
        )
        try:
            with self.context.transaction() as session:
                session.add(row)
                session.flush()
        except IntegrityError:
            raise Conflict(f"the handle {handle!r} is taken (or one that looks like it)") from None
        return _account(row)

    def by_id(self, account_id: int) -> AccountInfo:
        with self.context.reader.connect() as connection:
            row = queries.account_row(connection, account_id)
        if row is None:
            raise NotFound(f"no account {account_id}")
        return _account(row)

    def by_handle(self, handle: str) -> AccountInfo:
        """The account of ``handle`` (under the handles' folding)."""
        if not isinstance(handle, str) or len(handle) > HANDLE_CHARS:
            raise NotFound(f"no account {str(handle)[:120]!r}")
        with self.context.reader.connect() as connection:
            row = queries.account_by_handle_key(connection, _handle_key(handle.strip()))
        if row is None:
            raise NotFound(f"no account {handle!r}")
        return _account(row)

    def by_email(self, email: str) -> list[AccountInfo]:
        try:
            address = _email(email)
        except (TypeError, ValueError):
            return []
        with self.context.reader.connect() as connection:
            return [_account(r) for r in queries.accounts_by_email(connection, address or "")]

    def by_identity(self, issuer: str, subject: str) -> AccountInfo | None:
        with self.context.reader.connect() as connection:
            row = queries.identity_account(connection, issuer, subject)
        return None if row is None else _account(row)

    def link_identity(
        self, account_id: int, issuer: str, subject: str, email: str | None = None
    ) -> None:
        """Let the account sign in with the OpenID Connect identity ``(issuer,
        subject)``; :class:`Conflict` when another account has it."""
        try:
            with self.context.transaction() as session:
                session.add(
                    AccountIdentityRow(
                        account_id=account_id,
                        issuer=issuer,
                        subject=subject,
                        email=_email(email),
                        created_at=self.context.clock(),
                    )
                )
                session.flush()
        except IntegrityError:
            raise Conflict("this identity signs in to another account already") from None

    def _update(self, account_id: int, **values: Any) -> AccountInfo:
        with self.context.transaction() as session:
            row = session.get(AccountRow, account_id)
            if row is None:
                raise NotFound(f"no account {account_id}")
            for name, value in values.items():
                setattr(row, name, value)
            session.flush()
            return _account(row)

    def set_password(self, account_id: int, password_hash: str) -> AccountInfo:
        return self._update(account_id, password_hash=password_hash)

    def set_role(self, account_id: int, role: str) -> AccountInfo:
        if role not in ACCOUNT_ROLES:
            raise ValueError(f"role must be one of {ACCOUNT_ROLES}, got {role!r}")
        return self._update(account_id, role=role)

    def verify_email(self, account_id: int) -> AccountInfo:
        return self._update(account_id, email_verified_at=self.context.clock())

    def set_disabled(self, account_id: int, disabled: bool) -> AccountInfo:
        """Disable an account (its sessions and tokens stop working at once)
        or enable it again."""
        with self.context.transaction() as session:
            row = session.get(AccountRow, account_id)
            if row is None:
                raise NotFound(f"no account {account_id}")
            row.disabled_at = self.context.clock() if disabled else None
            if disabled:
                queries.delete_sessions_of(session.connection(), account_id)
            session.flush()
            return _account(row)

    def password_hash_of(self, handle_or_email: str) -> tuple[AccountInfo, str] | None:
        """The enabled account a sign-in names (its handle, or a verified
        email that one account alone has) with its password hash; ``None`` when there
        is none or it has no password."""
        found: list[AccountInfo] = []
        if "@" in handle_or_email:
            # Only a verified address names an account: anyone may sign up
            # with an address they do not own, and must not thereby block
            # (or take) its owner's sign-in by email.
            found = [a for a in self.by_email(handle_or_email) if a.email_verified]
        else:
            with contextlib.suppress(NotFound):
                found = [self.by_handle(handle_or_email)]
        if len(found) != 1 or found[0].disabled:
            return None
        with self.context.reader.connect() as connection:
            password_hash = queries.password_hash(connection, found[0].id)
        return None if password_hash is None else (found[0], password_hash)

    # ------------------------------------------------------------ sessions
    def open_session(self, account_id: int, lifetime: timedelta) -> str:
        """A new browser session's cookie for the account (only its hash is
        stored); expired sessions are deleted meanwhile."""
        cookie = secrets.token_urlsafe(32)
        now = self.context.clock()
        with writer_turn(self.context.engine), self.context.engine.begin() as connection:
            queries.delete_expired_sessions(connection, now)
            queries.add_session(connection, token_digest(cookie), account_id, now, now + lifetime)
        return cookie

    def session_account(self, cookie: str) -> AccountInfo | None:
        """The enabled account signed in with ``cookie``, or ``None``."""
        if not cookie:
            return None
        with self.context.reader.connect() as connection:
            row = queries.account_of_session(connection, token_digest(cookie), self.context.clock())
        return None if row is None else _account(row)

    def close_session(self, cookie: str) -> None:
        with writer_turn(self.context.engine), self.context.engine.begin() as connection:
            queries.delete_session(connection, token_digest(cookie))

    # -------------------------------------------------------------- tokens
    def create_token(self, account_id: int, label: str) -> tuple[ApiTokenInfo, str]:
        """A new personal API token, returned this once (only its hash is kept)."""
        label = label.strip() if isinstance(label, str) else label
        check_text("label", label, max_chars=LABEL_CHARS)
        token = secrets.token_urlsafe(32)
        with self.context.transaction() as session:
            if session.get(AccountRow, account_id) is None:
                raise NotFound(f"no account {account_id}")
            row = ApiTokenRow(
                account_id=account_id,
                label=label or "token",
                token_hash=token_digest(token),
                created_at=self.context.clock(),
            )
            session.add(row)
            session.flush()
        return _token(row), token

    def tokens(self, account_id: int) -> list[ApiTokenInfo]:
        with self.context.reader.connect() as connection:
            return [_token(row) for row in queries.tokens(connection, account_id)]

    def _live_token(self, session: Any, account_id: int, token_id: int) -> ApiTokenRow:
        row = session.get(ApiTokenRow, token_id)
        if row is None or row.account_id != account_id or row.revoked_at is not None:
            raise NotFound(f"no live token {token_id} of this account")
        return row

    def revoke_token(self, account_id: int, token_id: int) -> ApiTokenInfo:
        """Refuse the token from now on, on every host of the store."""
        with self.context.transaction() as session:
            row = self._live_token(session, account_id, token_id)
            row.revoked_at = self.context.clock()
            session.flush()
            return _token(row)

    def rotate_token(self, account_id: int, token_id: int) -> tuple[ApiTokenInfo, str]:
        """Revoke the token and issue one with its label, in one transaction."""
        token = secrets.token_urlsafe(32)
        now = self.context.clock()
        with self.context.transaction() as session:
            old = self._live_token(session, account_id, token_id)
            old.revoked_at = now
            row = ApiTokenRow(
                account_id=account_id,
                label=old.label,
                token_hash=token_digest(token),
                created_at=now,
            )
            session.add(row)
            session.flush()
        return _token(row), token

    def account_of_token_hash(self, token_hash: str) -> AccountInfo | None:
        """The enabled account of a live personal token, or ``None``. The
        token's last use is written when the one on record is older than
        :data:`TOUCH_EVERY` (not on every request: a write per request
        would serialise a busy script's reads)."""
        with self.context.reader.connect() as connection:
            row = queries.account_of_token(connection, token_hash)
        if row is None:
            return None
        now = self.context.clock()
        used = aware(row.token_used_at)
        if used is None or now - used > TOUCH_EVERY:
            with writer_turn(self.context.engine), self.context.engine.begin() as connection:
                queries.touch_token(connection, row.token_id, now)
        return _account(row)

    # ---------------------------------------------------------- membership
    def create_account_team(self, slug: str, account_id: int, name: str) -> TeamInfo:
        """A team of competition ``slug`` with no token, the account its
        captain. :class:`Conflict` when the account is in a team of the
        competition already or the name is taken."""
        return self._teams.add_team(slug, name, captain=account_id)

    def add_member(self, slug: str, team_name: str, account_id: int, role: str = "member") -> None:
        """Put the account in the team; :class:`Conflict` when it is in a team
        of the competition already."""
        if role not in ("captain", "member"):
            raise ValueError(f"role must be captain or member, got {role!r}")
        try:
            with self.context.transaction() as session:
                competition, store_now = self.context.locked(session, slug)
                if competition.first_phase_id is not None:
                    raise Conflict(
                        f"{slug!r} is a later phase: its teams and their members are its "
                        "first phase's"
                    )
                if lookup.info(competition).is_closed(store_now):
                    raise CompetitionClosed(f"competition {slug!r} is closed")
                team = lookup.team(session, competition, team_name)
                if session.get(AccountRow, account_id) is None:
                    raise NotFound(f"no account {account_id}")
                if queries.member_of(session, competition.id, account_id) is not None:
                    raise Conflict(f"the account is in a team of {slug!r} already")
                session.add(
                    TeamMemberRow(
                        competition_id=competition.id,
                        team_id=team.id,
                        account_id=account_id,
                        role=role,
                        joined_at=self.context.clock(),
                    )
                )
                session.flush()
        except IntegrityError:
            raise Conflict(f"the account is in a team of {slug!r} already") from None

    def remove_member(self, slug: str, account_id: int) -> None:
        with self.context.transaction() as session:
            competition = lookup.competition(session, slug)
            if competition.first_phase_id is not None:
                raise Conflict(
                    f"{slug!r} is a later phase: its teams and their members are its first phase's"
                )
            row = queries.member_of(session, competition.id, account_id)
            if row is None:
                raise NotFound(f"the account is in no team of {slug!r}")
            session.delete(row)

    def members(self, slug: str, team_name: str) -> list[MemberInfo]:
        with Session(self.context.reader) as session:  # a read: no writer's turn
            competition = lookup.competition(session, slug)
            team = lookup.team(session, competition, team_name)
            # A later phase's team has its first phase's members.
            rows = queries.members(session.connection(), team.home_team_id or team.id)
        return [MemberInfo(r.id, r.handle, r.role, aware(r.joined_at)) for r in rows]

    def team_of_account(self, slug: str, account_id: int) -> TeamInfo | None:
        """The account's team in competition ``slug``, or ``None``."""
        lookup.refuse_impossible(slug)
        with self.context.reader.connect() as connection:
            row = queries.team_of_account(connection, slug, account_id)
        if row is None:
            return None
        return TeamInfo(row.id, row.name, aware(row.created_at), row.disabled_at is not None)

    def member_role(self, slug: str, account_id: int) -> str | None:
        """``"captain"`` or ``"member"`` in the account's team of ``slug``."""
        lookup.refuse_impossible(slug)
        with self.context.reader.connect() as connection:
            row = queries.team_of_account(connection, slug, account_id)
        return None if row is None else row.role

    def competitions_of(self, account_id: int) -> list[tuple[str, str]]:
        """``(slug, how)`` of each competition the account belongs to."""
        with self.context.reader.connect() as connection:
            return [(slug, how) for slug, how in queries.competitions_of(connection, account_id)]

    # --------------------------------------------------------- registration
    def register(
        self,
        slug: str,
        account_id: int,
        *,
        rules_sha256: str,
        via: str,
        invitation: str | None = None,
    ) -> RegistrationInfo:
        """Record the account's joining with the rules it accepted. Joining
        again records the acceptance of the rules as they are now (the
        rules may have changed) and keeps how it first came in."""
        if via not in ("open", "invitation", "list"):
            raise ValueError(f"via must be open, invitation or list, got {via!r}")
        now = self.context.clock()
        with self.context.transaction() as session:
            competition = lookup.competition(session, slug)
            if session.get(AccountRow, account_id) is None:
                raise NotFound(f"no account {account_id}")
            row = session.get(CompetitionRegistrationRow, (competition.id, account_id))
            if row is None:
                session.add(
                    CompetitionRegistrationRow(
                        competition_id=competition.id,
                        account_id=account_id,
                        accepted_rules_at=now,
                        rules_sha256=rules_sha256,
                        via=via,
                        invitation=invitation,
                    )
                )
            else:
                row.accepted_rules_at = now
                row.rules_sha256 = rules_sha256
            session.flush()
            competition_id = competition.id
        found = self._registration(competition_id, account_id)
        assert found is not None
        return found

    def _registration(self, competition_id: int, account_id: int) -> RegistrationInfo | None:
        with self.context.reader.connect() as connection:
            rows = queries.registrations(connection, competition_id, account_id)
        return _registration(rows[0]) if rows else None

    def registration(self, slug: str, account_id: int) -> RegistrationInfo | None:
        with self.context.reader.connect() as connection:
            competition_id = _competition_id(connection, slug)
        return self._registration(competition_id, account_id)

    def registrations(self, slug: str) -> list[RegistrationInfo]:
        with self.context.reader.connect() as connection:
            competition_id = _competition_id(connection, slug)
            return [_registration(r) for r in queries.registrations(connection, competition_id)]

    # ----------------------------------------------------------- organisers
    def add_organiser(self, slug: str, account_id: int, role: str, added_by: str) -> None:
        """Make the account an owner or co-organiser of the competition (a
        second call changes its role)."""
        if role not in ORGANISER_ROLES:
            raise ValueError(f"role must be one of {ORGANISER_ROLES}, got {role!r}")
        with self.context.transaction() as session:
            competition = lookup.competition(session, slug)
            if session.get(AccountRow, account_id) is None:
                raise NotFound(f"no account {account_id}")
            row = session.get(CompetitionOrganiserRow, (competition.id, account_id))
            if row is None:
                session.add(
                    CompetitionOrganiserRow(
                        competition_id=competition.id,
                        account_id=account_id,
                        role=role,
                        added_at=self.context.clock(),
                        added_by=str(added_by)[:120],
                    )
                )
            else:
                if row.role == "owner" and role != "owner":
                    self._keep_an_owner(session, competition.id, account_id)
                row.role = role

    @staticmethod
    def _keep_an_owner(session: Any, competition_id: int, account_id: int) -> None:
        owners = [
            r for r in queries.organisers(session.connection(), competition_id) if r.role == "owner"
        ]
        if [r.id for r in owners] == [account_id]:
            raise Conflict("a competition keeps at least one owner: add another owner first")

    def remove_organiser(self, slug: str, account_id: int) -> None:
        """Remove the account from the organisers; the last owner stays."""
        with self.context.transaction() as session:
            competition = lookup.competition(session, slug)
            row = session.get(CompetitionOrganiserRow, (competition.id, account_id))
            if row is None:
                raise NotFound(f"the account does not organise {slug!r}")
            if row.role == "owner":
                self._keep_an_owner(session, competition.id, account_id)
            session.delete(row)

    def organisers(self, slug: str) -> list[OrganiserInfo]:
        with self.context.reader.connect() as connection:
            rows = queries.organisers(connection, _competition_id(connection, slug))
        return [OrganiserInfo(r.id, r.handle, r.role, aware(r.added_at), r.added_by) for r in rows]

    def organiser_role(self, slug: str, account_id: int) -> str | None:
        """``"owner"``, ``"co-organiser"`` or ``None``."""
        lookup.refuse_impossible(slug)
        with self.context.reader.connect() as connection:
            return queries.organiser_role(connection, slug, account_id)

    # -------------------------------------------------------------- actions
    def record_action(
        self,
        slug: str | None,
        actor: str,
        account_id: int | None,
        action: str,
        detail: dict[str, Any] | None = None,
        address: str = "",
    ) -> None:
        """Record one organiser action (``slug`` ``None`` for a server-wide one)."""
        with self.context.transaction() as session:
            competition_id = None if slug is None else lookup.competition(session, slug).id
            queries.add_action(
                session.connection(),
                competition_id,
                str(actor)[:120],
                account_id,
                str(action)[:60],
                dict(detail or {}),
                self.context.clock(),
                str(address)[:64],
            )

    def actions(self, slug: str | None, limit: int = 200) -> list[ActionInfo]:
        """The newest ``limit`` organiser actions on ``slug``, newest first."""
        with self.context.reader.connect() as connection:
            competition_id = None if slug is None else _competition_id(connection, slug)
            rows = queries.actions(connection, competition_id, limit)
        return [
            ActionInfo(aware(r.at), r.actor, r.account_id, r.action, r.detail, r.address)
            for r in rows
        ]


def _registration(row: Any) -> RegistrationInfo:
    return RegistrationInfo(
        row.account_id,
        row.handle,
        row.team,
        aware(row.accepted_rules_at),
        row.rules_sha256,
        row.via,
        row.invitation,
    )
