"""Boards that read one row a team:

- ``team_standings``: each team's place on the public board (its score, the
  submission that gives it, its count of submissions and the latest one's
  time), kept by every submission in its own transaction;
- ``competitions.board_version``: counts the changes to a competition's
  boards, so that a process may keep a board it built while the count stays.

The standings of a store written before are built here from its
submissions, by the rule the live board used at this revision
(:func:`ladderboard.rules.boards.team_standing`). The rule and the facts it
needs (which mechanisms release a current best, which scores are metrics
that grow better) are written out here as they were, so that the migration
does the same thing whatever later code says.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

import math
from collections import defaultdict

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")
UTC = sa.DateTime(timezone=True)

BEST_RELEASE_SHOWN = frozenset({"full-disclosure", "metric-full-disclosure", "thresholdout"})
"""The mechanisms whose board shows a team's best release; every other one
releases the current best, and its board shows the latest release."""
PREDICTION_MECHANISMS = frozenset(
    {"metric-full-disclosure", "bayes-boot-ladder", "bayes-boot-ladder-boot"}
)
"""The mechanisms scored by a metric of the predictions (the rest by a loss,
lower is better)."""
HIGHER_IS_BETTER = frozenset({"accuracy", "r2", "pearson", "spearman", "ccc", "auc"})
"""The metrics that grow better; the others (mse, rmse, mae, log_loss, brier) fall."""


def _rank_key(score: float, higher_is_better: bool) -> tuple[int, float]:
    """Best score first, NaN last."""
    if score is None or math.isnan(score):
        return (1, 0.0)
    return (0, -score if higher_is_better else score)


def _standing(rows: list[tuple], *, higher_is_better: bool, current_best: bool) -> tuple:
    """A team's ``(score, submission id, time reached)`` from its rows
    ``(id, created_at, score)``, oldest first: the latest release when each
    release is the current best, else the best release (the earliest among
    equals); the submission is the first to have reached that score."""
    if current_best:
        latest = rows[-1][2]
        for ident, created_at, score in rows:
            if score == latest or (
                score is not None
                and latest is not None
                and math.isnan(score)
                and math.isnan(latest)
            ):
                return latest, ident, created_at
    ident, created_at, score = min(
        rows, key=lambda r: (_rank_key(r[2], higher_is_better), r[1], r[0])
    )
    return score, ident, created_at


def upgrade() -> None:
    op.add_column(
        "competitions",
        sa.Column("board_version", sa.Integer, nullable=False, server_default="0"),
    )
    standings = op.create_table(
        "team_standings",
        sa.Column("team_id", ID, sa.ForeignKey("teams.id", ondelete="CASCADE"), primary_key=True),
        sa.Column(
            "competition_id",
            ID,
            sa.ForeignKey("competitions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("entries", sa.Integer, nullable=False),
        sa.Column("last_submission_at", UTC, nullable=False),
        sa.Column("submission_id", ID, nullable=False),
        sa.Column("submission_number", sa.Integer, nullable=False),
        sa.Column("submission_at", UTC, nullable=False),
    )
    op.create_index("ix_team_standings_competition", "team_standings", ["competition_id"])
    _fill(op.get_bind(), standings)


def _fill(bind, standings: sa.Table) -> None:
    """Each team's standing from the submissions stored, competition by competition."""
    competitions = sa.table("competitions", sa.column("id", ID), sa.column("config", sa.JSON))
    submissions = sa.table(
        "submissions",
        sa.column("id", ID),
        sa.column("competition_id", ID),
        sa.column("team_id", ID),
        sa.column("created_at", UTC),
        sa.column("public_score", sa.Float),
        sa.column("number", sa.Integer),
    )
    for competition_id, data in bind.execute(sa.select(competitions.c.id, competitions.c.config)):
        mechanism, score_name = data["mechanism"], data["score"]
        higher = mechanism in PREDICTION_MECHANISMS and score_name in HIGHER_IS_BETTER
        current_best = mechanism not in BEST_RELEASE_SHOWN
        teams: dict[int, list[tuple]] = defaultdict(list)
        numbers: dict[int, int] = {}
        for ident, team, created_at, score, number in bind.execute(
            sa.select(
                submissions.c.id,
                submissions.c.team_id,
                submissions.c.created_at,
                submissions.c.public_score,
                submissions.c.number,
            )
            .where(submissions.c.competition_id == competition_id)
            .order_by(submissions.c.created_at, submissions.c.id)
        ):
            teams[team].append((ident, created_at, score))
            numbers[ident] = number
        rows = []
        for team, records in teams.items():
            score, reached_id, reached_at = _standing(
                records, higher_is_better=higher, current_best=current_best
            )
            rows.append(
                {
                    "team_id": team,
                    "competition_id": competition_id,
                    "score": score,
                    "entries": len(records),
                    "last_submission_at": records[-1][1],
                    "submission_id": reached_id,
                    "submission_number": numbers[reached_id],
                    "submission_at": reached_at,
                }
            )
        if rows:
            bind.execute(standings.insert(), rows)


def downgrade() -> None:
    op.drop_index("ix_team_standings_competition", table_name="team_standings")
    op.drop_table("team_standings")
    with op.batch_alter_table("competitions") as batch:
        batch.drop_column("board_version")
