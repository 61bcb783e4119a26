"""Settings that change while a competition runs, with their history.

``setting_changes`` records each change an organiser makes to a running
competition (its quotas, final selections, file size, precision, automatic
publication, deadline, title and texts): when, which setting, the value
before and after as JSON, and who. ``competitions.settings_version`` counts
the changes to the configuration and the deadline, so that a process that
kept what a submission reads of them reads them again after a change.

``staged_uploads`` keeps the files of a refused creation form for the
organiser's next try, bound to a random draft id and the session that sent
them, until they expire.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("competitions") as batch:
        batch.add_column(
            sa.Column("settings_version", sa.Integer, nullable=False, server_default="0")
        )
    op.create_table(
        "setting_changes",
        sa.Column("id", ID, primary_key=True),
        sa.Column(
            "competition_id",
            ID,
            sa.ForeignKey("competitions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("setting", sa.String(40), nullable=False),
        sa.Column("old", sa.JSON, nullable=True),
        sa.Column("new", sa.JSON, nullable=True),
        sa.Column("actor", sa.String(100), nullable=True),
    )
    op.create_index("ix_setting_changes_competition", "setting_changes", ["competition_id", "id"])
    op.create_table(
        "staged_uploads",
        sa.Column("id", ID, primary_key=True),
        sa.Column("draft_sha256", sa.String(64), nullable=False),
        sa.Column("session_sha256", sa.String(64), nullable=False),
        sa.Column("role", sa.String(10), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_staged_uploads_draft", "staged_uploads", ["draft_sha256", "session_sha256"])
    op.create_index("ix_staged_uploads_expires_at", "staged_uploads", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_staged_uploads_expires_at", table_name="staged_uploads")
    op.drop_index("ix_staged_uploads_draft", table_name="staged_uploads")
    op.drop_table("staged_uploads")
    op.drop_index("ix_setting_changes_competition", table_name="setting_changes")
    op.drop_table("setting_changes")
    with op.batch_alter_table("competitions") as batch:
        batch.drop_column("settings_version")
