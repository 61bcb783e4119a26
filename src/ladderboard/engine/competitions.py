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
- :mod:`~ladderboard.engine.boards`: the public and private boards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Engine

from ladderboard.engine.boards import Boards
from ladderboard.engine.caches import Caches
from ladderboard.engine.context import EngineContext
from ladderboard.engine.data_files import DataFiles
from ladderboard.engine.kept_board import KeptBoard
from ladderboard.engine.lifecycle import UNCHANGED, Lifecycle
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
from ladderboard.engine.submissions import Submissions
from ladderboard.engine.submitting import Submitter
from ladderboard.engine.teams import Teams
from ladderboard.files.solution import Solution
from ladderboard.rules.boards import BoardRow
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import (
    DEFAULT_URL,
    OrganiserSessions,
    RateLimits,
    StoreUnavailable,
    TeamSessions,
    database_url,
    migrate,
    open_engine,
    queries,
    require_schema,
)

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


def migrate_store(url: str | None = None, *, create: bool = True) -> str:
    """Create the schema of the store at ``url`` (default:
    ``LADDERBOARD_DATABASE_URL`` or a SQLite file), or bring it up to date;
    return the URL used. With ``create=False`` the store must exist already
    (:class:`StoreUnavailable` otherwise, and nothing is created)."""
    url = database_url(url)
    engine = open_engine(url, create=create)
    try:
        if not create:
            require_schema(engine, outdated_ok=True)
        migrate(engine)
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
        self._lifecycle = Lifecycle(self.context)
        self._teams = Teams(self.context, self._lifecycle)
        self._data_files = DataFiles(self.context, self._lifecycle)
        self._boards = Boards(self.context, self._lifecycle)
        self._submissions = Submissions(self.context, self._lifecycle, self._boards, self.submitter)

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

    def dispose(self) -> None:
        """Close every pooled connection (the store's and the rate limits')."""
        self.rate_limits.dispose()
        self.engine.dispose()

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
        """Create a competition; its commitment is in the returned info.
        ``description`` (the overview) and ``rules`` are Markdown; ``files``
        are data files for the participants, stored with it or not at all.

        The stored configuration names every parameter of the mechanism with
        the value it runs with: those ``config`` leaves out are the
        recommended setting's on the recommended mechanism
        (:meth:`ladderboard.recommended.Recommended.fill`, at the solution's
        public size), else the mechanism's own defaults, and a default that
        follows from the holdout size is stored as it settles now. A board is
        thus read, replayed and audited from what is stored alone, whatever
        later releases choose as defaults.

        Raises :class:`ValueError` for a bad slug, title or text, a deadline
        already past, a solution the score cannot use or bad mechanism
        parameters (nothing is stored), and :class:`Conflict` when the slug
        is taken."""
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

    def update(
        self,
        slug: str,
        *,
        title: str | None = None,
        description: str | None = None,
        rules: str | None = None,
        deadline: datetime | str | None = _UNCHANGED,
    ) -> CompetitionInfo:
        """Edit what the organiser may change while the competition runs: its
        title, overview and rules (any time), and its deadline (while it is
        open: a deadline in the future, or ``None`` for none). What is not
        given stays as it was. The mechanism, the score and the quotas stay
        fixed: changing them would change the meaning of released scores."""
        return self._lifecycle.update(
            slug, title=title, description=description, rules=rules, deadline=deadline
        )

    def competition(self, slug: str) -> CompetitionInfo:
        return self._lifecycle.competition(slug)

    def competitions(self) -> list[CompetitionInfo]:
        return self._lifecycle.competitions()

    def solution(self, slug: str) -> Solution:
        """The organiser's solution (labels)."""
        return self._lifecycle.solution(slug)

    def decimals(self, info: CompetitionInfo) -> int:
        """The decimals a board shows: those the mechanism's releases really
        carry (a Shaky Ladder on a 1/16 grid shows two, not five), at most
        the competition's ``precision``."""
        return self._lifecycle.decimals(info)

    def columns(self, slug: str) -> tuple[str, tuple[str, ...]]:
        """The id column and the target columns a submission must have."""
        return self._lifecycle.columns(slug)

    def close(self, slug: str) -> CompetitionInfo:
        """Close now (or write the close of a deadline passed). Nothing else
        is written: a team's ``selected`` files stay its own choice, and the
        final selection (its choice, or the automatic one) follows from what
        the store holds, which no longer changes. Idempotent.

        The competition's row is locked first, as a submission's last write
        locks it: a submission that wrote before is committed, and read by
        the final selection; one that writes after finds the close and is
        refused (:data:`~ladderboard.store.statements.BUMP_IF_OPEN`). A
        close past the deadline (by the store's time) is dated at it."""
        return self._lifecycle.close(slug)

    def publish(self, slug: str) -> CompetitionInfo:
        """Publish the private board and reveal the audit key, once the
        competition is closed (by hand or by its deadline, which this
        finalises); idempotent. Until then only the organiser sees the
        private board, to look it over first. Under the lock the close
        takes, as :meth:`close`; the deadline by the store's time."""
        return self._lifecycle.publish(slug)

    def reveal_key(self, slug: str) -> str:
        """The random-stream key, for audit, once the private board is
        published. A read: it writes nothing."""
        return self._lifecycle.reveal_key(slug)

    def files(self, slug: str) -> list[FileInfo]:
        """The files participants may download: the sample submission
        (generated from the solution's ids), then the organiser's data files
        by name. Never the solution."""
        return self._data_files.files(slug)

    def file(self, slug: str, name: str) -> tuple[FileInfo, bytes]:
        """One downloadable file and its bytes (:class:`NotFound` if none)."""
        return self._data_files.file(slug, name)

    def sample_submission(self, slug: str) -> bytes:
        """Every id of the holdout with every target column at 0: a valid
        submission to start from, which says nothing of the labels. Under a
        score that compares labels the value is the smallest class of the
        solution when 0 is none (a file of another value would be refused);
        the classes are no secret, the refusal of any other value names
        them. Its rows are sorted by id (numerically when every id is a
        number), not in the solution file's order, which may group the
        public rows apart from the private ones and so give the split away."""
        return self._data_files.sample_submission(slug)

    def add_file(self, slug: str, name: str, data: bytes, *, replace: bool = False) -> FileInfo:
        """Attach a data file for the participants (or, with ``replace``,
        replace the file of that name); :class:`Conflict` if the name is taken."""
        return self._data_files.add_file(slug, name, data, replace=replace)

    def add_files(
        self, slug: str, files: Sequence[tuple[str, bytes]], *, replace: bool = False
    ) -> list[FileInfo]:
        """Attach data files, all of them or (at the first refusal) none."""
        return self._data_files.add_files(slug, files, replace=replace)

    def remove_file(self, slug: str, name: str) -> None:
        """Remove a data file (:class:`NotFound` if there is none)."""
        return self._data_files.remove_file(slug, name)

    def add_team(self, slug: str, name: str, *, token_hash: str | None = None) -> TeamInfo:
        """Register a team. Names are unique in a competition under
        normalisation, case folding and look-alike letters
        (:func:`~ladderboard.rules.text.name_key`); a closed competition
        takes no new team."""
        return self._teams.add_team(slug, name, token_hash=token_hash)

    def add_teams(
        self, slug: str, names: Sequence[str], token_hashes: Sequence[str | None]
    ) -> list[TeamInfo]:
        """Register many teams at once (an import): all of them or, at the
        first refusal, none. Refuses as :meth:`add_team` does, and a name
        repeated in ``names`` (under case and Unicode folding)."""
        return self._teams.add_teams(slug, names, token_hashes)

    def teams(self, slug: str) -> list[TeamInfo]:
        return self._teams.teams(slug)

    def team(self, slug: str, name: str) -> TeamInfo:
        return self._teams.team(slug, name)

    def set_team_disabled(self, slug: str, name: str, disabled: bool) -> TeamInfo:
        """Disable a team (it can no longer sign in, submit or select, and is
        left off both boards) or enable it again; idempotent. Its submissions
        are kept, and enabling it restores them to the boards. Disabling signs
        out every browser of the team: its sessions are deleted, so enabling
        the team again does not revive them."""
        return self._teams.set_team_disabled(slug, name, disabled)

    def reissue_token(self, slug: str, name: str, token_hash: str) -> TeamInfo:
        """Give team ``name`` the token of SHA-256 ``token_hash`` in place of
        its own (a leaked token replaced). The team keeps its place, its
        submissions, quotas and selection; the old token is refused from the
        commit on, by every process, since each looks tokens up in the store;
        and every browser signed in as the team is signed out, as one signed
        in with the leaked token may be the leak's. A disabled team stays
        disabled."""
        return self._teams.reissue_token(slug, name, token_hash)

    def team_summaries(self, slug: str) -> list[TeamSummary]:
        """Every team with its activity, for the organiser's desk."""
        return self._teams.team_summaries(slug)

    def quota(self, slug: str, team: str) -> QuotaView:
        """What the team has used of its quotas, and when the daily one resets."""
        return self._teams.quota(slug, team)

    def rejections(self, slug: str, team: str) -> list[RejectionView]:
        """The team's refused files with the reason, newest first."""
        return self._teams.rejections(slug, team)

    def invalid_count(self, slug: str, team: str) -> int:
        return self._teams.invalid_count(slug, team)

    def knows_token_hash(self, token_hash: str) -> bool:
        """Whether some team of some competition has this token (SHA-256)."""
        return self._teams.knows_token_hash(token_hash)

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
        return self._teams.member_admission(slug, token_hash, idempotency_key, rate_key=rate_key)

    def team_by_token_hash(self, slug: str, token_hash: str) -> TeamInfo:
        return self._teams.team_by_token_hash(slug, token_hash)

    def leaderboard(
        self, slug: str, board: str = "public", *, organiser: bool = False
    ) -> list[BoardRow]:
        """:meth:`board` as a list of its own."""
        return self._boards.leaderboard(slug, board, organiser=organiser)

    def board(
        self, slug: str, board: str = "public", *, organiser: bool = False
    ) -> tuple[BoardRow, ...]:
        """The public board as released, or the private board (once the
        organiser publishes it; to the organiser at any time). Disabled teams
        are left off both.

        The public board is read from the teams' stored standings (one row a
        team, sorted here); either board is then kept in this process under
        the competition's board version, and handed out again while the store
        says the version is the same (one query, the competition's row, which
        every call reads anyway); a board not kept is built by one caller
        while the others that ask for it at the same version wait for it. A
        per-team public board kept at a later version is handed out too, and
        one kept at an older version is patched with the standings changed
        since (:mod:`~ladderboard.engine.kept_board`). The tuple returned is
        the one kept: the same object while the board stays the same, so
        that what a caller derives from it (a serialised response) may be
        kept by its identity."""
        return self._boards.board(slug, board, organiser=organiser)

    def kept_board(
        self, slug: str, board: str = "public", *, organiser: bool = False
    ) -> tuple[BoardRow, ...] | KeptBoard:
        """:meth:`board` as this process keeps it: the tuple of rows, or for
        the public board of a per-team competition the
        :class:`~ladderboard.engine.kept_board.KeptBoard`, whose rows are
        ranked only when asked for and which says how it was patched from the
        board before it. A serialiser that follows those edits (the API's
        JSON) does not pay for a row at every rank a submission moved."""
        return self._boards.kept_board(slug, board, organiser=organiser)

    def leaderboard_from_submissions(self, slug: str, board: str = "public") -> list[BoardRow]:
        """The board rebuilt from every stored submission by the rules, as
        :meth:`leaderboard` once built each one: what the stored standings
        must agree with (the audit checks it). The organiser's view."""
        return self._boards.leaderboard_from_submissions(slug, board)

    def flags(self, slug: str) -> list[DuplicateFlag]:
        """Identical predictions from different teams, for the organiser: each
        submission with the earlier one of another team it repeats."""
        return self._boards.flags(slug)

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
        """Score one submission file for ``team``; all of it is stored or none.

        Raises :class:`SubmissionError` (bad file: recorded against the
        invalid cap only, with the ``filename`` it was sent under, which
        the team's list of refused files shows), :class:`QuotaExceeded`, :class:`CompetitionClosed`,
        :class:`DuplicateSubmission` or :class:`NotFound`; each leaves the
        team's quota and the mechanism's state untouched. The rules are
        :meth:`Submitter.submit_once <ladderboard.engine.submitting.Submitter.submit_once>`.
        """
        return self._submissions.submit(
            slug, team, data, message=message, idempotency_key=idempotency_key, filename=filename
        )

    def admit(
        self,
        slug: str,
        team: str,
        idempotency_key: str | None = None,
        *,
        read: Admission | None = None,
    ) -> None:
        """Refuse what needs no file, before one is read: a closed competition,
        a spent quota or invalid-file cap (:class:`CompetitionClosed`,
        :class:`QuotaExceeded`, :class:`NotFound`). ``submit`` checks all of it
        again under the lock; this only spares the server the work of reading
        a file it would refuse. A submission resent with an idempotency key
        already used passes: ``submit`` answers it with the first result.
        ``read`` is the admission :meth:`member_admission` read for this team
        and key, which spares reading it again."""
        return self._submissions.admit(slug, team, idempotency_key, read=read)

    def submissions(self, slug: str, team: str, *, organiser: bool = False) -> list[SubmissionView]:
        """A team's own submissions: private scores, the mechanism's
        decisions and a ladder's automatic finals only once published;
        ``organiser`` sees the decisions and the finals (not the private
        scores, which the private board shows first) at any time."""
        return self._submissions.submissions(slug, team, organiser=organiser)

    def submission_file(self, slug: str, team: str, number: int) -> bytes:
        """The file of the team's own submission ``number`` (its number among
        the team's, as :meth:`submissions` lists them), byte for byte as it
        was received; :class:`NotFound` if the team has no such submission.
        Only the team's own: the number is looked up among its submissions."""
        return self._submissions.submission_file(slug, team, number)

    def select(self, slug: str, team: str, submission_ids: list[int]) -> None:
        """Choose the team's final submissions (replacing an earlier choice),
        by the team's own numbers (``SubmissionView.id``)."""
        return self._submissions.select(slug, team, submission_ids)

    def explain(
        self, slug: str, team: str, result: SubmissionResult, info: CompetitionInfo | None = None
    ) -> str:
        """What happened to the team's public score, in words, from what the
        team already sees: its own released scores and its place on the
        public board (never the mechanism's hidden state). ``info``, the
        competition as read before the submission, spares reading it again."""
        return self._submissions.explain(slug, team, result, info)
