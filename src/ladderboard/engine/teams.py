"""Teams: their registration, tokens and disabling, their quotas and refused
files, and the read that admits a team's request."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ladderboard.engine import lookup, phases, quotas
from ladderboard.engine.context import EngineContext
from ladderboard.engine.errors import CompetitionClosed, Conflict, NotFound
from ladderboard.engine.lifecycle import Lifecycle
from ladderboard.engine.results import (
    Admission,
    MemberRead,
    QuotaView,
    RejectionView,
    TeamInfo,
    TeamSummary,
    aware,
    team_scope,
)
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.text import (
    TEAM_NAME_CHARS,
    check_text,
    name_key,
)
from ladderboard.store import (
    TeamMemberRow,
    TeamRow,
    TeamSessions,
    queries,
    statements,
    team_membership,
)
from ladderboard.store import phases as phase_rows
from ladderboard.store.accounts import member_of
from ladderboard.store.models import CompetitionRow

__all__ = ["Teams"]


def _team_info(row: TeamRow) -> TeamInfo:
    """A team's row as the engine returns it."""
    return TeamInfo(row.id, row.name, aware(row.created_at), row.disabled_at is not None)


def _open_for_teams(session: Session, competition: CompetitionRow, store_now: datetime) -> None:
    """Refuse a new team in a later phase (teams form in the first phase)
    or once every phase of the series is closed."""
    if competition.first_phase_id is not None:
        first = phases.first_phase(session, competition)
        raise Conflict(
            f"{competition.slug!r} is a phase of {first.slug!r}, whose teams it shares: "
            f"register the team in {first.slug!r}"
        )
    if phases.series_closed(session, competition, store_now):
        raise CompetitionClosed(f"competition {competition.slug!r} is closed")


class Teams:
    """The teams of the competitions, over ``context``; ``lifecycle`` gives
    the competitions (publishing one whose deadline has passed)."""

    def __init__(self, context: EngineContext, lifecycle: Lifecycle) -> None:
        self.context = context
        self.lifecycle = lifecycle

    def add_team(
        self, slug: str, name: str, *, token_hash: str | None = None, captain: int | None = None
    ) -> TeamInfo:
        """Register a team. Names are unique in a competition under
        normalisation, case folding and look-alike letters
        (:func:`~ladderboard.rules.text.name_key`); a closed competition
        takes no new team. ``captain`` is the account that creates it and
        becomes its first member, in the same transaction (a team of
        accounts has no token of its own: ``token_hash`` is ``None``)."""
        name = name.strip() if isinstance(name, str) else name
        check_text("team name", name, max_chars=TEAM_NAME_CHARS)
        if not name:
            raise ValueError("team name must not be empty")
        key = hashlib.sha256(name_key(name).encode()).hexdigest()
        now = self.context.clock()
        try:
            with self.context.transaction() as session:
                competition, store_now = self.context.locked(session, slug)
                _open_for_teams(session, competition, store_now)
                if captain is not None and member_of(session, competition.id, captain):
                    raise Conflict(f"you are in a team of {slug!r} already")
                taken = queries.team_name_with_key(session, competition.id, key)
                if taken is not None:
                    raise Conflict(
                        f"team {taken!r} already exists in {slug!r}, and {name!r} differs from "
                        "it only in case, Unicode form or letters that look alike"
                        if taken != name
                        else f"team {name!r} already exists in {slug!r}"
                    )
                team = TeamRow(
                    competition_id=competition.id,
                    name=name,
                    name_key=key,
                    token_hash=token_hash,
                    created_at=now,
                )
                own = team_scope if competition.config["board"] == "per-team" else None
                queries.add_team(session, team, own)
                if captain is not None:
                    session.add(
                        TeamMemberRow(
                            competition_id=competition.id,
                            team_id=team.id,
                            account_id=captain,
                            role="captain",
                            joined_at=now,
                        )
                    )
                    session.flush()
                for phase in phase_rows.later_phases(session, competition.id):
                    phases.mirror_teams(session, phase, [team], now)
        except IntegrityError as exc:
            raise Conflict(f"team {name!r} already exists in {slug!r}") from exc
        return TeamInfo(team.id, team.name, now)

    def add_teams(
        self, slug: str, names: Sequence[str], token_hashes: Sequence[str | None]
    ) -> list[TeamInfo]:
        """Register many teams at once (an import): all of them or, at the
        first refusal, none. Refuses as :meth:`add_team` does, and a name
        repeated in ``names`` (under case and Unicode folding)."""
        if len(names) != len(token_hashes):
            raise ValueError("one token hash per team name")
        cleaned: list[tuple[str, str]] = []
        seen: dict[str, int] = {}
        for line, name in enumerate(names, 1):
            name = name.strip() if isinstance(name, str) else name
            try:
                check_text("team name", name, max_chars=TEAM_NAME_CHARS)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"team {line}: {exc}") from None
            if not name:
                raise ValueError(f"team {line}: the name is empty")
            key = hashlib.sha256(name_key(name).encode()).hexdigest()
            if key in seen:
                raise ValueError(f"team {line}: {name!r} repeats team {seen[key]}")
            seen[key] = line
            cleaned.append((name, key))
        now = self.context.clock()
        teams = []
        try:
            with self.context.transaction() as session:
                competition, store_now = self.context.locked(session, slug)
                _open_for_teams(session, competition, store_now)
                own = team_scope if competition.config["board"] == "per-team" else None
                for (name, key), token_hash in zip(cleaned, token_hashes, strict=True):
                    taken = queries.team_name_with_key(session, competition.id, key)
                    if taken is not None:
                        raise Conflict(f"team {taken!r} already exists in {slug!r}")
                    team = TeamRow(
                        competition_id=competition.id,
                        name=name,
                        name_key=key,
                        token_hash=token_hash,
                        created_at=now,
                    )
                    queries.add_team(session, team, own)
                    teams.append(team)
                for phase in phase_rows.later_phases(session, competition.id):
                    phases.mirror_teams(session, phase, teams, now)
        except IntegrityError as exc:
            raise Conflict(f"a team of this import already exists in {slug!r}") from exc
        return [TeamInfo(t.id, t.name, now) for t in teams]

    def teams(self, slug: str) -> list[TeamInfo]:
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            return [_team_info(r) for r in queries.teams(session, competition.id)]

    def team(self, slug: str, name: str) -> TeamInfo:
        with Session(self.context.reader) as session:
            return _team_info(lookup.team(session, lookup.competition(session, slug), name))

    def set_team_disabled(self, slug: str, name: str, disabled: bool) -> TeamInfo:
        """Disable a team (it can no longer sign in, submit or select, and is
        left off both boards) or enable it again; idempotent. Its submissions
        are kept, and enabling it restores them to the boards. A team of a
        series' first phase is disabled or enabled in every phase; a later
        phase's row, in that phase alone. Disabling signs
        out every browser of the team: its sessions are deleted, so enabling
        the team again does not revive them."""
        now = self.context.clock()
        with self.context.transaction() as session:
            competition = lookup.competition(session, slug)
            team = lookup.team(session, competition, name)
            # A disabled team cannot sign in: any session it has is one that
            # its disabling revoked, deleted here when it is enabled too.
            revoke = disabled or team.disabled_at is not None
            if competition.first_phase_id is not None:
                # A later phase's row: disabled in this phase alone, and
                # while its first-phase team is (phases.follow).
                home = session.get(TeamRow, team.home_team_id)
                team.own_disabled_at = (team.own_disabled_at or now) if disabled else None
                team.disabled_at = (home.disabled_at if home else None) or team.own_disabled_at
            elif disabled and team.disabled_at is None:
                team.disabled_at = now
            elif not disabled:
                team.disabled_at = None
            info = _team_info(team)
            connection = session.connection()
            if revoke:
                TeamSessions.revoke_team(connection, team.id)
            version = statements.bump_board_version(connection, team.competition_id)
            statements.stamp_standing(connection, team.id, version)
            followed = phases.follow(session, team)
        for phase_slug in (slug, *followed):
            self.context.caches.targets.pop((phase_slug, name), None)
        return info

    def reissue_token(self, slug: str, name: str, token_hash: str) -> TeamInfo:
        """Give team ``name`` the token of SHA-256 ``token_hash`` in place of
        its own (a leaked token replaced). The team keeps its place, its
        submissions, quotas and selection; the old token is refused from the
        commit on, by every process, since each looks tokens up in the store;
        and every browser signed in as the team is signed out, as one signed
        in with the leaked token may be the leak's. A disabled team stays
        disabled. The team's history records it. A team's token is its first
        phase's (:mod:`~ladderboard.engine.phases`): a later phase refuses,
        and the browsers signed in as the team in any phase are signed out."""
        with self.context.transaction() as session:
            competition = lookup.competition(session, slug)
            if competition.first_phase_id is not None:
                first = phases.first_phase(session, competition)
                raise Conflict(
                    f"{slug!r} is a phase of {first.slug!r}: a team's token is the one of "
                    f"{first.slug!r}, where it is reissued"
                )
            team = lookup.team(session, competition, name)
            team.token_hash = token_hash
            for row in (team, *phase_rows.team_in_phases(session, team.id)):
                TeamSessions.revoke_team(session.connection(), row.id)
            team_membership.add_event(
                session.connection(),
                competition_id=team.competition_id,
                team_id=team.id,
                at=self.context.clock(),
                actor="organiser",
                account_id=None,
                event="token reissued",
                detail={},
            )
            info = _team_info(team)
        return info

    def team_summaries(self, slug: str) -> list[TeamSummary]:
        """Every team with its activity, for the organiser's desk."""
        day = quotas.daily_window(self.context.clock())
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            rows = queries.team_summaries(session, competition.id, day)
        return [
            TeamSummary(
                name=team.name,
                created_at=aware(team.created_at),
                disabled=team.disabled_at is not None,
                submissions=count,
                last_submission=aware(last),
                used_today=today,
                invalid=invalid,
                flags=flags,
            )
            for team, count, last, today, invalid, flags in rows
        ]

    def quota(self, slug: str, team: str) -> QuotaView:
        """What the team has used of its quotas, and when the daily one resets."""
        day = quotas.daily_window(self.context.clock())
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            config = CompetitionConfig.from_json(competition.config)
            team_row = lookup.team(session, competition, team)
            # Counted as a submission's admission counts them: with the
            # submissions of the teams merged into this one.
            today, total, _ = statements.team_counts(session.connection(), team_row.id, "", day)
            invalid = queries.rejection_count(session, team_row.id)
        return QuotaView(
            used_today=today,
            daily_quota=config.daily_quota,
            used_total=total,
            total_quota=config.total_quota,
            invalid=invalid,
            invalid_quota=config.invalid_quota,
            resets_at=day[1],
        )

    def rejections(self, slug: str, team: str) -> list[RejectionView]:
        """The team's refused files with the reason, newest first."""
        with Session(self.context.reader) as session:
            team_row = lookup.team(session, lookup.competition(session, slug), team)
            return [
                RejectionView(aware(r.created_at), r.code, r.message, r.size, r.filename)
                for r in queries.rejections(session, team_row.id)
            ]

    def invalid_count(self, slug: str, team: str) -> int:
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            return queries.rejection_count(session, lookup.team(session, competition, team).id)

    def knows_token_hash(self, token_hash: str) -> bool:
        """Whether some team of some competition has this token (SHA-256)."""
        with self.context.reader.connect() as connection:
            return queries.token_hash_known(connection, token_hash)

    def member_admission(
        self,
        slug: str,
        token_hash: str,
        idempotency_key: str | None = None,
        *,
        rate_key: str | None = None,
    ) -> MemberRead:
        """The competition ``slug`` and its team with this token (SHA-256),
        with what admits the team's submission with this idempotency key
        (:meth:`admit` takes it as ``read``) and the ``tat`` of the rate-limit
        bucket ``rate_key`` (:meth:`RateLimits.take_unless
        <ladderboard.store.RateLimits.take_unless>` takes it as
        ``blocked_tat``): one read, as every submission over HTTP asks it."""
        lookup.refuse_impossible(slug)
        now = self.context.clock()
        with self.context.reader.connect() as connection:
            row = statements.member_admission(
                connection,
                slug,
                token_hash,
                idempotency_key,
                quotas.daily_window(now),
                rate_key,
                self.context.store_now(),
            )
        if row is None:
            return MemberRead(None, None, None)
        info = lookup.info(row, row.store_now)
        if info.read_at is not None and info.publication_due(info.read_at):
            self.lifecycle.publish_due(slug)  # then read again, published
            return self.member_admission(slug, token_hash, idempotency_key, rate_key=rate_key)
        if row.team_id is None:
            return MemberRead(info, None, None, row.rate_tat)
        team = TeamInfo(
            row.team_id, row.team_name, aware(row.team_created_at), row.team_disabled_at is not None
        )
        admission = Admission(
            now,
            row.team_id,
            row.commitment,
            row.closed_at,
            row.deadline,
            row.team_disabled_at,
            row.admission_today,
            row.admission_total,
            row.admission_invalid,
            row.admission_resent,
            row.store_now,
            row.settings_version,
        )
        return MemberRead(info, team, admission, row.rate_tat)

    def team_by_token_hash(self, slug: str, token_hash: str) -> TeamInfo:
        lookup.refuse_impossible(slug)
        with self.context.reader.connect() as connection:
            row = queries.team_with_token(connection, slug, token_hash)
        if row is None:
            self.lifecycle.competition(slug)  # NotFound names a missing competition
            raise NotFound("no team with this token in this competition")
        return _team_info(row)
