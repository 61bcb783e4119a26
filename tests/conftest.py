"""Fixtures shared across the suite: a fresh store on SQLite and on PostgreSQL,
and the rule for what a test needs from the system.

Every store test runs on both stores. Each test has a database of its own,
a copy of one migrated per test process, dropped afterwards; the tests of
migrating itself take an empty one. A test that needs a system
service or program this machine lacks (PostgreSQL at 127.0.0.1:5432,
Chromium at /usr/bin/chromium) is skipped with the instruction to install it,
except under ``CI=true``, where it fails: CI must run every test.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from system import (
    PG_ADMIN_URL,
    postgres_reachable,
    require,
)

pytest_plugins = ["engine_fixtures"]


class MigratedStores:
    """Per test process, a migrated store to copy for each test: a SQLite
    file, and on first use a PostgreSQL database. Copying a migrated store
    costs a fraction of migrating one."""

    def __init__(self, folder: Path, stack: contextlib.ExitStack) -> None:
        from ladderboard.store import make_engine, migrate

        self.sqlite = folder / "ladderboard.db"
        engine = make_engine(f"sqlite:///{self.sqlite}")
        migrate(engine)
        engine.dispose()
        self._stack = stack
        self._postgresql: str | None = None

    def postgresql(self) -> str:
        """The name of the migrated PostgreSQL database, a template."""
        from sqlalchemy.engine import make_url

        from ladderboard.store import make_engine, migrate
        from ladderboard.store.database import scratch_postgres_database

        if self._postgresql is None:
            url = self._stack.enter_context(
                scratch_postgres_database(PG_ADMIN_URL, prefix="lb_template")
            )
            engine = make_engine(url)
            migrate(engine)
            engine.dispose()  # a template takes no connection
            self._postgresql = make_url(url).database
        return self._postgresql


@pytest.fixture(scope="session")
def migrated_stores(tmp_path_factory) -> Iterator[MigratedStores]:
    with contextlib.ExitStack() as stack:
        yield MigratedStores(tmp_path_factory.mktemp("template"), stack)


def _require_postgres() -> None:
    require(
        postgres_reachable(),
        f"PostgreSQL is not reachable at {PG_ADMIN_URL} (apt-get install postgresql, with "
        "user postgres trusted on 127.0.0.1 and a database test; or set "
        "LADDERBOARD_TEST_PG_URL): see the README's Set-up",
    )


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path, migrated_stores):
    """The URL of a database holding an empty store at the newest schema,
    SQLite file or PostgreSQL."""
    if request.param == "sqlite":
        path = tmp_path / "ladderboard.db"
        shutil.copyfile(migrated_stores.sqlite, path)
        yield f"sqlite:///{path}"
        return
    _require_postgres()
    from ladderboard.store.database import scratch_postgres_database

    template = migrated_stores.postgresql()
    with scratch_postgres_database(PG_ADMIN_URL, prefix="lb_test", template=template) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database_url(request, tmp_path):
    """The URL of an empty database, SQLite file or PostgreSQL: for the tests
    of migrating itself."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ladderboard.db'}"
        return
    _require_postgres()
    from ladderboard.store.database import scratch_postgres_database

    with scratch_postgres_database(PG_ADMIN_URL, prefix="lb_test") as url:
        yield url
