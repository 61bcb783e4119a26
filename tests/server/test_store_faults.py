"""A store that cannot write or does not answer: a full SQLite disk and a
dropped PostgreSQL connection.

Rate limits fail open: a request whose bucket cannot be written is served
(and the failure logged), so a full disk leaves every read working. A store
that cannot do what a request needs answers 503 ``database_unavailable``
with ``Retry-After``, never a 500: the client asks again, a submission too
when it carries an ``Idempotency-Key``, and nothing is stored twice.

The full disk is real where the tests may mount a small tmpfs (as root), and
otherwise SQLite's ``max_page_count`` on every connection of the store, after
the rate limits' table is filled to its last page.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from server_helpers import ADMIN, add_team, bearer, create, organiser, predictions, send_file
from sqlalchemy import create_engine, event, func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from ladderboard.client import Client
from ladderboard.files.solution import Solution
from ladderboard.server.app import create_app
from ladderboard.server.settings import Settings
from ladderboard.store import SubmissionRow, scratch_postgres_database
from system import PG_ADMIN_URL, postgres_reachable, require

READS = ["/api/whoami", "/api/competitions/demo/team", "/api/competitions/demo/submissions"]
# Files big enough to need pages of their own when stored (SQLite's overflow pages).
BIG = Solution.from_labels([0, 1] * 10_000, public_fraction=0.5, random_state=0)


def _app(database_url: str) -> TestClient:
    settings = Settings(admin_token=ADMIN, database_url=database_url, rate_limit_per_minute=600)
    return TestClient(create_app(settings))


def _stored(client: TestClient) -> int:
    with Session(client.app.state.competitions.engine) as session:
        return session.scalar(select(func.count()).select_from(SubmissionRow))


# ------------------------------------------------------------ a full disk
@contextlib.contextmanager
def _tmpfs(path: Path, size: str) -> Iterator[Path]:
    path.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip("a tmpfs cannot be mounted here (it needs root): max_page_count stands in")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def _fill_disk(folder: Path) -> None:
    """Write a file in ``folder`` until its file system has no space left."""
    with open(folder / "filler", "wb") as filler:
        with contextlib.suppress(OSError):
            while True:
                filler.write(b"\0" * 65536)
                filler.flush()
        with contextlib.suppress(OSError):
            os.fsync(filler.fileno())


def _cap_pages(client: TestClient) -> None:
    """Make the store full: fill the rate limits' table until SQLite says
    so, then cap every connection of the app's engines at that size."""
    competitions = client.app.state.competitions
    engines = [competitions.engine, competitions.rate_limits.engine]
    for engine in engines:
        engine.dispose()
    path = competitions.engine.url.database
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as connection:
        pages = connection.execute("pragma page_count").fetchone()[0]
        connection.execute(f"pragma max_page_count = {pages}")
        with contextlib.suppress(sqlite3.OperationalError):
            for n in range(1_000_000):
                connection.execute(
                    "insert into rate_limits (key, tat, allowed) values (?, 0, 1)",
                    (f"filler:{n:08d}",),
                )
        pages = connection.execute("pragma page_count").fetchone()[0]

    for engine in engines:

        @event.listens_for(engine, "connect")
        def _full(dbapi_connection, _record) -> None:
            dbapi_connection.execute(f"pragma max_page_count = {pages}")


@pytest.fixture(params=["tmpfs", "max_page_count"])
def full_store(request, tmp_path) -> Iterator[tuple[TestClient, list[str]]]:
    """A started app over a SQLite store holding ``demo`` and two teams, and
    their tokens: the first has sent a file, the second nothing yet (its
    rate-limit bucket is a new row). The store is full once the fixture yields."""
    with contextlib.ExitStack() as stack:
        folder = tmp_path
        if request.param == "tmpfs":
            folder = stack.enter_context(_tmpfs(tmp_path / "disk", "16m"))
        client = stack.enter_context(_app(f"sqlite:///{folder / 'ladderboard.db'}"))
        create(client, BIG)
        tokens = [add_team(client, "alpha"), add_team(client, "beta")]
        assert send_file(client, tokens[0], predictions(BIG, 1)).status_code == 201
        if request.param == "tmpfs":
            _fill_disk(folder)
        else:
            _cap_pages(client)
        yield client, tokens


def test_a_full_disk_leaves_authenticated_reads_working(full_store, caplog):
    client, tokens = full_store
    caplog.set_level(logging.WARNING)
    for token in tokens:
        for path in READS:
            response = client.get(path, headers=bearer(token))
            assert response.status_code == 200, (path, response.text)
    organiser_read = client.get("/api/competitions/demo/teams", headers=organiser())
    assert organiser_read.status_code == 200, organiser_read.text
    assert client.get("/api/competitions/demo/leaderboard").status_code == 200
    assert "rate limit" in caplog.text  # the failed write is logged, not hidden


def test_a_full_disk_refuses_a_write_with_503_and_stores_nothing(full_store):
    client, tokens = full_store
    before = _stored(client)
    response = send_file(client, tokens[1], predictions(BIG, 2))
    assert response.status_code == 503, response.text
    assert response.json()["error"] == "database_unavailable"
    assert int(response.headers["retry-after"]) >= 1
    assert _stored(client) == before


# ------------------------------------------- a dropped PostgreSQL connection
def _drop_connections(database_url: str) -> None:
    """Terminate every connection to the database of ``database_url`` (the
    server's pools), and wait until they are gone."""
    url = make_url(database_url)
    admin = create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    name = {"name": url.database}
    others = "datname = :name and pid <> pg_backend_pid()"
    try:
        with admin.connect() as connection:
            connection.execute(
                text(f"select pg_terminate_backend(pid) from pg_stat_activity where {others}"),
                name,
            )
            for _ in range(200):
                alive = connection.execute(
                    text(f"select count(*) from pg_stat_activity where {others}"), name
                ).scalar()
                if not alive:
                    return
                time.sleep(0.01)
        raise AssertionError("the connections were not terminated")
    finally:
        admin.dispose()


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A scratch PostgreSQL database (a dropped connection is PostgreSQL's:
    SQLite has none)."""
    require(postgres_reachable(), f"PostgreSQL is not reachable at {PG_ADMIN_URL}")
    with scratch_postgres_database(PG_ADMIN_URL, prefix="lb_test") as url:
        yield url


@pytest.mark.slow
def test_a_dropped_connection_answers_503_then_recovers(postgres_url, solution):
    with _app(postgres_url) as client:
        create(client, solution)
        token = add_team(client, "alpha")
        for path in READS:  # every pool holds a connection, used this last second
            assert client.get(path, headers=bearer(token)).status_code == 200
        _drop_connections(postgres_url)
        response = client.get(READS[-1], headers=bearer(token))
        assert response.status_code == 503, response.text
        assert response.json()["error"] == "database_unavailable"
        assert int(response.headers["retry-after"]) >= 1
        assert client.get(READS[-1], headers=bearer(token)).status_code == 200


@pytest.mark.slow
def test_the_client_resends_a_submission_after_a_dropped_connection(postgres_url, solution):
    with _app(postgres_url) as http:
        create(http, solution)
        token = add_team(http, "alpha")
        waits = []
        client = Client(
            "http://testserver", token, http=http, on_wait=lambda *args: waits.append(args)
        )
        assert client.submit("demo", predictions(solution, 1), idempotency_key="first")
        _drop_connections(postgres_url)
        result = client.submit("demo", predictions(solution, 2), idempotency_key="second")
        assert result["status"] == "scored"
        assert len(waits) == 1 and waits[0][1].status == 503  # asked once more, then stored
        assert _stored(http) == 2
