"""The stores the tests are given: per test process, a store migrated once,
copied for each test. On SQLite the copy is a copy of the file; on PostgreSQL
a copy of a database, emptied after its test for the next one when its schema
is unchanged (creating a database from the template, and dropping it, costs
many times what emptying one does), and dropped at the end of the process."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from system import PG_ADMIN_URL, postgres_reachable, require


def require_postgres() -> None:
    require(
        postgres_reachable(),
        f"PostgreSQL is not reachable at {PG_ADMIN_URL} (apt-get install postgresql, with "
        "user postgres trusted on 127.0.0.1 and a database test; or set "
        "LADDERBOARD_TEST_PG_URL): see the README's Set-up",
    )


# What a test could change in a PostgreSQL store beyond its rows: the
# schemas, relations, columns, constraints, indexes, functions, triggers and
# database settings, the schema revision and the store's identity. A database
# whose fingerprint is the template's holds nothing of its test once its rows
# are deleted and its sequences set back.
_FINGERPRINT = """
select md5(string_agg(item, E'\\n' order by item)) from (
  select 'n ' || nspname as item from pg_namespace
    where nspname not like 'pg\\_temp\\_%' and nspname not like 'pg\\_toast\\_temp\\_%'
  union all
  select 'c ' || c.relkind::text || ' ' || n.nspname || '.' || c.relname
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')
      and n.nspname not like 'pg\\_temp\\_%' and n.nspname not like 'pg\\_toast\\_temp\\_%'
  union all
  select 'a ' || c.oid::regclass::text || '.' || a.attname || ' '
      || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text || ' '
      || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    join pg_namespace n on n.oid = c.relnamespace
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where n.nspname = 'public' and a.attnum > 0 and not a.attisdropped
  union all
  select 'k ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
    from pg_constraint where connamespace = 'public'::regnamespace
  union all
  select 'i ' || indexdef from pg_indexes where schemaname = 'public'
  union all
  select 'p ' || oid::regprocedure::text from pg_proc where pronamespace = 'public'::regnamespace
  union all
  select 't ' || tgrelid::regclass::text || ' ' || tgname from pg_trigger
    where tgrelid in (select oid from pg_class where relnamespace = 'public'::regnamespace)
      and not tgisinternal
  union all
  select 'r ' || array_to_string(setconfig, ',') from pg_db_role_setting
    where setdatabase = (select oid from pg_database where datname = current_database())
  union all
  select 'v ' || version_num from alembic_version
  union all
  select 's ' || s::text from store_identity s
) items
"""
# The two tables whose rows are part of the template: the fingerprint holds them.
_KEPT_TABLES = ("alembic_version", "store_identity")


class _PostgresTemplate:
    """A migrated PostgreSQL database, and how to bring a copy of it back to
    its state: the fingerprint and the statement that deletes every row but
    the kept tables' and sets each sequence back."""

    def __init__(self, name: str, url: str) -> None:
        from sqlalchemy import create_engine, text

        self.name = name
        engine = create_engine(url, isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as connection:
                self.fingerprint = connection.execute(text(_FINGERPRINT)).scalar_one()
                tables = connection.execute(
                    text("select tablename from pg_tables where schemaname = 'public'")
                ).scalars()
                sequences = connection.execute(
                    text(
                        "select format('%I.%I', schemaname, sequencename), start_value,"
                        " last_value from pg_sequences where schemaname = 'public'"
                    )
                ).all()
        finally:
            engine.dispose()  # a template takes no connection
        deletes = [f'DELETE FROM "{table}"' for table in tables if table not in _KEPT_TABLES]
        setvals = [
            f"SELECT setval('{sequence}', {start if last is None else last}, {last is not None})"
            for sequence, start, last in sequences
        ]
        # Replica mode skips the foreign keys' triggers, so the order of the
        # deletes does not matter (the tests connect as a superuser).
        self.reset = "; ".join(
            ["BEGIN", "SET LOCAL session_replication_role = replica", *deletes, *setvals, "COMMIT"]
        )


class MigratedStores:
    """Per test process, a migrated store to copy for each test: a SQLite
    file, and on first use a PostgreSQL database, whose copies are emptied
    and given to the next test. Copying a migrated store costs a fraction of
    migrating one."""

    def __init__(self, folder: Path, stack: contextlib.ExitStack) -> None:
        from ladderboard.store import make_engine, migrate

        self.sqlite = folder / "ladderboard.db"
        engine = make_engine(f"sqlite:///{self.sqlite}")
        migrate(engine)
        engine.dispose()
        self._stack = stack
        self._postgresql: str | None = None
        self._template: _PostgresTemplate | None = None
        self._emptied: list[str] = []  # URLs of copies a test may take

    def postgresql(self) -> str:
        """The name of the migrated PostgreSQL database, a template."""
        from sqlalchemy.engine import make_url

        from ladderboard.store import make_engine, migrate
        from ladderboard.store.database import scratch_postgres_database

        if self._postgresql is None:
            url = self._stack.enter_context(
                scratch_postgres_database(PG_ADMIN_URL, prefix="lb_template")
            )
            engine = make_engine(url)
            migrate(engine)
            engine.dispose()  # a template takes no connection
            self._postgresql = make_url(url).database
            self._template = _PostgresTemplate(self._postgresql, url)
        return self._postgresql

    @contextlib.contextmanager
    def postgresql_copy(self) -> Iterator[str]:
        """The URL of an empty store at the newest schema on PostgreSQL: a
        copy of the template that no other test holds, emptied afterwards for
        the next one, or left for the session's end to drop when its schema,
        revision or identity is no longer the template's."""
        from ladderboard.store.database import scratch_postgres_database

        template = self.postgresql()
        if self._emptied:
            url = self._emptied.pop()
        else:
            url = self._stack.enter_context(
                scratch_postgres_database(PG_ADMIN_URL, prefix="lb_test", template=template)
            )
        yield url
        if self._empty(url):
            self._emptied.append(url)

    def _empty(self, url: str) -> bool:
        """Bring the copy at ``url`` back to the template's state; whether it was."""
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url

        from ladderboard.store.database import database_url

        assert self._template is not None
        admin = create_engine(database_url(PG_ADMIN_URL), isolation_level="AUTOCOMMIT")
        copy = create_engine(url, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as connection:
                # What the test left connected (a pool, a server it started)
                # goes, its transactions and locks with it, as a drop would.
                connection.execute(
                    text(
                        "select pg_terminate_backend(pid, 10000) from pg_stat_activity"
                        " where datname = :name and pid <> pg_backend_pid()"
                    ),
                    {"name": make_url(url).database},
                )
            with copy.connect() as connection:
                if (
                    connection.execute(text(_FINGERPRINT)).scalar_one()
                    != self._template.fingerprint
                ):
                    return False
                connection.exec_driver_sql(self._template.reset)
            return True
        except Exception:  # a copy that cannot be emptied is left for the end to drop
            return False
        finally:
            copy.dispose()
            admin.dispose()
