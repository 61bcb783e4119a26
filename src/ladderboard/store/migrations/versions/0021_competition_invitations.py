"""Competition invitations: the codes that admit an account to a competition
whose registration is by invitation.

``competition_invitations`` keeps each code as its SHA-256 (the code itself
is shown once, to the organiser who made it), a label for the organiser, who
made it and when, its expiry, how many accounts it may admit (``max_uses``,
none: no limit) and how many it has (``uses``), and when it was revoked.

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "competition_invitations",
        sa.Column("id", _ID, primary_key=True),
        sa.Column(
            "competition_id",
            _ID,
            sa.ForeignKey("competitions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("code_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("label", sa.String(100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(120), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("max_uses", sa.Integer(), nullable=True),
        sa.Column("uses", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index(
        "ix_competition_invitations_competition", "competition_invitations", ["competition_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_competition_invitations_competition", table_name="competition_invitations")
    op.drop_table("competition_invitations")
