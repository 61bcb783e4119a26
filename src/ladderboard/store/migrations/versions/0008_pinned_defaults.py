"""Mechanism defaults stored with each competition:

From this revision on, a competition stores the values of the parameters
whose defaults follow from the holdout size (the Shaky Ladder's noise, step
and most updates) as they settle at its creation, so that a later release
that chooses other defaults changes neither a running board nor the audit of
a finished one. A Shaky Ladder competition created before gets the values
its defaults gave it: noise ``0.5/√n``, step ``1/√n`` and at most
``ceil(4/step)`` updates, with ``n`` its public rows, computed as the
mechanism computed them, so that every board and audit runs bit for bit as
before.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""

import math

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")

NOISE_MULTIPLE = 0.5
STEP_MULTIPLE = 1.0
"""The Shaky Ladder's defaults before this revision, in units of ``1/√n``."""


def pinned(params: dict, n_public: int) -> dict:
    """``params`` with the Shaky Ladder's defaults written out for ``n_public``."""
    out = dict(params)
    root = math.sqrt(n_public)
    if out.get("noise_scale") is None:
        out["noise_scale"] = NOISE_MULTIPLE / root
    if out.get("step") is None:
        out["step"] = STEP_MULTIPLE / root
    if out.get("max_updates") is None:
        out["max_updates"] = math.ceil(4.0 / out["step"])
    return out


def upgrade() -> None:
    bind = op.get_bind()
    competitions = sa.table(
        "competitions",
        sa.column("id", ID),
        sa.column("config", sa.JSON),
        sa.column("n_public", sa.Integer),
    )
    rows = bind.execute(
        sa.select(competitions.c.id, competitions.c.config, competitions.c.n_public)
    ).all()
    for ident, config, n_public in rows:
        if config.get("mechanism") != "shaky-ladder":
            continue
        params = config.get("mechanism_params") or {}
        written = pinned(params, n_public)
        if written != params:
            bind.execute(
                competitions.update()
                .where(competitions.c.id == ident)
                .values(config={**config, "mechanism_params": written})
            )


def downgrade() -> None:
    """The values written stay: they are what the defaults gave, so the
    competitions run as before under the earlier revision too."""
