"""Fixtures shared across the suite: a fresh store on SQLite and on PostgreSQL.

Every store test runs on both. The PostgreSQL fixture creates a database of
its own and drops it afterwards; when the server at 127.0.0.1:5432 cannot be
reached the tests error out: they are never skipped.
"""

from __future__ import annotations

import os

import pytest

PG_ADMIN_URL = os.environ.get(
    "LADDERBOARD_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    """The URL of an empty database, SQLite file or PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ladderboard.db'}"
        return
    from ladderboard.store import scratch_postgres_database

    with scratch_postgres_database(PG_ADMIN_URL, prefix="lb_test") as url:
        yield url
