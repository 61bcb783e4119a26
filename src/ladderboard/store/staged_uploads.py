"""The files of a refused creation form, kept in the store for the
organiser's next try: a browser cannot put a chosen file back into a file
field, so without them every refusal would mean choosing every file again.

A draft is a random id the form carries in a hidden field; its files are
stored under the SHA-256 of that id and of the organiser's session cookie,
so that only the browser that sent them can use them, on any worker or
host. They expire after :data:`DRAFT_LIFETIME` (and are deleted as other
drafts are kept) and are deleted when the competition is created.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine, delete, select

from ladderboard.store.blobs import pack, unpack
from ladderboard.store.database import writer_turn
from ladderboard.store.models import StagedUploadRow, table_of

__all__ = ["DRAFT_LIFETIME", "Draft", "StagedUploads"]

DRAFT_LIFETIME = timedelta(hours=2)
"""How long a refused form's files are kept for its next try."""

_ROWS = table_of(StagedUploadRow)


@dataclass(frozen=True)
class Draft:
    """A refused form's kept files: its solution and its data files, each
    ``(name, bytes)``."""

    solution: tuple[str, bytes] | None = None
    files: tuple[tuple[str, bytes], ...] = ()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class StagedUploads:
    """The drafts of the organiser's creation forms, over the store."""

    def __init__(self, engine: Engine, reader: Engine, clock: Callable[[], datetime]) -> None:
        self._engine = engine
        self._reader = reader
        self._clock = clock

    def keep(
        self,
        session: str,
        draft: str,
        solution: tuple[str, bytes] | None,
        files: Sequence[tuple[str, bytes]],
    ) -> str:
        """Keep ``solution`` and ``files`` as the draft ``draft`` of the
        session whose cookie is ``session`` (a new draft when ``draft`` is
        empty), in place of what it held; the draft's id. Expired drafts
        are deleted meanwhile."""
        draft = draft or secrets.token_urlsafe(24)
        now = self._clock()
        rows = [("solution", *solution)] if solution is not None else []
        rows += [("data", name, data) for name, data in files]
        keys = {"draft_sha256": _digest(draft), "session_sha256": _digest(session)}
        with writer_turn(self._engine), self._engine.begin() as connection:
            connection.execute(delete(_ROWS).where(_ROWS.c.expires_at <= now))
            connection.execute(
                delete(_ROWS).where(
                    _ROWS.c.draft_sha256 == keys["draft_sha256"],
                    _ROWS.c.session_sha256 == keys["session_sha256"],
                )
            )
            if rows:
                connection.execute(
                    _ROWS.insert(),
                    [
                        keys
                        | {
                            "role": role,
                            "name": name,
                            "size": len(data),
                            "data": pack(data),
                            "created_at": now,
                            "expires_at": now + DRAFT_LIFETIME,
                        }
                        for role, name, data in rows
                    ],
                )
        return draft

    def kept(self, session: str, draft: str) -> Draft:
        """The files the draft ``draft`` of this session holds, unexpired;
        none for another session's draft, an unknown or an expired one."""
        if not session or not draft:
            return Draft()
        query = (
            select(_ROWS.c.role, _ROWS.c.name, _ROWS.c.data)
            .where(
                _ROWS.c.draft_sha256 == _digest(draft),
                _ROWS.c.session_sha256 == _digest(session),
                _ROWS.c.expires_at > self._clock(),
            )
            .order_by(_ROWS.c.id)
        )
        with self._reader.connect() as connection:
            rows = connection.execute(query).all()
        solution = next(((r.name, unpack(r.data)) for r in rows if r.role == "solution"), None)
        files = tuple((r.name, unpack(r.data)) for r in rows if r.role == "data")
        return Draft(solution, files)

    def forget(self, session: str, draft: str) -> None:
        """Delete the draft's files (once the competition is created)."""
        if not draft:
            return
        with writer_turn(self._engine), self._engine.begin() as connection:
            connection.execute(
                delete(_ROWS).where(
                    _ROWS.c.draft_sha256 == _digest(draft),
                    _ROWS.c.session_sha256 == _digest(session),
                )
            )
