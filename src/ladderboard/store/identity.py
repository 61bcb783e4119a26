"""The store's identity: a value a process compares to notice that the
store was put back from a backup under it.

A process's caches trust the store's counters to grow (a board's version, a
mechanism's count of submissions, an array remembered as stored:
:mod:`ladderboard.engine.caches`). A store restored from a backup takes them
back, so a process that kept what it read before the restore could hand out
a board or a mechanism of the store as it was. The identity changes with a
restore, and a process that finds it changed drops everything it kept:

- ``ladderboard init`` gives the store a new random value, and the restore
  procedure ends with it (it also migrates a backup of an older release);
- on PostgreSQL the identity also holds the object id of its table, which a
  restore with ``pg_restore`` makes anew (into a fresh database or with
  ``--clean``), so that even a restore that skips ``init`` is noticed.
"""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import literal_column, select, update

from ladderboard.store.models import StoreIdentityRow

__all__ = ["read_identity", "renew_identity"]


def read_identity(connection: Any) -> str:
    """The store's identity as this process compares it."""
    columns: list[Any] = [StoreIdentityRow.value]
    if connection.dialect.name == "postgresql":
        columns.append(literal_column("'store_identity'::regclass::oid"))
    row = connection.execute(select(*columns).where(StoreIdentityRow.id == 1)).first()
    return "" if row is None else ":".join(str(part) for part in row)


def renew_identity(connection: Any) -> str:
    """Give the store a new identity value; return it."""
    value = secrets.token_hex(16)
    connection.execute(update(StoreIdentityRow).where(StoreIdentityRow.id == 1).values(value=value))
    return value
