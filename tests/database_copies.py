"""The stores the tests are given: per test process, a store migrated once,
copied for each test. On SQLite the copy is a copy of the file; on PostgreSQL
a copy of a database, emptied after its test for the next one when its schema
is unchanged (creating a database from the template, and dropping it, costs
many times what emptying one does), dropped when it cannot be emptied, and
dropped at the end of the process."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from system import PG_ADMIN_URL, postgres_reachable, require


def require_postgres() -> None:
    require(
        postgres_reachable(),
        f"PostgreSQL is not reachable at {PG_ADMIN_URL} (apt-get install postgresql, with "
        "user postgres trusted on 127.0.0.1 and a database test; or set "
        "LADDERBOARD_TEST_PG_URL): see the README's Set-up",
    )


# What a test could change in a PostgreSQL store beyond its rows: the
# schemas; the relations with their persistence, owner, privileges and row
# security; the columns in their order; constraints, indexes, types and enum
# labels, sequences' parameters, functions' and views' bodies, triggers and
# whether they fire; large objects; the database's settings and limits; the
# schema revision and the store's identity. A database whose fingerprint is
# the template's holds nothing of its test once its rows are deleted and its
# sequences set back (planner statistics aside, which change plans only).
_FINGERPRINT = """
select md5(string_agg(item, E'\\n' order by item)) from (
  select 'n ' || nspname as item from pg_namespace
    where nspname not like 'pg\\_temp\\_%' and nspname not like 'pg\\_toast\\_temp\\_%'
  union all
  select concat_ws(' ', 'c', c.relkind, n.nspname || '.' || c.relname, c.relpersistence,
                   c.relowner, c.relacl, c.relrowsecurity)
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')
      and n.nspname not like 'pg\\_temp\\_%' and n.nspname not like 'pg\\_toast\\_temp\\_%'
  union all
  select concat_ws(' ', 'a', c.oid::regclass, a.attnum, a.attname,
                   format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attcollation,
                   pg_get_expr(d.adbin, d.adrelid))
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    join pg_namespace n on n.oid = c.relnamespace
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where n.nspname = 'public' and a.attnum > 0 and not a.attisdropped
  union all
  select concat_ws(' ', 'k', conrelid::regclass, conname, pg_get_constraintdef(oid))
    from pg_constraint where connamespace = 'public'::regnamespace
  union all
  select 'i ' || indexdef from pg_indexes where schemaname = 'public'
  union all
  select concat_ws(' ', 'y', typname, typtype) from pg_type
    where typnamespace = 'public'::regnamespace
  union all
  select concat_ws(' ', 'e', enumtypid::regtype, enumsortorder, enumlabel) from pg_enum
  union all
  select concat_ws(' ', 'q', schemaname, sequencename, data_type, start_value, increment_by,
                   min_value, max_value, cycle)
    from pg_sequences
  union all
  select concat_ws(' ', 'p', oid::regprocedure, md5(prosrc)) from pg_proc
    where pronamespace = 'public'::regnamespace
  union all
  select concat_ws(' ', 'w', schemaname, viewname, md5(definition)) from pg_views
    where schemaname = 'public'
  union all
  select concat_ws(' ', 't', tgrelid::regclass, tgname, tgenabled) from pg_trigger
    where tgrelid in (select oid from pg_class where relnamespace = 'public'::regnamespace)
      and not tgisinternal
  union all
  select 'l ' || count(*) from pg_largeobject_metadata
  union all
  select concat_ws(' ', 'd', datdba, datconnlimit, datallowconn) from pg_database
    where datname = current_database()
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
                tables = (
                    connection.execute(
                        text("select tablename from pg_tables where schemaname = 'public'")
                    )
                    .scalars()
                    .all()
                )
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
            [
                "BEGIN",
                # A connection that came back after the terminations holds no
                # lock long: the copy is dropped rather than the run hanging.
                "SET LOCAL lock_timeout = '10s'",
                "SET LOCAL session_replication_role = replica",
                *deletes,
                *setvals,
                "COMMIT",
            ]
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
        self._template: _PostgresTemplate | None = None
        self._emptied: list[str] = []  # URLs of copies a test may take
        self._copies: dict[str, contextlib.ExitStack] = {}  # each copy's drop
        self._warned = False
        self._admin: Any = None

    def postgresql(self) -> str:
        """The name of the migrated PostgreSQL database, a template."""
        from sqlalchemy.engine import make_url

        from ladderboard.store import make_engine, migrate
        from ladderboard.store.database import scratch_postgres_database

        if self._template is None:
            url = self._stack.enter_context(
                scratch_postgres_database(PG_ADMIN_URL, prefix="lb_template")
            )
            engine = make_engine(url)
            migrate(engine)
            engine.dispose()  # a template takes no connection
            name = make_url(url).database
            assert name is not None
            self._template = _PostgresTemplate(name, url)
        return self._template.name

    @contextlib.contextmanager
    def postgresql_copy(self) -> Iterator[str]:
        """The URL of an empty store at the newest schema on PostgreSQL: a
        copy of the template that no other test holds, emptied afterwards for
        the next one, or dropped when it cannot be brought back to the
        template's state (its schema, revision or identity changed)."""
        template = self.postgresql()
        url = self._emptied.pop() if self._emptied else self._new_copy(template)
        yield url
        if self._empty(url):
            self._emptied.append(url)
        else:
            self._copies.pop(url).close()

    def _new_copy(self, template: str) -> str:
        from ladderboard.store.database import scratch_postgres_database

        drop = contextlib.ExitStack()
        url = drop.enter_context(
            scratch_postgres_database(PG_ADMIN_URL, prefix="lb_test", template=template)
        )
        self._copies[url] = drop
        self._stack.callback(drop.close)  # at the end of the process, if not before
        return url

    def _empty(self, url: str) -> bool:
        """Bring the copy at ``url`` back to the template's state; whether it was."""
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url

        from ladderboard.store.database import database_url

        assert self._template is not None
        terminate = "select coalesce(bool_and(pg_terminate_backend(pid, 10000)), true) "
        others = "from pg_stat_activity where datname = :name and pid <> pg_backend_pid()"
        name = {"name": make_url(url).database}
        if self._admin is None:  # one for the process: ending connections is done each test
            self._admin = create_engine(database_url(PG_ADMIN_URL), isolation_level="AUTOCOMMIT")
            self._stack.callback(self._admin.dispose)
        copy = create_engine(url, isolation_level="AUTOCOMMIT")
        try:
            with self._admin.connect() as connection:
                # What the test left connected (a pool, a server it started)
                # goes, its transactions and locks with it, as a drop would.
                ended = connection.execute(text(terminate + others), name).scalar_one()
            if not ended:
                return False
            with copy.connect() as connection:
                if (
                    connection.execute(text(_FINGERPRINT)).scalar_one()
                    != self._template.fingerprint
                ):
                    return False
                connection.exec_driver_sql(self._template.reset)
                # Nothing of the test may come back into the next one.
                if connection.execute(text("select count(*) " + others), name).scalar_one():
                    return False
            return True
        except Exception as error:
            if not self._warned:
                self._warned = True
                warnings.warn(
                    "a PostgreSQL test database could not be emptied for the next test and "
                    f"is dropped (later ones are not reported): {error}",
                    stacklevel=1,
                )
            return False
        finally:
            copy.dispose()
