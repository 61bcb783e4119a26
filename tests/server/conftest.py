"""An app per test over a fresh database (SQLite and PostgreSQL), in-process;
and for the browser tests, a live server and Chromium."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser_helpers import chromium, serve
from fastapi.testclient import TestClient
from playwright.sync_api import Browser
from server_helpers import ADMIN, LABELS

from engine_helpers import CALENDAR_START, Clock
from ladderboard.engine import Competitions
from ladderboard.files.solution import Solution
from ladderboard.server.app import create_app
from ladderboard.server.settings import Settings


@pytest.fixture(scope="session")
def solution() -> Solution:
    return Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)


@pytest.fixture
def make_client(database_url):
    """``make_client(**settings)``: a started TestClient over the test's database."""
    clients = []

    def make(**overrides) -> TestClient:
        options = {
            "admin_token": ADMIN,
            "database_url": database_url,
            "rate_limit_per_minute": 0,
            **overrides,
        }
        client = TestClient(create_app(Settings(**options)))
        # As a browser does with every form post: the organiser's forms check it.
        client.headers["Origin"] = "http://testserver"
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client) -> TestClient:
    return make_client()


@pytest.fixture
def live_server(tmp_path) -> Iterator[str]:
    """The base URL of a live uvicorn server over a fresh SQLite file."""
    settings = Settings(
        admin_token=ADMIN,
        database_url=f"sqlite:///{tmp_path / 'browser.db'}",
        rate_limit_per_minute=0,
    )
    with serve(settings) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as browser:
        yield browser


@pytest.fixture
def clocked(database_url):
    """A client whose engine reads the test's clock, and the clock."""
    clock = Clock(CALENDAR_START)
    competitions = Competitions.open(database_url, clock=clock, store_clock=clock)
    settings = Settings(admin_token=ADMIN, database_url=database_url, rate_limit_per_minute=0)
    with TestClient(create_app(settings, competitions=competitions)) as client:
        client.headers["Origin"] = "http://testserver"
        yield client, clock
    competitions.dispose()


@pytest.fixture(scope="session")
def oidc():
    """A real OpenID Connect provider (npm's oidc-provider) for the whole run."""
    from sign_in_services import oidc_provider

    with oidc_provider() as provider:
        yield provider


@pytest.fixture
def mailbox():
    """A real SMTP server (aiosmtpd) keeping the messages sent to it."""
    from sign_in_services import smtp_server

    with smtp_server() as mailbox:
        yield mailbox
