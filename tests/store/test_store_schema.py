"""The Alembic migrations build exactly the schema the models describe, on
SQLite and PostgreSQL, and migrating twice is harmless."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, select, text

from ladderboard.store import Base, make_engine, migrate


def test_migrations_match_the_models(empty_database_url):
    engine = make_engine(empty_database_url)
    migrate(engine)
    migrate(engine)  # idempotent
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        differences = compare_metadata(context, Base.metadata)
    assert differences == []
    tables = set(inspect(engine).get_table_names())
    assert {"competitions", "teams", "submissions", "mechanism_states"} <= tables
    engine.dispose()


def test_files_survive_the_move_to_their_own_table_and_back(database_url):
    """Migration 0003 moves each stored file out of ``submissions`` into
    ``submission_files``; going down to 0002 and up again keeps every file, and
    ``verify`` (which re-scores each stored file) passes after both. Rows that
    refer to submissions (duplicate flags) survive SQLite's table rebuilds."""
    import numpy as np

    from ladderboard.engine import Competitions
    from ladderboard.engine.audit import verify
    from ladderboard.files.solution import Solution
    from ladderboard.rules.config import CompetitionConfig
    from ladderboard.store import SubmissionFileRow, unpack
    from ladderboard.store.database import downgrade

    rng = np.random.default_rng(0)
    solution = Solution.from_labels(rng.integers(0, 2, 40), public_fraction=0.5, random_state=0)
    store = Competitions.open(database_url)
    store.create(
        "c", solution, CompetitionConfig(score="zero_one", mechanism="ladder-boot"), random_state=1
    )
    files = {}
    for team in ("a", "b"):
        store.add_team("c", team)
        for _ in range(3):
            p = rng.integers(0, 2, 40)
            rows = "".join(f"{i},{v}\n" for i, v in zip(solution.ids, p, strict=True))
            data = ("id,target\n" + rows).encode()
            store.submit("c", team, data)
            files[len(files) + 1] = data  # the store's ids count from 1 in submission order

    def stored():
        with store.engine.connect() as connection:
            rows = connection.execute(
                select(SubmissionFileRow.submission_id, SubmissionFileRow.file)
            ).all()
        return {i: unpack(blob) for i, blob in rows}

    first = next(iter(files.values()))
    store.submit("c", "b", first)  # flagged: team a sent it first
    files[len(files) + 1] = first
    assert stored() == files
    downgrade(store.engine, "0002")
    with store.engine.connect() as connection:
        moved = dict(connection.exec_driver_sql("SELECT id, file FROM submissions").all())
        flags = connection.exec_driver_sql("SELECT count(*) FROM duplicate_flags").scalar()
    assert flags == 1
    assert {i: unpack(blob) for i, blob in moved.items()} == files
    assert "submission_files" not in inspect(store.engine).get_table_names()
    migrate(store.engine)
    assert stored() == files
    assert "file" not in {c["name"] for c in inspect(store.engine).get_columns("submissions")}
    assert verify(store, "c").submissions == 7
    with store.engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM duplicate_flags").scalar() == 1
    store.engine.dispose()


def test_sqlite_waits_for_the_disk_unless_told_otherwise(tmp_path):
    import pytest

    from ladderboard.store import make_engine

    def pragmas(url):
        engine = make_engine(url)
        with engine.connect() as connection:
            sync = connection.exec_driver_sql("PRAGMA synchronous").scalar()
            journal = connection.exec_driver_sql("PRAGMA journal_mode").scalar()
        engine.dispose()
        return sync, journal

    path = tmp_path / "store.db"
    assert pragmas(f"sqlite:///{path}") == (2, "wal")  # FULL
    assert pragmas(f"sqlite:///{path}?synchronous=normal") == (1, "wal")
    with pytest.raises(ValueError, match="synchronous must be one of full, normal"):
        make_engine(f"sqlite:///{path}?synchronous=off")


def test_a_dead_idle_connection_is_replaced_before_use(database_url, monkeypatch):
    """A pooled connection idle for longer than PING_AFTER_IDLE_SECONDS is
    pinged at checkout; one the server has dropped is replaced, so the
    request that takes it does not fail. A connection back in the pool for
    less is not pinged (the round trip a busy server saves)."""
    from sqlalchemy import text

    from ladderboard.store import database

    engine = make_engine(database_url)
    if engine.dialect.name != "postgresql":  # SQLite: no server to drop a connection
        assert not engine.pool._pre_ping
        engine.dispose()
        return
    pings = []
    ping = type(engine.dialect).do_ping

    def counted(dialect, dbapi_connection):
        pings.append(1)
        return ping(dialect, dbapi_connection)

    monkeypatch.setattr(type(engine.dialect), "do_ping", counted)
    with engine.connect() as connection:
        pid = connection.execute(text("SELECT pg_backend_pid()")).scalar()
    with engine.connect() as connection:  # at once: no ping, the same connection
        assert connection.execute(text("SELECT pg_backend_pid()")).scalar() == pid
    assert pings == []

    admin = make_engine(database_url)
    with admin.connect() as connection:
        connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    admin.dispose()
    monkeypatch.setattr(database, "PING_AFTER_IDLE_SECONDS", 0.0)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT pg_backend_pid()")).scalar() != pid
    assert pings
    engine.dispose()


def test_solutions_survive_the_move_to_their_own_table_and_back(database_url):
    """Migration 0010 moves each competition's solution file out of
    ``competitions`` (whose row every submission updates) into
    ``competition_solutions``; going down to 0009 and up again keeps every
    solution, and ``verify`` (which checks the solution against the
    commitment) passes after it."""
    import numpy as np

    from ladderboard.engine import Competitions
    from ladderboard.engine.audit import verify
    from ladderboard.files.solution import Solution
    from ladderboard.rules.config import CompetitionConfig
    from ladderboard.store import unpack
    from ladderboard.store.database import downgrade

    rng = np.random.default_rng(1)
    store = Competitions.open(database_url)
    solutions = {}
    for slug, n in (("small", 30), ("large", 3000)):
        solutions[slug] = Solution.from_labels(
            rng.integers(0, 2, n), public_fraction=0.5, random_state=0
        )
        config = CompetitionConfig(score="zero_one", mechanism="parameter-free-ladder")
        store.create(slug, solutions[slug], config)
        store.add_team(slug, "a")
        labels = rng.integers(0, 2, n)
        rows = "".join(f"{i},{v}\n" for i, v in zip(solutions[slug].ids, labels, strict=True))
        store.submit(slug, "a", ("id,target\n" + rows).encode())
        store.add_file(slug, "notes.txt", b"notes")
    assert "solution" not in {c["name"] for c in inspect(store.engine).get_columns("competitions")}

    def counts() -> dict[str, int]:  # the rows that refer to competitions
        tables = ("teams", "submissions", "team_standings", "mechanism_states", "competition_files")
        with store.engine.connect() as connection:
            return {
                t: connection.exec_driver_sql(f"SELECT count(*) FROM {t}").scalar() for t in tables
            }

    before = counts()
    downgrade(store.engine, "0009")
    with store.engine.connect() as connection:
        moved = dict(connection.exec_driver_sql("SELECT slug, solution FROM competitions").all())
    assert {slug: unpack(blob) for slug, blob in moved.items()} == {
        slug: solution.to_csv() for slug, solution in solutions.items()
    }
    assert "competition_solutions" not in inspect(store.engine).get_table_names()
    assert counts() == before
    migrate(store.engine)
    assert counts() == before
    reopened = Competitions.open(database_url)  # no solution cached
    for slug, solution in solutions.items():
        assert reopened.solution(slug).to_csv() == solution.to_csv()
        assert verify(reopened, slug).submissions == 1
    reopened.dispose()
    store.engine.dispose()


def test_team_name_keys_are_set_again_under_look_alike_letters(database_url):
    """Migration 0013 gives every team the key of :func:`name_key` (look-alike
    Greek and Cyrillic letters folded, invisible characters dropped); two
    existing teams whose names now collide both stay, and a third look-alike
    is refused. Going down restores the NFKC and case-folded keys."""
    import hashlib

    import pytest

    from ladderboard.engine import Competitions, Conflict
    from ladderboard.files.solution import Solution
    from ladderboard.rules.config import CompetitionConfig
    from ladderboard.store.database import downgrade

    def keys() -> dict[str, str]:
        with store.engine.connect() as connection:
            return dict(connection.exec_driver_sql("SELECT name, name_key FROM teams").all())

    def sha(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()

    store = Competitions.open(database_url)
    solution = Solution.from_labels([0, 1] * 10, public_fraction=0.5, random_state=0)
    store.create("c", solution, CompetitionConfig(score="zero_one", mechanism="ladder-boot"))
    store.add_team("c", "Alpha")
    store.add_team("c", "Beta")
    downgrade(store.engine, "0012")
    assert keys() == {"Alpha": sha("alpha"), "Beta": sha("beta")}
    # What the key of revision 0005 took as a new team: a Cyrillic а, a zero-width space.
    insert = text(
        "INSERT INTO teams (competition_id, name, name_key, created_at) "
        "SELECT competition_id, :name, :key, created_at FROM teams WHERE name = 'Alpha'"
    )
    with store.engine.begin() as connection:
        for name in ("\u0430lpha", "Be\u200bta"):
            connection.execute(insert, {"name": name, "key": sha(name.casefold())})
    migrate(store.engine)
    new = keys()
    assert new["Alpha"] == sha("alpha") and new["Beta"] == sha("beta")
    assert len(set(new.values())) == 4  # the later look-alikes keep keys of their own
    with pytest.raises(Conflict):
        store.add_team("c", "\u0391LPHA")  # a Greek capital alpha
    assert len(keys()) == 4
    downgrade(store.engine, "0012")
    assert keys()["\u0430lpha"] == sha("\u0430lpha") and keys()["Be\u200bta"] != sha("beta")
    migrate(store.engine)
    store.engine.dispose()
