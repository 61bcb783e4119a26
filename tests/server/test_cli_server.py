"""``ladderboard init`` and ``ladderboard serve``, without starting a server."""

from __future__ import annotations

import re
import socket

import pytest
import uvicorn
import uvicorn.supervisors
from sqlalchemy import inspect
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.server import run
from ladderboard.store import make_engine, migrate
from ladderboard.store.database import downgrade, schema_revisions

runner = CliRunner()


def test_init_creates_the_schema_and_prints_a_new_token(tmp_path, monkeypatch):
    monkeypatch.delenv("LADDERBOARD_ADMIN_TOKEN", raising=False)
    url = f"sqlite:///{tmp_path / 'lb.db'}"
    result = runner.invoke(app, ["init", "--db", url])
    assert result.exit_code == 0, result.output
    token = re.search(r"stored nowhere\): (\S+)", result.output).group(1)
    assert len(token) >= 40
    assert f"export LADDERBOARD_ADMIN_TOKEN='{token}'" in result.output
    engine = make_engine(url)
    assert "competitions" in {name.lower() for name in inspect(engine).get_table_names()}
    engine.dispose()
    again = runner.invoke(app, ["init", "--db", url])  # migrating twice is harmless
    assert again.exit_code == 0 and token not in again.output


def test_init_uses_a_safe_token_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("LADDERBOARD_ADMIN_TOKEN", "an-organiser-token-long-enough")
    result = runner.invoke(app, ["init", "--db", f"sqlite:///{tmp_path / 'lb.db'}"])
    assert result.exit_code == 0, result.output
    assert "using the organiser token in LADDERBOARD_ADMIN_TOKEN" in result.output
    assert "an-organiser-token-long-enough" not in result.output
    monkeypatch.setenv("LADDERBOARD_ADMIN_TOKEN", "admin")
    refused = runner.invoke(app, ["init", "--db", f"sqlite:///{tmp_path / 'lb.db'}"])
    assert refused.exit_code == 2


def test_serve_refuses_an_unsafe_token(tmp_path, monkeypatch):
    monkeypatch.setenv("LADDERBOARD_ADMIN_TOKEN", "changeme")
    monkeypatch.delenv("LADDERBOARD_ENVIRONMENT", raising=False)
    monkeypatch.setenv("LADDERBOARD_DATABASE_URL", "sqlite://")  # restored after `serve` sets it
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: (_ for _ in ()).throw(AssertionError))
    result = runner.invoke(app, ["serve", "--db", f"sqlite:///{tmp_path / 'lb.db'}"])
    assert result.exit_code == 2
    assert "cannot start" in result.output


@pytest.mark.parametrize(
    ("environment", "token"),
    [
        ("development", "admin"),  # development settings take any token; `serve` does not
        ("development", "short-one"),
        ("production", "x" * 40),  # long, but one character: not random
        ("production", "abab" * 10),
    ],
)
def test_serve_requires_a_long_random_organiser_token(tmp_path, monkeypatch, environment, token):
    monkeypatch.setenv("LADDERBOARD_ADMIN_TOKEN", token)
    monkeypatch.setenv("LADDERBOARD_ENVIRONMENT", environment)
    monkeypatch.setenv("LADDERBOARD_DATABASE_URL", "sqlite://")
    monkeypatch.setattr(run, "run_uvicorn", lambda **k: (_ for _ in ()).throw(AssertionError))
    url = f"sqlite:///{tmp_path / 'lb.db'}"
    result = runner.invoke(app, ["serve", "--db", url])
    assert result.exit_code == 2, result.output
    assert "cannot start: LADDERBOARD_ADMIN_TOKEN" in result.output
    assert token not in result.output


def test_serve_runs_the_app_factory(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setenv("LADDERBOARD_ADMIN_TOKEN", "an-organiser-token-long-enough")
    monkeypatch.setenv("LADDERBOARD_DATABASE_URL", "sqlite://")
    monkeypatch.setattr(run, "run_uvicorn", lambda **k: calls.append(k))
    url = f"sqlite:///{tmp_path / 'lb.db'}"
    assert runner.invoke(app, ["init", "--db", url]).exit_code == 0
    args = ["serve", "--db", url, "--port", "8123", "--workers", "2"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    expected = {
        "host": "127.0.0.1",
        "port": 8123,
        "workers": 2,
        "limit_concurrency": 1000,
        "log_format": "text",
    }
    assert calls == [expected | {"forwarded_allow_ips": None}]
    result = runner.invoke(app, [*args, "--forwarded-allow-ips", "10.0.0.5"])
    assert result.exit_code == 0, result.output
    assert calls[-1] == expected | {"forwarded_allow_ips": "10.0.0.5"}
    monkeypatch.setenv("LADDERBOARD_LOG_FORMAT", "json")
    assert runner.invoke(app, args).exit_code == 0
    assert calls[-1] == expected | {"forwarded_allow_ips": None, "log_format": "json"}


def test_one_worker_is_uvicorn_run_over_the_factory(monkeypatch):
    calls = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: calls.append((a, k)))
    run.run_uvicorn(port=8123)
    assert calls == [
        (
            ("ladderboard.server.app:served_app",),
            {
                "factory": True,
                "host": "127.0.0.1",
                "port": 8123,
                "log_level": "info",
                "access_log": True,
                "timeout_keep_alive": run.KEEP_ALIVE_SECONDS,
                "http": run.HeaderTimeoutProtocol,
            },
        )
    ]
    run.run_uvicorn(port=8123, log_format="json")  # the server's access lines, as JSON
    options = calls[-1][1]
    assert options["access_log"] is False
    assert options["log_config"]["formatters"]["json"]["()"].endswith("JsonLines")


def test_several_workers_share_a_tcp_listener_so_tcp_nodelay_is_set(monkeypatch):
    """uvicorn binds it with proto 0, and asyncio then leaves Nagle on (uvicorn #3149)."""
    started = []

    class Supervisor:
        def __init__(self, config, sockets):
            started.append((config, sockets))

        def run(self):
            pass

    monkeypatch.setattr(uvicorn.supervisors, "Multiprocess", Supervisor)
    run.run_uvicorn(port=0, workers=3)
    ((config, (listener,)),) = started
    try:
        assert config.workers == 3 and config.factory
        assert listener.proto == socket.IPPROTO_TCP
        assert listener.getsockname()[0] == "127.0.0.1"
    finally:
        listener.close()


def test_serve_refuses_a_store_that_is_not_there_and_creates_none(tmp_path, monkeypatch):
    """A mistyped path must not start a server over a new empty store."""
    monkeypatch.setenv("LADDERBOARD_ADMIN_TOKEN", "an-organiser-token-long-enough")
    monkeypatch.setenv("LADDERBOARD_DATABASE_URL", "sqlite://")
    monkeypatch.setattr(run, "run_uvicorn", lambda **k: (_ for _ in ()).throw(AssertionError))
    missing = tmp_path / "typo.db"
    result = runner.invoke(app, ["serve", "--db", f"sqlite:///{missing}"])
    assert result.exit_code == 3
    assert result.output.strip() == f"error: no store at {missing} (ladderboard init creates one)"
    assert not missing.exists()


@pytest.mark.slow
def test_serve_refuses_a_database_without_a_store_and_brings_an_old_one_up_to_date(
    empty_database_url, monkeypatch
):
    monkeypatch.setenv("LADDERBOARD_ADMIN_TOKEN", "an-organiser-token-long-enough")
    monkeypatch.setenv("LADDERBOARD_DATABASE_URL", "sqlite://")
    calls = []
    monkeypatch.setattr(run, "run_uvicorn", lambda **k: calls.append(k))
    engine = make_engine(empty_database_url)
    try:
        with engine.begin() as connection:  # a database, but no ladderboard store in it
            connection.exec_driver_sql("create table notes (body text)")
        result = runner.invoke(app, ["serve", "--db", empty_database_url])
        assert result.exit_code == 3 and not calls
        assert "no ladderboard store at" in result.output
        assert "competitions" not in {n.lower() for n in inspect(engine).get_table_names()}

        migrate(engine)
        _, head = schema_revisions(engine)
        downgrade(engine, "-1")
        result = runner.invoke(app, ["serve", "--db", empty_database_url])
        assert result.exit_code == 0, result.output
        assert len(calls) == 1 and schema_revisions(engine) == (head, head)
    finally:
        engine.dispose()
