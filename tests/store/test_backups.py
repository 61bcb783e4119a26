"""Backups and restores with the standard tools, as docs/operator.md gives
them: an online SQLite backup (``VACUUM INTO``) taken while a writer keeps
submitting, and ``pg_dump`` / ``pg_restore`` of PostgreSQL into a new
database; each restored store passes ``ladderboard verify`` and shows the
boards it was backed up with."""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import subprocess
import threading

import numpy as np
import pytest
from sqlalchemy import make_url
from typer.testing import CliRunner

from engine_helpers import csv_for, make_solution, noisy
from ladderboard.cli import app
from ladderboard.engine import Competitions
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store.database import scratch_postgres_database
from system import PG_ADMIN_URL, require


def _played(url: str) -> tuple[Competitions, object]:
    store = Competitions.open(url)
    solution = make_solution()
    store.create(
        "comp",
        solution,
        CompetitionConfig(score="zero_one", mechanism="parameter-free-ladder", daily_quota=None),
        random_state=5,
    )
    for team in ("alpha", "beta"):
        store.add_team("comp", team)
    for seed in range(6):
        store.submit("comp", "alpha" if seed % 2 else "beta", _file(solution, seed))
    return store, solution


def _file(solution, seed: int) -> bytes:
    return csv_for(solution, noisy(solution, 0.45 - 0.05 * (seed % 8), seed))


def _verified(url: str) -> dict:
    result = CliRunner().invoke(app, ["verify", "comp", "--db", url, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["verified"] is True, report
    return report


def _boards(url: str) -> tuple:
    store = Competitions.open(url)
    try:
        return tuple(store.leaderboard("comp", board, organiser=True) for board in ("public",))
    finally:
        store.dispose()


@pytest.mark.slow
def test_sqlite_online_backup_while_a_writer_submits(tmp_path):
    live = tmp_path / "ladderboard.db"
    url = f"sqlite:///{live}"
    from ladderboard.engine import migrate_store

    migrate_store(url)
    store, solution = _played(url)
    stop = threading.Event()

    def keep_submitting() -> None:
        seed = 100
        while not stop.is_set():
            store.submit("comp", "alpha", _file(solution, seed))
            seed += 1

    writer = threading.Thread(target=keep_submitting)
    writer.start()
    try:
        backup = tmp_path / "backup.db"
        # The operator guide's command: sqlite3 ladderboard.db "VACUUM INTO 'backup.db'"
        with contextlib.closing(sqlite3.connect(live, timeout=30)) as connection:
            connection.execute("VACUUM INTO ?", (str(backup),))
    finally:
        stop.set()
        writer.join()
    copy = Competitions.open(f"sqlite:///{backup}")
    taken = len(copy.submissions("comp", "alpha"))
    copy.dispose()
    assert taken >= 3  # at least the three of before the backup, perhaps more
    # The restore: the server stopped, the live store's write-ahead log
    # removed (left beside the copy, it would be replayed into it and break
    # it), the backup copied over the store.
    board_at_backup = _boards(f"sqlite:///{backup}")
    store.dispose()
    for suffix in ("-wal", "-shm"):
        live.with_name(live.name + suffix).unlink(missing_ok=True)
    shutil.copyfile(backup, live)
    report = _verified(url)
    assert report["submissions"] == taken + 3
    assert _boards(url) == board_at_backup


def _libpq(url: str) -> str:
    """The URL as pg_dump and pg_restore take it (no SQLAlchemy driver name)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.mark.slow
def test_postgresql_dump_and_restore_into_a_new_database(tmp_path):
    require(
        shutil.which("pg_dump") is not None and shutil.which("pg_restore") is not None,
        "pg_dump and pg_restore are missing (apt-get install postgresql-client)",
    )
    from system import postgres_reachable

    require(postgres_reachable(), f"PostgreSQL is not reachable at {PG_ADMIN_URL}")
    from ladderboard.engine import migrate_store

    with (
        scratch_postgres_database(PG_ADMIN_URL, prefix="lb_backup") as source,
        scratch_postgres_database(PG_ADMIN_URL, prefix="lb_restore") as target,
    ):
        migrate_store(source)
        store, _ = _played(source)
        store.dispose()
        dump = tmp_path / "ladderboard.dump"
        subprocess.run(
            ["pg_dump", "--format=custom", "--file", str(dump), _libpq(source)], check=True
        )
        subprocess.run(
            ["pg_restore", "--no-owner", "--dbname", _libpq(target), str(dump)], check=True
        )
        assert _verified(target)["submissions"] == 6
        assert _boards(target) == _boards(source)


def test_a_backup_is_a_store_at_the_same_schema(tmp_path):
    """A backup needs no migration before it is served: its schema is the
    live store's, at the newest revision."""
    from ladderboard.engine import migrate_store
    from ladderboard.store import make_engine
    from ladderboard.store.database import schema_revisions

    live = tmp_path / "live.db"
    migrate_store(f"sqlite:///{live}")
    with contextlib.closing(sqlite3.connect(live)) as connection:
        connection.execute("VACUUM INTO ?", (str(tmp_path / "copy.db"),))
    engine = make_engine(f"sqlite:///{tmp_path / 'copy.db'}")
    current, head = schema_revisions(engine)
    engine.dispose()
    assert current == head


def _restore_online(copy, live) -> None:
    """SQLite's backup API onto the live file, as ``sqlite3 live ".restore copy"``."""
    with (
        contextlib.closing(sqlite3.connect(copy)) as source,
        contextlib.closing(sqlite3.connect(live)) as target,
    ):
        source.backup(target)


def _back_up(live, copy, url_of_copy) -> None:
    """A backup with ``VACUUM INTO``, given a new identity before it is put back."""
    with contextlib.closing(sqlite3.connect(live)) as connection:
        connection.execute("VACUUM INTO ?", (str(copy),))
    result = CliRunner().invoke(app, ["init", "--restored", "--db", url_of_copy])
    assert result.exit_code == 0, result.output


def test_a_store_restored_under_a_running_engine_is_read_afresh(tmp_path, monkeypatch):
    """A store put back from a backup while a process serves it: that
    process's caches hold boards at versions the restore took back. The
    backup was given a new identity (``init --restored``), and the process
    notices it and reads the restored store."""
    import ladderboard.engine.context as context

    monkeypatch.setattr(context, "IDENTITY_SECONDS", 0.0)  # no second to wait for
    live, copy = tmp_path / "live.db", tmp_path / "backup.db"
    url = f"sqlite:///{live}"
    store, solution = _played(url)
    at_backup = store.leaderboard("comp", "public", organiser=True)
    _back_up(live, copy, f"sqlite:///{copy}")
    for seed in range(6, 12):
        store.submit("comp", "alpha" if seed % 2 else "beta", _file(solution, seed))
    assert store.leaderboard("comp", "public", organiser=True) != at_backup
    _restore_online(copy, live)
    assert store.leaderboard("comp", "public", organiser=True) == at_backup
    store.dispose()


def _log_loss_files(solution, count: int) -> list[bytes]:
    """Probabilities, some better than others: their per-row losses are
    floats, which a board's state keeps apart (``mechanism_arrays``)."""
    rng = np.random.default_rng(4)
    out = []
    for i in range(count):
        skill = 0.05 + 0.3 * ((i * 7) % 5) / 5
        p = np.where(solution.targets == 1, 0.5 + skill, 0.5 - skill)
        p = np.clip(p + rng.normal(0, 0.2, solution.n), 0.01, 0.99)
        body = "".join(f"{j},{v:.4f}\n" for j, v in zip(solution.ids, p, strict=True))
        out.append(f"id,target\n{body}".encode())
    return out


def test_a_write_after_a_restore_never_trusts_the_caches_of_before(tmp_path, monkeypatch):
    """The files the restore lost, sent again at once: the same states and
    arrays as before the restore, which the process remembers as stored. The
    identity read under the board's lock makes it drop its caches before it
    writes, however long before it read the identity for a request: the
    store verifies bit for bit."""
    import ladderboard.engine.context as context

    monkeypatch.setattr(context, "IDENTITY_SECONDS", float("inf"))  # reads never look again
    live, copy = tmp_path / "live.db", tmp_path / "backup.db"
    url = f"sqlite:///{live}"
    store = Competitions.open(url)
    solution = make_solution(n=4000, seed=3)
    store.create(
        "c",
        solution,
        CompetitionConfig(score="log_loss", mechanism="parameter-free-ladder", daily_quota=None),
        random_state=11,
    )
    for team in ("a", "b"):
        store.add_team("c", team)
    sent = _log_loss_files(solution, 10)
    for i, data in enumerate(sent[:4]):
        store.submit("c", "ab"[i % 2], data)
    _back_up(live, copy, f"sqlite:///{copy}")
    for i, data in enumerate(sent[4:], 4):
        store.submit("c", "ab"[i % 2], data)
    _restore_online(copy, live)
    for i, data in enumerate(sent[4:], 4):  # what the restore lost, sent again
        store.submit("c", "ab"[i % 2], data)
    store.dispose()
    result = CliRunner().invoke(app, ["verify", "c", "--db", url, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["submissions"] == 10
