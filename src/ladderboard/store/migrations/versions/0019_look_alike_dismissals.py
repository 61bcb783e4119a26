"""Look-alike flags an organiser has dismissed.

``look_alike_dismissals`` keeps, per competition, the key of each flag of
look-alike accounts the organiser looked at and set aside (the key is the
SHA-256 of the flag's rule and its accounts' ids, so a flag that gains an
account is a new flag), with who dismissed it and when.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    op.create_table(
        "look_alike_dismissals",
        sa.Column(
            "competition_id",
            ID,
            sa.ForeignKey("competitions.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("flag_key", sa.String(64), primary_key=True),
        sa.Column("dismissed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("dismissed_by", sa.String(120), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("look_alike_dismissals")
