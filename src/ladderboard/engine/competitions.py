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

from ladderboard.engine import instances, lookup
from ladderboard.engine.errors import CompetitionClosed, Conflict, NotFound
from ladderboard.engine.performance import Caches
from ladderboard.engine.submitting import Submitter
from ladderboard.engine.views import (
    BOARD_SCOPE,
    CompetitionInfo,
    DuplicateFlag,
    SubmissionResult,
    SubmissionView,
    TeamInfo,
    aware,
    commitment_of,
    now_utc,
    split_sha256,
    team_scope,
)
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
    rank_standings,
    ranked,
)
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.scoring import check_targets
from ladderboard.rules.text import (
    DESCRIPTION_CHARS,
    TEAM_NAME_CHARS,
    TITLE_CHARS,
    check_slug,
    check_text,
    name_key,
)
from ladderboard.store import (
    DEFAULT_URL,
    CompetitionRow,
    OrganiserSessions,
    RateLimits,
    StoreUnavailable,
    TeamRow,
    database_url,
    migrate,
    open_engine,
    queries,
    read_only,
)
from ladderboard.store.blobs import pack

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


def migrate_store(url: str | None = None) -> str:
    """Create the schema of the store at ``url`` (default:
    ``LADDERBOARD_DATABASE_URL`` or a SQLite file), or bring it up to date;
    return the URL used."""
    url = database_url(url)
    engine = open_engine(url, create=True)
    try:
        migrate(engine)
    finally:
        engine.dispose()
    return url


def _records(
    session: Session, competition_id: int
) -> tuple[list[Record[datetime]], dict[int, int]]:
    """The competition's submissions as the boards take them, and each one's
    number in its team (what the team calls it) by its id."""
    rows = queries.submissions_with_team(session, competition_id)
    records = [
        Record(r.id, name, aware(r.created_at), r.public_score, r.private_score, r.selected)
        for r, name in rows
    ]
    return records, {r.id: r.number for r, _ in rows}


class Competitions:
    """The engine over one store (a SQLAlchemy engine): organiser and team
    actions and the boards, composed over the store's queries, the rules,
    the :class:`~ladderboard.engine.submitting.Submitter` and the in-process
    :class:`~ladderboard.engine.performance.Caches`.

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
        mechanism_cache: int = 64,
    ):
        self.engine = engine
        self.reader = read_only(engine)  # reads: on SQLite, a snapshot without the write lock
        self._clock = clock
        self.caches = Caches(mechanisms=mechanism_cache)
        self.submitter = Submitter(engine, self.reader, clock, self.caches)
        # Shared by every process over this store: the web edge's rate limits
        # and the organiser's sign-ins.
        self.rate_limits = RateLimits(engine)
        self.sessions = OrganiserSessions(engine, self.reader, clock)

    @classmethod
    def open(cls, url: str | None = None, *, create_schema: bool = True, **kwargs) -> Competitions:
        """Connect to ``url`` (default: ``LADDERBOARD_DATABASE_URL`` or a SQLite
        file) and bring its schema up to date; with ``create_schema=False`` the
        store must exist already. Raises :class:`StoreUnavailable` (one
        sentence) for a URL that is not a database URL, a missing store or a
        database that does not answer."""
        engine = open_engine(url, create=create_schema)
        if create_schema:
            migrate(engine)
        return cls(engine, **kwargs)

    def ping(self) -> None:
        """Raise unless the database answers a query."""
        with self.reader.connect() as connection:
            queries.ping(connection)

    def dispose(self) -> None:
        """Close every pooled connection (the store's and the rate limits')."""
        self.rate_limits.dispose()
        self.engine.dispose()

    @contextmanager
    def _transaction(self) -> Iterator[Session]:
        with Session(self.engine, expire_on_commit=False) as session, session.begin():
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
        random_state: Any = None,
    ) -> CompetitionInfo:
        """Create a competition; its commitment is in the returned info.

        Raises :class:`ValueError` for a bad slug, title or description, a
        solution the score cannot use or bad mechanism parameters (nothing is
        stored), and :class:`Conflict` when the slug is taken."""
        check_slug(slug)
        if title is not None:
            check_text("title", title, max_chars=TITLE_CHARS)
        check_text("description", description, max_chars=DESCRIPTION_CHARS, multiline=True)
        stream = KeyedStream.from_random_state(random_state)
        solution_bytes = solution.to_csv()
        solution_sha256 = hashlib.sha256(solution_bytes).hexdigest()
        split = split_sha256(solution)
        row = CompetitionRow(
            slug=slug,
            title=title or slug,
            description=description,
            config=config.to_json(),
            created_at=self._clock(),
            deadline=config.deadline,
            closed_at=None,
            solution=pack(solution_bytes),
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
            fresh("check")
        except (TypeError, ValueError) as exc:
            raise ValueError(f"mechanism {config.mechanism!r}: {exc}") from exc
        shared = BOARD_SCOPE if config.board == "per-rank" else None
        try:
            with self._transaction() as session:
                queries.add_competition(session, row, shared)
        except IntegrityError as exc:
            raise Conflict(f"a competition {slug!r} already exists") from exc
        return lookup.info(row)

    def competition(self, slug: str) -> CompetitionInfo:
        with Session(self.reader) as session:
            return lookup.info(lookup.competition(session, slug))

    def competitions(self) -> list[CompetitionInfo]:
        with Session(self.reader) as session:
            return [lookup.info(row) for row in queries.competitions(session)]

    def solution(self, slug: str) -> Solution:
        """The organiser's solution (labels)."""
        with Session(self.reader) as session:
            return self.caches.solutions.get(lookup.competition(session, slug))

    def add_team(self, slug: str, name: str, *, token_hash: str | None = None) -> TeamInfo:
        """Register a team. Names are unique in a competition under NFKC and
        case folding (:func:`~ladderboard.rules.text.name_key`); a closed
        competition takes no new team."""
        name = name.strip() if isinstance(name, str) else name
        check_text("team name", name, max_chars=TEAM_NAME_CHARS)
        if not name:
            raise ValueError("team name must not be empty")
        key = hashlib.sha256(name_key(name).encode()).hexdigest()
        now = self._clock()
        try:
            with self._transaction() as session:
                competition = lookup.competition(session, slug)
                if lookup.info(competition).is_closed(now):
                    raise CompetitionClosed(f"competition {slug!r} is closed")
                taken = queries.team_name_with_key(session, competition.id, key)
                if taken is not None:
                    raise Conflict(
                        f"team {taken!r} already exists in {slug!r}, and {name!r} differs from "
                        "it only in case or Unicode form"
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

    def teams(self, slug: str) -> list[TeamInfo]:
        with Session(self.reader) as session:
            competition = lookup.competition(session, slug)
            rows = queries.teams(session, competition.id)
            return [TeamInfo(r.id, r.name, aware(r.created_at)) for r in rows]

    def knows_token_hash(self, token_hash: str) -> bool:
        """Whether some team of some competition has this token (SHA-256)."""
        with self.reader.connect() as connection:
            return queries.token_hash_known(connection, token_hash)

    def team_by_token_hash(self, slug: str, token_hash: str) -> TeamInfo:
        with Session(self.reader) as session:
            competition = lookup.competition(session, slug)
            row = queries.team_by_token_hash(session, competition.id, token_hash)
            if row is None:
                raise NotFound("no team with this token in this competition")
            return TeamInfo(row.id, row.name, aware(row.created_at))

    # ------------------------------------------------------------------ teams
    def submit(
        self,
        slug: str,
        team: str,
        data: bytes,
        *,
        message: str = "",
        idempotency_key: str | None = None,
    ) -> SubmissionResult:
        """Score one submission file for ``team``; all of it is stored or none.

        Raises :class:`SubmissionError` (bad file: recorded against the
        invalid cap only), :class:`QuotaExceeded`, :class:`CompetitionClosed`,
        :class:`DuplicateSubmission` or :class:`NotFound`; each leaves the
        team's quota and the mechanism's state untouched. The rules are
        :meth:`Submitter.submit_once <ladderboard.engine.submitting.Submitter.submit_once>`.
        """
        return self.submitter.submit(
            slug, team, data, message=message, idempotency_key=idempotency_key
        )

    def admit(self, slug: str, team: str, idempotency_key: str | None = None) -> None:
        """Refuse what needs no file, before one is read: a closed competition,
        a spent quota or invalid-file cap (:class:`CompetitionClosed`,
        :class:`QuotaExceeded`, :class:`NotFound`). ``submit`` checks all of it
        again under the lock; this only spares the server the work of reading
        a file it would refuse. A submission resent with an idempotency key
        already used passes: ``submit`` answers it with the first result."""
        self.submitter.admit(slug, team, idempotency_key)

    def submissions(self, slug: str, team: str) -> list[SubmissionView]:
        """A team's own submissions; private scores only after the close."""
        now = self._clock()
        with Session(self.reader) as session:
            competition = lookup.competition(session, slug)
            team_row = lookup.team(session, competition, team)
            closed = lookup.info(competition).is_closed(now)
            return [
                SubmissionView(
                    r.number,
                    aware(r.created_at),
                    r.message,
                    r.public_score,
                    r.selected,
                    r.private_score if closed else None,
                )
                for r in queries.team_submissions(session, team_row.id)
            ]

    def select(self, slug: str, team: str, submission_ids: list[int]) -> None:
        """Choose the team's final submissions (replacing an earlier choice),
        by the team's own numbers (``SubmissionView.id``)."""
        now = self._clock()
        with self._transaction() as session:
            competition = lookup.competition(session, slug)
            team_row = lookup.team(session, competition, team)
            config = CompetitionConfig.from_json(competition.config)
            if lookup.info(competition).is_closed(now):
                raise CompetitionClosed(f"competition {slug!r} is closed")
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

    def invalid_count(self, slug: str, team: str) -> int:
        with Session(self.reader) as session:
            competition = lookup.competition(session, slug)
            return queries.rejection_count(session, lookup.team(session, competition, team).id)

    # ------------------------------------------------------ close and boards
    def close(self, slug: str) -> CompetitionInfo:
        """Close now (or finalise after the deadline): teams that selected
        nothing get their best released submissions selected. Idempotent."""
        now = self._clock()
        with self._transaction() as session:
            competition = lookup.competition(session, slug)
            if competition.closed_at is not None:
                return lookup.info(competition)
            config = CompetitionConfig.from_json(competition.config)
            if competition.deadline is not None and now > aware(competition.deadline):
                now = aware(competition.deadline)
            competition.closed_at = now
            competition.key_revealed_at = now  # the key is public from the close on
            rows = queries.competition_submissions(session, competition.id)
            records = [
                Record(
                    r.id,
                    str(r.team_id),
                    aware(r.created_at),
                    r.public_score,
                    r.private_score,
                    r.selected,
                )
                for r in rows
            ]
            direction = config.scoring().direction
            picked = final_selection(records, config.n_selections, direction=direction)
            for row in rows:
                row.selected = row.id in picked
            return lookup.info(competition)

    def leaderboard(
        self, slug: str, board: str = "public", *, organiser: bool = False
    ) -> list[BoardRow]:
        """The public board as released, or the private board (after the
        close, or for the organiser before it)."""
        if board not in ("public", "private"):
            raise ValueError(f"board must be 'public' or 'private', got {board!r}")
        with Session(self.reader) as session:
            competition = lookup.competition(session, slug)
            info = lookup.info(competition)
            if board == "private" and not info.is_closed(self._clock()) and not organiser:
                raise CompetitionClosed("the private board is shown after the close")
            config = info.config
            direction = config.scoring().direction
            records, numbers = _records(session, competition.id)
            standings: Sequence[Standing[datetime | None, int | None]]
            if board == "private":
                # Before the close is written (the organiser's preview, or a
                # deadline passed that nobody has closed yet: a read never
                # writes), the selections are made as the close would make them.
                if competition.closed_at is None:
                    picked = final_selection(records, config.n_selections, direction=direction)
                    records = [dataclasses.replace(r, selected=r.id in picked) for r in records]
                standings = private_board(records, direction=direction)
            elif config.board == "per-rank":
                state = queries.state_of(session, competition.id, BOARD_SCOPE) or {"entries": []}
                names = queries.team_names(session, competition.id)
                standings = rank_standings(state["entries"], names, records)
            else:
                standings = public_board(
                    records,
                    direction=direction,
                    release_is_current_best=MECHANISMS[config.mechanism].release_is_current_best,
                )
        # The board names a submission by the team's own number (a per-rank
        # board names none).
        return [
            dataclasses.replace(
                row,
                submission_id=None if row.submission_id is None else numbers[row.submission_id],
            )
            for row in ranked(standings)
        ]

    def flags(self, slug: str) -> list[DuplicateFlag]:
        """Identical predictions from different teams, for the organiser: each
        submission with the earlier one of another team it repeats."""
        with Session(self.reader) as session:
            competition = lookup.competition(session, slug)
            return [DuplicateFlag(*row) for row in queries.duplicate_flags(session, competition.id)]

    def reveal_key(self, slug: str) -> str:
        """The random-stream key, for audit, once the competition is closed
        (by the organiser or by its deadline). A read: it writes nothing."""
        now = self._clock()
        with Session(self.reader) as session:
            competition = lookup.competition(session, slug)
            if not lookup.info(competition).is_closed(now):
                raise CompetitionClosed("the key is revealed only after the close")
            return competition.secret_key
