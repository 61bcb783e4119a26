"""Teams of several members: creating one as an account, invitation codes,
joining, leaving, handing over the captaincy, merging two teams, and each
team's history.

The captain alone invites, revokes invitations, hands over the captaincy
and asks for or answers a merge: the team's composition is one person's
decision, as a team's file selection is. Any member may leave; the captain
leaves only after making another member captain, or as the last member.
A team left empty is retired (disabled, off the boards) and keeps its
submissions on record; the organiser may enable it again.

An invitation code admits one account, within :data:`INVITATION_LIFETIME`,
unless revoked first; it is kept as its SHA-256 only and shown once.

Merges follow Kaggle's rule: before ``config.merger_deadline`` (and the
close), when the merged team fits ``config.max_team_size`` and the two
teams' valid submissions together are at most what one team could have
sent so far (:func:`merge_allowance`). On acceptance, in one transaction,
the requesting team's members join the team it merges into, and the
requesting team is retired: disabled, off the boards, its selections
dropped, its submissions kept on record under its own name. From then on
the merged team's quotas count the retired team's submissions as its own
(``teams.merged_into_id``; :mod:`ladderboard.store.statements`), so the
merged team has never sent more than one team's quota.

What a merge does to the per-team Ladder's guarantee (Blum & Hardt 2015,
Sec. 2.1, which bounds the leaderboard error of one adaptive analyst by
the number of its submissions): the merged team keeps its own mechanism
state, so its releases go on from where they stood; its new members have
seen the retired team's releases, which that state never took in. The
merged team is one analyst whose submissions are both teams' (the quota
count above), answered by two mechanisms, one retired: the bound still
holds per mechanism, and the quota rule keeps the analyst's total number
of submissions what one team's could be, which is what the bound grows with.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ladderboard.engine import lookup, phases
from ladderboard.engine.context import EngineContext
from ladderboard.engine.errors import CompetitionClosed, Conflict, NotCaptain, NotFound
from ladderboard.engine.results import BOARD_SCOPE, TeamInfo, aware, team_scope
from ladderboard.engine.teams import Teams
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.text import TEAM_NAME_CHARS, check_text
from ladderboard.store import TeamSessions, statements
from ladderboard.store import accounts as account_queries
from ladderboard.store import phases as phase_rows
from ladderboard.store import team_membership as queries
from ladderboard.store.models import (
    AccountRow,
    CompetitionRegistrationRow,
    CompetitionRow,
    TeamInvitationRow,
    TeamMemberRow,
    TeamMergeRow,
    TeamRow,
)

__all__ = [
    "INVITATION_LIFETIME",
    "InvitationInfo",
    "MemberView",
    "Membership",
    "MergeInfo",
    "MyTeam",
    "TeamEvent",
    "invitation_digest",
    "merge_allowance",
]

INVITATION_LIFETIME = timedelta(days=7)
"""How long an invitation code admits an account."""
CODE_CHARS = 64
"""The longest code looked up (a code is 22 characters; anything longer is no code)."""


def invitation_digest(code: str) -> str:
    """The SHA-256 under which an invitation code is kept."""
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


def merge_allowance(config: CompetitionConfig, opened: datetime, now: datetime) -> int | None:
    """The most valid submissions one team could have sent from ``opened``
    to ``now``: the daily quota times the UTC days the competition has been
    open (the day of ``opened`` and today included), and the total quota;
    ``None`` when neither quota is set (any merge fits). Kaggle's merger
    rule: two teams merge only when their submissions together fit this.

    >>> config = CompetitionConfig(score="zero_one", mechanism="parameter-free-ladder",
    ...                            daily_quota=5, total_quota=12)
    >>> opened = datetime(2026, 3, 1, 18, tzinfo=UTC)
    >>> merge_allowance(config, opened, datetime(2026, 3, 1, 19, tzinfo=UTC))
    5
    >>> merge_allowance(config, opened, datetime(2026, 3, 2, 1, tzinfo=UTC))
    10
    >>> merge_allowance(config, opened, datetime(2026, 3, 9, tzinfo=UTC))
    12
    """
    limits = []
    if config.daily_quota is not None:
        days = (now.astimezone(UTC).date() - opened.astimezone(UTC).date()).days + 1
        limits.append(config.daily_quota * max(days, 1))
    if config.total_quota is not None:
        limits.append(config.total_quota)
    return min(limits) if limits else None


@dataclass(frozen=True)
class MemberView:
    handle: str
    role: str  # captain | member
    joined_at: datetime


@dataclass(frozen=True)
class InvitationInfo:
    id: int
    created_at: datetime
    expires_at: datetime
    created_by: str | None


@dataclass(frozen=True)
class MergeInfo:
    id: int
    from_team: str
    into_team: str
    requested_at: datetime
    status: str  # pending | accepted | refused | withdrawn
    answered_at: datetime | None


@dataclass(frozen=True)
class MyTeam:
    """An account's team as its members see it."""

    team: TeamInfo
    role: str
    members: list[MemberView]
    invitations: list[InvitationInfo]
    merges: list[MergeInfo]


@dataclass(frozen=True)
class TeamEvent:
    at: datetime
    actor: str
    event: str
    detail: dict[str, Any]


def _merge(row: Any) -> MergeInfo:
    return MergeInfo(
        row.id,
        row.from_team,
        row.into_team,
        aware(row.requested_at),
        row.status,
        aware(row.answered_at),
    )


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _in_first_phase(
    method: Callable[Concatenate[Membership, str, _P], _R],
) -> Callable[Concatenate[Membership, str, _P], _R]:
    """Run ``method`` on the first phase of the series of its competition
    (:mod:`ladderboard.engine.phases`): the teams, their members,
    invitations and merges of every phase live there."""

    @functools.wraps(method)
    def run(self: Membership, slug: str, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return method(self, self._first_phase_slug(slug), *args, **kwargs)

    return run


class Membership:
    """Teams of accounts in each competition, over ``context``. A later
    phase's teams are its first phase's: every method acts there."""

    def __init__(self, context: EngineContext, teams: Teams) -> None:
        self.context = context
        self._teams = teams

    # ------------------------------------------------------------ helpers
    def _first_phase_slug(self, slug: str) -> str:
        lookup.refuse_impossible(slug)
        with Session(self.context.reader) as session:
            return phases.first_phase(session, lookup.competition(session, slug)).slug

    def _open(self, session: Session, slug: str) -> tuple[CompetitionRow, datetime]:
        """The competition under its lock, refused when closed (every phase
        of its series closed)."""
        competition, store_now = self.context.locked(session, slug)
        if phases.series_closed(session, competition, store_now):
            raise CompetitionClosed(f"competition {slug!r} is closed: its teams are as they stand")
        return competition, store_now

    @staticmethod
    def _account(session: Session, account_id: int) -> AccountRow:
        account = session.get(AccountRow, account_id)
        if account is None or account.disabled_at is not None:
            raise NotFound(f"no account {account_id}")
        return account

    def _registered(self, session: Session, competition: CompetitionRow, account_id: int) -> None:
        if session.get(CompetitionRegistrationRow, (competition.id, account_id)) is None:
            raise Conflict(
                f"join competition {competition.slug!r} first (accept its rules), "
                "then create or join a team"
            )

    @staticmethod
    def _membership(
        session: Session, competition: CompetitionRow, account_id: int
    ) -> tuple[TeamMemberRow, TeamRow]:
        member = account_queries.member_of(session, competition.id, account_id)
        if member is None:
            raise NotFound(f"you are in no team of {competition.slug!r}")
        team = session.get(TeamRow, member.team_id)
        assert team is not None
        return member, team

    def _captain(
        self, session: Session, competition: CompetitionRow, account_id: int
    ) -> tuple[TeamMemberRow, TeamRow]:
        member, team = self._membership(session, competition, account_id)
        if member.role != "captain":
            raise NotCaptain(f"only the captain of team {team.name!r} may do this")
        if team.disabled_at is not None:
            raise Conflict(f"team {team.name!r} is disabled")
        return member, team

    def _event(
        self,
        session: Session,
        team: TeamRow,
        account: AccountRow,
        event: str,
        detail: dict[str, Any] | None = None,
    ) -> None:
        """Record ``event`` of ``team``, done by ``account``, in its history."""
        queries.add_event(
            session.connection(),
            competition_id=team.competition_id,
            team_id=team.id,
            at=self.context.clock(),
            actor=f"account {account.handle}",
            account_id=account.id,
            event=event,
            detail=dict(detail or {}),
        )

    @staticmethod
    def _size(session: Session, team: TeamRow) -> int:
        return account_queries.count_members(session, team.id)

    # ------------------------------------------------------------- create
    @_in_first_phase
    def create_team(self, slug: str, account_id: int, name: str) -> TeamInfo:
        """A new team of competition ``slug``, the account its captain and
        only member; the account must be registered and in no team yet.
        The team has no token: its members' personal tokens submit for it."""
        name = name.strip() if isinstance(name, str) else name
        check_text("team name", name, max_chars=TEAM_NAME_CHARS)
        if not name:
            raise ValueError("team name must not be empty")
        with self.context.transaction() as session:
            competition = lookup.competition(session, slug)
            self._account(session, account_id)
            self._registered(session, competition, account_id)
        info = self._teams.add_team(slug, name, captain=account_id)
        with self.context.transaction() as session:
            team = session.get(TeamRow, info.id)
            assert team is not None
            self._event(session, team, self._account(session, account_id), "created")
        return info

    # --------------------------------------------------------------- read
    @_in_first_phase
    def my_team(self, slug: str, account_id: int) -> MyTeam | None:
        """The account's team in ``slug`` with its members, its live
        invitations and its pending merges; ``None`` without a team."""
        lookup.refuse_impossible(slug)
        now = self.context.clock()
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            member = account_queries.member_of(session, competition.id, account_id)
            if member is None:
                return None
            team = session.get(TeamRow, member.team_id)
            assert team is not None
            connection = session.connection()
            members = [
                MemberView(r.handle, r.role, aware(r.joined_at))
                for r in account_queries.members(connection, team.id)
            ]
            invitations = [
                InvitationInfo(r.id, aware(r.created_at), aware(r.expires_at), r.handle)
                for r in queries.live_invitations(connection, team.id, now)
            ]
            merges = [_merge(r) for r in queries.pending_merges(connection, team.id)]
            info = TeamInfo(
                team.id, team.name, aware(team.created_at), team.disabled_at is not None
            )
        return MyTeam(info, member.role, members, invitations, merges)

    @_in_first_phase
    def history(self, slug: str, team_name: str) -> list[TeamEvent]:
        """The team's history, oldest first (for the organiser)."""
        with Session(self.context.reader) as session:
            team = lookup.team(session, lookup.competition(session, slug), team_name)
            rows = queries.events(session.connection(), team.id)
        return [TeamEvent(aware(r.at), r.actor, r.event, dict(r.detail)) for r in rows]

    # -------------------------------------------------------- invitations
    @_in_first_phase
    def invite(self, slug: str, account_id: int) -> tuple[InvitationInfo, str]:
        """A new invitation code to the captain's team, returned this once
        (only its SHA-256 is kept); it admits one account within
        :data:`INVITATION_LIFETIME`."""
        code = secrets.token_urlsafe(16)
        now = self.context.clock()
        with self.context.transaction() as session:
            competition, _ = self._open(session, slug)
            _, team = self._captain(session, competition, account_id)
            account = self._account(session, account_id)
            row = TeamInvitationRow(
                competition_id=competition.id,
                team_id=team.id,
                code_hash=invitation_digest(code),
                created_by=account_id,
                created_at=now,
                expires_at=now + INVITATION_LIFETIME,
            )
            session.add(row)
            session.flush()
            self._event(session, team, account, "invited", {"invitation": row.id})
            info = InvitationInfo(row.id, now, now + INVITATION_LIFETIME, account.handle)
        return info, code

    @_in_first_phase
    def revoke_invitation(self, slug: str, account_id: int, invitation_id: int) -> None:
        """Revoke one of the team's unused invitations (the captain's)."""
        with self.context.transaction() as session:
            competition = lookup.competition(session, slug)
            _, team = self._captain(session, competition, account_id)
            row = session.get(TeamInvitationRow, invitation_id)
            if row is None or row.team_id != team.id or row.used_at or row.revoked_at:
                raise NotFound(f"no live invitation {invitation_id} of team {team.name!r}")
            row.revoked_at = self.context.clock()
            self._event(
                session,
                team,
                self._account(session, account_id),
                "invitation revoked",
                {"invitation": invitation_id},
            )

    @_in_first_phase
    def join(self, slug: str, account_id: int, code: str) -> TeamInfo:
        """Join the team whose invitation ``code`` is: the account must be
        registered and in no team; the code unused, unrevoked, unexpired;
        the team not full (``config.max_team_size``)."""
        if not isinstance(code, str) or not code.strip() or len(code) > CODE_CHARS:
            raise NotFound("no such invitation code")
        now = self.context.clock()
        with self.context.transaction() as session:
            competition, _ = self._open(session, slug)
            account = self._account(session, account_id)
            self._registered(session, competition, account_id)
            row = queries.invitation_by_hash(session, invitation_digest(code.strip()))
            if row is None or row.competition_id != competition.id:
                raise NotFound("no such invitation code")
            if row.revoked_at is not None:
                raise Conflict("this invitation was revoked: ask the captain for another")
            if row.used_at is not None:
                raise Conflict("this invitation was used already: ask the captain for another")
            if aware(row.expires_at) <= now:
                raise Conflict("this invitation has expired: ask the captain for another")
            if account_queries.member_of(session, competition.id, account_id) is not None:
                raise Conflict(f"you are in a team of {slug!r} already: leave it first")
            team = session.get(TeamRow, row.team_id)
            assert team is not None
            if team.disabled_at is not None:
                raise Conflict(f"team {team.name!r} is disabled")
            limit = lookup.config(competition.config).max_team_size
            if limit is not None and self._size(session, team) >= limit:
                raise Conflict(f"team {team.name!r} is full: it has its {limit} members")
            row.used_at, row.used_by = now, account_id
            session.add(
                TeamMemberRow(
                    competition_id=competition.id,
                    team_id=team.id,
                    account_id=account_id,
                    role="member",
                    joined_at=now,
                )
            )
            try:
                session.flush()
            except IntegrityError:
                raise Conflict(f"you are in a team of {slug!r} already: leave it first") from None
            self._event(session, team, account, "joined", {"invitation": row.id})
            info = TeamInfo(team.id, team.name, aware(team.created_at))
        return info

    # ------------------------------------------------------------ leaving
    @_in_first_phase
    def make_captain(self, slug: str, account_id: int, handle: str) -> None:
        """The captain hands the captaincy to another member, by handle."""
        with self.context.transaction() as session:
            competition, _ = self._open(session, slug)
            member, team = self._captain(session, competition, account_id)
            other = next(
                (
                    r
                    for r in account_queries.members(session.connection(), team.id)
                    if isinstance(handle, str) and r.handle == handle.strip()
                ),
                None,
            )
            if other is None or other.id == account_id:
                raise NotFound(f"no other member {str(handle)[:100]!r} in team {team.name!r}")
            new = account_queries.member_of(session, competition.id, other.id)
            assert new is not None
            member.role, new.role = "member", "captain"
            self._event(
                session,
                team,
                self._account(session, account_id),
                "captain changed",
                {"captain": other.handle},
            )

    @_in_first_phase
    def leave(self, slug: str, account_id: int) -> None:
        """Leave the account's team. The captain leaves only as the last
        member (make another member captain first); a team left empty is
        retired (disabled), its submissions kept, its invitations and
        merge requests withdrawn; a team with a token of the organiser's
        list stays as it is, for those who hold the token.

        Nobody leaves a team that has submitted, in any phase: a member who left could
        start a new team with a fresh quota, and one person would get more
        of the board's answers than one team's quota allows (the per-team
        Ladder's bound grows with the submissions of one analyst, Blum &
        Hardt 2015, Sec. 2.1). Such a team changes by a merge, whose quota
        rule keeps that count, or by the organiser."""
        now = self.context.clock()
        with self.context.transaction() as session:
            competition, _ = self._open(session, slug)
            member, team = self._membership(session, competition, account_id)
            if (
                queries.quota_submissions(session, team.id) > 0
                or phase_rows.later_submissions(session, (team.id,)) > 0
            ):
                raise Conflict(
                    f"team {team.name!r} has submitted: its members stay (a member who left "
                    "could start again with a new quota); the organiser can help"
                )
            size = self._size(session, team)
            if member.role == "captain" and size > 1:
                raise Conflict(
                    "the captain leaves last: make another member captain first "
                    "(POST .../my-team/captain)"
                )
            account = self._account(session, account_id)
            session.delete(member)
            session.flush()
            self._event(session, team, account, "left")
            followed: list[str] = []
            if size == 1 and team.token_hash is None:
                self._retire(session, team, now)
                followed = phases.follow(session, team)
                self._event(session, team, account, "retired", {"reason": "left empty"})
        for phase_slug in (slug, *followed):
            self.context.caches.targets.pop((phase_slug, team.name), None)

    def _retire(self, session: Session, team: TeamRow, now: datetime) -> None:
        """Disable the team and withdraw what it had pending; its
        submissions stay on record."""
        if team.disabled_at is None:
            team.disabled_at = now
        connection = session.connection()
        queries.revoke_invitations(connection, team.id, now)
        for merge in queries.merges_of(session, (team.id,)):
            merge.status, merge.answered_at = "withdrawn", now
        TeamSessions.revoke_team(connection, team.id)
        version = statements.bump_board_version(connection, team.competition_id)
        statements.stamp_standing(connection, team.id, version)

    # ------------------------------------------------------------- merges
    def _check_merge(
        self,
        session: Session,
        competition: CompetitionRow,
        store_now: datetime,
        source: TeamRow,
        target: TeamRow,
    ) -> None:
        """Refuse (:class:`Conflict`) a merge of ``source`` into ``target``
        the rules forbid now."""
        config = lookup.config(competition.config)
        if config.merger_deadline is not None and store_now >= config.merger_deadline:
            raise Conflict(
                f"the merger deadline ({config.merger_deadline:%Y-%m-%d %H:%M} UTC) has passed"
            )
        if source.id == target.id:
            raise Conflict("a team cannot merge into itself")
        if target.disabled_at is not None or source.disabled_at is not None:
            raise Conflict("a disabled team cannot merge")
        for team in (source, target):
            for row in phase_rows.team_in_phases(session, team.id):
                if row.disabled_at is not None:
                    raise Conflict(
                        f"team {team.name!r} is disabled in a later phase: it cannot merge"
                    )
        size = self._size(session, source) + self._size(session, target)
        if config.max_team_size is not None and size > config.max_team_size:
            raise Conflict(
                f"the merged team would have {size} members, more than {config.max_team_size}"
            )
        self._check_fit(session, competition, source, target)

    def _check_fit(
        self, session: Session, competition: CompetitionRow, source: TeamRow, target: TeamRow
    ) -> None:
        """Refuse a merge whose two teams have made more submissions to
        ``competition`` together than one team could have made so far."""
        config = lookup.config(competition.config)
        used = queries.quota_submissions(session, source.id) + queries.quota_submissions(
            session, target.id
        )
        opened = config.opens_at or aware(competition.created_at)
        allowance = merge_allowance(config, opened, self.context.clock())
        if allowance is not None and used > allowance:
            phase = "" if competition.first_phase_id is None else f" in {competition.slug!r}"
            raise Conflict(
                f"the two teams have made {used} submissions together{phase}, more than the "
                f"{allowance} one team could have made so far: they cannot merge"
            )

    def _merge_in_later_phases(
        self,
        session: Session,
        competition: CompetitionRow,
        source: TeamRow,
        target: TeamRow,
        now: datetime,
    ) -> list[str]:
        """Merge the rows of first-phase teams ``source`` and ``target`` in
        each later phase as the merge does in the first: under the locks of
        their boards there (taken after the first phase's, as no submission
        takes a first phase's lock after a later phase's), checked by that
        phase's quotas, the retired row's quotas moved, its selections
        dropped. The slugs of the phases changed."""
        changed = []
        for phase in phase_rows.later_phases(session, competition.id):
            retired = phase_rows.team_at_home(session, phase.id, source.id)
            kept = phase_rows.team_at_home(session, phase.id, target.id)
            if retired is None or kept is None:
                continue
            board = lookup.config(phase.config).board
            scopes = (
                [BOARD_SCOPE]
                if board == "per-rank"
                else [team_scope(retired.id), team_scope(kept.id)]
            )
            statements.lock_states(session.connection(), phase.id, scopes)
            self._check_fit(session, phase, retired, kept)
            queries.repoint_merged(session.connection(), retired.id, kept.id)
            queries.drop_selections(session.connection(), retired.id)
            self._retire(session, retired, now)
            changed.append(phase.slug)
        return changed

    @_in_first_phase
    def request_merge(self, slug: str, account_id: int, into: str) -> MergeInfo:
        """The captain asks for the team to merge into team ``into``, whose
        captain accepts or refuses; one pending request per team."""
        with self.context.transaction() as session:
            competition, store_now = self._open(session, slug)
            _, source = self._captain(session, competition, account_id)
            target = lookup.team(session, competition, into)
            self._check_merge(session, competition, store_now, source, target)
            if self._size(session, target) == 0:
                raise Conflict(f"team {target.name!r} has no members to answer a merge")
            for pending in queries.merges_of(session, (source.id,)):
                if pending.from_team_id == source.id:
                    raise Conflict(
                        f"team {source.name!r} has a pending merge request already: "
                        "wait for its answer"
                    )
            now = self.context.clock()
            row = TeamMergeRow(
                competition_id=competition.id,
                from_team_id=source.id,
                into_team_id=target.id,
                requested_by=account_id,
                requested_at=now,
                status="pending",
            )
            session.add(row)
            session.flush()
            account = self._account(session, account_id)
            detail = {"merge": row.id, "from": source.name, "into": target.name}
            self._event(session, source, account, "merge requested", detail)
            self._event(session, target, account, "merge requested", detail)
            info = MergeInfo(row.id, source.name, target.name, now, "pending", None)
        return info

    @_in_first_phase
    def withdraw_merge(self, slug: str, account_id: int, merge_id: int) -> MergeInfo:
        """The captain of the team that asked withdraws its pending request."""
        now = self.context.clock()
        with self.context.transaction() as session:
            competition = lookup.competition(session, slug)
            _, source = self._captain(session, competition, account_id)
            row = session.get(TeamMergeRow, merge_id)
            if row is None or row.from_team_id != source.id or row.status != "pending":
                raise NotFound(f"no pending merge request {merge_id} of team {source.name!r}")
            target = session.get(TeamRow, row.into_team_id)
            assert target is not None
            row.status, row.answered_at, row.answered_by = "withdrawn", now, account_id
            account = self._account(session, account_id)
            detail = {"merge": row.id, "from": source.name, "into": target.name}
            self._event(session, source, account, "merge withdrawn", detail)
            self._event(session, target, account, "merge withdrawn", detail)
            requested = aware(row.requested_at)
        return MergeInfo(merge_id, source.name, target.name, requested, "withdrawn", now)

    @staticmethod
    def _hold_boards(session: Session, slug: str, merge_id: int) -> None:
        """Lock the boards the two teams of merge ``merge_id`` of ``slug``
        submit to, before the competition's row (the order a submission takes them in):
        the merge waits for the files of either team in flight, so that the
        quotas it checks and moves count them, and the next files wait for
        the merge and find the retired team retired. A merge's teams never
        change, so they are read before any lock (as columns: the rows the
        answer reads again under the competition's lock stay unloaded)."""
        merge = queries.merge_teams(session.connection(), slug, merge_id)
        if merge is None:
            return  # refused under the competition's lock
        competition_id, from_team, into_team, config = merge
        scopes = (
            [BOARD_SCOPE]
            if lookup.config(config).board == "per-rank"
            else [team_scope(from_team), team_scope(into_team)]
        )
        statements.lock_states(session.connection(), competition_id, scopes)

    @_in_first_phase
    def answer_merge(self, slug: str, account_id: int, merge_id: int, accept: bool) -> MergeInfo:
        """The captain of the team asked to take the other in accepts or
        refuses. An acceptance is checked again by the rules as they stand,
        and done in one transaction (see the module's docstring)."""
        now = self.context.clock()
        followed: list[str] = []
        with self.context.transaction() as session:
            if accept:
                self._hold_boards(session, slug, merge_id)
            competition, store_now = self._open(session, slug)
            _, target = self._captain(session, competition, account_id)
            row = session.get(TeamMergeRow, merge_id)
            if row is None or row.into_team_id != target.id or row.status != "pending":
                raise NotFound(f"no pending merge request {merge_id} into team {target.name!r}")
            source = session.get(TeamRow, row.from_team_id)
            assert source is not None
            account = self._account(session, account_id)
            detail = {"merge": row.id, "from": source.name, "into": target.name}
            if not accept:
                row.status, row.answered_at, row.answered_by = "refused", now, account_id
                self._event(session, source, account, "merge refused", detail)
                self._event(session, target, account, "merge refused", detail)
                info = MergeInfo(
                    row.id, source.name, target.name, aware(row.requested_at), "refused", now
                )
            else:
                self._check_merge(session, competition, store_now, source, target)
                row.status, row.answered_at, row.answered_by = "accepted", now, account_id
                members = account_queries.members(session.connection(), source.id)
                for moved in members:
                    found = account_queries.member_of(session, competition.id, moved.id)
                    assert found is not None
                    found.team_id, found.role, found.joined_at = target.id, "member", now
                session.flush()
                queries.repoint_merged(session.connection(), source.id, target.id)
                queries.drop_selections(session.connection(), source.id)
                self._retire(session, source, now)
                followed = self._merge_in_later_phases(session, competition, source, target, now)
                detail["members"] = [m.handle for m in members]
                self._event(session, source, account, "merge accepted", detail)
                self._event(session, target, account, "merge accepted", detail)
                info = MergeInfo(
                    row.id, source.name, target.name, aware(row.requested_at), "accepted", now
                )
        for phase_slug in (slug, *followed):
            for name in (info.from_team, info.into_team):
                self.context.caches.targets.pop((phase_slug, name), None)
        return info
