"""Sign-ins under way: email sign-in links and OpenID Connect requests.

``email_links`` keeps each sign-in link mailed (or handed to an
administrator for a new account) as the SHA-256 of its random token, with
the address, the account it signs in as when one is named, and its expiry;
a link is deleted when it is used. ``oidc_requests`` keeps each OpenID
Connect sign-in started, as the SHA-256 of its ``state``, with the
provider, the ``nonce``, the PKCE code verifier and the page to come back
to; it is deleted at the callback.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    op.create_table(
        "email_links",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column(
            "account_id",
            ID,
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=True,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_email_links_expires_at", "email_links", ["expires_at"])
    op.create_table(
        "oidc_requests",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("provider", sa.String(40), nullable=False),
        sa.Column("nonce", sa.String(100), nullable=False),
        sa.Column("code_verifier", sa.String(128), nullable=False),
        sa.Column("next_path", sa.String(500), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_oidc_requests_expires_at", "oidc_requests", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_oidc_requests_expires_at", table_name="oidc_requests")
    op.drop_table("oidc_requests")
    op.drop_index("ix_email_links_expires_at", table_name="email_links")
    op.drop_table("email_links")
