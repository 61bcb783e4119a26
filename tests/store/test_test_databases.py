"""The PostgreSQL databases the store tests are given (database_copies.py): a
copy a test has used is given to the next test only when emptied back to the
migrated template's state, and one whose schema the test changed is dropped."""

import contextlib

import pytest
from sqlalchemy import create_engine, text

from database_copies import MigratedStores, require_postgres
from engine_helpers import create
from ladderboard.engine import Competitions
from system import PG_ADMIN_URL


def _query(url: str, sql: str):
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            result = connection.execute(text(sql))
            return result.all() if result.returns_rows else None
    finally:
        engine.dispose()


@pytest.mark.slow
def test_a_used_copy_is_emptied_for_the_next_test_and_a_changed_one_is_not_given(tmp_path):
    require_postgres()
    with contextlib.ExitStack() as stack:
        stores = MigratedStores(tmp_path, stack)
        with stores.postgresql_copy() as first:
            store = Competitions.open(first)
            create(store)
            store.add_team("comp", "alpha")
            # A connection the test leaves open, inside a transaction holding a lock.
            left_open = create_engine(first).connect()
            left_open.execute(text("lock table teams in access exclusive mode"))
            identity = _query(first, "select * from store_identity")

        with stores.postgresql_copy() as again:
            assert again == first
            assert _query(again, "select count(*) from competitions") == [(0,)]
            assert _query(again, "select count(*) from teams") == [(0,)]
            assert _query(again, "select * from store_identity") == identity
            store = Competitions.open(again)
            create(store, slug="other")
            assert _query(again, "select id, slug from competitions") == [(1, "other")]
            store.dispose()
            _query(again, "alter table teams add column leftover integer")

        with stores.postgresql_copy() as third:
            assert third != first
            assert _databases(first) == []  # the changed copy is dropped as its test ends
            assert _query(third, "select count(*) from competitions") == [(0,)]
            names = {
                column
                for (column,) in _query(
                    third,
                    "select column_name from information_schema.columns where table_name = 'teams'",
                )
            }
            assert "leftover" not in names
        left_open.invalidate()
        assert _databases(third) == [(_name(third),)]  # kept for the next test
    assert _databases(third) == []  # the end of the process drops the rest


def _name(url: str) -> str:
    return url.rsplit("/", 1)[1]


def _databases(url: str):
    return _query(PG_ADMIN_URL, f"select datname from pg_database where datname = '{_name(url)}'")
