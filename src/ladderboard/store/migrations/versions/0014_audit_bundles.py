"""``competitions.audit_files`` and ``audit_published_at``: whether the
organiser published the competition's audit bundle, with every submitted file
(``full``) or only their SHA-256 (``hashes``), and when. Null until then, and
for the competitions stored before.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("competitions") as batch:
        batch.add_column(sa.Column("audit_files", sa.String(10), nullable=True))
        batch.add_column(sa.Column("audit_published_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("competitions") as batch:
        batch.drop_column("audit_published_at")
        batch.drop_column("audit_files")
