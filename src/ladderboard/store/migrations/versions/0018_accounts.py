"""People: accounts and how they sign in, their teams, their registrations,
the organisers of each competition, and the log of organiser actions.

``accounts`` holds a person (participant, organiser or administrator);
``account_identities`` the OpenID Connect identities an account signs in
with; ``account_sessions`` its browsers' sessions and ``api_tokens`` its
personal API tokens (each stored as a SHA-256 only). ``team_members`` puts
an account in one team of a competition; ``competition_registrations``
records an account's joining and the rules it accepted;
``competition_organisers`` gives a competition its owners and
co-organisers; ``organiser_actions`` records who did what, and when.
Existing teams keep their tokens and existing competitions their settings:
the new configuration fields take defaults that behave as before.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")
WHEN = sa.DateTime(timezone=True)


def _account(nullable: bool = False, ondelete: str = "CASCADE") -> sa.Column:
    return sa.Column(
        "account_id", ID, sa.ForeignKey("accounts.id", ondelete=ondelete), nullable=nullable
    )


def _competition(nullable: bool = False, primary_key: bool = False) -> sa.Column:
    return sa.Column(
        "competition_id",
        ID,
        sa.ForeignKey("competitions.id", ondelete="CASCADE"),
        nullable=nullable,
        primary_key=primary_key,
    )


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", ID, primary_key=True),
        sa.Column("handle", sa.String(100), nullable=False),
        sa.Column("handle_key", sa.String(64), nullable=False, unique=True),
        sa.Column("email", sa.String(320), nullable=True),
        sa.Column("email_verified_at", WHEN, nullable=True),
        sa.Column("password_hash", sa.String(200), nullable=True),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("created_from", sa.String(64), nullable=False),
        sa.Column("disabled_at", WHEN, nullable=True),
    )
    op.create_index("ix_accounts_email", "accounts", ["email"])
    op.create_table(
        "account_identities",
        sa.Column("id", ID, primary_key=True),
        _account(),
        sa.Column("issuer", sa.String(300), nullable=False),
        sa.Column("subject", sa.String(300), nullable=False),
        sa.Column("email", sa.String(320), nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.UniqueConstraint("issuer", "subject"),
    )
    op.create_index("ix_account_identities_account_id", "account_identities", ["account_id"])
    op.create_table(
        "account_sessions",
        sa.Column("sha256", sa.String(64), primary_key=True),
        _account(),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("expires_at", WHEN, nullable=False),
    )
    op.create_index("ix_account_sessions_account_id", "account_sessions", ["account_id"])
    op.create_index("ix_account_sessions_expires_at", "account_sessions", ["expires_at"])
    op.create_table(
        "api_tokens",
        sa.Column("id", ID, primary_key=True),
        _account(),
        sa.Column("label", sa.String(100), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("last_used_at", WHEN, nullable=True),
        sa.Column("revoked_at", WHEN, nullable=True),
    )
    op.create_index("ix_api_tokens_account_id", "api_tokens", ["account_id"])
    op.create_table(
        "team_members",
        sa.Column("id", ID, primary_key=True),
        _competition(),
        sa.Column("team_id", ID, sa.ForeignKey("teams.id", ondelete="CASCADE"), nullable=False),
        _account(),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("joined_at", WHEN, nullable=False),
        sa.UniqueConstraint("competition_id", "account_id"),
        sa.UniqueConstraint("team_id", "account_id"),
    )
    op.create_index("ix_team_members_account_id", "team_members", ["account_id"])
    op.create_table(
        "competition_registrations",
        _competition(primary_key=True),
        sa.Column(
            "account_id",
            ID,
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("accepted_rules_at", WHEN, nullable=False),
        sa.Column("rules_sha256", sa.String(64), nullable=False),
        sa.Column("via", sa.String(20), nullable=False),
        sa.Column("invitation", sa.String(64), nullable=True),
    )
    op.create_index(
        "ix_competition_registrations_account_id", "competition_registrations", ["account_id"]
    )
    op.create_table(
        "competition_organisers",
        _competition(primary_key=True),
        sa.Column(
            "account_id",
            ID,
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("added_at", WHEN, nullable=False),
        sa.Column("added_by", sa.String(120), nullable=False),
    )
    op.create_index(
        "ix_competition_organisers_account_id", "competition_organisers", ["account_id"]
    )
    op.create_table(
        "organiser_actions",
        sa.Column("id", ID, primary_key=True),
        _competition(nullable=True),
        sa.Column("actor", sa.String(120), nullable=False),
        _account(nullable=True, ondelete="SET NULL"),
        sa.Column("action", sa.String(60), nullable=False),
        sa.Column("detail", sa.JSON, nullable=False),
        sa.Column("at", WHEN, nullable=False),
        sa.Column("address", sa.String(64), nullable=False),
    )
    op.create_index(
        "ix_organiser_actions_competition", "organiser_actions", ["competition_id", "id"]
    )


def downgrade() -> None:
    for table in (
        "organiser_actions",
        "competition_organisers",
        "competition_registrations",
        "team_members",
        "api_tokens",
        "account_sessions",
        "account_identities",
        "accounts",
    ):
        op.drop_table(table)
