"""``ladderboard login`` and ``logout`` against a live server: a checked token
stored per server in a file of mode 0600, used when no option or
environment variable names one, and never shown in full."""

from __future__ import annotations

import json
import os
import stat

import pytest
from server_helpers import LABELS
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.client import Client
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer

runner = CliRunner()
SOLUTION = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('login') / 'ladderboard.db'}"
    with LocalServer(url) as live:
        with Client(live.url, live.admin_token) as admin:
            admin.create_competition(
                "login-demo", SOLUTION.to_csv(), score="zero_one", mechanism="parameter-free-ladder"
            )
            live.team_token = admin.add_team("login-demo", "alpha")["token"]
        yield live


@pytest.fixture
def config(tmp_path, monkeypatch):
    """The configuration folder, empty, and no server or token in the environment."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("LADDERBOARD_SERVER", raising=False)
    monkeypatch.delenv("LADDERBOARD_TOKEN", raising=False)
    return tmp_path / "ladderboard"


def run(*args, **env):
    return runner.invoke(app, [str(a) for a in args], env=env or None)


def stored(config) -> dict:
    return json.loads((config / "credentials.json").read_text())


def test_login_stores_the_token_per_server_in_a_private_file(server, config):
    result = run("login", "--server", server.url + "/", "--token", server.admin_token)
    assert result.exit_code == 0, result.output
    assert server.admin_token not in result.output and server.admin_token[:4] in result.output
    assert "with the organiser's token" in result.output
    path = config / "credentials.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(config.stat().st_mode) == 0o700
    assert stored(config) == {"default": server.url, "tokens": {server.url: server.admin_token}}

    # No --server, no --token, no environment: the stored default and its token.
    closed = run("close", "login-demo", "--json")
    assert closed.exit_code == 0, closed.output
    assert json.loads(closed.stdout)["closed"] is True

    other = "http://127.0.0.1:9"  # a second server, unreachable: nothing is stored for it
    refused = run("login", "--server", other, "--token", "x" * 20)
    assert refused.exit_code == 3 and other not in stored(config)["tokens"]


def test_options_and_the_environment_win_over_the_stored_token(server, config):
    login = run("login", "--server", server.url, "--token", server.team_token)
    assert login.exit_code == 0 and "the token of team alpha in login-demo" in login.output
    team = run("status", "login-demo", "--json")  # the stored (team) token
    assert team.exit_code == 0 and json.loads(team.stdout)["name"] == "alpha"

    as_organiser = run("team", "list", "login-demo", "--token", server.admin_token)
    assert as_organiser.exit_code == 0, as_organiser.output
    from_env = run("team", "list", "login-demo", LADDERBOARD_TOKEN=server.admin_token)
    assert from_env.exit_code == 0, from_env.output
    stored_only = run("team", "list", "login-demo")
    assert stored_only.exit_code == 1 and "403" in stored_only.output

    # A stored token goes only to its own server: another one gets none.
    elsewhere = run("status", "login-demo", "--server", "http://127.0.0.1:9")
    assert elsewhere.exit_code == 3
    anonymous = run("status", "login-demo", "--token", "")
    assert anonymous.exit_code == 1 and "401" in anonymous.output


def test_a_refused_token_stores_nothing(server, config):
    result = run("login", "--server", server.url, "--token", "not-a-token-of-this-server")
    assert result.exit_code == 1 and "401" in result.output
    assert "not-a-token-of-this-server" not in result.output
    assert not (config / "credentials.json").exists()


def test_logout_forgets_one_server_then_all(server, config):
    assert run("login", "--server", server.url, "--token", server.team_token).exit_code == 0
    credentials = stored(config)
    credentials["tokens"]["http://old.example.org"] = "old-token"
    (config / "credentials.json").write_text(json.dumps(credentials))

    out = run("logout")
    assert out.exit_code == 0 and server.url in out.output
    assert stored(config) == {
        "default": "http://old.example.org",
        "tokens": {"http://old.example.org": "old-token"},
    }
    assert run("logout", "--server", server.url).exit_code == 2  # nothing stored for it
    assert run("logout", "--all").exit_code == 0
    assert not (config / "credentials.json").exists()


@pytest.mark.skipif(os.name == "nt", reason="POSIX modes")
def test_a_credentials_file_others_may_read_is_refused(server, config):
    assert run("login", "--server", server.url, "--token", server.team_token).exit_code == 0
    path = config / "credentials.json"
    path.chmod(0o644)
    result = run("status", "login-demo")
    assert result.exit_code == 2 and "chmod 600" in result.output
    assert server.team_token not in result.output
    # Given both the server and the token, the file is not needed, so not read.
    given = run("leaderboard", "login-demo", "--server", server.url, "--token", "")
    assert given.exit_code == 0, given.output
    # Logging in again rewrites it private.
    assert run("login", "--server", server.url, "--token", server.team_token).exit_code == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
