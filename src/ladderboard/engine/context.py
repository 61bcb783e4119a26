"""What every part of the engine shares: the store's engines, the two clocks,
the in-process caches, and the two ways into the store (a read, and a
serialised transaction under a competition's lock)."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from ladderboard.engine import lookup
from ladderboard.engine.caches import Caches
from ladderboard.engine.errors import NotFound
from ladderboard.engine.results import aware
from ladderboard.store import CompetitionRow, read_only, statements
from ladderboard.store.database import writer_turn
from ladderboard.store.identity import read_identity

__all__ = ["IDENTITY_SECONDS", "EngineContext"]

IDENTITY_SECONDS = 1.0
"""How often a process reads the store's identity, at most: a store put back
from a backup with a new identity (``ladderboard init --restored``) is read
through no cache of this process's from a second after it is put back, and
written through none at once."""


class EngineContext:
    """The store behind ``engine`` (read through :attr:`reader`), this
    process's ``clock``, the store's clock and the ``caches``, as every part
    of :class:`~ladderboard.engine.Competitions` uses them.

    ``clock`` stamps what this process writes; the deadline is decided by
    the store's time, which the database reads inside the statements that
    check it (:mod:`~ladderboard.store.clock`), unless ``store_clock`` (a
    test's clock) is given to take its place. Both are read at each call,
    so a test may replace them on a running engine."""

    def __init__(
        self,
        engine: Engine,
        *,
        clock: Callable[[], datetime],
        store_clock: Callable[[], datetime] | None,
        caches: Caches,
    ) -> None:
        self.engine = engine
        self._reader = read_only(engine)  # reads: on SQLite, a snapshot without the write lock
        self.clock = clock
        self.store_clock = store_clock
        self.caches = caches
        self._identity: str | None = None
        self._identity_read_at = -math.inf
        self._identity_lock = threading.Lock()

    @property
    def reader(self) -> Engine:
        """The store for reads. Every request reads through it first, so it
        is where the store's identity is checked (:meth:`check_identity`)."""
        self.check_identity()
        return self._reader

    def check_identity(self) -> None:
        """Drop every cache when the store's identity changed since it was
        read last (:mod:`ladderboard.store.identity`: a store put back from a
        backup), reading it at most once every :data:`IDENTITY_SECONDS`."""
        if time.monotonic() - self._identity_read_at < IDENTITY_SECONDS:
            return
        with self._identity_lock:
            if time.monotonic() - self._identity_read_at < IDENTITY_SECONDS:
                return  # another thread has just read it
            self._identity_read_at = time.monotonic()
            try:
                with self._reader.connect() as connection:
                    identity = read_identity(connection)
            except SQLAlchemyError:
                # A store that does not answer: the request's own read meets
                # it and says so (a 503); the identity is read again later.
                return
            self._compare(identity)

    def same_store(self, identity: str | None) -> bool:
        """Whether ``identity``, just read from the store (under a lock a
        write holds), is the one this process's caches were filled from;
        when not, they are dropped and the caller must read again."""
        with self._identity_lock:
            return self._compare(identity or "")

    def _compare(self, identity: str) -> bool:
        same = self._identity is None or identity == self._identity
        if not same:
            self.caches.drop_all()
        self._identity = identity
        return same

    def now(self) -> datetime:
        """This process's time."""
        return self.clock()

    def store_now(self) -> datetime | None:
        """The time to bind as the store's: the test's ``store_clock``, or
        ``None`` for the database's own."""
        return None if self.store_clock is None else self.store_clock()

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A session in one transaction, committed when the block ends, in
        this process's turn among the store's writers."""
        with (
            writer_turn(self.engine),
            Session(self.engine, expire_on_commit=False) as session,
            session.begin(),
        ):
            # Nothing read from the caches before it is written through them
            # if the store changed under them (put back from a backup).
            self.same_store(read_identity(session.connection()))
            yield session

    def locked(self, session: Session, slug: str) -> tuple[CompetitionRow, datetime]:
        """The competition's row, read under its lock
        (:func:`~ladderboard.store.statements.lock_competition`), and the
        store's time once the lock is held."""
        lookup.refuse_impossible(slug)
        found = statements.lock_competition(session.connection(), slug, self.store_now())
        if found is None:
            raise NotFound(f"no competition {slug!r}")
        return lookup.competition(session, slug), aware(found[1])
