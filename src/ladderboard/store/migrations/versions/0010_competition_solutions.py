"""Solution files live in ``competition_solutions``, apart from
``competitions``, whose row every submission updates (its board version):
SQLite writes a row whole, so a file kept in it would be read and written
again on each submission.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    op.create_table(
        "competition_solutions",
        sa.Column(
            "competition_id",
            ID,
            sa.ForeignKey("competitions.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("file", sa.LargeBinary, nullable=False),
    )
    if op.get_bind().dialect.name == "postgresql":
        # The file is compressed already: PostgreSQL's own attempt (pglz) is wasted.
        op.execute("ALTER TABLE competition_solutions ALTER COLUMN file SET STORAGE EXTERNAL")
    op.execute(
        "INSERT INTO competition_solutions (competition_id, file) "
        "SELECT id, solution FROM competitions"
    )
    with op.batch_alter_table("competitions") as batch:
        batch.drop_column("solution")


def downgrade() -> None:
    with op.batch_alter_table("competitions") as batch:
        batch.add_column(sa.Column("solution", sa.LargeBinary, nullable=True))
    op.execute(
        "UPDATE competitions SET solution = (SELECT file FROM competition_solutions "
        "WHERE competition_solutions.competition_id = competitions.id)"
    )
    with op.batch_alter_table("competitions") as batch:
        batch.alter_column("solution", existing_type=sa.LargeBinary, nullable=False)
    op.drop_table("competition_solutions")
