"""The versions each submission's draws were made with.

``submissions.draw_versions`` records numpy's and randomgen's versions when
the mechanism took the submission (or a correction scored it again): numpy
may change its samplers between releases, so an audit must know which
versions make the same draws. Earlier submissions keep ``NULL``: unknown.

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("submissions", sa.Column("draw_versions", sa.String(100), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("draw_versions")
