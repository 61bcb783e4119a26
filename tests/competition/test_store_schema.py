"""The Alembic migrations build exactly the schema the models describe, on
SQLite and PostgreSQL, and migrating twice is harmless."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from ladderboard.store import Base, make_engine, migrate


def test_migrations_match_the_models(database_url):
    engine = make_engine(database_url)
    migrate(engine)
    migrate(engine)  # idempotent
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        differences = compare_metadata(context, Base.metadata)
    assert differences == []
    tables = set(inspect(engine).get_table_names())
    assert {"competitions", "teams", "submissions", "mechanism_states"} <= tables
    engine.dispose()
