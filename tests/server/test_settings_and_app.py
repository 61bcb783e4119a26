"""Settings from the environment, the app factory, and what is left to 500 and 503."""

from __future__ import annotations

import pytest
from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient
from pydantic import ValidationError
from server_helpers import ADMIN, create

from ladderboard.engine import Competitions
from ladderboard.server import routes
from ladderboard.server.app import create_app
from ladderboard.server.settings import Settings
from ladderboard.store import make_engine


@pytest.fixture
def clean_env(monkeypatch):
    for name in ("ADMIN_TOKEN", "ENVIRONMENT", "DATABASE_URL", "RATE_LIMIT_PER_MINUTE"):
        monkeypatch.delenv(f"LADDERBOARD_{name}", raising=False)
    return monkeypatch


def test_settings_come_from_prefixed_environment_variables(clean_env):
    clean_env.setenv("LADDERBOARD_ADMIN_TOKEN", ADMIN)
    clean_env.setenv("LADDERBOARD_DATABASE_URL", "sqlite://")
    clean_env.setenv("LADDERBOARD_RATE_LIMIT_PER_MINUTE", "7")
    clean_env.setenv("LADDERBOARD_ALLOW_SELF_REGISTRATION", "true")
    settings = Settings()
    assert settings.admin_token.get_secret_value() == ADMIN
    assert ADMIN not in repr(settings)
    assert (settings.database_url, settings.rate_limit_per_minute) == ("sqlite://", 7)
    assert settings.allow_self_registration is True


@pytest.mark.parametrize("token", ["", "changeme", "ADMIN", "short-token"])
def test_an_unsafe_token_is_refused_outside_development(clean_env, token):
    clean_env.setenv("LADDERBOARD_ADMIN_TOKEN", token)
    with pytest.raises(ValidationError, match="LADDERBOARD_ADMIN_TOKEN"):
        Settings()
    clean_env.setenv("LADDERBOARD_ENVIRONMENT", "development")
    assert Settings().development


def test_bad_values_are_refused(clean_env):
    with pytest.raises(ValidationError):
        Settings(admin_token=ADMIN, rate_limit_per_minute=-1)
    with pytest.raises(ValidationError):
        Settings(admin_token=ADMIN, environment="staging")


def test_without_an_organiser_token_in_development_organiser_routes_refuse(clean_env):
    app = create_app(Settings(environment="development", database_url="sqlite://"))
    with TestClient(app) as client:
        response = client.post("/api/competitions/x/close", headers={"Authorization": "Bearer "})
        assert response.status_code == 401


def test_apps_do_not_share_state(database_url, solution):
    settings = Settings(admin_token=ADMIN, database_url=database_url)
    first, second = create_app(settings), create_app(settings)
    assert first.state.competitions is not second.state.competitions
    with TestClient(first) as a, TestClient(second) as b:
        create(a, solution)
        assert b.get("/api/competitions/demo").status_code == 200  # same database


def test_apps_share_their_routes_and_each_answers_from_its_own_store(tmp_path, solution):
    """The route objects are built once a process (ladderboard.server.routes);
    a request still reaches its own application's store and settings."""
    tokens = (ADMIN, ADMIN[::-1])
    apps = [
        create_app(Settings(admin_token=token, database_url=f"sqlite:///{tmp_path / f'{i}.db'}"))
        for i, token in enumerate(tokens)
    ]
    pairs = zip(apps[0].router.routes, apps[1].router.routes, strict=True)
    shared = [x for x, y in pairs if x is y]
    assert len(shared) >= 9  # the API's, the health and metrics routes, the pages'
    with TestClient(apps[0]) as first, TestClient(apps[1]) as second:
        create(first, solution)
        assert first.get("/api/competitions/demo").status_code == 200
        assert second.get("/api/competitions/demo").status_code == 404
        whoami = [
            second.get("/api/whoami", headers={"Authorization": f"Bearer {token}"})
            for token in tokens
        ]
        assert [r.status_code for r in whoami] == [401, 200]
        assert whoami[1].json()["role"] == "organiser"


@pytest.mark.parametrize("handlers", ["startup", "shutdown"])
def test_a_router_with_handlers_is_not_shared(handlers):
    """``include_router`` hands a router's startup and shutdown handlers to
    the application; shared routes would lose them, so such a router is
    refused and the application is left as it was."""

    async def handler():
        return None

    router = APIRouter(**{f"on_{handlers}": [handler]})
    router.add_api_route("/x", handler)
    app = FastAPI()
    before = list(app.router.routes)
    with pytest.raises(ValueError, match=r"app\.include_router"):
        routes.include(app, router)
    assert app.router.routes == before
    plain = APIRouter()
    plain.add_api_route("/x", handler)
    routes.include(app, plain)
    with TestClient(app) as client:
        assert client.get("/x").status_code == 200


def test_an_unexpected_error_is_a_json_500_without_details(database_url, solution):
    store = Competitions.open(database_url)

    def broken(*args, **kwargs):
        raise RuntimeError("secret internals")

    store.competitions = broken
    app = create_app(Settings(admin_token=ADMIN, database_url=database_url), competitions=store)
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/api/competitions")
    store.engine.dispose()
    assert response.status_code == 500
    assert response.json()["error"] == "internal"
    assert "secret" not in response.text


def test_healthz_is_503_when_the_database_does_not_answer():
    store = Competitions(make_engine("postgresql://postgres@127.0.0.1:1/nowhere"))
    app = create_app(Settings(admin_token=ADMIN, database_url="sqlite://"), competitions=store)
    with TestClient(app) as client:
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["error"] == "database_unavailable"


def test_every_default_file_limit_is_the_one_constant(clean_env):
    """The server's upload limit, a competition's file limit, the replays'
    and the API's words for it all say ``DEFAULT_MAX_BYTES`` (rules, below
    files in no layer, keeps its own literal: held to it here)."""
    import inspect

    from ladderboard.files import DEFAULT_MAX_BYTES, parse_submission
    from ladderboard.replay import loading
    from ladderboard.rules.config import CompetitionConfig
    from ladderboard.server.api.competitions import MAX_BYTES_FIELD

    clean_env.setenv("LADDERBOARD_ENVIRONMENT", "development")
    config = CompetitionConfig(score="zero_one", mechanism="parameter-free-ladder")
    assert Settings().max_upload_bytes == config.max_bytes == DEFAULT_MAX_BYTES
    assert loading.MAX_BYTES == DEFAULT_MAX_BYTES
    assert inspect.signature(parse_submission).parameters["max_bytes"].default == DEFAULT_MAX_BYTES
    assert f"{DEFAULT_MAX_BYTES // 2**20} MiB" in MAX_BYTES_FIELD
