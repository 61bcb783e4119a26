"""``Retry-After`` of a quota refusal over HTTP, with the engine's clock
injected: a spent daily quota says the seconds from that clock's now to the
next UTC midnight (not the wall clock's); a spent total quota or
invalid-file cap says nothing, as asking again cannot help."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient
from server_helpers import ADMIN, add_team, create, predictions, submit

from ladderboard.engine import Competitions
from ladderboard.server.app import create_app
from ladderboard.server.settings import Settings

NOW = datetime(2026, 3, 1, 20, 15, 10, tzinfo=UTC)  # 3 h 44 min 50 s before midnight


@pytest.fixture
def clocked(database_url):
    """A client whose engine reads the injected time ``NOW``."""
    competitions = Competitions.open(database_url, clock=lambda: NOW, store_clock=lambda: NOW)
    settings = Settings(admin_token=ADMIN, database_url=database_url, rate_limit_per_minute=0)
    with TestClient(create_app(settings, competitions=competitions)) as client:
        client.headers["Origin"] = "http://testserver"
        yield client
    competitions.dispose()


def test_quota_retry_a_spent_daily_quota_retries_at_the_engines_midnight(clocked, solution):
    create(clocked, solution, daily_quota=1)
    token = add_team(clocked, "alpha")
    assert submit(clocked, token, predictions(solution, 1)).status_code == 201
    response = submit(clocked, token, predictions(solution, 2))
    assert response.status_code == 429 and response.json()["error"] == "quota"
    assert response.headers["retry-after"] == str(3 * 3600 + 44 * 60 + 50)


@pytest.mark.parametrize("quotas", [{"total_quota": 1}, {"daily_quota": 1, "total_quota": 1}])
def test_quota_retry_a_spent_total_quota_sends_none(clocked, solution, quotas):
    create(clocked, solution, **quotas)
    token = add_team(clocked, "alpha")
    assert submit(clocked, token, predictions(solution, 1)).status_code == 201
    response = submit(clocked, token, predictions(solution, 2))
    assert response.status_code == 429 and response.json()["error"] == "quota"
    assert "retry-after" not in response.headers


def test_quota_retry_a_spent_invalid_file_cap_sends_none(clocked, solution):
    create(clocked, solution, daily_quota=5, invalid_quota=1)
    token = add_team(clocked, "alpha")
    assert submit(clocked, token, b"id,target\n").status_code == 400
    response = submit(clocked, token, predictions(solution, 1))
    assert response.status_code == 429 and response.json()["error"] == "quota"
    assert "retry-after" not in response.headers
