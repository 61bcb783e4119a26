"""The competition engine: what the web edge calls.

:class:`Competitions` creates competitions from a solution file, registers
teams, scores submissions through each board's mechanism in one serialised
transaction, keeps quotas, closes competitions and builds their boards. It
raises the refusals of :mod:`ladderboard.engine.errors` (and
:class:`~ladderboard.files.submission.SubmissionError` for bad files);
the web edge turns them into HTTP responses.

It is a facade: each method hands its work to the module of its resource,
all of them over one :class:`~ladderboard.engine.context.EngineContext`
(the store, the clocks, the caches):

- :mod:`~ladderboard.engine.lifecycle`: create, edit, close and publish a
  competition, and read it;
- :mod:`~ladderboard.engine.teams`: teams, tokens, quotas, refused files;
- :mod:`~ladderboard.engine.data_files`: the files participants download;
- :mod:`~ladderboard.engine.submissions`: a team's submissions and their
  selection (the rules of one submission are
  :mod:`~ladderboard.engine.submitting`'s);
- :mod:`~ladderboard.engine.boards`: the public and private boards;
- :mod:`~ladderboard.engine.corrections`: a solution with a mistake corrected;
- :mod:`~ladderboard.engine.export` and :mod:`~ladderboard.engine.audits`: the
  organiser's export, and the audit bundle anyone downloads once published.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Engine

from ladderboard.engine.accounts import Accounts
from ladderboard.engine.archives import Sink
from ladderboard.engine.audits import AuditFiles, AuditPublication, Audits
from ladderboard.engine.boards import Boards
from ladderboard.engine.caches import Caches
from ladderboard.engine.context import EngineContext
from ladderboard.engine.corrections import Correction, Corrections
from ladderboard.engine.data_files import DataFiles
from ladderboard.engine.documented import documented_by
from ladderboard.engine.export import Exports
from ladderboard.engine.kept_board import KeptBoard
from ladderboard.engine.late import LateBoardRow, LateSubmissions, LateSubmissionView
from ladderboard.engine.lifecycle import UNCHANGED, Lifecycle
from ladderboard.engine.look_alikes import LookAlike, LookAlikes
from ladderboard.engine.membership import Membership
from ladderboard.engine.registrations import Registrations
from ladderboard.engine.results import (
    Admission,
    CompetitionInfo,
    DuplicateFlag,
    FileInfo,
    MemberRead,
    QuotaView,
    RejectionView,
    SubmissionResult,
    SubmissionView,
    TeamInfo,
    TeamSummary,
    commitment_of,
    now_utc,
)
from ladderboard.engine.sign_ins import SignIns
from ladderboard.engine.submissions import Submissions
from ladderboard.engine.submitting import Submitter
from ladderboard.engine.teams import Teams
from ladderboard.files.solution import Solution
from ladderboard.rules.boards import BoardRow
from ladderboard.rules.changes import SettingChange
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import (
    DEFAULT_URL,
    OrganiserSessions,
    RateLimits,
    StagedUploads,
    StoreUnavailable,
    TeamSessions,
    database_url,
    migrate,
    open_engine,
    queries,
    require_schema,
)
from ladderboard.store.identity import renew_identity
from ladderboard.store.invitations import Invitations

__all__ = [
    "DEFAULT_URL",
    "BoardRow",
    "CompetitionInfo",
    "Competitions",
    "StoreUnavailable",
    "SubmissionResult",
    "SubmissionView",
    "TeamInfo",
    "commitment_of",
    "migrate_store",
]


def migrate_store(url: str | None = None, *, create: bool = True, renew: bool = False) -> str:
    """Create the schema of the store at ``url`` (default:
    ``LADDERBOARD_DATABASE_URL`` or a SQLite file), or bring it up to date;
    return the URL used. With ``create=False`` the store must exist already
    (:class:`StoreUnavailable` otherwise, and nothing is created). With
    ``renew`` the store gets a new identity, which makes every process
    serving it drop its caches (``ladderboard init``, the last step of a
    restore: :mod:`ladderboard.store.identity`)."""
    url = database_url(url)
    engine = open_engine(url, create=create)
    try:
        if not create:
            require_schema(engine, outdated_ok=True)
        migrate(engine)
        if renew:
            with engine.begin() as connection:
                renew_identity(connection)
    finally:
        engine.dispose()
    return url


class Competitions:
    """The engine over one store (a SQLAlchemy engine): organiser and team
    actions and the boards, composed over the store's queries, the rules,
    the :class:`~ladderboard.engine.submitting.Submitter` and the in-process
    :class:`~ladderboard.engine.caches.Caches`, each resource in its module.

    >>> competitions = Competitions.open("sqlite://")          # in memory, for the example
    >>> solution = Solution.from_labels([0, 1] * 50, public_fraction=0.5, random_state=0)
    >>> info = competitions.create("demo", solution, CompetitionConfig(
    ...     score="zero_one", mechanism="parameter-free-ladder"))
    >>> _ = competitions.add_team("demo", "alpha")
    >>> result = competitions.submit("demo", "alpha", solution.sample_submission_csv(fill=1.0))
    >>> result.public_score, result.remaining_today
    (0.5, 4)
    """

    _UNCHANGED: Any = UNCHANGED

    def __init__(
        self,
        engine: Engine,
        *,
        clock: Callable[[], datetime] = now_utc,
        store_clock: Callable[[], datetime] | None = None,
        mechanism_cache: int = 64,
        mechanism_cache_bytes: int = 2**30,
        caching: bool = True,
    ):
        """``clock`` is this process's time, which stamps what it writes;
        the deadline is decided by the store's time, which the database
        reads inside the statements that check it
        (:mod:`~ladderboard.store.clock`), so that hosts whose clocks
        disagree agree on it. ``store_clock`` (a test's clock) takes the
        database's place there. ``caching=False`` keeps nothing in process
        (:mod:`~ladderboard.engine.caches`): the same boards and releases,
        every one read from the store."""
        caches = Caches(
            mechanisms=mechanism_cache, mechanism_bytes=mechanism_cache_bytes, enabled=caching
        )
        self.context = EngineContext(engine, clock=clock, store_clock=store_clock, caches=caches)
        self.engine = engine
        self.reader = self.context.reader
        self.caches = caches
        self.submitter = Submitter(self.context)
        # Shared by every process over this store: the web edge's rate limits
        # and the organiser's sign-ins.
        self.rate_limits = RateLimits(engine)
        self.sessions = OrganiserSessions(engine, self.reader, clock)
        self.team_sessions = TeamSessions(engine, self.reader, clock)
        self.drafts = StagedUploads(engine, self.reader, clock)
        self.invitations = Invitations(engine, self.reader, clock)
        self.sign_ins = SignIns(engine, self.reader, clock)
        self._lifecycle = Lifecycle(self.context)
        self._teams = Teams(self.context, self._lifecycle)
        self.accounts = Accounts(self.context, self._teams)
        self.registrations = Registrations(self._lifecycle, self.accounts, self.invitations)
        self._data_files = DataFiles(self.context, self._lifecycle)
        self._boards = Boards(self.context, self._lifecycle)
        self.membership = Membership(self.context, self._teams)
        self._look_alikes = LookAlikes(self.context, self._boards)
        # The first submission after a freeze keeps the public board as it stood.
        self.submitter.public_board = functools.partial(
            self._boards.leaderboard_from_submissions, with_disabled=True
        )
        self._late = LateSubmissions(self.context, self._lifecycle)
        self._submissions = Submissions(
            self.context, self._lifecycle, self._boards, self.submitter, self._late
        )
        self._exports = Exports(self.context, self._lifecycle)
        self._audits = Audits(self.context, self._lifecycle)
        self._corrections = Corrections(self.context, self._lifecycle)

    @classmethod
    def open(cls, url: str | None = None, *, create_schema: bool = True, **kwargs) -> Competitions:
        """Connect to ``url`` (default: ``LADDERBOARD_DATABASE_URL`` or a SQLite
        file) and bring its schema up to date; with ``create_schema=False`` the
        store must exist already, at this version's schema. Raises :class:`StoreUnavailable` (one
        sentence) for a URL that is not a database URL, a missing store or a
        database that does not answer."""
        engine = open_engine(url, create=create_schema)
        try:
            if create_schema:
                migrate(engine)
            else:
                require_schema(engine)
        except StoreUnavailable:
            engine.dispose()
            raise
        return cls(engine, **kwargs)

    def ping(self) -> None:
        """Raise unless the database answers a query."""
        with self.reader.connect() as connection:
            queries.ping(connection)

    def check_schema(self) -> None:
        """Raise :class:`StoreUnavailable` unless the store holds the schema
        this version reads (a migration by another host may be under way),
        and the driver's error when the database does not answer."""
        require_schema(self.reader)

    def dispose(self) -> None:
        """Close every pooled connection (the store's and the rate limits')."""
        self.rate_limits.dispose()
        self.engine.dispose()

    @documented_by(Lifecycle.create)
    def create(
        self,
        slug: str,
        solution: Solution,
        config: CompetitionConfig,
        *,
        title: str | None = None,
        description: str = "",
        rules: str = "",
        files: Sequence[tuple[str, bytes]] = (),
        random_state: Any = None,
    ) -> CompetitionInfo:
        return self._lifecycle.create(
            slug,
            solution,
            config,
            title=title,
            description=description,
            rules=rules,
            files=files,
            random_state=random_state,
        )

    @documented_by(Lifecycle.update)
    def update(
        self,
        slug: str,
        *,
        title: str | None = None,
        description: str | None = None,
        rules: str | None = None,
        deadline: datetime | str | None = _UNCHANGED,
        actor: str | None = None,
        **settings: Any,
    ) -> CompetitionInfo:
        return self._lifecycle.update(
            slug,
            title=title,
            description=description,
            rules=rules,
            deadline=deadline,
            actor=actor,
            **settings,
        )

    @documented_by(Lifecycle.history)
    def history(self, slug: str) -> list[SettingChange]:
        return self._lifecycle.history(slug)

    @documented_by(Corrections.correct_solution)
    def correct_solution(
        self, slug: str, solution: Solution, reason: str, *, actor: str | None = None
    ) -> Correction:
        return self._corrections.correct_solution(slug, solution, reason, actor=actor)

    @documented_by(Corrections.corrections)
    def corrections(self, slug: str) -> list[Correction]:
        return self._corrections.corrections(slug)

    def competition(self, slug: str) -> CompetitionInfo:
        return self._lifecycle.competition(slug)

    @documented_by(Lifecycle.phases)
    def phases(self, slug: str) -> list[CompetitionInfo]:
        return self._lifecycle.phases(slug)

    def competitions(self) -> list[CompetitionInfo]:
        return self._lifecycle.competitions()

    @documented_by(Lifecycle.solution)
    def solution(self, slug: str) -> Solution:
        return self._lifecycle.solution(slug)

    @documented_by(Lifecycle.solution_file)
    def solution_file(self, slug: str) -> bytes:
        return self._lifecycle.solution_file(slug)

    @documented_by(Lifecycle.decimals)
    def decimals(self, info: CompetitionInfo) -> int:
        return self._lifecycle.decimals(info)

    @documented_by(Lifecycle.columns)
    def columns(self, slug: str) -> tuple[str, tuple[str, ...]]:
        return self._lifecycle.columns(slug)

    @documented_by(Lifecycle.close)
    def close(self, slug: str) -> CompetitionInfo:
        return self._lifecycle.close(slug)

    @documented_by(Lifecycle.publish)
    def publish(self, slug: str) -> CompetitionInfo:
        return self._lifecycle.publish(slug)

    @documented_by(Lifecycle.reveal_key)
    def reveal_key(self, slug: str) -> str:
        return self._lifecycle.reveal_key(slug)

    @documented_by(Exports.export)
    def export(self, slug: str, sink: Sink) -> list[str]:
        return self._exports.export(slug, sink)

    @documented_by(Audits.publish_audit)
    def publish_audit(self, slug: str, files: AuditFiles) -> AuditPublication:
        return self._audits.publish_audit(slug, files)

    @documented_by(Audits.audit_publication)
    def audit_publication(self, slug: str) -> AuditPublication | None:
        return self._audits.audit_publication(slug)

    @documented_by(Audits.audit_bundle)
    def audit_bundle(self, slug: str, sink: Sink) -> list[str]:
        return self._audits.audit_bundle(slug, sink)

    @documented_by(DataFiles.files)
    def files(self, slug: str) -> list[FileInfo]:
        return self._data_files.files(slug)

    @documented_by(DataFiles.file)
    def file(self, slug: str, name: str) -> tuple[FileInfo, bytes]:
        return self._data_files.file(slug, name)

    @documented_by(DataFiles.sample_submission)
    def sample_submission(self, slug: str) -> bytes:
        return self._data_files.sample_submission(slug)

    @documented_by(DataFiles.add_file)
    def add_file(self, slug: str, name: str, data: bytes, *, replace: bool = False) -> FileInfo:
        return self._data_files.add_file(slug, name, data, replace=replace)

    @documented_by(DataFiles.add_files)
    def add_files(
        self, slug: str, files: Sequence[tuple[str, bytes]], *, replace: bool = False
    ) -> list[FileInfo]:
        return self._data_files.add_files(slug, files, replace=replace)

    @documented_by(DataFiles.remove_file)
    def remove_file(self, slug: str, name: str) -> None:
        return self._data_files.remove_file(slug, name)

    @documented_by(Teams.add_team)
    def add_team(self, slug: str, name: str, *, token_hash: str | None = None) -> TeamInfo:
        return self._teams.add_team(slug, name, token_hash=token_hash)

    @documented_by(Teams.add_teams)
    def add_teams(
        self, slug: str, names: Sequence[str], token_hashes: Sequence[str | None]
    ) -> list[TeamInfo]:
        return self._teams.add_teams(slug, names, token_hashes)

    def teams(self, slug: str) -> list[TeamInfo]:
        return self._teams.teams(slug)

    def team(self, slug: str, name: str) -> TeamInfo:
        return self._teams.team(slug, name)

    @documented_by(Teams.set_team_disabled)
    def set_team_disabled(self, slug: str, name: str, disabled: bool) -> TeamInfo:
        return self._teams.set_team_disabled(slug, name, disabled)

    @documented_by(Teams.reissue_token)
    def reissue_token(self, slug: str, name: str, token_hash: str) -> TeamInfo:
        return self._teams.reissue_token(slug, name, token_hash)

    @documented_by(Teams.team_summaries)
    def team_summaries(self, slug: str) -> list[TeamSummary]:
        return self._teams.team_summaries(slug)

    @documented_by(Teams.quota)
    def quota(self, slug: str, team: str) -> QuotaView:
        return self._teams.quota(slug, team)

    @documented_by(Teams.rejections)
    def rejections(self, slug: str, team: str) -> list[RejectionView]:
        return self._teams.rejections(slug, team)

    def invalid_count(self, slug: str, team: str) -> int:
        return self._teams.invalid_count(slug, team)

    @documented_by(Teams.knows_token_hash)
    def knows_token_hash(self, token_hash: str) -> bool:
        return self._teams.knows_token_hash(token_hash)

    @documented_by(Teams.member_admission)
    def member_admission(
        self,
        slug: str,
        token_hash: str,
        idempotency_key: str | None = None,
        *,
        rate_key: str | None = None,
    ) -> MemberRead:
        return self._teams.member_admission(slug, token_hash, idempotency_key, rate_key=rate_key)

    def team_by_token_hash(self, slug: str, token_hash: str) -> TeamInfo:
        return self._teams.team_by_token_hash(slug, token_hash)

    @documented_by(Boards.leaderboard)
    def leaderboard(
        self, slug: str, board: str = "public", *, organiser: bool = False
    ) -> list[BoardRow]:
        return self._boards.leaderboard(slug, board, organiser=organiser)

    @documented_by(Boards.board)
    def board(
        self, slug: str, board: str = "public", *, organiser: bool = False
    ) -> tuple[BoardRow, ...]:
        return self._boards.board(slug, board, organiser=organiser)

    @documented_by(Boards.kept_board)
    def kept_board(
        self, slug: str, board: str = "public", *, organiser: bool = False
    ) -> tuple[BoardRow, ...] | KeptBoard:
        return self._boards.kept_board(slug, board, organiser=organiser)

    @documented_by(Boards.frozen_board)
    def frozen_board(self, slug: str) -> tuple[BoardRow, ...] | None:
        return self._boards.frozen_board(slug)

    @documented_by(LateSubmissions.board)
    def late_board(self, slug: str) -> list[LateBoardRow]:
        return self._late.board(slug)

    @documented_by(LateSubmissions.submissions)
    def late_submissions(self, slug: str, team: str) -> list[LateSubmissionView]:
        return self._late.submissions(slug, team)

    @documented_by(Boards.leaderboard_from_submissions)
    def leaderboard_from_submissions(self, slug: str, board: str = "public") -> list[BoardRow]:
        return self._boards.leaderboard_from_submissions(slug, board)

    @documented_by(Boards.flags)
    def flags(self, slug: str) -> list[DuplicateFlag]:
        return self._boards.flags(slug)

    @documented_by(LookAlikes.find)
    def look_alikes(self, slug: str) -> list[LookAlike]:
        return self._look_alikes.find(slug)

    @documented_by(LookAlikes.dismiss)
    def dismiss_look_alike(self, slug: str, key: str, by: str) -> LookAlike:
        return self._look_alikes.dismiss(slug, key, by)

    @documented_by(LookAlikes.restore)
    def restore_look_alike(self, slug: str, key: str) -> LookAlike:
        return self._look_alikes.restore(slug, key)

    @documented_by(Submissions.submit)
    def submit(
        self,
        slug: str,
        team: str,
        data: bytes,
        *,
        message: str = "",
        idempotency_key: str | None = None,
        filename: str | None = None,
    ) -> SubmissionResult:
        return self._submissions.submit(
            slug, team, data, message=message, idempotency_key=idempotency_key, filename=filename
        )

    @documented_by(Submissions.admit)
    def admit(
        self,
        slug: str,
        team: str,
        idempotency_key: str | None = None,
        *,
        read: Admission | None = None,
    ) -> None:
        return self._submissions.admit(slug, team, idempotency_key, read=read)

    @documented_by(Submissions.submissions)
    def submissions(self, slug: str, team: str, *, organiser: bool = False) -> list[SubmissionView]:
        return self._submissions.submissions(slug, team, organiser=organiser)

    @documented_by(Submissions.submission_file)
    def submission_file(self, slug: str, team: str, number: int) -> bytes:
        return self._submissions.submission_file(slug, team, number)

    @documented_by(Submissions.select)
    def select(self, slug: str, team: str, submission_ids: list[int]) -> None:
        return self._submissions.select(slug, team, submission_ids)

    @documented_by(Submissions.explain)
    def explain(
        self, slug: str, team: str, result: SubmissionResult, info: CompetitionInfo | None = None
    ) -> str:
        return self._submissions.explain(slug, team, result, info)
