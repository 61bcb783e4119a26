"""Teams of several members: invitations, merges and each team's history.

``team_invitations`` holds the codes a team's captain hands out (each kept
as its SHA-256 only, admitting one account, until it expires or is
revoked); ``team_merges`` the requests of one team to merge into another,
pending, accepted, refused or withdrawn; ``team_events`` what happened to a
team (created, joined, left, invited, captain changed, merges, token
reissued), for the organiser's desk. ``teams.merged_into_id`` names the team
a retired team merged into: that team's quotas count the retired team's
submissions too.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")
WHEN = sa.DateTime(timezone=True)


def _id_of(table: str, name: str, nullable: bool = False, ondelete: str = "CASCADE") -> sa.Column:
    return sa.Column(name, ID, sa.ForeignKey(f"{table}.id", ondelete=ondelete), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "team_invitations",
        sa.Column("id", ID, primary_key=True),
        _id_of("competitions", "competition_id"),
        _id_of("teams", "team_id"),
        sa.Column("code_hash", sa.String(64), nullable=False, unique=True),
        _id_of("accounts", "created_by", nullable=True, ondelete="SET NULL"),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("expires_at", WHEN, nullable=False),
        sa.Column("revoked_at", WHEN, nullable=True),
        sa.Column("used_at", WHEN, nullable=True),
        _id_of("accounts", "used_by", nullable=True, ondelete="SET NULL"),
    )
    op.create_index("ix_team_invitations_team_id", "team_invitations", ["team_id"])
    op.create_table(
        "team_merges",
        sa.Column("id", ID, primary_key=True),
        _id_of("competitions", "competition_id"),
        _id_of("teams", "from_team_id"),
        _id_of("teams", "into_team_id"),
        _id_of("accounts", "requested_by", nullable=True, ondelete="SET NULL"),
        sa.Column("requested_at", WHEN, nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("answered_at", WHEN, nullable=True),
        _id_of("accounts", "answered_by", nullable=True, ondelete="SET NULL"),
    )
    op.create_index("ix_team_merges_from_team_id", "team_merges", ["from_team_id"])
    op.create_index("ix_team_merges_into_team_id", "team_merges", ["into_team_id"])
    op.create_table(
        "team_events",
        sa.Column("id", ID, primary_key=True),
        _id_of("competitions", "competition_id"),
        _id_of("teams", "team_id"),
        sa.Column("at", WHEN, nullable=False),
        sa.Column("actor", sa.String(120), nullable=False),
        _id_of("accounts", "account_id", nullable=True, ondelete="SET NULL"),
        sa.Column("event", sa.String(40), nullable=False),
        sa.Column("detail", sa.JSON, nullable=False),
    )
    op.create_index("ix_team_events_team", "team_events", ["team_id", "id"])
    # No foreign key: SQLite adds a column in place only without one, and a
    # retired team's row is never deleted before its competition's.
    op.add_column("teams", sa.Column("merged_into_id", ID, nullable=True))
    op.create_index("ix_teams_merged_into_id", "teams", ["merged_into_id"])


def downgrade() -> None:
    op.drop_index("ix_teams_merged_into_id", table_name="teams")
    with op.batch_alter_table("teams") as batch:
        batch.drop_column("merged_into_id")
    for table in ("team_events", "team_merges", "team_invitations"):
        op.drop_table(table)
