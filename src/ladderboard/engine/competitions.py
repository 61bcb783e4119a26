"""The competition engine: what the web edge calls.

:class:`Competitions` creates competitions from a solution file, registers
teams, scores submissions through each board's mechanism in one serialised
transaction, keeps quotas, closes competitions and builds their boards. It
raises the refusals of :mod:`ladderboard.engine.errors` (and
:class:`~ladderboard.files.submission.SubmissionError` for bad files);
the web edge turns them into HTTP responses.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ladderboard.engine import instances, lookup, quotas
from ladderboard.engine.caches import Caches
from ladderboard.engine.errors import CompetitionClosed, Conflict, NotFound, TeamDisabled
from ladderboard.engine.kept_board import KeptBoard
from ladderboard.engine.results import (
    BOARD_SCOPE,
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
    aware,
    commitment_of,
    now_utc,
    team_scope,
)
from ladderboard.engine.submitting import Submitter
from ladderboard.files.solution import Solution
from ladderboard.mechanisms import MECHANISMS
from ladderboard.random import KeyedStream
from ladderboard.rules.boards import (
    BoardRow,
    Record,
    Standing,
    final_selection,
    private_board,
    public_board,
    rank_entries,
    rank_standings,
    ranked,
)
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.explain import display_decimals, explain
from ladderboard.rules.scoring import check_targets
from ladderboard.rules.text import (
    DESCRIPTION_CHARS,
    SAMPLE_SUBMISSION,
    TEAM_NAME_CHARS,
    TITLE_CHARS,
    check_file_name,
    check_slug,
    check_text,
    name_key,
)
from ladderboard.store import (
    DEFAULT_URL,
    CompetitionFileRow,
    CompetitionRow,
    OrganiserSessions,
    RateLimits,
    StoreUnavailable,
    TeamRow,
    TeamSessions,
    database_url,
    migrate,
    open_engine,
    queries,
    read_only,
    require_schema,
    statements,
)
from ladderboard.store.blobs import pack, unpack
from ladderboard.store.clock import store_time
from ladderboard.store.database import writer_turn

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


def _records(
    session: Session, competition_id: int, left_out: frozenset[str] = frozenset()
) -> tuple[list[Record[datetime]], dict[int, int]]:
    """The competition's submissions as the boards take them (but those of
    the teams ``left_out``), and each one's number in its team (what the team
    calls it) by its id."""
    rows = queries.submissions_with_team(session, competition_id)
    records = [
        Record(id_, name, aware(created), public, private, selected, bool(improved))
        for id_, name, created, public, private, selected, _, improved in rows
        if name not in left_out
    ]
    return records, {row[0]: row[6] for row in rows}


def _final_selection(records: Sequence[Record[datetime]], config: CompetitionConfig) -> set[int]:
    """The submissions that count for the final ranking: each team's own
    selection, or, for a team that selected nothing, the files the mechanism
    took as its best on a ladder, its best releases under full disclosure
    (:func:`~ladderboard.rules.boards.auto_select`)."""
    return final_selection(
        records,
        config.n_selections,
        direction=config.scoring().direction,
        by_decision=MECHANISMS[config.mechanism].release_is_current_best,
    )


def _numbered(
    standings: Sequence[Standing[datetime | None, int | None]], numbers: dict[int, int]
) -> list[BoardRow]:
    """Standings as board rows, each naming its submission by the team's own
    number (``numbers`` by submission id; a per-rank board names none)."""
    return [
        BoardRow(
            rank,
            s.team,
            s.score,
            s.entries,
            s.last_submission,
            None if s.submission_id is None else numbers[s.submission_id],
        )
        for rank, s in enumerate(standings, 1)
    ]


def _team_info(row: TeamRow) -> TeamInfo:
    return TeamInfo(row.id, row.name, aware(row.created_at), row.disabled_at is not None)


class Competitions:
    """The engine over one store (a SQLAlchemy engine): organiser and team
    actions and the boards, composed over the store's queries, the rules,
    the :class:`~ladderboard.engine.submitting.Submitter` and the in-process
    :class:`~ladderboard.engine.caches.Caches`.

    >>> store = Competitions.open("sqlite://")          # in memory, for the example
    >>> solution = Solution.from_labels([0, 1] * 50, public_fraction=0.5, random_state=0)
    >>> info = store.create("demo", solution, CompetitionConfig(
    ...     score="zero_one", mechanism="parameter-free-ladder"))
    >>> _ = store.add_team("demo", "alpha")
    >>> result = store.submit("demo", "alpha", solution.sample_submission_csv(fill=1.0))
    >>> result.public_score, result.remaining_today
    (0.5, 4)
    """

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
        self.engine = engine
        self.reader = read_only(engine)  # reads: on SQLite, a snapshot without the write lock
        self._clock = clock
        self._store_clock = store_clock
        self.caches = Caches(
            mechanisms=mechanism_cache, mechanism_bytes=mechanism_cache_bytes, enabled=caching
        )
        self.submitter = Submitter(engine, self.reader, clock, self.caches, self._store_now)
        # Shared by every process over this store: the web edge's rate limits
        # and the organiser's sign-ins.
        self.rate_limits = RateLimits(engine)
        self.sessions = OrganiserSessions(engine, self.reader, clock)
        self.team_sessions = TeamSessions(engine, self.reader, clock)

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

    def _store_now(self) -> datetime | None:
        """The time to bind as the store's: the test's ``store_clock``, or
        ``None`` for the database's own."""
        return None if self._store_clock is None else self._store_clock()

    def _locked(self, session: Session, slug: str) -> tuple[CompetitionRow, datetime]:
        """The competition's row, read under its lock
        (:func:`~ladderboard.store.statements.lock_competition`), and the
        store's time once the lock is held."""
        lookup.refuse_impossible(slug)
        found = statements.lock_competition(session.connection(), slug, self._store_now())
        if found is None:
            raise NotFound(f"no competition {slug!r}")
        return lookup.competition(session, slug), aware(found[1])

    @contextmanager
    def _transaction(self) -> Iterator[Session]:
        with (
            writer_turn(self.engine),
            Session(self.engine, expire_on_commit=False) as session,
            session.begin(),
        ):
            yield session

    # ------------------------------------------------------------ organiser
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
        check_slug(slug)
        if title is not None:
            check_text("title", title, max_chars=TITLE_CHARS)
        check_text("description", description, max_chars=DESCRIPTION_CHARS, multiline=True)
        check_text("rules", rules, max_chars=DESCRIPTION_CHARS, multiline=True)
        self._check_deadline(config.deadline)
        checked_files = _checked_files(files, self._clock())
        config = config.explicit(solution.n_public)
        stream = KeyedStream.from_random_state(random_state)
        solution_bytes = solution.to_csv()
        solution_sha256 = hashlib.sha256(solution_bytes).hexdigest()
        split = solution.split_sha256
        row = CompetitionRow(
            slug=slug,
            title=title or slug,
            description=description,
            rules=rules,
            config=config.to_json(),
            created_at=self._clock(),
            deadline=config.deadline,
            closed_at=None,
            solution_sha256=solution_sha256,
            split_sha256=split,
            secret_key=stream.key_hex,
            commitment=commitment_of(solution_sha256, split, stream.key_hex),
            n_public=solution.n_public,
            n_private=solution.n_private,
        )
        try:
            check_targets(config.scoring(), solution.targets)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the solution cannot be scored by {config.score!r}: {exc}") from None
        # Build one mechanism now, so that bad parameters fail before anything is stored.
        fresh, _ = instances.factory(row.secret_key, config, solution)
        try:
            checked = fresh("check")
        except (TypeError, ValueError) as exc:
            raise ValueError(f"mechanism {config.mechanism!r}: {exc}") from exc
        # Defaults that a later release may choose again are stored as they settle now.
        settled = checked.get_params()
        pinned = {
            name: settled[name]
            for name in type(checked).pinned_defaults
            if config.mechanism_params.get(name) is None  # absent, or null: the default
        }
        if pinned:
            config = dataclasses.replace(
                config, mechanism_params={**config.mechanism_params, **pinned}
            )
            row.config = config.to_json()
        shared = BOARD_SCOPE if config.board == "per-rank" else None
        try:
            with self._transaction() as session:
                queries.add_competition(session, row, pack(solution_bytes), shared)
                _store_files(session, row, checked_files, replace=False)
        except IntegrityError as exc:
            raise Conflict(f"a competition {slug!r} already exists") from exc
        return lookup.info(row)

    def _check_deadline(self, deadline: datetime | None) -> None:
        if deadline is not None and deadline <= self._clock():
            raise ValueError(
                f"the deadline {deadline:%Y-%m-%d %H:%M} UTC is in the past: choose a later one"
            )

    _UNCHANGED: Any = object()

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
        if title is not None:
            check_text("title", title, max_chars=TITLE_CHARS)
        for field, text in (("description", description), ("rules", rules)):
            if text is not None:
                check_text(field, text, max_chars=DESCRIPTION_CHARS, multiline=True)
        with self._transaction() as session:
            competition, store_now = self._locked(session, slug)
            if deadline is not self._UNCHANGED:
                if lookup.info(competition).is_closed(store_now):
                    raise CompetitionClosed(
                        f"competition {slug!r} is closed: its deadline cannot change"
                    )
                config = dataclasses.replace(
                    CompetitionConfig.from_json(competition.config),
                    deadline=deadline,  # type: ignore[arg-type]  # __post_init__ parses a string
                )
                self._check_deadline(config.deadline)
                competition.config = config.to_json()
                competition.deadline = config.deadline
            if title is not None:
                competition.title = title.strip() or competition.slug
            if description is not None:
                competition.description = description
            if rules is not None:
                competition.rules = rules
            return lookup.info(competition)

    def competition(self, slug: str) -> CompetitionInfo:
        lookup.refuse_impossible(slug)
        with self.reader.connect() as connection:
            row = queries.competition_info(connection, slug, self._store_now())
        if row is None:
            raise NotFound(f"no competition {slug!r}")
        info = lookup.info(row, row.read_at)
        if info.read_at is not None and info.publication_due(info.read_at):
            return self._publish_due(slug)
        return info

    def competitions(self) -> list[CompetitionInfo]:
        with Session(self.reader) as session:
            return [lookup.info(row) for row in queries.competitions(session)]

    def solution(self, slug: str) -> Solution:
        """The organiser's solution (labels)."""
        with Session(self.reader) as session:
            row = lookup.competition(session, slug)
            return self.caches.solutions.lookup(row.id, row.solution_sha256, session.connection())

    def decimals(self, info: CompetitionInfo) -> int:
        """The decimals a board shows: those the mechanism's releases really
        carry (a Shaky Ladder on a 1/16 grid shows two, not five), at most
        the competition's ``precision``."""
        config = info.config
        key = (info.commitment, config.mechanism, repr(config.mechanism_params), config.precision)
        found = self.caches.decimals.get(key)
        if found is None:
            # The resolution depends on the parameters and n, not on the key.
            fresh, _ = instances.factory("0" * 32, info.config, self.solution(info.slug))
            found = display_decimals(fresh("resolution").resolution, info.config.precision)
            self.caches.decimals[key] = found
        return found

    def explain(
        self, slug: str, team: str, result: SubmissionResult, info: CompetitionInfo | None = None
    ) -> str:
        """What happened to the team's public score, in words, from what the
        team already sees: its own released scores and its place on the
        public board (never the mechanism's hidden state). ``info``, the
        competition as read before the submission, spares reading it again."""
        if info is None or info.slug != slug:
            info = self.competition(slug)
        config = info.config
        direction = config.scoring().direction
        previous = result.previous_score
        rank = previous_rank = None
        if config.board == "per-rank":
            row = next((r for r in self.leaderboard(slug) if r.team == team), None)
            if row is not None:
                rank = row.rank
                # An entry whose score is not this release was kept from before.
                previous_rank = None if row.score == result.public_score else rank
            previous = None if row is None or previous_rank is None else row.score
        elif not MECHANISMS[config.mechanism].release_is_current_best and previous is not None:
            # The board shows the team's best release: explain against the best before.
            earlier = [v.public_score for v in self.submissions(slug, team) if v.id < result.id]
            previous = direction.best(earlier) if earlier else None
        return explain(
            config.mechanism,
            result.public_score,
            previous,
            direction=direction,
            decimals=self.decimals(info),
            params=config.mechanism_params,
            board=config.board,
            rank=rank,
            previous_rank=previous_rank,
        )

    def columns(self, slug: str) -> tuple[str, tuple[str, ...]]:
        """The id column and the target columns a submission must have."""
        solution = self.solution(slug)
        return solution.id_column, solution.target_columns

    # --------------------------------------------------------------- data files
    def files(self, slug: str) -> list[FileInfo]:
        """The files participants may download: the sample submission
        (generated from the solution's ids), then the organiser's data files
        by name. Never the solution."""
        with Session(self.reader) as session:
            competition = lookup.competition(session, slug)
            rows = queries.competition_files(session, competition.id)
        return [
            self._sample(slug, aware(competition.created_at))[0],
            *(FileInfo(r.name, r.size, r.sha256, aware(r.created_at)) for r in rows),
        ]

    def file(self, slug: str, name: str) -> tuple[FileInfo, bytes]:
        """One downloadable file and its bytes (:class:`NotFound` if none)."""
        with Session(self.reader) as session:
            competition = lookup.competition(session, slug)
            if name == SAMPLE_SUBMISSION:
                return self._sample(slug, aware(competition.created_at))
            row = (
                queries.competition_file(session, competition.id, name)
                if _file_name_ok(name)
                else None
            )
            if row is None:
                raise NotFound(f"competition {slug!r} has no file {name[:120]!r}")
            info = FileInfo(row.name, row.size, row.sha256, aware(row.created_at))
            return info, unpack(row.data)

    def _sample(self, slug: str, created_at: datetime) -> tuple[FileInfo, bytes]:
        data = self.sample_submission(slug)
        info = FileInfo(
            SAMPLE_SUBMISSION, len(data), hashlib.sha256(data).hexdigest(), created_at, True
        )
        return info, data

    def sample_submission(self, slug: str) -> bytes:
        """Every id of the holdout with every target column at 0: a valid
        submission to start from, which says nothing of the labels. Under a
        score that compares labels the value is the smallest class of the
        solution when 0 is none (a file of another value would be refused);
        the classes are no secret, the refusal of any other value names
        them. Its rows are sorted by id (numerically when every id is a
        number), not in the solution file's order, which may group the
        public rows apart from the private ones and so give the split away."""
        solution = self.solution(slug)
        fill = 0.0
        if self.competition(slug).config.scoring().takes_labels and 0.0 not in solution.classes:
            fill = float(solution.classes[0])
        header, *rows = solution.sample_submission_csv(fill).decode().splitlines()
        ids = solution.ids.tolist()  # in the rows' order
        numeric = all(i.isdigit() for i in ids)
        order = sorted(range(len(rows)), key=lambda k: int(ids[k]) if numeric else ids[k])
        return ("\n".join([header, *(rows[k] for k in order)]) + "\n").encode()

    def add_file(self, slug: str, name: str, data: bytes, *, replace: bool = False) -> FileInfo:
        """Attach a data file for the participants (or, with ``replace``,
        replace the file of that name); :class:`Conflict` if the name is taken."""
        return self.add_files(slug, [(name, data)], replace=replace)[0]

    def add_files(
        self, slug: str, files: Sequence[tuple[str, bytes]], *, replace: bool = False
    ) -> list[FileInfo]:
        """Attach data files, all of them or (at the first refusal) none."""
        checked = _checked_files(files, self._clock())
        try:
            with self._transaction() as session:
                competition = lookup.competition(session, slug)
                _store_files(session, competition, checked, replace)
        except IntegrityError as exc:
            raise Conflict(
                f"competition {slug!r} already has a file of one of these names"
            ) from exc
        return [info for info, _ in checked]

    def remove_file(self, slug: str, name: str) -> None:
        """Remove a data file (:class:`NotFound` if there is none)."""
        with self._transaction() as session:
            competition = lookup.competition(session, slug)
            row = (
                queries.competition_file(session, competition.id, name)
                if _file_name_ok(name)
                else None
            )
            if row is None:
                raise NotFound(f"competition {slug!r} has no file {name[:120]!r}")
            session.delete(row)

    def add_team(self, slug: str, name: str, *, token_hash: str | None = None) -> TeamInfo:
        """Register a team. Names are unique in a competition under
        normalisation, case folding and look-alike letters
        (:func:`~ladderboard.rules.text.name_key`); a closed competition
        takes no new team."""
        name = name.strip() if isinstance(name, str) else name
        check_text("team name", name, max_chars=TEAM_NAME_CHARS)
        if not name:
            raise ValueError("team name must not be empty")
        key = hashlib.sha256(name_key(name).encode()).hexdigest()
        now = self._clock()
        try:
            with self._transaction() as session:
                competition, store_now = self._locked(session, slug)
                if lookup.info(competition).is_closed(store_now):
                    raise CompetitionClosed(f"competition {slug!r} is closed")
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
        now = self._clock()
        teams = []
        try:
            with self._transaction() as session:
                competition, store_now = self._locked(session, slug)
                if lookup.info(competition).is_closed(store_now):
                    raise CompetitionClosed(f"competition {slug!r} is closed")
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
        except IntegrityError as exc:
            raise Conflict(f"a team of this import already exists in {slug!r}") from exc
        return [TeamInfo(t.id, t.name, now) for t in teams]

    def teams(self, slug: str) -> list[TeamInfo]:
        with Session(self.reader) as session:
            competition = lookup.competition(session, slug)
            return [_team_info(r) for r in queries.teams(session, competition.id)]

    def team(self, slug: str, name: str) -> TeamInfo:
        with Session(self.reader) as session:
            return _team_info(lookup.team(session, lookup.competition(session, slug), name))

    def set_team_disabled(self, slug: str, name: str, disabled: bool) -> TeamInfo:
        """Disable a team (it can no longer sign in, submit or select, and is
        left off both boards) or enable it again; idempotent. Its submissions
        are kept, and enabling it restores them to the boards. Disabling signs
        out every browser of the team: its sessions are deleted, so enabling
        the team again does not revive them."""
        now = self._clock()
        with self._transaction() as session:
            team = lookup.team(session, lookup.competition(session, slug), name)
            # A disabled team cannot sign in: any session it has is one that
            # its disabling revoked, deleted here when it is enabled too.
            revoke = disabled or team.disabled_at is not None
            if disabled and team.disabled_at is None:
                team.disabled_at = now
            elif not disabled:
                team.disabled_at = None
            info = _team_info(team)
            connection = session.connection()
            if revoke:
                TeamSessions.revoke_team(connection, team.id)
            version = statements.bump_board_version(connection, team.competition_id)
            statements.stamp_standing(connection, team.id, version)
        self.caches.targets.pop((slug, name), None)
        return info

    def reissue_token(self, slug: str, name: str, token_hash: str) -> TeamInfo:
        """Give team ``name`` the token of SHA-256 ``token_hash`` in place of
        its own (a leaked token replaced). The team keeps its place, its
        submissions, quotas and selection; the old token is refused from the
        commit on, by every process, since each looks tokens up in the store;
        and every browser signed in as the team is signed out, as one signed
        in with the leaked token may be the leak's. A disabled team stays
        disabled."""
        with self._transaction() as session:
            team = lookup.team(session, lookup.competition(session, slug), name)
            team.token_hash = token_hash
            TeamSessions.revoke_team(session.connection(), team.id)
            info = _team_info(team)
        return info

    def team_summaries(self, slug: str) -> list[TeamSummary]:
        """Every team with its activity, for the organiser's desk."""
        day = quotas.daily_window(self._clock())
        with Session(self.reader) as session:
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
        start, end = quotas.daily_window(self._clock())
        with Session(self.reader) as session:
            competition = lookup.competition(session, slug)
            config = CompetitionConfig.from_json(competition.config)
            team_row = lookup.team(session, competition, team)
            rows = queries.team_submissions(session, team_row.id)
            invalid = queries.rejection_count(session, team_row.id)
        return QuotaView(
            used_today=sum(start <= aware(r.created_at) < end for r in rows),
            daily_quota=config.daily_quota,
            used_total=len(rows),
            total_quota=config.total_quota,
            invalid=invalid,
            invalid_quota=config.invalid_quota,
            resets_at=end,
        )

    def rejections(self, slug: str, team: str) -> list[RejectionView]:
        """The team's refused files with the reason, newest first."""
        with Session(self.reader) as session:
            team_row = lookup.team(session, lookup.competition(session, slug), team)
            return [
                RejectionView(aware(r.created_at), r.code, r.message, r.size, r.filename)
                for r in queries.rejections(session, team_row.id)
            ]

    def knows_token_hash(self, token_hash: str) -> bool:
        """Whether some team of some competition has this token (SHA-256)."""
        with self.reader.connect() as connection:
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
        now = self._clock()
        with self.reader.connect() as connection:
            row = statements.member_admission(
                connection,
                slug,
                token_hash,
                idempotency_key,
                quotas.daily_window(now),
                rate_key,
                self._store_now(),
            )
        if row is None:
            return MemberRead(None, None, None)
        info = lookup.info(row, row.store_now)
        if info.read_at is not None and info.publication_due(info.read_at):
            self._publish_due(slug)  # then read again, published
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
        )
        return MemberRead(info, team, admission, row.rate_tat)

    def team_by_token_hash(self, slug: str, token_hash: str) -> TeamInfo:
        lookup.refuse_impossible(slug)
        with self.reader.connect() as connection:
            row = queries.team_with_token(connection, slug, token_hash)
        if row is None:
            self.competition(slug)  # NotFound names a missing competition
            raise NotFound("no team with this token in this competition")
        return _team_info(row)

    # ------------------------------------------------------------------ teams
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
        return self.submitter.submit(
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
        self.submitter.admit(slug, team, idempotency_key, read)

    def submissions(self, slug: str, team: str, *, organiser: bool = False) -> list[SubmissionView]:
        """A team's own submissions: private scores, the mechanism's
        decisions and a ladder's automatic finals only once published;
        ``organiser`` sees the decisions and the finals (not the private
        scores, which the private board shows first) at any time."""
        now = self._clock()
        with Session(self.reader) as session:
            competition = lookup.competition(session, slug)
            team_row = lookup.team(session, competition, team)
            info = lookup.info(competition)
            published = info.is_published(now)
            rows = queries.team_submissions(session, team_row.id)
        records = [
            Record(
                r.number,
                team,
                aware(r.created_at),
                r.public_score,
                r.private_score,
                r.selected,
                bool(r.improved),
            )
            for r in rows
        ]
        decided = published or organiser
        if MECHANISMS[info.config.mechanism].release_is_current_best and not decided:
            # A ladder's automatic choice follows the mechanism's decisions,
            # which stay the organiser's until the private board is
            # published: until then only the team's own selection is shown.
            final = {r.id for r in records if r.selected}
        else:
            final = _final_selection(records, info.config)
        return [
            SubmissionView(
                r.number,
                aware(r.created_at),
                r.message,
                r.public_score,
                r.selected,
                r.private_score if published else None,
                r.number in final,
                bool(r.improved) if decided else None,
            )
            for r in rows
        ]

    def submission_file(self, slug: str, team: str, number: int) -> bytes:
        """The file of the team's own submission ``number`` (its number among
        the team's, as :meth:`submissions` lists them), byte for byte as it
        was received; :class:`NotFound` if the team has no such submission.
        Only the team's own: the number is looked up among its submissions."""
        with Session(self.reader) as session:
            team_row = lookup.team(session, lookup.competition(session, slug), team)
            blob = (
                queries.team_submission_file(session, team_row.id, number)
                if isinstance(number, int) and 0 < number < 2**31
                else None
            )
        if blob is None:
            raise NotFound(f"team {team!r} has no submission {number!r}")
        return unpack(blob)

    def select(self, slug: str, team: str, submission_ids: list[int]) -> None:
        """Choose the team's final submissions (replacing an earlier choice),
        by the team's own numbers (``SubmissionView.id``)."""
        with self._transaction() as session:
            # Under the lock the close takes, at the store's time: no
            # selection after the close, whatever this host's clock says.
            competition, store_now = self._locked(session, slug)
            team_row = lookup.team(session, competition, team)
            config = CompetitionConfig.from_json(competition.config)
            if lookup.info(competition).is_closed(store_now):
                raise CompetitionClosed(f"competition {slug!r} is closed")
            if team_row.disabled_at is not None:
                raise TeamDisabled(f"team {team!r} is disabled by the organiser")
            chosen = set(submission_ids)
            if len(chosen) > config.n_selections:
                raise ValueError(
                    f"at most {config.n_selections} final submissions, got {len(chosen)}"
                )
            rows = queries.team_submissions(session, team_row.id)
            unknown = chosen - {r.number for r in rows}
            if unknown:
                raise NotFound(f"team {team!r} has no submission {sorted(unknown)}")
            for row in rows:
                row.selected = row.number in chosen
            statements.bump_board_version(session.connection(), competition.id, reset=True)

    def invalid_count(self, slug: str, team: str) -> int:
        with Session(self.reader) as session:
            competition = lookup.competition(session, slug)
            return queries.rejection_count(session, lookup.team(session, competition, team).id)

    # ------------------------------------------------------ close and boards
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
        with self._transaction() as session:
            competition, now = self._locked(session, slug)
            if competition.closed_at is not None:
                return lookup.info(competition)
            if competition.deadline is not None and now > aware(competition.deadline):
                now = aware(competition.deadline)
            competition.closed_at = now
            session.flush()
            statements.bump_board_version(session.connection(), competition.id, reset=True)
            return lookup.info(competition)

    def publish(self, slug: str) -> CompetitionInfo:
        """Publish the private board and reveal the audit key, once the
        competition is closed (by hand or by its deadline, which this
        finalises); idempotent. Until then only the organiser sees the
        private board, to look it over first. Under the lock the close
        takes, as :meth:`close`; the deadline by the store's time."""
        with self._transaction() as session:
            competition, now = self._locked(session, slug)
            if competition.key_revealed_at is not None:
                return lookup.info(competition)
            if not lookup.info(competition).is_closed(now):
                raise CompetitionClosed(
                    f"competition {slug!r} is open: close it before publishing its private board"
                )
            if competition.closed_at is None:  # its deadline passed: close it now
                competition.closed_at = aware(competition.deadline)
            competition.key_revealed_at = now
            session.flush()
            statements.bump_board_version(session.connection(), competition.id, reset=True)
            return lookup.info(competition)

    def _publish_due(self, slug: str) -> CompetitionInfo:
        """Publish a competition that publishes automatically, its deadline
        past by the store's time: the close and the publication, dated at the
        deadline, written under the lock the close takes (:meth:`publish`). Whichever engine
        reads it first
        writes it; until then no engine shows the private board, and from
        then every engine refuses submissions: what one host shows as
        published no host still accepts a file for."""
        with self._transaction() as session:
            competition, store_now = self._locked(session, slug)
            info = lookup.info(competition, store_now)
            if not info.publication_due(store_now):  # written meanwhile
                return info
            if competition.closed_at is None:
                competition.closed_at = aware(competition.deadline)
            competition.key_revealed_at = aware(competition.deadline)
            session.flush()
            statements.bump_board_version(session.connection(), competition.id, reset=True)
            return lookup.info(competition, store_now)

    def _published_now(self, session: Session, competition: CompetitionRow) -> bool:
        """Whether ``competition`` (read without a lock) is published, or
        due to be by the store's time (then it is written now)."""
        info = lookup.info(competition)
        if info.is_published() or not info.config.auto_publish or info.deadline is None:
            return info.is_published()
        store_now = store_time(session.connection(), self._store_now())
        return info.publication_due(store_now) and self._publish_due(info.slug).is_published()

    def leaderboard(
        self, slug: str, board: str = "public", *, organiser: bool = False
    ) -> list[BoardRow]:
        """:meth:`board` as a list of its own."""
        return list(self.board(slug, board, organiser=organiser))

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
        found = self.kept_board(slug, board, organiser=organiser)
        return found.rows if isinstance(found, KeptBoard) else found

    def kept_board(
        self, slug: str, board: str = "public", *, organiser: bool = False
    ) -> tuple[BoardRow, ...] | KeptBoard:
        """:meth:`board` as this process keeps it: the tuple of rows, or for
        the public board of a per-team competition the
        :class:`~ladderboard.engine.kept_board.KeptBoard`, whose rows are
        ranked only when asked for and which says how it was patched from the
        board before it. A serialiser that follows those edits (the API's
        JSON) does not pay for a row at every rank a submission moved."""
        if board not in ("public", "private"):
            raise ValueError(f"board must be 'public' or 'private', got {board!r}")
        with Session(self.reader) as session:
            competition = lookup.competition(session, slug)
            info = lookup.info(competition)
            unpublished = board == "private" and not organiser and not info.is_published()
            if unpublished and self._published_now(session, competition):
                session.close()  # published just now: read it as written
                return self.kept_board(slug, board, organiser=organiser)
            self._refuse_private(board, info, organiser)
            key = (competition.id, competition.commitment, board)
            version = competition.board_version
            if board == "public" and info.config.board == "per-team":
                return self._patched_public_board(session, competition, info, key)

            def build() -> tuple[BoardRow, ...]:
                if board == "private":
                    return tuple(self._private_board(session, competition, info))
                return tuple(self._public_board(session, competition, info))

            return self.caches.boards.made(key, version, build)

    def _patched_public_board(
        self, session: Session, competition: CompetitionRow, info: CompetitionInfo, key: Any
    ) -> KeptBoard:
        """The public board of a per-team competition: the one kept here if it
        is at the store's board version (or a later one); else the one kept
        patched with the standings changed since
        (:mod:`~ladderboard.engine.kept_board`), unless a change that is not
        one of standings came between; else built from every standing. Its
        readers after a submission or a restart arrive together: one of them
        patches or builds it while the others wait for it."""
        version = competition.board_version

        def patch() -> KeptBoard:
            direction = info.config.scoring().direction
            found = self.caches.public_boards.latest(key)
            kept = None if found is None else found[1]
            if kept is not None and competition.board_reset_version <= kept.version < version:
                changed = queries.standings_since(session, competition.id, kept.version)
                return kept.patched(version, changed, direction)
            return KeptBoard.build(version, queries.standings(session, competition.id), direction)

        # A board kept at a later version holds every change up to this one
        # (public_boards hands it out: BoardCache's ``later``).
        return self.caches.public_boards.made(key, version, patch)

    def leaderboard_from_submissions(self, slug: str, board: str = "public") -> list[BoardRow]:
        """The board rebuilt from every stored submission by the rules, as
        :meth:`leaderboard` once built each one: what the stored standings
        must agree with (the audit checks it). The organiser's view."""
        if board not in ("public", "private"):
            raise ValueError(f"board must be 'public' or 'private', got {board!r}")
        with Session(self.reader) as session:
            competition = lookup.competition(session, slug)
            info = lookup.info(competition)
            if board == "private":
                return self._private_board(session, competition, info)
            config = info.config
            disabled = frozenset(queries.disabled_team_names(session, competition.id))
            records, numbers = _records(session, competition.id, disabled)
            standings: Sequence[Standing[datetime | None, int | None]]
            if config.board == "per-rank":
                standings = rank_standings(
                    self._rank_entries(session, competition.id, disabled),
                    queries.team_names(session, competition.id),
                    records,
                )
            else:
                mechanism = MECHANISMS[config.mechanism]
                standings = public_board(
                    records,
                    direction=config.scoring().direction,
                    release_is_current_best=mechanism.release_is_current_best,
                    release_hides_decision=mechanism.release_hides_decision,
                )
        return _numbered(standings, numbers)

    def _refuse_private(self, board: str, info: CompetitionInfo, organiser: bool) -> None:
        if board == "private" and not info.is_published() and not organiser:
            raise CompetitionClosed(
                "the private board is shown once the organiser publishes it after the close"
            )

    @staticmethod
    def _rank_entries(
        session: Session, competition_id: int, disabled: frozenset[str]
    ) -> list[dict[str, Any]]:
        """The ranked entries of a per-rank board, but those of disabled teams."""
        state = queries.state_of(session, competition_id, BOARD_SCOPE) or {"entries": []}
        names = queries.team_names(session, competition_id)
        return [e for e in state["entries"] if names[e["team"]] not in disabled]

    def _public_board(
        self, session: Session, competition: CompetitionRow, info: CompetitionInfo
    ) -> list[BoardRow]:
        """The public board of a per-rank competition: its ranked entries,
        with each team's count and latest submission from its standing."""
        rows = queries.standings(session, competition.id)
        disabled = frozenset(queries.disabled_team_names(session, competition.id))
        activity = {name: (entries, aware(last)) for name, _, entries, last, *_ in rows}
        return ranked(
            rank_entries(
                self._rank_entries(session, competition.id, disabled),
                queries.team_names(session, competition.id),
                activity,
            )
        )

    def _private_board(
        self, session: Session, competition: CompetitionRow, info: CompetitionInfo
    ) -> list[BoardRow]:
        """The private board, from every submission: it is asked for after
        the close, when it no longer changes and stays in the board cache."""
        config = info.config
        direction = config.scoring().direction
        disabled = frozenset(queries.disabled_team_names(session, competition.id))
        records, numbers = _records(session, competition.id, disabled)
        # ``selected`` is each team's own choice; the automatic one for a
        # team that chose nothing is made here, as at any time.
        picked = _final_selection(records, config)
        records = [dataclasses.replace(r, selected=r.id in picked) for r in records]
        return _numbered(private_board(records, direction=direction), numbers)

    def flags(self, slug: str) -> list[DuplicateFlag]:
        """Identical predictions from different teams, for the organiser: each
        submission with the earlier one of another team it repeats."""
        with Session(self.reader) as session:
            competition = lookup.competition(session, slug)
            return [DuplicateFlag(*row) for row in queries.duplicate_flags(session, competition.id)]

    def reveal_key(self, slug: str) -> str:
        """The random-stream key, for audit, once the private board is
        published. A read: it writes nothing."""
        with Session(self.reader) as session:
            competition = lookup.competition(session, slug)
            if not self._published_now(session, competition):
                raise CompetitionClosed(
                    "the key is revealed when the organiser publishes the private board"
                )
            return competition.secret_key


def _file_name_ok(name: str) -> bool:
    try:
        check_file_name(name)
    except ValueError:
        return False
    return True


def _checked_files(
    files: Sequence[tuple[str, bytes]], now: datetime
) -> list[tuple[FileInfo, bytes]]:
    """Data files with their names checked (and no name twice), as stored."""
    checked, names = [], set()
    for name, data in files:
        check_file_name(name)
        if name in names:
            raise ValueError(f"two data files are named {name!r}")
        names.add(name)
        if not isinstance(data, bytes | bytearray | memoryview):
            raise TypeError(f"a data file is bytes, got {type(data).__name__}")
        data = bytes(data)
        checked.append((FileInfo(name, len(data), hashlib.sha256(data).hexdigest(), now), data))
    return checked


def _store_files(
    session: Session,
    competition: CompetitionRow,
    files: list[tuple[FileInfo, bytes]],
    replace: bool,
) -> None:
    for info, data in files:
        row = queries.competition_file(session, competition.id, info.name)
        if row is not None and not replace:
            raise Conflict(f"competition {competition.slug!r} already has a file {info.name!r}")
        if row is None:
            row = CompetitionFileRow(competition_id=competition.id, name=info.name)
            session.add(row)
        row.size, row.sha256, row.created_at = info.size, info.sha256, info.created_at
        row.data = pack(data)
