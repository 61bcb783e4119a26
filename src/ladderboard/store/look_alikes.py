"""The statements of look-alike flags an organiser dismissed, by key."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, delete, select

from ladderboard.store.models import LookAlikeDismissalRow, table_of

__all__ = ["dismiss", "dismissed_keys", "restore"]


def dismissed_keys(connection: Connection, competition_id: int) -> set[str]:
    return set(
        connection.execute(
            select(LookAlikeDismissalRow.flag_key).where(
                LookAlikeDismissalRow.competition_id == competition_id
            )
        ).scalars()
    )


def dismiss(
    connection: Connection, competition_id: int, flag_key: str, at: datetime, by: str
) -> None:
    """Record the dismissal (a second one of the same flag keeps the first)."""
    if flag_key in dismissed_keys(connection, competition_id):
        return
    connection.execute(
        table_of(LookAlikeDismissalRow)
        .insert()
        .values(competition_id=competition_id, flag_key=flag_key, dismissed_at=at, dismissed_by=by)
    )


def restore(connection: Connection, competition_id: int, flag_key: str) -> int:
    """Forget the dismissal; the number of rows deleted (0 or 1)."""
    result = connection.execute(
        delete(LookAlikeDismissalRow).where(
            LookAlikeDismissalRow.competition_id == competition_id,
            LookAlikeDismissalRow.flag_key == flag_key,
        )
    )
    return result.rowcount or 0
