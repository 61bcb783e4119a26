"""The store's identity: a value a process compares to notice that the
store was put back from a backup under it.

A process's caches trust the store's counters to grow (a board's version, a
mechanism's count of submissions, an array remembered as stored:
:mod:`ladderboard.engine.caches`). A store restored from a backup takes them
back, so a process that kept what it read before the restore could hand out
a board or a mechanism of the store as it was, or skip writing an array the
restored store no longer holds. ``ladderboard init --restored`` gives a store
a new identity; run on the backup before it is put back (or on the store
just after), it makes every process that finds the identity changed drop
everything it kept. A process reads the identity where every request starts
(at most once a second) and under the lock of every board it writes.
"""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import select, update

from ladderboard.store.models import StoreIdentityRow

__all__ = ["read_identity", "renew_identity"]


def read_identity(connection: Any) -> str:
    """The store's identity as this process compares it."""
    value = connection.execute(
        select(StoreIdentityRow.value).where(StoreIdentityRow.id == 1)
    ).scalar_one_or_none()
    return value or ""


def renew_identity(connection: Any) -> str:
    """Give the store a new identity value; return it."""
    value = secrets.token_hex(16)
    connection.execute(update(StoreIdentityRow).where(StoreIdentityRow.id == 1).values(value=value))
    return value
