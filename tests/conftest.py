"""Fixtures shared across the suite: a fresh store on SQLite and on PostgreSQL,
and the rule for what a test needs from the system.

Every store test runs on both stores, each on a database of its own at the
newest schema and empty (``database_copies.py`` says how they are made); the
tests of migrating itself take an empty one. A test that needs a system
service or program this machine lacks (PostgreSQL at 127.0.0.1:5432,
Chromium at /usr/bin/chromium) is skipped with the instruction to install it,
except under ``CI=true``, where it fails: CI must run every test.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator

import pytest

from database_copies import MigratedStores, require_postgres
from system import PG_ADMIN_URL

pytest_plugins = ["engine_fixtures"]


@pytest.fixture(scope="session")
def migrated_stores(tmp_path_factory) -> Iterator[MigratedStores]:
    with contextlib.ExitStack() as stack:
        yield MigratedStores(tmp_path_factory.mktemp("template"), stack)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path, migrated_stores):
    """The URL of a database holding an empty store at the newest schema,
    SQLite file or PostgreSQL."""
    if request.param == "sqlite":
        path = tmp_path / "ladderboard.db"
        shutil.copyfile(migrated_stores.sqlite, path)
        yield f"sqlite:///{path}"
        return
    require_postgres()
    with migrated_stores.postgresql_copy() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database_url(request, tmp_path):
    """The URL of an empty database, SQLite file or PostgreSQL: for the tests
    of migrating itself."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ladderboard.db'}"
        return
    require_postgres()
    from ladderboard.store.database import scratch_postgres_database

    with scratch_postgres_database(PG_ADMIN_URL, prefix="lb_test") as url:
        yield url


# ------------------------------------------------------------ the slow marker
# A test over a second is marked ``slow`` (pyproject.toml): it runs in CI's
# slow step, once, not in the fast step each Python version runs. A test that
# grows past it is listed at the end of the run, for its author to mark. What
# is timed is the test's own run: a module's or a process's fixtures are paid
# once, by whichever test comes first.
SLOW_SECONDS = 1.0
_unmarked_seconds: dict[str, float] = {}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "call" and isinstance(item, pytest.Function):  # doctests take no marks
        report.user_properties.append(("marked slow", item.get_closest_marker("slow") is not None))
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" and ["marked slow", False] in map(list, report.user_properties):
        _unmarked_seconds[report.nodeid] = report.duration


def pytest_terminal_summary(terminalreporter) -> None:
    over = sorted(
        (
            (seconds, nodeid)
            for nodeid, seconds in _unmarked_seconds.items()
            if seconds > SLOW_SECONDS
        ),
        reverse=True,
    )
    if not over:
        return
    terminalreporter.section("tests not marked slow that took over a second")
    for seconds, nodeid in over[:15]:
        terminalreporter.write_line(f"{seconds:6.2f}s {nodeid}")
    if len(over) > 15:
        terminalreporter.write_line(f"and {len(over) - 15} more")
    terminalreporter.write_line(
        "(the test's own run; on a loaded machine or under pytest -n, more than it takes alone)"
    )
