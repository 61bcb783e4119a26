"""An index on the rejections by team: a submission counts its team's
invalid files, which without it scanned every rejection in the store.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_rejections_team", "rejections", ["team_id"])


def downgrade() -> None:
    op.drop_index("ix_rejections_team", table_name="rejections")
