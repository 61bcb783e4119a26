"""Data files as the store keeps them: their names checked, and their rows
written with a competition (at its creation, or added later)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.orm import Session

from ladderboard.engine.errors import Conflict
from ladderboard.engine.results import (
    FileInfo,
)
from ladderboard.rules.text import (
    check_file_name,
)
from ladderboard.store import (
    CompetitionFileRow,
    CompetitionRow,
    queries,
)
from ladderboard.store.blobs import pack

__all__ = ["checked_files", "file_name_ok", "store_files"]


def file_name_ok(name: str) -> bool:
    """Whether ``name`` may name a data file."""
    try:
        check_file_name(name)
    except ValueError:
        return False
    return True


def checked_files(
    files: Sequence[tuple[str, bytes]], now: datetime
) -> list[tuple[FileInfo, bytes]]:
    """Data files with their names checked (and no name twice), as stored."""
    checked, names = [], set()
    for name, data in files:
        check_file_name(name)
        if name in names:
            raise ValueError(f"two data files are named {name!r}")
        names.add(name)
        if not isinstance(data, bytes | bytearray | memoryview):
            raise TypeError(f"a data file is bytes, got {type(data).__name__}")
        data = bytes(data)
        checked.append((FileInfo(name, len(data), hashlib.sha256(data).hexdigest(), now), data))
    return checked


def store_files(
    session: Session,
    competition: CompetitionRow,
    files: list[tuple[FileInfo, bytes]],
    replace: bool,
) -> None:
    """Store checked ``files`` with ``competition`` (replacing those of the same
    names with ``replace``; else :class:`Conflict` for a name taken)."""
    for info, data in files:
        row = queries.competition_file(session, competition.id, info.name)
        if row is not None and not replace:
            raise Conflict(f"competition {competition.slug!r} already has a file {info.name!r}")
        if row is None:
            row = CompetitionFileRow(competition_id=competition.id, name=info.name)
            session.add(row)
        row.size, row.sha256, row.created_at = info.size, info.sha256, info.created_at
        row.data = pack(data)
