"""What running a competition needs of the schema:

- ``competitions.rules``: the rules page, Markdown (``description`` is the
  overview).
- ``teams.disabled_at``: a team the organiser disabled.
- ``competition_files``: the data files participants download.
- ``team_sessions``: a team's browser signed in once with its token.

Publishing the private board becomes an act of its own after the close
(``key_revealed_at``). A competition closed before this revision had its
board and key public from the close on; so had one past its deadline, which
gets ``key_revealed_at`` = its deadline, so that nothing public becomes
hidden by the upgrade.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""

from datetime import UTC as UTC_ZONE
from datetime import datetime

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

UTC = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.add_column("competitions", sa.Column("rules", sa.Text, nullable=False, server_default=""))
    op.add_column("teams", sa.Column("disabled_at", UTC, nullable=True))
    competitions = sa.table(
        "competitions",
        sa.column("id", sa.Integer),
        sa.column("deadline", UTC),
        sa.column("key_revealed_at", UTC),
    )
    bind = op.get_bind()
    now = datetime.now(UTC_ZONE)
    for competition_id, deadline in bind.execute(
        sa.select(competitions.c.id, competitions.c.deadline).where(
            competitions.c.key_revealed_at.is_(None), competitions.c.deadline.is_not(None)
        )
    ).all():
        if deadline.tzinfo is None:  # SQLite returns naive datetimes: they are UTC
            deadline = deadline.replace(tzinfo=UTC_ZONE)
        if deadline <= now:
            bind.execute(
                competitions.update()
                .where(competitions.c.id == competition_id)
                .values(key_revealed_at=deadline)
            )
    op.create_table(
        "competition_files",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True),
        sa.Column(
            "competition_id",
            sa.BigInteger().with_variant(sa.Integer, "sqlite"),
            sa.ForeignKey("competitions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("created_at", UTC, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.UniqueConstraint("competition_id", "name"),
    )
    op.create_table(
        "team_sessions",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column(
            "team_id",
            sa.BigInteger().with_variant(sa.Integer, "sqlite"),
            sa.ForeignKey("teams.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created_at", UTC, nullable=False),
        sa.Column("expires_at", UTC, nullable=False),
    )
    op.create_index("ix_team_sessions_team_id", "team_sessions", ["team_id"])
    op.create_index("ix_team_sessions_expires_at", "team_sessions", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_team_sessions_expires_at", table_name="team_sessions")
    op.drop_index("ix_team_sessions_team_id", table_name="team_sessions")
    op.drop_table("team_sessions")
    op.drop_table("competition_files")
    with op.batch_alter_table("teams") as batch:
        batch.drop_column("disabled_at")
    with op.batch_alter_table("competitions") as batch:
        batch.drop_column("rules")
