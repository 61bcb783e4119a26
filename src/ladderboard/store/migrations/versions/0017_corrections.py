"""Corrections of a competition's solution, each with what it replaced.

``solution_corrections`` keeps, for each correction of a solution with a
mistake, the solution file it replaced (packed), that file's SHA-256, its
split's SHA-256, the key and the commitment it ran under, the commitment
that replaced it, the reason and the time. ``correction_releases`` keeps
every submission's release, decision, raw public and private score as they
stood before the correction, so that the audit runs the old solution again
and the teams see which scores changed.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    op.create_table(
        "solution_corrections",
        sa.Column("id", ID, primary_key=True),
        sa.Column(
            "competition_id",
            ID,
            sa.ForeignKey("competitions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("corrected_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("actor", sa.String(100), nullable=True),
        sa.Column("old_file", sa.LargeBinary, nullable=False),
        sa.Column("old_solution_sha256", sa.String(64), nullable=False),
        sa.Column("old_split_sha256", sa.String(64), nullable=False),
        sa.Column("old_key", sa.String(64), nullable=False),
        sa.Column("old_commitment", sa.String(64), nullable=False),
        sa.Column("new_commitment", sa.String(64), nullable=False),
        sa.UniqueConstraint("competition_id", "number"),
    )
    op.create_table(
        "correction_releases",
        sa.Column(
            "correction_id",
            ID,
            sa.ForeignKey("solution_corrections.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "submission_id",
            ID,
            sa.ForeignKey("submissions.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("public_score", sa.Float, nullable=False),
        sa.Column("improved", sa.Boolean, nullable=False),
        sa.Column("public_raw", sa.Float, nullable=False),
        sa.Column("private_score", sa.Float, nullable=False),
    )
    op.create_index("ix_correction_releases_submission", "correction_releases", ["submission_id"])


def downgrade() -> None:
    op.drop_index("ix_correction_releases_submission", table_name="correction_releases")
    op.drop_table("correction_releases")
    op.drop_table("solution_corrections")
