"""Fixtures shared across the suite: a fresh store on SQLite and on PostgreSQL,
and the rule for what a test needs from the system.

Every store test runs on both stores. The PostgreSQL fixture creates a
database of its own and drops it afterwards. A test that needs a system
service or program this machine lacks (PostgreSQL at 127.0.0.1:5432,
Chromium at /usr/bin/chromium) is skipped with the instruction to install it,
except under ``CI=true``, where it fails: CI must run every test.
"""

from __future__ import annotations

import pytest

from system import (
    PG_ADMIN_URL,
    postgres_reachable,
    require,
)

pytest_plugins = ["engine_fixtures"]


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    """The URL of an empty database, SQLite file or PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ladderboard.db'}"
        return
    require(
        postgres_reachable(),
        f"PostgreSQL is not reachable at {PG_ADMIN_URL} (apt-get install postgresql, with "
        "user postgres trusted on 127.0.0.1 and a database test; or set "
        "LADDERBOARD_TEST_PG_URL): see the README's Set-up",
    )
    from ladderboard.store import scratch_postgres_database

    with scratch_postgres_database(PG_ADMIN_URL, prefix="lb_test") as url:
        yield url
