"""Connecting to the store: SQLite by default, PostgreSQL when the URL says so.

Each submission is one serialised transaction. On SQLite the transaction
starts with ``BEGIN IMMEDIATE``, which takes the database's write lock at
once (the driver's own deferred ``BEGIN`` would let two writers read the same
mechanism state and then collide); on PostgreSQL the engine locks the
mechanism's row with ``SELECT … FOR UPDATE``. Reads go through
:func:`read_only`, whose transactions on SQLite start with a deferred
``BEGIN``: a consistent snapshot of the database (WAL) that takes no lock, so
a board page or an audit never holds a submission up. Nothing above this
module needs to know which database it talks to.

A SQLite writer that finds the write lock taken waits in SQLite's busy
handler, which sleeps and polls (1 ms, then 2, 5, 10 … up to 100 ms a
try): under load the lock would stand free while the next writer sleeps,
and writers would not go in the order they came. So writers first take
their turn (:func:`writer_turn`): the threads of a process on a lock of
their own, and processes on the host on a lock file beside the database.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # not on Windows: there, SQLite's own lock alone
    fcntl = None  # type: ignore[assignment]

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, DisconnectionError, NoSuchModuleError

__all__ = [
    "DEFAULT_URL",
    "StoreUnavailable",
    "database_url",
    "downgrade",
    "make_engine",
    "migrate",
    "open_engine",
    "read_only",
    "read_snapshot",
    "require_schema",
    "schema_revisions",
    "scratch_postgres_database",
    "writer_turn",
]

DEFAULT_URL = "sqlite:///ladderboard.db"
MIGRATIONS = Path(__file__).with_name("migrations")


def database_url(url: str | None = None) -> str:
    """``url``, else ``LADDERBOARD_DATABASE_URL``, else a SQLite file here.

    ``postgresql://`` URLs are given the psycopg 3 driver.

    >>> database_url("postgresql://postgres@127.0.0.1/test")
    'postgresql+psycopg://postgres@127.0.0.1/test'
    """
    url = url or os.environ.get("LADDERBOARD_DATABASE_URL") or DEFAULT_URL
    parsed = make_url(url)
    if parsed.drivername in {"postgresql", "postgres"}:
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


SQLITE_SYNCHRONOUS = ("full", "normal")
READ_ONLY = "ladderboard_read_only"


def read_only(engine: Engine) -> Engine:
    """``engine`` for reads: the same pool, but on SQLite a transaction takes
    no write lock (a write through it may fail with "database is locked"),
    and on PostgreSQL each statement commits on its own, which saves the
    ``BEGIN`` and ``ROLLBACK`` round trips and changes nothing a read sees:
    under READ COMMITTED every statement takes its own snapshot anyway."""
    if engine.dialect.name == "postgresql":
        return engine.execution_options(isolation_level="AUTOCOMMIT", **{READ_ONLY: True})
    return engine.execution_options(**{READ_ONLY: True})


def read_snapshot(engine: Engine) -> Engine:
    """``engine`` for a long read in one transaction, such as an export that
    reads the files a few at a time: on PostgreSQL a read-only REPEATABLE
    READ transaction (every statement sees the same snapshot, and the
    server-side cursor that fetches rows a few at a time needs a
    transaction), on SQLite :func:`read_only`'s snapshot."""
    if engine.dialect.name == "postgresql":
        return engine.execution_options(
            isolation_level="REPEATABLE READ", postgresql_readonly=True, **{READ_ONLY: True}
        )
    return engine.execution_options(**{READ_ONLY: True})


def make_engine(url: str | None = None, **kwargs) -> Engine:
    """An engine for ``url`` (see :func:`database_url`), set up for serialised writes.

    A SQLite file runs in WAL mode with ``synchronous = FULL``: each commit
    waits for the disk. ``?synchronous=normal`` on the URL waits only at
    checkpoints instead: a crash of the process still leaves each submission
    whole or absent, but a power cut or kernel crash may lose the last
    acknowledged ones (SQLite's documented trade-off).

    >>> make_engine("sqlite:///x.db?synchronous=sometimes")
    Traceback (most recent call last):
    ValueError: synchronous must be one of full, normal, got 'sometimes'
    """
    url = database_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        synchronous = parsed.query.get("synchronous", "full")
        if synchronous not in SQLITE_SYNCHRONOUS:
            raise ValueError(
                f"synchronous must be one of {', '.join(SQLITE_SYNCHRONOUS)}, got {synchronous!r}"
            )
        parsed = parsed.difference_update_query(["synchronous"])
        connect_args = {"timeout": 60, "check_same_thread": False}
        engine = create_engine(parsed, connect_args=connect_args, **kwargs)
        _serialise_sqlite(engine, synchronous)
        return engine
    engine = create_engine(url, **kwargs)
    _ping_idle_connections(engine)
    return engine


class StoreUnavailable(Exception):
    """The store cannot be opened, said in one sentence. ``reason`` is
    ``"url"`` (not a database URL the store can use), ``"missing"`` (no
    database there, or a database without a ladderboard schema),
    ``"outdated"`` (a schema of another version of ladderboard) or
    ``"unreachable"`` (the database does not answer)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _check_sqlite_store(path: str, shown: str) -> None:
    """Raise :class:`StoreUnavailable` unless the SQLite file at ``path`` holds
    a ladderboard store, reading it without writing: an engine would switch
    any SQLite file it opens to WAL, and so change a file that is not ours."""
    try:
        with contextlib.closing(
            sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
        ) as connection:
            found = connection.execute(
                "select 1 from sqlite_master where type = 'table' and name = 'alembic_version'"
            ).fetchone()
    except sqlite3.DatabaseError as exc:
        raise StoreUnavailable("missing", f"{path} is not a ladderboard store: {exc}") from None
    if found is None:
        raise StoreUnavailable(
            "missing", f"no ladderboard store at {shown} (ladderboard init creates one)"
        )


def open_engine(url: str | None = None, *, create: bool, **kwargs: Any) -> Engine:
    """:func:`make_engine` for ``url``, after checking that it names a store:
    :class:`StoreUnavailable` for a URL that is not a database URL, a SQLite
    file that does not exist or holds no ladderboard store (unless ``create``:
    nothing is created that was not asked for, and a file that is not a store
    is not touched) or a database that does not answer.

    >>> open_engine("sqlite:///no/such/store.db", create=False)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ladderboard.store.database.StoreUnavailable: no store at no/such/store.db ...
    >>> open_engine("bogus://x", create=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ladderboard.store.database.StoreUnavailable: cannot open 'bogus://x': it is not a database ...
    """
    shown = url if url is not None else database_url(None)
    try:
        parsed = make_url(database_url(url))
        if parsed.get_backend_name() == "sqlite" and not create:
            path = parsed.database
            if path and path != ":memory:" and not Path(path).exists():
                raise StoreUnavailable(
                    "missing", f"no store at {path} (ladderboard init creates one)"
                )
            if path and path != ":memory:":
                _check_sqlite_store(path, parsed.render_as_string(hide_password=True))
        engine = make_engine(parsed.render_as_string(hide_password=False), **kwargs)
    except StoreUnavailable:
        raise
    except (ArgumentError, NoSuchModuleError):
        raise StoreUnavailable(
            "url",
            f"cannot open {shown!r}: it is not a database URL "
            "(sqlite:///path.db or postgresql://user@host/database)",
        ) from None
    except ValueError as exc:  # a URL option the store does not know
        raise StoreUnavailable("url", f"cannot open {shown!r}: {exc}") from None
    try:
        # On a SQLite file, the first connection turns a new file to WAL,
        # which needs the file to itself: in the writers' turn, as a
        # migration runs (:func:`_run_migration`), so that two processes
        # creating one store do not find it locked.
        with writer_turn(engine), engine.connect():
            pass
    except DBAPIError as exc:
        engine.dispose()
        reason = str(exc.orig).strip().splitlines()[0] if exc.orig else type(exc).__name__
        safe = make_url(database_url(url)).render_as_string(hide_password=True)
        raise StoreUnavailable(
            "unreachable", f"the database at {safe} does not answer: {reason}"
        ) from None
    return engine


PING_AFTER_IDLE_SECONDS = 1.0
"""A pooled connection idle for longer is pinged before it is handed out."""


def _ping_idle_connections(engine: Engine) -> None:
    """SQLAlchemy's ``pool_pre_ping``, but only for a connection that has sat
    idle in the pool: a dead server or a dropped idle connection is found
    before use, while a busy server's connections, back in the pool for
    milliseconds, skip the round trip. A connection that breaks while in use
    fails that request, and SQLAlchemy then drops the whole pool."""

    @event.listens_for(engine, "checkin")
    def _on_checkin(_dbapi_connection, record) -> None:
        if record is not None:
            record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_connection, record, _proxy) -> None:
        since = record.info.get("idle_since")
        if since is None or time.monotonic() - since <= PING_AFTER_IDLE_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as exc:  # the pool replaces the connection and tries again
            raise DisconnectionError(f"an idle pooled connection was dead: {exc}") from exc


WRITER_TURN_SECONDS = 60.0
"""How long a thread waits for its process's writer turn (SQLite's own busy
timeout): then it is refused as SQLite would refuse it, "database is locked"."""


class _WriterTurn:
    """The turn of the writers of one SQLite file: a thread lock for this
    process's threads, and an exclusive ``flock`` on ``<file>-writer`` for
    the other processes (uvicorn's workers, a command run beside the
    server), which the kernel hands on the moment it is released, and
    releases when every process holding it has closed it or died (after a
    fork, the child closes its copy at once). Re-entrant within a thread.

    A thread waits at most :data:`WRITER_TURN_SECONDS` for the thread lock;
    the one thread of a process that waits on the file lock waits while
    another process holds it, as long as that one's write lasts (a process
    stopped in the middle of a write holds SQLite's lock as long too). The
    lock file is left in place, as SQLite leaves its ``-wal`` and ``-shm``;
    where it cannot be made (a read-only folder), SQLite's lock alone serves.
    """

    def __init__(self, path: str) -> None:
        self._path = f"{path}-writer"
        self._forget()

    def _forget(self) -> None:
        """Start afresh: in a new process, nothing held, no file open."""
        self._threads = threading.RLock()
        self._depth = 0
        self._file: Any = None
        self._no_file = False
        self._held = False

    def after_fork(self) -> None:
        """In a child process: close the copy of the parent's file (and so
        of its lock) and forget what the parent's threads held."""
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
        self._forget()

    def _lock_file(self) -> None:
        if fcntl is None or self._no_file:
            return
        try:
            if self._file is None:
                self._file = open(self._path, "a+b")  # noqa: SIM115 - kept open for the process
            fcntl.flock(self._file, fcntl.LOCK_EX)
            self._held = True
        except OSError:  # no lock file here: SQLite's lock alone
            self._no_file = self._file is None

    def __enter__(self) -> None:
        if not self._threads.acquire(timeout=WRITER_TURN_SECONDS):
            raise sqlite3.OperationalError(
                f"database is locked: no writer's turn in {WRITER_TURN_SECONDS:.0f} s"
            )
        if self._depth == 0:
            try:
                self._lock_file()
            except BaseException:
                self._threads.release()
                raise
        self._depth += 1

    def __exit__(self, *_exc: object) -> None:
        self._depth -= 1
        try:
            if self._depth == 0 and self._held:
                self._held = False
                fcntl.flock(self._file, fcntl.LOCK_UN)
        finally:
            self._threads.release()


_WRITER_TURNS: dict[str, _WriterTurn] = {}
_WRITER_TURNS_GUARD = threading.Lock()


def _after_fork_in_child() -> None:
    global _WRITER_TURNS_GUARD
    _WRITER_TURNS_GUARD = threading.Lock()
    for turn in set(_WRITER_TURNS.values()):
        turn.after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def writer_turn(engine: Engine) -> contextlib.AbstractContextManager[Any]:
    """Hold this around a write transaction on ``engine``: on a SQLite file,
    writers (of this process, through any engine on that file: submissions,
    rate limits, sign-ins; and of other processes on this host) take their
    turns here, each woken the moment the one before it is done, rather than
    in SQLite's sleeping busy handler. On PostgreSQL, whose writers queue on
    row locks, it does nothing. It is re-entrant: a thread's nested write
    never waits for itself."""
    path = engine.url.database
    if engine.dialect.name != "sqlite" or path in (None, "", ":memory:"):
        return contextlib.nullcontext()
    turn = _WRITER_TURNS.get(path)
    if turn is None:
        with _WRITER_TURNS_GUARD:  # one turn per file, however its path is written
            real = os.path.realpath(path)
            turn = _WRITER_TURNS.get(real) or _WriterTurn(real)
            _WRITER_TURNS[path] = _WRITER_TURNS[real] = turn
    return turn


def _serialise_sqlite(engine: Engine, synchronous: str) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        # Let SQLAlchemy, not the driver, say when transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA busy_timeout = 60000")
        if engine.url.database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute(f"PRAGMA synchronous = {synchronous.upper()}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection) -> None:
        if connection.get_execution_options().get(READ_ONLY):
            connection.exec_driver_sql("BEGIN")  # a snapshot; writers go on meanwhile
        else:
            connection.exec_driver_sql("BEGIN IMMEDIATE")


def migrate(engine: Engine, revision: str = "head") -> None:
    """Create or upgrade the schema with Alembic. A store already at the
    newest revision is left alone at the cost of one read (no write lock):
    Alembic would load every migration script to find nothing to do."""
    if revision == "head" and schema_revisions(read_only(engine))[0] == _head_revision():
        return
    _run_migration(engine, command.upgrade, revision)


def downgrade(engine: Engine, revision: str) -> None:
    """Take the schema back to ``revision`` (Alembic's downgrade)."""
    _run_migration(engine, command.downgrade, revision)


def _alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


@functools.cache
def _revisions() -> tuple[str, frozenset[str]]:
    """The newest revision of the migrations this package ships, and all of
    them (read once: reading them loads every script)."""
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(_alembic_config())
    head = scripts.get_current_head()
    assert head is not None  # the package ships its migrations
    return head, frozenset(script.revision for script in scripts.walk_revisions())


def _head_revision() -> str:
    return _revisions()[0]


def schema_revisions(engine: Engine) -> tuple[str | None, str]:
    """The schema revision of the store behind ``engine`` (None when it holds
    no ladderboard schema) and the revision this version of ladderboard needs.

    >>> engine = make_engine("sqlite://")
    >>> current, head = schema_revisions(engine)
    >>> current is None, head == schema_revisions(engine)[1]
    (True, True)
    """
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        current = MigrationContext.configure(connection).get_current_revision()
    return current, _head_revision()


def require_schema(engine: Engine, *, outdated_ok: bool = False) -> None:
    """Raise :class:`StoreUnavailable` unless ``engine``'s database holds a
    ladderboard store at this version's schema (or any version's, with
    ``outdated_ok``: the caller migrates it). Nothing is written.

    >>> require_schema(make_engine("sqlite://"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ladderboard.store.database.StoreUnavailable: no ladderboard store at sqlite:// (...)
    """
    current, head = schema_revisions(engine)
    shown = engine.url.render_as_string(hide_password=True)
    if current is None:
        raise StoreUnavailable(
            "missing", f"no ladderboard store at {shown} (ladderboard init creates one)"
        )
    if current not in _revisions()[1]:
        raise StoreUnavailable(
            "outdated",
            f"the store at {shown} has schema revision {current}, newer than this version of "
            f"ladderboard knows (it reads {head}): upgrade ladderboard to use it",
        )
    if current != head and not outdated_ok:
        raise StoreUnavailable(
            "outdated",
            f"the store at {shown} has schema revision {current}, and this version of "
            f"ladderboard reads {head} (ladderboard init brings a store up to date)",
        )


# The PostgreSQL advisory lock that serialises migrations of one database
# (any 64-bit number no other program of the database uses: "ladderbd" in ASCII).
MIGRATION_LOCK_KEY = int.from_bytes(b"ladderbd", "big")


def _run_migration(engine: Engine, step: Any, revision: str) -> None:
    # On a SQLite file two processes migrating at once (two ``init``, two
    # servers starting) take the writers' turn beside the store for the
    # whole migration: the second then finds the schema at its revision.
    with writer_turn(engine):
        _run_migration_now(engine, step, revision)


def _run_migration_now(engine: Engine, step: Any, revision: str) -> None:
    config = _alembic_config()
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        if sqlite:
            # SQLite changes a table by copying it and dropping the old one, and
            # with foreign keys on, dropping a table deletes (by cascade) every
            # row that refers to it: files, duplicate flags. The pragma only
            # takes effect outside a transaction, so it goes to the driver
            # before SQLAlchemy begins one.
            _driver_connection(connection).execute("PRAGMA foreign_keys = OFF")
        elif engine.dialect.name == "postgresql":
            # Two processes creating or upgrading one store at once (two
            # ``init``, two servers starting) would both find no schema and
            # both create it, and one would die on a table the other made.
            # The transaction that migrates takes this lock first: the second
            # waits, then finds the schema at its revision and does nothing.
            connection.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY}
            )
        try:
            config.attributes["connection"] = connection
            step(config, revision)
            if sqlite:
                broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
                if broken:
                    raise RuntimeError(f"migration to {revision} broke foreign keys: {broken[:5]}")
            connection.commit()
        finally:
            if sqlite:
                connection.rollback()
                _driver_connection(connection).execute("PRAGMA foreign_keys = ON")


def _driver_connection(connection: Connection) -> Any:
    """The driver's own connection under ``connection``."""
    driver = connection.connection.driver_connection
    # None only once the pooled connection is closed or detached from its
    # record; ``connection`` is open.
    assert driver is not None
    return driver


@contextlib.contextmanager
def scratch_postgres_database(
    admin_url: str, *, prefix: str = "lb_scratch", template: str | None = None
) -> Iterator[str]:
    """A new PostgreSQL database on the server of ``admin_url``, dropped
    (connections and all) on exit; yields its URL. For tests and benchmarks.

    Empty, or a copy of the database named ``template`` (which nobody may be
    connected to): copying a migrated database is faster than migrating anew."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    copy = "" if template is None else f' TEMPLATE "{template}"'
    admin = create_engine(database_url(admin_url), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"{copy}'))
        try:
            yield (
                make_url(database_url(admin_url))
                .set(database=name)
                .render_as_string(hide_password=False)
            )
        finally:
            with admin.connect() as connection:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()
