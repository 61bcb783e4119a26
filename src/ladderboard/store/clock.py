"""The store's clock: the time that decides a competition's deadline,
taken by the database inside the statements that check it, so that hosts
whose clocks disagree agree on whether a competition is open.

:data:`STORE_NOW` is the database's time (``statement_timestamp()`` on
PostgreSQL; the SQLite library's, which reads the clock of the one host
whose processes share a SQLite file), unless the bound parameter
``store_now`` carries a time: a test's clock, moved by hand, in its place.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement

from ladderboard.store.models import UTC_DATETIME

__all__ = ["STORE_NOW", "store_time"]


class _DatabaseTime(FunctionElement[datetime]):
    """The database's clock, in UTC, as a timestamp its columns compare with."""

    type = UTC_DATETIME
    inherit_cache = True
    name = "database_time"


@compiles(_DatabaseTime)
def _database_time(_element: Any, _compiler: Any, **_kw: Any) -> str:
    # The time at the start of the statement: the same in all of it, and not
    # the transaction's start (a transaction that waited for a lock checks
    # the time it reached it at).
    return "statement_timestamp()"


@compiles(_DatabaseTime, "sqlite")
def _sqlite_time(_element: Any, _compiler: Any, **_kw: Any) -> str:
    # UTC, written as SQLAlchemy writes a stored datetime (six digits of
    # microseconds), so that the stored deadline compares with it as text.
    return "strftime('%Y-%m-%d %H:%M:%f000', 'now')"


# The store's time: the bound ``store_now`` when given, else the database's.
STORE_NOW = func.coalesce(bindparam("store_now", type_=UTC_DATETIME), _DatabaseTime())
_STORE_TIME = select(STORE_NOW)


def store_time(connection: Any, store_now: datetime | None) -> datetime:
    """The store's time in UTC (``store_now`` when given: a test's clock)."""
    found = connection.execute(_STORE_TIME, {"store_now": store_now}).scalar_one()
    return found if found.tzinfo is not None else found.replace(tzinfo=UTC)
