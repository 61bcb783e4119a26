"""The history of a competition's settings (``setting_changes``), and what an
edit of them must read first: the teams that selected more final
submissions than a new limit allows."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func, select
from sqlalchemy.orm import Session

from ladderboard.store.models import SettingChangeRow, SubmissionRow, TeamRow

__all__ = ["add_setting_changes", "setting_changes", "teams_selecting_more_than"]


def add_setting_changes(
    session: Session,
    competition_id: int,
    changed_at: datetime,
    changes: Sequence[tuple[str, Any, Any]],
    actor: str | None,
) -> None:
    """Record each ``(setting, old, new)`` of one edit, in the given order."""
    session.add_all(
        SettingChangeRow(
            competition_id=competition_id,
            changed_at=changed_at,
            setting=setting,
            old=old,
            new=new,
            actor=actor,
        )
        for setting, old, new in changes
    )


def setting_changes(connection: Connection, competition_id: int) -> list[Any]:
    """Rows of ``(changed_at, setting, old, new, actor)``, oldest first."""
    query = (
        select(
            SettingChangeRow.changed_at,
            SettingChangeRow.setting,
            SettingChangeRow.old,
            SettingChangeRow.new,
            SettingChangeRow.actor,
        )
        .where(SettingChangeRow.competition_id == competition_id)
        .order_by(SettingChangeRow.id)
    )
    return list(connection.execute(query).all())


def teams_selecting_more_than(session: Session, competition_id: int, n: int) -> list[str]:
    """The names of the teams with more than ``n`` selected submissions, by name."""
    query = (
        select(TeamRow.name)
        .join(SubmissionRow, SubmissionRow.team_id == TeamRow.id)
        .where(TeamRow.competition_id == competition_id, SubmissionRow.selected.is_(True))
        .group_by(TeamRow.id, TeamRow.name)
        .having(func.count() > n)
        .order_by(TeamRow.name)
    )
    return list(session.scalars(query))
