"""An app per test over a fresh database (SQLite and PostgreSQL), in-process."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from server_helpers import ADMIN, LABELS

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
