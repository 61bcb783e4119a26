"""Two processes creating the schema of one fresh store at the same moment
(two ``ladderboard init``, or two servers starting) both succeed, and the
store ends at the head revision: schema creation is serialised, on
PostgreSQL by an advisory lock, on SQLite by its writer's lock."""

from __future__ import annotations

import multiprocessing

import pytest

from ladderboard.store import make_engine, scratch_postgres_database
from ladderboard.store.database import require_schema
from system import PG_ADMIN_URL, postgres_reachable, require

ROUNDS = 4


def _migrate_when_told(urls, barrier, results) -> None:
    """A worker process: for each URL, wait for the other worker, then
    create the schema; put ``None`` or the error's text on ``results``."""
    from ladderboard.engine import migrate_store

    for url in iter(urls.get, None):
        barrier.wait(timeout=60)
        try:
            migrate_store(url)
            results.put(None)
        except BaseException as exc:  # reported to the test, which fails on it
            results.put(f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}")


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
@pytest.mark.slow
def test_two_processes_create_the_schema_at_once(store, tmp_path):
    if store == "postgresql":
        require(postgres_reachable(), f"PostgreSQL is not reachable at {PG_ADMIN_URL}")
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    urls = [context.Queue(), context.Queue()]
    results = context.Queue()
    workers = [
        context.Process(target=_migrate_when_told, args=(queue, barrier, results)) for queue in urls
    ]
    for worker in workers:
        worker.start()
    try:
        for round_ in range(ROUNDS):
            if store == "sqlite":
                _round(f"sqlite:///{tmp_path / f'store{round_}.db'}", urls, results)
            else:
                with scratch_postgres_database(PG_ADMIN_URL, prefix="lb_init") as url:
                    _round(url, urls, results)
    finally:
        for queue in urls:
            queue.put(None)
        for worker in workers:
            worker.join(timeout=60)
            if worker.is_alive():
                worker.kill()


def _round(url: str, urls, results) -> None:
    for queue in urls:
        queue.put(url)
    outcomes = [results.get(timeout=120) for _ in urls]
    assert outcomes == [None, None], outcomes
    engine = make_engine(url)
    try:
        require_schema(engine)  # at the head revision
    finally:
        engine.dispose()
