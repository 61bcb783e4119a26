"""Fixtures shared across the suite: a fresh store on SQLite and on PostgreSQL.

Every store test runs on both. The PostgreSQL fixture creates a database of
its own and drops it afterwards; when the server at 127.0.0.1:5432 cannot be
reached the tests error out: they are never skipped.
"""

from __future__ import annotations

import os
import uuid

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
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"lb_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
