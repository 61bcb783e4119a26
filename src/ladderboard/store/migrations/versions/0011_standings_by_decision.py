"""On a ladder, a team's standing is given by the file the mechanism holds as
its best (the latest submission it took as a new best, ``submissions.improved``),
not by the first submission released at the team's score; on a board whose
releases hide that decision (a fresh bootstrap estimate of the best at every
file), by the team's latest submission. A ladder's release states the team's
current best (Blum & Hardt 2015, Fig. 1-2; Chaibub Neto et al. 2016, Alg. 4-6).

The mechanism's decision has been stored with every submission since the
first revision, so the standings of a store written before are set again here
from the stored decisions, by the rule of
:func:`ladderboard.rules.boards.team_standing` at this revision. The rule and
the facts it needs (which mechanisms show a best release, which hide their
decisions) are written out here as they are now, so that the migration does
the same thing whatever later code says. Scores and counts do not change.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28
"""

from collections import defaultdict

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")
UTC = sa.DateTime(timezone=True)

BEST_RELEASE_SHOWN = frozenset({"full-disclosure", "metric-full-disclosure", "thresholdout"})
"""The mechanisms whose board shows a team's best release: their standings stay."""
DECISION_HIDDEN = frozenset({"ladder-boot", "bayes-boot-ladder-boot"})
"""The mechanisms that answer every file with a fresh estimate of the best."""


def upgrade() -> None:
    bind = op.get_bind()
    competitions = sa.table("competitions", sa.column("id", ID), sa.column("config", sa.JSON))
    submissions = sa.table(
        "submissions",
        sa.column("id", ID),
        sa.column("competition_id", ID),
        sa.column("team_id", ID),
        sa.column("created_at", UTC),
        sa.column("number", sa.Integer),
        sa.column("improved", sa.Boolean),
    )
    standings = sa.table(
        "team_standings",
        sa.column("team_id", ID),
        sa.column("submission_id", ID),
        sa.column("submission_number", sa.Integer),
        sa.column("submission_at", UTC),
    )
    for competition_id, config in bind.execute(sa.select(competitions.c.id, competitions.c.config)):
        mechanism = config["mechanism"]
        if mechanism in BEST_RELEASE_SHOWN:
            continue
        teams: dict[int, list[tuple]] = defaultdict(list)
        for ident, team, created_at, number, improved in bind.execute(
            sa.select(
                submissions.c.id,
                submissions.c.team_id,
                submissions.c.created_at,
                submissions.c.number,
                submissions.c.improved,
            )
            .where(submissions.c.competition_id == competition_id)
            .order_by(submissions.c.created_at, submissions.c.id)
        ):
            teams[team].append((ident, created_at, number, bool(improved)))
        for team, rows in teams.items():
            if mechanism in DECISION_HIDDEN:
                reached = rows[-1]
            else:
                reached = next((r for r in reversed(rows) if r[3]), rows[0])
            bind.execute(
                standings.update()
                .where(standings.c.team_id == team)
                .values(
                    submission_id=reached[0],
                    submission_number=reached[2],
                    submission_at=reached[1],
                )
            )


def downgrade() -> None:
    """Nothing to undo in the schema; the standings keep the newer rule's
    submission, which the older code reads as it reads any standing."""
