"""Phases: a competition may be a later phase of another.

``competitions.first_phase_id`` names the first phase of the series a
competition belongs to (``NULL`` for a competition that is its own first
phase). Teams form in the first phase; each later phase holds a row per team
of the first phase, so that its submissions, numbers, quotas and boards stay
its own. ``teams.home_team_id`` names that first-phase team (a first phase's
team names itself), and one phase holds at most one row per first-phase team.
``teams.own_disabled_at`` is when a later phase's organiser disabled the
row in that phase alone: the row is disabled while it or its first-phase
team is.

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    # No foreign keys: SQLite adds a column in place only without one, and a
    # first phase is deleted with its later phases or not at all.
    op.add_column("competitions", sa.Column("first_phase_id", ID, nullable=True))
    op.create_index("ix_competitions_first_phase_id", "competitions", ["first_phase_id"])
    op.add_column("teams", sa.Column("home_team_id", ID, nullable=True))
    op.execute("UPDATE teams SET home_team_id = id")
    op.add_column("teams", sa.Column("own_disabled_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index(
        "ix_teams_competition_home", "teams", ["competition_id", "home_team_id"], unique=True
    )


def downgrade() -> None:
    op.drop_index("ix_teams_competition_home", table_name="teams")
    with op.batch_alter_table("teams") as batch:
        batch.drop_column("own_disabled_at")
        batch.drop_column("home_team_id")
    op.drop_index("ix_competitions_first_phase_id", table_name="competitions")
    with op.batch_alter_table("competitions") as batch:
        batch.drop_column("first_phase_id")
