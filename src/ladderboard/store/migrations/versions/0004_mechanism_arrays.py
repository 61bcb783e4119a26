"""Large arrays of mechanism states are stored once, in ``mechanism_arrays``,
and states refer to them by hash: a ladder's best losses (half a megabyte at
1e5 rows of log loss) were rewritten with its state at every submission.
States written before keep their arrays inline and are read as they are.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    op.create_table(
        "mechanism_arrays",
        sa.Column(
            "competition_id",
            ID,
            sa.ForeignKey("competitions.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("data", sa.Text, nullable=False),
    )


def downgrade() -> None:
    # States that refer to arrays would be unreadable without them.
    bind = op.get_bind()
    if bind.execute(sa.text("SELECT count(*) FROM mechanism_arrays")).scalar():
        raise RuntimeError(
            "mechanism states refer to stored arrays; downgrading below 0004 would lose them"
        )
    op.drop_table("mechanism_arrays")
