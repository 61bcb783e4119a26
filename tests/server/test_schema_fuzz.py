"""Schemathesis against the OpenAPI schema: requests generated from it, as the
organiser, on a server holding a competition and a team, never get a 500.

Bounded: a few examples per operation, no deadline, SQLite only.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from server_helpers import ADMIN, LABELS, organiser

from ladderboard.competition.solution import Solution
from ladderboard.server.app import create_app
from ladderboard.server.settings import Settings

schemathesis = pytest.importorskip("schemathesis")

MAX_EXAMPLES = 12


_FOLDER = tempfile.TemporaryDirectory(prefix="ladderboard-fuzz-")
APP = create_app(
    Settings(
        admin_token=ADMIN,
        database_url=f"sqlite:///{Path(_FOLDER.name) / 'ladderboard.db'}",
        rate_limit_per_minute=0,
    )
)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@pytest.fixture(scope="module", autouse=True)
def competition():
    """A competition ``demo`` with a team, so that the generated paths can hit them."""
    with TestClient(APP) as client:
        solution = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)
        created = client.post(
            "/api/competitions",
            data={"slug": "demo", "score": "zero_one", "mechanism": "parameter-free-ladder"},
            files={"solution": ("solution.csv", solution.to_csv(), "text/csv")},
            headers=organiser(),
        )
        assert created.status_code == 201, created.text
        added = client.post("/api/competitions/demo/teams", json={"name": "a"}, headers=organiser())
        assert added.status_code == 201, added.text
    yield
    APP.state.store.engine.dispose()
    _FOLDER.cleanup()


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_no_server_errors(case):
    response = case.call(headers=organiser())
    assert response.status_code < 500, (case.method, case.formatted_path, response.text)
