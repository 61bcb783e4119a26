"""Submission files move to a table of their own, ``submission_files``.

In ``submissions`` the packed file (about 120 kB for 1e5 rows) came before the
hashes and scores, and SQLite reaches a column by walking the overflow pages
of every column before it: the team's quota and duplicate check read every
file the team had sent (1.6 ms a submission after 35 of them, growing with
each), and so did every board.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    op.create_table(
        "submission_files",
        sa.Column(
            "submission_id",
            ID,
            sa.ForeignKey("submissions.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("file", sa.LargeBinary, nullable=False),
    )
    if op.get_bind().dialect.name == "postgresql":
        # The file is compressed already: PostgreSQL's own attempt (pglz) is wasted.
        op.execute("ALTER TABLE submission_files ALTER COLUMN file SET STORAGE EXTERNAL")
    op.execute(
        "INSERT INTO submission_files (submission_id, file) SELECT id, file FROM submissions"
    )
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("file")


def downgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("file", sa.LargeBinary, nullable=True))
    op.execute(
        "UPDATE submissions SET file = (SELECT file FROM submission_files "
        "WHERE submission_files.submission_id = submissions.id)"
    )
    with op.batch_alter_table("submissions") as batch:
        batch.alter_column("file", existing_type=sa.LargeBinary, nullable=False)
    op.drop_table("submission_files")
