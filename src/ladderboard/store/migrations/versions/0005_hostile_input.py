"""What hostile input needs of the schema:

- ``teams.name_key``: names unique under NFKC and case folding. Existing
  teams get the key of their name; if two existing names collide under it,
  the later team's key is made unique by its id, so that the upgrade never
  fails (the engine refuses such a pair from now on).
- ``submissions.number``: each team's own count, the id a team is shown
  (the global id told every team how busy the server was).
- ``rate_limits``: rate limits shared by every worker and host.
- ``organiser_sessions``: the organiser's sign-ins, each with its own random
  cookie, an expiry, and revoked at sign-out.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

import hashlib
import unicodedata

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

UTC = sa.DateTime(timezone=True)


def _name_key(name: str) -> str:
    # The same form as ladderboard.rules.text.name_key, written out so
    # that this migration keeps its meaning if that function changes.
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return hashlib.sha256(folded.encode("utf-8")).hexdigest()


def upgrade() -> None:
    bind = op.get_bind()
    op.add_column("teams", sa.Column("name_key", sa.String(64), nullable=True))
    seen: set[tuple[int, str]] = set()
    teams = bind.execute(sa.text("SELECT id, competition_id, name FROM teams ORDER BY id")).all()
    for team_id, competition_id, name in teams:
        key = _name_key(name)
        if (competition_id, key) in seen:
            key = hashlib.sha256(f"{key}:{team_id}".encode()).hexdigest()
        seen.add((competition_id, key))
        bind.execute(
            sa.text("UPDATE teams SET name_key = :key WHERE id = :id"), {"key": key, "id": team_id}
        )
    with op.batch_alter_table("teams") as batch:
        batch.alter_column("name_key", existing_type=sa.String(64), nullable=False)
        batch.create_unique_constraint(
            "uq_teams_competition_id_name_key", ["competition_id", "name_key"]
        )

    op.add_column("submissions", sa.Column("number", sa.Integer, nullable=True))
    bind.execute(
        sa.text(
            "UPDATE submissions SET number = (SELECT count(*) FROM submissions AS earlier "
            "WHERE earlier.team_id = submissions.team_id AND earlier.id <= submissions.id)"
        )
    )
    with op.batch_alter_table("submissions") as batch:
        batch.alter_column("number", existing_type=sa.Integer, nullable=False)
        batch.create_unique_constraint("uq_submissions_team_id_number", ["team_id", "number"])

    op.create_table(
        "rate_limits",
        sa.Column("key", sa.String(100), primary_key=True),
        sa.Column("tat", sa.Float, nullable=False),
        sa.Column("allowed", sa.Boolean, nullable=False),
    )
    op.create_table(
        "organiser_sessions",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("created_at", UTC, nullable=False),
        sa.Column("expires_at", UTC, nullable=False),
    )
    op.create_index("ix_organiser_sessions_expires_at", "organiser_sessions", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_organiser_sessions_expires_at", table_name="organiser_sessions")
    op.drop_table("organiser_sessions")
    op.drop_table("rate_limits")
    with op.batch_alter_table("submissions") as batch:
        batch.drop_constraint("uq_submissions_team_id_number", type_="unique")
        batch.drop_column("number")
    with op.batch_alter_table("teams") as batch:
        batch.drop_constraint("uq_teams_competition_id_name_key", type_="unique")
        batch.drop_column("name_key")
