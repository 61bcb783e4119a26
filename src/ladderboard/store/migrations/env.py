"""Alembic environment: the store passes its own connection (see database.migrate)."""

from alembic import context

from ladderboard.store.models import Base

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only through ladderboard.store.migrate
    raise RuntimeError("run migrations through ladderboard.store.migrate(engine)")

context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
