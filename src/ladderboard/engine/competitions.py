"""The competition engine: what the web edge calls.

:class:`Competitions` creates competitions from a solution file, registers
teams, scores submissions through each board's mechanism in one serialised
transaction, keeps quotas, closes competitions and builds their boards. It
raises the refusals of :mod:`ladderboard.engine.errors` (and
:class:`~ladderboard.files.submission.SubmissionError` for bad files);
the web edge turns them into HTTP responses.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ladderboard.encoding import encode_array
from ladderboard.engine.errors import (
    CompetitionClosed,
    Conflict,
    NotFound,
)
from ladderboard.engine.performance import ConfigCache, MechanismCache, SolutionCache
from ladderboard.engine.reading import _Reading
from ladderboard.engine.submitting import _Submitting
from ladderboard.engine.views import (
    BOARD_SCOPE,
    BoardRow,
    CompetitionInfo,
    SubmissionResult,
    SubmissionView,
    TeamInfo,
    aware,
    commitment_of,
    now_utc,
    split_sha256,
)
from ladderboard.files.solution import Solution
from ladderboard.mechanisms import MECHANISMS, Mechanism
from ladderboard.random import KeyedStream
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.scoring import check_targets
from ladderboard.rules.text import (
    DESCRIPTION_CHARS,
    TEAM_NAME_CHARS,
    TITLE_CHARS,
    check_slug,
    check_text,
    is_slug,
    name_key,
)
from ladderboard.store import (
    DEFAULT_URL,
    CompetitionRow,
    MechanismStateRow,
    OrganiserSessions,
    RateLimits,
    TeamRow,
    database_url,
    make_engine,
    migrate,
    read_only,
)
from ladderboard.store.arrays import StoredArrays
from ladderboard.store.blobs import pack

__all__ = [
    "DEFAULT_URL",
    "BoardRow",
    "CompetitionInfo",
    "Competitions",
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
    engine = make_engine(url)
    try:
        migrate(engine)
    finally:
        engine.dispose()
    return url


class Competitions(_Submitting, _Reading):
    """The engine over one store (a SQLAlchemy engine).

    >>> store = Competitions.open("sqlite://")          # in memory, for the example
    >>> solution = Solution.from_labels([0, 1] * 50, public_fraction=0.5, random_state=0)
    >>> info = store.create("demo", solution, CompetitionConfig(
    ...     score="zero_one", mechanism="parameter-free-ladder"))
    >>> _ = store.add_team("demo", "alpha")
    >>> result = store.submit("demo", "alpha", solution.sample_submission_csv(fill=1.0))
    >>> result.public_score, result.remaining_today
    (0.5, 4)
    """

    def __init__(self, engine: Engine, *, clock=now_utc, mechanism_cache: int = 64):
        self.engine = engine
        self.reader = read_only(engine)  # reads: on SQLite, a snapshot without the write lock
        self._clock = clock
        self._solutions = SolutionCache()
        self._configs = ConfigCache()
        self._mechanisms = MechanismCache(mechanism_cache)
        self._arrays = StoredArrays()
        self._targets: dict[tuple[str, str], Any] = {}  # (slug, team) -> _Submitting._Target
        # Shared by every process over this store: the web edge's rate limits
        # and the organiser's sign-ins.
        self.rate_limits = RateLimits(engine)
        self.sessions = OrganiserSessions(engine, self.reader, clock)

    @classmethod
    def open(cls, url: str | None = None, *, create_schema: bool = True, **kwargs) -> Competitions:
        """Connect to ``url`` (default: ``LADDERBOARD_DATABASE_URL`` or a SQLite
        file) and bring its schema up to date."""
        engine = make_engine(url)
        if create_schema:
            migrate(engine)
        return cls(engine, **kwargs)

    def ping(self) -> None:
        """Raise unless the database answers a query."""
        with self.reader.connect() as connection:
            connection.execute(select(1))

    def dispose(self) -> None:
        """Close every pooled connection (the store's and the rate limits')."""
        self.rate_limits.dispose()
        self.engine.dispose()

    # ------------------------------------------------------------ sessions
    @contextmanager
    def _transaction(self) -> Iterator[Session]:
        with Session(self.engine, expire_on_commit=False) as session, session.begin():
            yield session

    @staticmethod
    def _refuse_impossible(slug: str, team: str | None = None) -> None:
        """:class:`NotFound` for a slug or team name no row can have (PostgreSQL
        would fail on a NUL in the query instead of finding nothing)."""
        if not is_slug(slug):
            raise NotFound(f"no competition {str(slug)[:80]!r}")
        if team is not None:
            try:
                check_text("team name", team, max_chars=TEAM_NAME_CHARS)
            except (TypeError, ValueError):
                raise NotFound(f"no team {str(team)[:120]!r} in competition {slug!r}") from None

    def _competition(self, session: Session, slug: str) -> CompetitionRow:
        self._refuse_impossible(slug)
        row = session.scalars(select(CompetitionRow).where(CompetitionRow.slug == slug)).first()
        if row is None:
            raise NotFound(f"no competition {slug!r}")
        return row

    def _team(self, session: Session, competition: CompetitionRow, name: str) -> TeamRow:
        self._refuse_impossible(competition.slug, name)
        row = session.scalars(
            select(TeamRow).where(TeamRow.competition_id == competition.id, TeamRow.name == name)
        ).first()
        if row is None:
            raise NotFound(f"no team {name!r} in competition {competition.slug!r}")
        return row

    @staticmethod
    def _info(row: CompetitionRow) -> CompetitionInfo:
        return CompetitionInfo(
            slug=row.slug,
            title=row.title,
            description=row.description,
            config=CompetitionConfig.from_json(row.config),
            created_at=aware(row.created_at),
            deadline=aware(row.deadline),
            closed_at=aware(row.closed_at),
            n_public=row.n_public,
            n_private=row.n_private,
            commitment=row.commitment,
        )

    # ----------------------------------------------------------- mechanisms
    @staticmethod
    def mechanism_factory(key_hex: str, config: CompetitionConfig, solution: Solution):
        """``fresh(label)`` and ``load(state, label)`` for this competition's
        mechanisms; each label (a team's scope, a rank instance) keys its own
        stream, derived from the competition's key."""
        klass = MECHANISMS[config.mechanism]
        master = KeyedStream.from_hex(key_hex)
        labels = None
        if klass.input_kind == "predictions":
            labels = {"array": encode_array(solution.targets[solution.public_mask])}

        def fresh(label: str) -> Mechanism:
            params = dict(config.mechanism_params)
            if klass.input_kind == "losses":
                params["n"] = solution.n_public
            else:
                params["metric"] = config.score
                params["y_true"] = solution.targets[solution.public_mask]
            if klass.stochastic:
                params["random_state"] = master.derive(label)
            return klass(**params)

        def load(state: dict[str, Any], label: str) -> Mechanism:
            state = dict(state)
            if klass.stochastic:
                state["key"] = master.derive(label).key_hex
            if labels is not None:
                state["params"] = {**state["params"], "y_true": labels}
            return Mechanism.from_state(state)

        return fresh, load

    @staticmethod
    def dump(mechanism: Mechanism, *, encode_vars=None) -> dict[str, Any]:
        """State without the secrets kept elsewhere (the key, the labels)."""
        state = mechanism.get_state(encode_vars=encode_vars)
        state["key"] = None
        state["params"].pop("y_true", None)
        return state

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
        split = split_sha256(solution)
        now = self._clock()
        row = CompetitionRow(
            slug=slug,
            title=title or slug,
            description=description,
            config=config.to_json(),
            created_at=now,
            deadline=config.deadline,
            closed_at=None,
            solution=pack(solution_bytes),
            solution_sha256=hashlib.sha256(solution_bytes).hexdigest(),
            split_sha256=split,
            secret_key=stream.key_hex,
            commitment=commitment_of(
                hashlib.sha256(solution_bytes).hexdigest(), split, stream.key_hex
            ),
            n_public=solution.n_public,
            n_private=solution.n_private,
        )
        try:
            check_targets(config.scoring(), solution.targets)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the solution cannot be scored by {config.score!r}: {exc}") from None
        # Build one mechanism now, so that bad parameters fail before anything is stored.
        fresh, _ = self.mechanism_factory(row.secret_key, config, solution)
        try:
            fresh("check")
        except (TypeError, ValueError) as exc:
            raise ValueError(f"mechanism {config.mechanism!r}: {exc}") from exc
        try:
            with self._transaction() as session:
                session.add(row)
                session.flush()
                if config.board == "per-rank":
                    session.add(self._state_row(row.id, BOARD_SCOPE, now))
        except IntegrityError as exc:
            raise Conflict(f"a competition {slug!r} already exists") from exc
        return self._info(row)

    @staticmethod
    def _state_row(competition_id: int, scope: str, now: datetime) -> MechanismStateRow:
        return MechanismStateRow(
            competition_id=competition_id, scope=scope, state=None, n_submissions=0, updated_at=now
        )

    def competition(self, slug: str) -> CompetitionInfo:
        with Session(self.reader) as session:
            return self._info(self._competition(session, slug))

    def competitions(self) -> list[CompetitionInfo]:
        with Session(self.reader) as session:
            rows = session.scalars(select(CompetitionRow).order_by(CompetitionRow.id))
            return [self._info(row) for row in rows]

    def solution(self, slug: str) -> Solution:
        """The organiser's solution (labels)."""
        with Session(self.reader) as session:
            return self._solutions.get(self._competition(session, slug))

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
                competition = self._competition(session, slug)
                if self._info(competition).is_closed(now):
                    raise CompetitionClosed(f"competition {slug!r} is closed")
                taken = session.scalar(
                    select(TeamRow.name).where(
                        TeamRow.competition_id == competition.id, TeamRow.name_key == key
                    )
                )
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
                session.add(team)
                session.flush()
                if competition.config["board"] == "per-team":
                    session.add(self._state_row(competition.id, f"team:{team.id}", now))
        except IntegrityError as exc:
            raise Conflict(f"team {name!r} already exists in {slug!r}") from exc
        return TeamInfo(team.id, team.name, now)

    def teams(self, slug: str) -> list[TeamInfo]:
        with Session(self.reader) as session:
            competition = self._competition(session, slug)
            rows = session.scalars(
                select(TeamRow).where(TeamRow.competition_id == competition.id).order_by(TeamRow.id)
            )
            return [TeamInfo(r.id, r.name, aware(r.created_at)) for r in rows]

    def knows_token_hash(self, token_hash: str) -> bool:
        """Whether some team of some competition has this token (SHA-256)."""
        with self.reader.connect() as connection:
            found = connection.execute(
                select(TeamRow.id).where(TeamRow.token_hash == token_hash).limit(1)
            ).first()
        return found is not None

    def team_by_token_hash(self, slug: str, token_hash: str) -> TeamInfo:
        with Session(self.reader) as session:
            competition = self._competition(session, slug)
            row = session.scalars(
                select(TeamRow).where(
                    TeamRow.competition_id == competition.id, TeamRow.token_hash == token_hash
                )
            ).first()
            if row is None:
                raise NotFound("no team with this token in this competition")
            return TeamInfo(row.id, row.name, aware(row.created_at))
