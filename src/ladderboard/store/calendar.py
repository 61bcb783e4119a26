"""The calendar's reads and writes: the public board kept at the freeze, and
the late submissions (their own table, which no board, final selection or
audit of the competition reads).

Each function takes an open connection or session and leaves the
transaction to its caller.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from ladderboard.store.models import BoardFreezeRow, LateSubmissionRow, TeamRow, table_of

__all__ = [
    "add_late_submission",
    "board_freeze",
    "late_board_rows",
    "late_counts",
    "late_records",
    "late_with_key",
    "store_board_freeze",
    "team_late_submissions",
]

_FREEZES = table_of(BoardFreezeRow)


def board_freeze(connection: Any, competition_id: int) -> Any:
    """The competition's frozen board, ``(frozen_at, rows)``, or ``None``
    while no submission has come after the freeze."""
    return connection.execute(
        select(_FREEZES.c.frozen_at, _FREEZES.c.rows).where(
            _FREEZES.c.competition_id == competition_id
        )
    ).first()


def store_board_freeze(
    connection: Any, competition_id: int, frozen_at: datetime, rows: list[dict[str, Any]]
) -> None:
    """Keep ``rows`` as the board frozen at ``frozen_at``, unless a board is
    kept already (another board's submission wrote it first: the first one
    written is the board as it stood)."""
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(_FREEZES).values(
        competition_id=competition_id, frozen_at=frozen_at, rows=rows
    )
    connection.execute(statement.on_conflict_do_nothing(index_elements=["competition_id"]))


def late_counts(connection: Any, team_id: int, day: tuple[datetime, datetime]) -> tuple[int, int]:
    """The team's late submissions inside ``day`` (``(start, end)``) and in all."""
    late = table_of(LateSubmissionRow)
    start, end = day
    today, total = connection.execute(
        select(
            func.count().filter(late.c.created_at >= start, late.c.created_at < end),
            func.count(),
        ).where(late.c.team_id == team_id)
    ).one()
    return int(today or 0), int(total or 0)


def late_with_key(connection: Any, team_id: int, idempotency_key: str) -> Any:
    """The team's late submission sent with ``idempotency_key``, if any."""
    late = table_of(LateSubmissionRow)
    return connection.execute(
        select(
            late.c.number,
            late.c.created_at,
            late.c.file_sha256,
            late.c.public_score,
            late.c.private_score,
        ).where(late.c.team_id == team_id, late.c.idempotency_key == idempotency_key)
    ).first()


def add_late_submission(session: Session, row: LateSubmissionRow) -> None:
    session.add(row)
    session.flush()


def team_late_submissions(session: Session, team_id: int) -> list[LateSubmissionRow]:
    """A team's late submissions, by the team's own number."""
    return list(
        session.scalars(
            select(LateSubmissionRow)
            .where(LateSubmissionRow.team_id == team_id)
            .order_by(LateSubmissionRow.number)
        ).all()
    )


def late_board_rows(session: Session, competition_id: int) -> list[Any]:
    """Every late submission of the competition's enabled teams: ``(team
    name, number, created_at, public_score, private_score)`` rows, in the
    order they were stored."""
    late = LateSubmissionRow
    return list(
        session.execute(
            select(
                TeamRow.name, late.number, late.created_at, late.public_score, late.private_score
            )
            .join(TeamRow, TeamRow.id == late.team_id)
            .where(late.competition_id == competition_id, TeamRow.disabled_at.is_(None))
            .order_by(late.id)
        ).all()
    )


def late_records(session: Session, competition_id: int) -> Iterator[Any]:
    """Every late submission of the competition, disabled teams' too, in the
    order stored, with its team's name and ``team_disabled_at`` and its packed
    file. Rows are fetched a few at a time, so that the files are never all
    in memory at once; the session must stay open while they are read."""
    late = LateSubmissionRow
    query = (
        select(
            TeamRow.name.label("team"),
            TeamRow.disabled_at.label("team_disabled_at"),
            late.number,
            late.created_at,
            late.message,
            late.public_score,
            late.private_score,
            late.file_sha256,
            late.file,
        )
        .join(TeamRow, TeamRow.id == late.team_id)
        .where(late.competition_id == competition_id)
        .order_by(late.id)
        .execution_options(yield_per=32)
    )
    yield from session.execute(query)
