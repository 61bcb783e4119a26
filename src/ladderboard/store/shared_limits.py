"""What the web edge keeps in the store so that every worker and host shares
it: rate limits, and the sign-ins of the organiser and of teams.

Rate limits follow the generic cell rate algorithm (GCRA; Turner's "virtual
scheduling", ITU-T I.371), the token bucket written as one number per key:
the theoretical arrival time ``tat`` of the next request. With ``per_minute``
requests a minute, each request moves ``tat`` on by ``T = 60 / per_minute``
seconds from ``max(tat, now)``, and is allowed while that stays within a
burst of ``per_minute`` intervals of ``now``. One upsert per request decides
and records it atomically, on SQLite and PostgreSQL alike, so N workers or
hosts allow what one would. A row whose ``tat`` has passed is the same as no
row, and such rows are purged now and then.

Rate-limit writes need no durability (a crash forgets a minute of counting at
worst), so they go through their own connections that do not wait for the
disk: ``synchronous = NORMAL`` on a SQLite file in WAL mode (still safe from
corruption), ``synchronous_commit = off`` on PostgreSQL.

Rate limits fail open: when the store cannot read or write a bucket (a full
disk, a dropped connection, a lock not given in time), the request is
allowed and the failure logged (at most once a minute, with the count
since). Every authenticated request writes its bucket, so a limit that
failed closed would turn a full disk into refused reads; what the request
itself needs from the store is refused by the route, if it cannot be had.
"""

from __future__ import annotations

import hashlib
import logging
import math
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import Connection, Engine, Float, bindparam, case, create_engine, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError

from ladderboard.store.database import make_engine, read_only, writer_turn
from ladderboard.store.models import (
    OrganiserSessionRow,
    RateLimitRow,
    TeamRow,
    TeamSessionRow,
    table_of,
)

__all__ = ["OrganiserSessions", "RateLimits", "TeamSessions"]

logger = logging.getLogger(__name__)

_LIMITS = table_of(RateLimitRow)
_SESSIONS = table_of(OrganiserSessionRow)
PURGE_EVERY_SECONDS = 60.0
LOG_FAILURES_EVERY_SECONDS = 60.0
"""How often a rate limit that cannot reach the store says so in the log."""

# What the store raises when it cannot do a bucket's read or write: the
# driver's errors come wrapped by SQLAlchemy, but a writer's turn not given
# in time is SQLite's own "database is locked".
_STORE_ERRORS = (SQLAlchemyError, sqlite3.Error)


def _take_statement(dialect: str):
    """The upsert that spends one request of a key and says whether it was allowed."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    now = bindparam("now", type_=Float)
    interval = bindparam("interval", type_=Float)
    start = case((_LIMITS.c.tat > now, _LIMITS.c.tat), else_=now)
    allowed = start + interval - now <= bindparam("burst", type_=Float)
    return (
        insert(_LIMITS)
        .values(key=bindparam("key"), tat=bindparam("first", type_=Float), allowed=True)
        .on_conflict_do_update(
            index_elements=[_LIMITS.c.key],
            set_={
                "tat": case((allowed, start + interval), else_=_LIMITS.c.tat),
                "allowed": allowed,
            },
        )
        .returning(_LIMITS.c.tat, _LIMITS.c.allowed)
    )


_TAT = select(_LIMITS.c.tat).where(_LIMITS.c.key == bindparam("key"))


def _wait(tat: float | None, now: float, per_minute: int) -> int:
    """The whole seconds before a key whose ``tat`` is this may make a request."""
    interval = 60.0 / per_minute
    if tat is None or max(tat, now) + interval - now <= per_minute * interval:
        return 0
    return max(1, math.ceil(tat + interval - now - per_minute * interval))


class RateLimits:
    """Rate limits over the store of ``engine``, shared by all its users.

    >>> from ladderboard.store import make_engine, migrate
    >>> engine = make_engine("sqlite://"); migrate(engine)
    >>> clock = iter([0.0, 0.0, 0.0, 30.0]).__next__
    >>> limits = RateLimits(engine, clock=clock)
    >>> [limits.take("k", per_minute=2) for _ in range(4)]
    [0, 0, 30, 0]
    """

    def __init__(self, engine: Engine, *, clock: Callable[[], float] = time.time) -> None:
        self._store = engine
        self._clock = clock
        self._engine: Engine | None = None
        self._lock = threading.Lock()
        self._statement = _take_statement(engine.dialect.name)
        self._purged = -math.inf
        self._failures = 0
        self._failure_logged = -math.inf

    @property
    def engine(self) -> Engine:
        """The engine for rate-limit writes (made on first use)."""
        if self._engine is None:
            with self._lock:
                if self._engine is None:
                    self._engine = self._own_engine()
        return self._engine

    def _own_engine(self) -> Engine:
        url = self._store.url
        if self._store.dialect.name == "postgresql":
            return create_engine(
                url,
                isolation_level="AUTOCOMMIT",
                connect_args={"options": "-c synchronous_commit=off"},
                pool_size=4,
            )
        if url.database in (None, "", ":memory:"):
            return self._store  # an in-memory database exists on its own connections only
        return make_engine(
            url.update_query_dict({"synchronous": "normal"}).render_as_string(hide_password=False)
        )

    def take(self, key: str, *, per_minute: int) -> int:
        """Spend one request of ``key``: 0 if allowed, else the whole seconds
        to wait. ``per_minute`` 0 means no limit."""
        return self.take_unless(key, per_minute=per_minute)[1]

    def take_unless(
        self,
        key: str,
        *,
        per_minute: int,
        blocked_by: str | None = None,
        blocked_per_minute: int = 0,
        blocked_tat: tuple[float | None] | None = None,
    ) -> tuple[int, int]:
        """:meth:`wait` of ``blocked_by`` and, only when that is 0, :meth:`take`
        of ``key``, in one transaction: ``(seconds, 0)`` when ``blocked_by``
        must wait (``key`` is not spent), else ``(0, take's answer)``.

        ``blocked_tat``, when given, holds ``blocked_by``'s ``tat`` as the
        caller read it with its own read (``(None,)``: no row): with nothing
        to spend, the wait is told from it without a read of its own."""
        try:
            return self._take_unless(key, per_minute, blocked_by, blocked_per_minute, blocked_tat)
        except _STORE_ERRORS as exc:
            self._failed(exc)
            return 0, 0

    def _take_unless(
        self,
        key: str,
        per_minute: int,
        blocked_by: str | None,
        blocked_per_minute: int,
        blocked_tat: tuple[float | None] | None,
    ) -> tuple[int, int]:
        blocked = blocked_by is not None and blocked_per_minute > 0
        if per_minute <= 0:  # nothing to spend: at most a read, without the write lock
            if not blocked:
                return 0, 0
            assert blocked_by is not None
            if blocked_tat is not None:
                return _wait(blocked_tat[0], self._clock(), blocked_per_minute), 0
            return self._wait_for(blocked_by, per_minute=blocked_per_minute), 0
        now = self._clock()
        with writer_turn(self.engine), self.engine.begin() as connection:
            if blocked:
                tat = connection.execute(_TAT, {"key": blocked_by}).scalar()
                wait = _wait(tat, now, blocked_per_minute)
                if wait:
                    return wait, 0
            interval = 60.0 / per_minute
            burst = per_minute * interval
            params = {
                "key": key,
                "now": now,
                "interval": interval,
                "burst": burst,
                "first": now + interval,
            }
            tat, allowed = connection.execute(self._statement, params).one()
            if now - self._purged > PURGE_EVERY_SECONDS:
                self._purged = now
                connection.execute(delete(_LIMITS).where(_LIMITS.c.tat < now))
        if allowed:
            return 0, 0
        return 0, max(1, math.ceil(tat + interval - now - burst))

    def wait(self, key: str, *, per_minute: int) -> int:
        """The seconds before ``key`` may make a request (0: now), spending nothing."""
        if per_minute <= 0:
            return 0
        try:
            return self._wait_for(key, per_minute)
        except _STORE_ERRORS as exc:
            self._failed(exc)
            return 0

    def _wait_for(self, key: str, per_minute: int) -> int:
        now = self._clock()
        # A read: on SQLite it must not take the write lock (a writer's
        # ``BEGIN IMMEDIATE``), or every request would queue for it twice.
        with read_only(self.engine).connect() as connection:
            tat = connection.execute(_TAT, {"key": key}).scalar()
        return _wait(tat, now, per_minute)

    def _failed(self, exc: BaseException) -> None:
        """Count a bucket the store could not read or write; log the count
        at most every :data:`LOG_FAILURES_EVERY_SECONDS`."""
        with self._lock:
            self._failures += 1
            now = time.monotonic()
            if now - self._failure_logged < LOG_FAILURES_EVERY_SECONDS:
                return
            failures, self._failures, self._failure_logged = self._failures, 0, now
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        logger.warning(
            "rate limits not counted: the store failed %d time(s) (%s); requests are allowed",
            failures,
            reason,
        )

    def dispose(self) -> None:
        if self._engine is not None and self._engine is not self._store:
            self._engine.dispose()


class OrganiserSessions:
    """The organiser's sign-ins: each a random cookie, stored as its SHA-256
    with an expiry, and deleted at sign-out."""

    def __init__(self, engine: Engine, reader: Engine, clock: Callable[[], datetime]) -> None:
        self._engine = engine
        self._reader = reader
        self._clock = clock

    @staticmethod
    def _digest(cookie: str) -> str:
        return hashlib.sha256(cookie.encode("utf-8", "surrogatepass")).hexdigest()

    def open(self, lifetime: timedelta) -> str:
        """A new session's cookie value (only its hash is stored); expired
        sessions are deleted meanwhile."""
        cookie = secrets.token_urlsafe(32)
        now = self._clock()
        with writer_turn(self._engine), self._engine.begin() as connection:
            connection.execute(
                delete(OrganiserSessionRow).where(OrganiserSessionRow.expires_at <= now)
            )
            connection.execute(
                _SESSIONS.insert().values(
                    sha256=self._digest(cookie), created_at=now, expires_at=now + lifetime
                )
            )
        return cookie

    def is_valid(self, cookie: str) -> bool:
        if not cookie:
            return False
        with self._reader.connect() as connection:
            found = connection.execute(
                select(OrganiserSessionRow.expires_at).where(
                    OrganiserSessionRow.sha256 == self._digest(cookie)
                )
            ).scalar()
        if found is None:
            return False
        if found.tzinfo is None:  # SQLite returns naive datetimes: they are UTC
            found = found.replace(tzinfo=UTC)
        return self._clock() < found

    def close(self, cookie: str) -> None:
        """Revoke the session of ``cookie`` (nothing if there is none)."""
        with writer_turn(self._engine), self._engine.begin() as connection:
            connection.execute(
                delete(OrganiserSessionRow).where(
                    OrganiserSessionRow.sha256 == self._digest(cookie)
                )
            )


class TeamSessions:
    """Teams' sign-ins: a browser enters its team's token once and gets a
    random cookie, stored as its SHA-256 with the team and an expiry, and
    deleted at sign-out. Disabling a team deletes its sessions (see
    :meth:`revoke_team`): enabling it again revives none of them."""

    def __init__(self, engine: Engine, reader: Engine, clock: Callable[[], datetime]) -> None:
        self._engine = engine
        self._reader = reader
        self._clock = clock

    @staticmethod
    def _digest(cookie: str) -> str:
        return hashlib.sha256(cookie.encode("utf-8", "surrogatepass")).hexdigest()

    def open(self, team_id: int, lifetime: timedelta) -> str:
        """A new session's cookie value for team ``team_id`` (only its hash is
        stored); expired sessions are deleted meanwhile."""
        cookie = secrets.token_urlsafe(32)
        now = self._clock()
        with writer_turn(self._engine), self._engine.begin() as connection:
            connection.execute(delete(TeamSessionRow).where(TeamSessionRow.expires_at <= now))
            connection.execute(
                table_of(TeamSessionRow)
                .insert()
                .values(
                    sha256=self._digest(cookie),
                    team_id=team_id,
                    created_at=now,
                    expires_at=now + lifetime,
                )
            )
        return cookie

    def team_of(self, cookie: str) -> int | None:
        """The id of the team signed in with ``cookie``, or ``None`` (no such
        session, expired, or the team is disabled)."""
        if not cookie:
            return None
        with self._reader.connect() as connection:
            found = connection.execute(
                select(TeamSessionRow.team_id, TeamSessionRow.expires_at)
                .join(TeamRow, TeamRow.id == TeamSessionRow.team_id)
                .where(TeamSessionRow.sha256 == self._digest(cookie), TeamRow.disabled_at.is_(None))
            ).first()
        if found is None:
            return None
        team_id, expires_at = found
        if expires_at.tzinfo is None:  # SQLite returns naive datetimes: they are UTC
            expires_at = expires_at.replace(tzinfo=UTC)
        return team_id if self._clock() < expires_at else None

    def close(self, cookie: str) -> None:
        """Revoke the session of ``cookie`` (nothing if there is none)."""
        with writer_turn(self._engine), self._engine.begin() as connection:
            connection.execute(
                delete(TeamSessionRow).where(TeamSessionRow.sha256 == self._digest(cookie))
            )

    @staticmethod
    def revoke_team(connection: Connection, team_id: int) -> None:
        """Delete every session of team ``team_id``, in the caller's transaction
        (one that disables the team, or that replaces its token)."""
        connection.execute(delete(TeamSessionRow).where(TeamSessionRow.team_id == team_id))
