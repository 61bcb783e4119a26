"""The initial schema: competitions, teams, mechanism states, submissions,
rejections and duplicate flags.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")
UTC = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "competitions",
        sa.Column("id", ID, primary_key=True),
        sa.Column("slug", sa.String(64), nullable=False, unique=True),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("config", sa.JSON, nullable=False),
        sa.Column("created_at", UTC, nullable=False),
        sa.Column("deadline", UTC, nullable=True),
        sa.Column("closed_at", UTC, nullable=True),
        sa.Column("solution", sa.LargeBinary, nullable=False),
        sa.Column("solution_sha256", sa.String(64), nullable=False),
        sa.Column("split_sha256", sa.String(64), nullable=False),
        sa.Column("secret_key", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("key_revealed_at", UTC, nullable=True),
        sa.Column("n_public", sa.Integer, nullable=False),
        sa.Column("n_private", sa.Integer, nullable=False),
    )
    op.create_table(
        "teams",
        sa.Column("id", ID, primary_key=True),
        sa.Column(
            "competition_id",
            ID,
            sa.ForeignKey("competitions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("token_hash", sa.String(128), nullable=True, unique=True),
        sa.Column("created_at", UTC, nullable=False),
        sa.UniqueConstraint("competition_id", "name"),
    )
    op.create_table(
        "mechanism_states",
        sa.Column("id", ID, primary_key=True),
        sa.Column(
            "competition_id",
            ID,
            sa.ForeignKey("competitions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("scope", sa.String(40), nullable=False),
        sa.Column("state", sa.JSON, nullable=True),
        sa.Column("n_submissions", sa.Integer, nullable=False),
        sa.Column("updated_at", UTC, nullable=False),
        sa.UniqueConstraint("competition_id", "scope"),
    )
    op.create_table(
        "submissions",
        sa.Column("id", ID, primary_key=True),
        sa.Column(
            "competition_id",
            ID,
            sa.ForeignKey("competitions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("team_id", ID, sa.ForeignKey("teams.id", ondelete="CASCADE"), nullable=False),
        sa.Column("scope", sa.String(40), nullable=False),
        sa.Column("sequence", sa.Integer, nullable=False),
        sa.Column("created_at", UTC, nullable=False),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("idempotency_key", sa.String(200), nullable=True),
        sa.Column("file", sa.LargeBinary, nullable=False),
        sa.Column("file_sha256", sa.String(64), nullable=False),
        sa.Column("predictions_sha256", sa.String(64), nullable=False),
        sa.Column("public_score", sa.Float, nullable=False),
        sa.Column("improved", sa.Boolean, nullable=False),
        sa.Column("public_raw", sa.Float, nullable=False),
        sa.Column("private_score", sa.Float, nullable=False),
        sa.Column("selected", sa.Boolean, nullable=False),
        sa.UniqueConstraint("competition_id", "scope", "sequence"),
        sa.UniqueConstraint("team_id", "idempotency_key"),
    )
    op.create_index("ix_submissions_team_created", "submissions", ["team_id", "created_at"])
    op.create_index(
        "ix_submissions_predictions", "submissions", ["competition_id", "predictions_sha256"]
    )
    op.create_table(
        "rejections",
        sa.Column("id", ID, primary_key=True),
        sa.Column(
            "competition_id",
            ID,
            sa.ForeignKey("competitions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("team_id", ID, sa.ForeignKey("teams.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", UTC, nullable=False),
        sa.Column("code", sa.String(40), nullable=False),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("file_sha256", sa.String(64), nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "duplicate_flags",
        sa.Column("id", ID, primary_key=True),
        sa.Column(
            "competition_id",
            ID,
            sa.ForeignKey("competitions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "submission_id",
            ID,
            sa.ForeignKey("submissions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "earlier_submission_id",
            ID,
            sa.ForeignKey("submissions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created_at", UTC, nullable=False),
    )


def downgrade() -> None:
    for table in (
        "duplicate_flags",
        "rejections",
        "submissions",
        "mechanism_states",
        "teams",
        "competitions",
    ):
        op.drop_table(table)
