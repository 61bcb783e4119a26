"""``rejections.filename``: the name a refused file was sent under, so that
a team's list of refused files says which file each refusal was about.
Null where the request named none, and for the rows stored before.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rejections") as batch:
        batch.add_column(sa.Column("filename", sa.String(255), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rejections") as batch:
        batch.drop_column("filename")
