"""Boards patched rather than rebuilt:

- ``team_standings.version``: the competition's ``board_version`` of each
  standing's last change, so that a process keeping the public board at
  version ``v`` reads only the standings changed since ``v``;
- ``competitions.board_reset_version``: the last change a kept board cannot
  take as changed standings (the close, the publication, a selection).

Existing rows get 0 for both: a board kept at any version takes them.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("team_standings") as batch:
        batch.add_column(sa.Column("version", sa.Integer(), nullable=False, server_default="0"))
        batch.create_index("ix_team_standings_version", ["competition_id", "version"])
    with op.batch_alter_table("competitions") as batch:
        batch.add_column(
            sa.Column("board_reset_version", sa.Integer(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("competitions") as batch:
        batch.drop_column("board_reset_version")
    with op.batch_alter_table("team_standings") as batch:
        batch.drop_index("ix_team_standings_version")
        batch.drop_column("version")
