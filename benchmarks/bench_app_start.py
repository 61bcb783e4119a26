"""A new application's first requests, with its routes shared or built anew.

FastAPI builds an included router's routes (each route's dependant: its
signature read and its pydantic validators made) on an application's first
requests. ``create_app`` includes the site's routers through
:func:`ladderboard.server.routes.include`, whose route objects every
application of a process shares, so only the process's first application
builds them. This times, in turn within each run, a new application's first
requests (one API read, the home page, the organiser's desk, the account page
and a competition that does not exist) made both ways: shared (as shipped),
and each router included by ``app.include_router`` (the baseline, what every
application paid before). The store is one SQLite file, migrated once.

The goal: a new application's first requests cost at most a fifth of the
baseline's (what is left is the requests themselves).

    python benchmarks/bench_app_start.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from pathlib import Path
from unittest import mock

from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient

from _timing import alternating_medians
from ladderboard.engine import Competitions
from ladderboard.server import routes
from ladderboard.server.app import create_app
from ladderboard.server.settings import Settings

PATHS = ("/api/competitions", "/", "/organiser", "/account", "/c/no-such-competition")
GOAL = 0.2


def _built_anew(app: FastAPI, router: APIRouter) -> None:
    app.include_router(router)


def first_requests(store: Competitions, settings: Settings, *, shared: bool) -> Callable[[], None]:
    """A new application over ``store``, then its first requests."""

    def run() -> None:
        if shared:
            app = create_app(settings, competitions=store)
        else:
            with mock.patch.object(routes, "include", _built_anew):
                app = create_app(settings, competitions=store)
        with TestClient(app) as client:
            for path in PATHS:
                client.get(path)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'start.db'}"
        store = Competitions.open(url)
        settings = Settings(environment="development", database_url=url, admin_token="t" * 40)
        shared, anew = alternating_medians(
            [
                first_requests(store, settings, shared=True),
                first_requests(store, settings, shared=False),
            ],
            repeat=args.repeat,
        )
        store.dispose()
    ratio = shared / anew
    print(f"a new application's {len(PATHS)} first requests (median of {args.repeat}):")
    print(f"  routes built anew (baseline): {1000 * anew:7.1f} ms")
    print(f"  routes shared:                {1000 * shared:7.1f} ms")
    verdict = "meets" if ratio <= GOAL else "misses"
    print(f"  shared / baseline: {ratio:.2f} (goal: at most {GOAL}; {verdict} it)")


if __name__ == "__main__":
    main()
