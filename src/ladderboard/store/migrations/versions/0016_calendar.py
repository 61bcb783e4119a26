"""The calendar: ``late_submissions``, files sent after the private board
is published (scored exactly, shown on a board of their own, never read by
the boards, the final selection or the audit, which read ``submissions``),
and ``board_freezes``, the public board as it stood at the freeze.

The opening time, the freeze and whether late files are taken are settings
in ``competitions.config``, which needs no column.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "late_submissions",
        sa.Column("id", _ID, primary_key=True),
        sa.Column(
            "competition_id",
            _ID,
            sa.ForeignKey("competitions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("team_id", _ID, sa.ForeignKey("teams.id", ondelete="CASCADE"), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("idempotency_key", sa.String(200), nullable=True),
        sa.Column("file_sha256", sa.String(64), nullable=False),
        sa.Column("public_score", sa.Float(), nullable=False),
        sa.Column("private_score", sa.Float(), nullable=False),
        sa.Column("file", sa.LargeBinary(), nullable=False),
        sa.UniqueConstraint("team_id", "number"),
        sa.UniqueConstraint("team_id", "idempotency_key"),
    )
    op.create_index("ix_late_submissions_competition", "late_submissions", ["competition_id"])
    op.create_table(
        "board_freezes",
        sa.Column(
            "competition_id",
            _ID,
            sa.ForeignKey("competitions.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("frozen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("rows", sa.JSON(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("board_freezes")
    op.drop_index("ix_late_submissions_competition", table_name="late_submissions")
    op.drop_table("late_submissions")
