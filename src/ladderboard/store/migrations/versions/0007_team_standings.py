"""Boards that read one row a team:

- ``team_standings``: each team's place on the public board (its score, the
  submission that gives it, its count of submissions and the latest one's
  time), kept by every submission in its own transaction;
- ``competitions.board_version``: counts the changes to a competition's
  boards, so that a process may keep a board it built while the count stays.

The standings of a store written before are built here from its
submissions, by the rule the live board uses
(:func:`ladderboard.rules.boards.team_standing`).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

from collections import defaultdict

import sqlalchemy as sa
from alembic import op

from ladderboard.mechanisms import MECHANISMS
from ladderboard.rules.boards import Record, team_standing
from ladderboard.rules.config import CompetitionConfig

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")
UTC = sa.DateTime(timezone=True)


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
        config = CompetitionConfig.from_json(data)
        direction = config.scoring().direction
        current_best = MECHANISMS[config.mechanism].release_is_current_best
        teams: dict[int, list[Record]] = defaultdict(list)
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
            teams[team].append(Record(ident, str(team), created_at, score, score))
            numbers[ident] = number
        rows = []
        for team, records in teams.items():
            standing, reached_at = team_standing(
                records, direction=direction, release_is_current_best=current_best
            )
            rows.append(
                {
                    "team_id": team,
                    "competition_id": competition_id,
                    "score": standing.score,
                    "entries": standing.entries,
                    "last_submission_at": standing.last_submission,
                    "submission_id": standing.submission_id,
                    "submission_number": numbers[standing.submission_id],
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
