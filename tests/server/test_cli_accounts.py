"""The CLI and accounts, against a live server: ``login`` keeps a personal
token per server and uses it for any competition without a token of its
own; ``account create`` (administrator) prints the new account's one-time
sign-in link; ``account tokens`` lists the account's tokens."""

from __future__ import annotations

import json

import pytest
from server_helpers import LABELS
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.client import Client
from ladderboard.engine import Competitions
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer

runner = CliRunner()
SOLUTION = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('accounts') / 'ladderboard.db'}"
    with LocalServer(url) as live:
        with Client(live.url, live.admin_token) as admin:
            admin.create_competition(
                "cli-demo", SOLUTION.to_csv(), score="zero_one", mechanism="parameter-free-ladder"
            )
            live.team_token = admin.add_team("cli-demo", "alpha")["token"]
        competitions = Competitions.open(url)
        try:
            account = competitions.accounts.create("ada")
            competitions.accounts.add_member("cli-demo", "alpha", account.id)
            live.personal = competitions.accounts.create_token(account.id, "laptop")[1]
        finally:
            competitions.dispose()
        yield live


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("LADDERBOARD_SERVER", raising=False)
    monkeypatch.delenv("LADDERBOARD_TOKEN", raising=False)
    return tmp_path / "ladderboard"


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.mark.slow
def test_login_keeps_a_personal_token_for_the_server(server, config):
    result = run("login", "--server", server.url, "--token", server.personal)
    assert result.exit_code == 0, result.output
    assert "personal token of account ada" in result.output
    stored = json.loads((config / "credentials.json").read_text())["servers"][server.url]
    assert stored["personal"] == server.personal and stored["competitions"] == {}
    status = run("status", "cli-demo")  # a competition with no token of its own
    assert status.exit_code == 0, status.output
    assert "alpha" in status.output
    listed = run("whoami", "--json")
    assert json.loads(listed.output)[0]["role"] == "account"


def test_account_tokens_lists_them_without_secrets(server, config):
    result = run("account", "tokens", "--server", server.url, "--token", server.personal, "--json")
    assert result.exit_code == 0, result.output
    tokens = json.loads(result.output)
    assert [t["label"] for t in tokens] == ["laptop"]
    assert server.personal not in result.output


def test_account_create_needs_an_administrator_and_prints_the_link(server, config):
    made = run(
        "account", "create", "grace", "--email", "grace@example.org", "--role", "organiser",
        "--server", server.url, "--token", server.admin_token,
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    assert "Created account grace (organiser)" in made.output
    assert f"{server.url}/account/email-link?token=" in made.output
    refused = run(
        "account", "create", "eve", "--server", server.url, "--token", server.personal
    )  # fmt: skip
    assert refused.exit_code == 1 and "403" in refused.output
