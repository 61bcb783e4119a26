"""Corrections of a competition's solution (``solution_corrections``) with
the releases they replaced (``correction_releases``), and the writes a
correction makes to the live record: the solution file, every submission's
scores, each board's mechanism state."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, func, select, update
from sqlalchemy.orm import Session

from ladderboard.random import DRAW_VERSIONS
from ladderboard.store.models import (
    CompetitionRow,
    CompetitionSolutionRow,
    CorrectionReleaseRow,
    MechanismStateRow,
    SolutionCorrectionRow,
    SubmissionRow,
    table_of,
)

__all__ = [
    "add_correction",
    "changed_by_correction",
    "correction_file",
    "correction_releases",
    "corrections",
    "lock_boards",
    "replace_solution",
    "write_releases",
    "write_state",
]

_SUBMISSIONS = table_of(SubmissionRow)
_WRITE_RELEASE = (
    update(_SUBMISSIONS)
    .where(_SUBMISSIONS.c.id == bindparam("submission"))
    .values(
        public_score=bindparam("released"),
        improved=bindparam("decided"),
        public_raw=bindparam("raw"),
        private_score=bindparam("private"),
        draw_versions=bindparam("versions"),
    )
)


def lock_boards(connection: Connection, slug: str) -> int | None:
    """Lock every board's state row of the competition ``slug``, in the
    order of their ids (``FOR UPDATE`` on PostgreSQL; on SQLite the
    transaction's writer lock), and return the competition's id (``None``
    when there is none). A submission locks its board's row first and the
    competition's row last: a correction that takes them in the same order
    waits for a submission under way, and the next one waits for it and
    then finds the new commitment."""
    competition_id = connection.execute(
        select(CompetitionRow.id).where(CompetitionRow.slug == slug)
    ).scalar()
    if competition_id is not None:
        connection.execute(
            select(MechanismStateRow.id)
            .where(MechanismStateRow.competition_id == competition_id)
            .order_by(MechanismStateRow.id)
            .with_for_update()
        ).all()
    return competition_id


def add_correction(
    session: Session,
    row: SolutionCorrectionRow,
    releases: Sequence[tuple[int, float, bool, float, float]],
) -> None:
    """Insert ``row`` numbered after the competition's earlier corrections,
    with each submission's ``(id, released, improved, public_raw, private)``
    as it stood before it."""
    earlier = session.scalar(
        select(func.count()).where(SolutionCorrectionRow.competition_id == row.competition_id)
    )
    row.number = int(earlier or 0) + 1
    session.add(row)
    session.flush()
    session.add_all(
        CorrectionReleaseRow(
            correction_id=row.id,
            submission_id=ident,
            public_score=released,
            improved=improved,
            public_raw=raw,
            private_score=private,
        )
        for ident, released, improved, raw, private in releases
    )


def corrections(connection: Connection, competition_id: int) -> list[Any]:
    """The competition's corrections, oldest first: rows named as
    :class:`SolutionCorrectionRow`'s columns, all but the old file."""
    columns = [c for c in table_of(SolutionCorrectionRow).c if c.name != "old_file"]
    query = (
        select(*columns)
        .where(SolutionCorrectionRow.competition_id == competition_id)
        .order_by(SolutionCorrectionRow.number)
    )
    return list(connection.execute(query).all())


def correction_file(connection: Connection, correction_id: int) -> bytes:
    """The packed solution file a correction replaced."""
    query = select(SolutionCorrectionRow.old_file).where(SolutionCorrectionRow.id == correction_id)
    return connection.execute(query).scalar_one()


def correction_releases(connection: Connection, correction_id: int) -> dict[int, Any]:
    """The releases a correction replaced, by submission id: rows of
    ``(public_score, improved, public_raw, private_score)``."""
    query = select(
        CorrectionReleaseRow.submission_id,
        CorrectionReleaseRow.public_score,
        CorrectionReleaseRow.improved,
        CorrectionReleaseRow.public_raw,
        CorrectionReleaseRow.private_score,
    ).where(CorrectionReleaseRow.correction_id == correction_id)
    return {row.submission_id: row for row in connection.execute(query).all()}


def changed_by_correction(connection: Connection, team_id: int) -> set[int]:
    """The team's submissions whose released score a correction changed."""
    query = (
        select(SubmissionRow.id)
        .join(CorrectionReleaseRow, CorrectionReleaseRow.submission_id == SubmissionRow.id)
        .where(
            SubmissionRow.team_id == team_id,
            CorrectionReleaseRow.public_score.is_distinct_from(SubmissionRow.public_score),
        )
    )
    return set(connection.execute(query).scalars())


def write_releases(
    connection: Connection, releases: Sequence[tuple[int, float, bool, float, float]]
) -> None:
    """Write each submission's ``(id, released, improved, public_raw, private)``,
    drawn with this process's :data:`~ladderboard.random.DRAW_VERSIONS`."""
    if releases:
        connection.execute(
            _WRITE_RELEASE,
            [
                {
                    "submission": i,
                    "released": s,
                    "decided": d,
                    "raw": r,
                    "private": p,
                    "versions": DRAW_VERSIONS,
                }
                for i, s, d, r, p in releases
            ],
        )


def write_state(
    connection: Connection, competition_id: int, scope: str, state: Any, now: datetime
) -> None:
    """Write a board's mechanism state (its count of submissions unchanged)."""
    connection.execute(
        update(MechanismStateRow)
        .where(
            MechanismStateRow.competition_id == competition_id,
            MechanismStateRow.scope == scope,
        )
        .values(state=state, updated_at=now)
    )


def replace_solution(connection: Connection, competition_id: int, packed: bytes) -> None:
    """Write the competition's (packed) solution file."""
    connection.execute(
        update(CompetitionSolutionRow)
        .where(CompetitionSolutionRow.competition_id == competition_id)
        .values(file=packed)
    )
