"""The store's identity, which ``ladderboard init`` makes anew.

A process drops its caches when the identity it read last changes: the
restore procedure ends with ``ladderboard init``, so that a store put back
from a backup is not read through counters kept from before
(:mod:`ladderboard.store.identity`).

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-29
"""

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    table = op.create_table(
        "store_identity",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("value", sa.String(64), nullable=False),
    )
    op.bulk_insert(table, [{"id": 1, "value": secrets.token_hex(16)}])


def downgrade() -> None:
    op.drop_table("store_identity")
