"""``ladderboard login``, ``logout`` and ``whoami`` against a live server: a
checked token stored by server and competition (the organiser's beside the
teams') in a file of mode 0600, used when no option or environment variable
names one, and never shown in full."""

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
            admin.create_competition(
                "login-two", SOLUTION.to_csv(), score="zero_one", mechanism="parameter-free-ladder"
            )
            live.second_token = admin.add_team("login-two", "beta")["token"]
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


@pytest.mark.slow
def test_login_stores_the_token_per_server_in_a_private_file(server, config):
    result = run("login", "--server", server.url + "/", "--token", server.admin_token)
    assert result.exit_code == 0, result.output
    assert server.admin_token not in result.output and server.admin_token[:4] in result.output
    assert "Stored the organiser's token" in result.output
    assert "organiser commands will use it" in result.output
    path = config / "credentials.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(config.stat().st_mode) == 0o700
    assert stored(config) == {
        "default": server.url,
        "servers": {
            server.url: {"organiser": server.admin_token, "competitions": {}, "other": None}
        },
    }

    # No --server, no --token, no environment: the stored default and its token.
    closed = run("close", "login-demo", "--json")
    assert closed.exit_code == 0, closed.output
    assert json.loads(closed.stdout)["closed"] is True

    other = "http://127.0.0.1:9"  # a second server, unreachable: nothing is stored for it
    refused = run("login", "--server", other, "--token", "x" * 20)
    assert refused.exit_code == 3 and other not in stored(config)["servers"]


def test_options_and_the_environment_win_over_the_stored_token(server, config):
    login = run("login", "--server", server.url, "--token", server.team_token)
    assert login.exit_code == 0, login.output
    assert "the token of team alpha in competition login-demo" in login.output
    team = run("status", "login-demo", "--json")  # the stored (team) token
    assert team.exit_code == 0 and json.loads(team.stdout)["name"] == "alpha"

    as_organiser = run("team", "list", "login-demo", "--token", server.admin_token)
    assert as_organiser.exit_code == 0, as_organiser.output
    from_env = run("team", "list", "login-demo", LADDERBOARD_TOKEN=server.admin_token)
    assert from_env.exit_code == 0, from_env.output
    # An organiser's verb never takes a team's token: it says how to give one.
    stored_only = run("team", "list", "login-demo")
    assert stored_only.exit_code == 2, stored_only.output
    assert "no organiser's token is stored" in stored_only.output

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


def test_logout_forgets_one_competition_one_server_then_all(server, config):
    for token in (server.team_token, server.second_token, server.admin_token):
        assert run("login", "--server", server.url, "--token", token).exit_code == 0
    credentials = stored(config)
    credentials["servers"]["http://old.example.org"] = {"other": "old-token"}
    (config / "credentials.json").write_text(json.dumps(credentials))

    one = run("logout", "login-demo")
    assert one.exit_code == 0 and "forgot the token of login-demo" in one.output
    assert "login-two (team beta), the organiser" in one.output
    assert run("logout", "login-demo").exit_code == 2  # no longer stored
    assert run("status", "login-two").exit_code == 0
    organiser = run("logout", "--organiser")
    assert organiser.exit_code == 0 and "still kept: login-two (team beta)" in organiser.output

    out = run("logout")
    assert out.exit_code == 0 and f"forgot every token of {server.url}" in out.output
    assert stored(config) == {
        "default": "http://old.example.org",
        "servers": {
            "http://old.example.org": {"organiser": None, "competitions": {}, "other": "old-token"}
        },
    }
    assert run("logout", "--server", server.url).exit_code == 2  # nothing stored for it
    assert run("logout", "--all", "--organiser").exit_code == 2
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


# --------------------------------------------- tokens of several competitions
def test_a_team_in_two_competitions_keeps_both_tokens(server, config):
    """Logging in to a second competition keeps the first one's token: each
    verb sends the token of the competition it names."""
    first = run("login", "--server", server.url, "--token", server.team_token)
    assert first.exit_code == 0, first.output
    second = run("login", "--server", server.url, "--token", server.second_token)
    assert second.exit_code == 0, second.output
    assert "Stored the token of team beta in competition login-two" in second.output
    assert "commands for login-two will use it" in second.output
    assert "login-demo (team alpha), login-two (team beta)" in second.output

    alpha = run("status", "login-demo", "--json")
    assert alpha.exit_code == 0, alpha.output
    assert json.loads(alpha.stdout)["name"] == "alpha"
    beta = run("status", "login-two", "--json")
    assert beta.exit_code == 0, beta.output
    assert json.loads(beta.stdout)["name"] == "beta"
    assert run("submissions", "login-demo", "--json").exit_code == 0

    # --token and LADDERBOARD_TOKEN win over the stored token of the competition.
    given = run("status", "login-demo", "--json", "--token", server.second_token)
    assert given.exit_code == 1 and "not a team token of competition 'login-demo'" in given.output
    assert "is stored for" not in given.output  # a token was given: no word on stored ones
    from_env = run("status", "login-two", "--json", LADDERBOARD_TOKEN=server.team_token)
    assert from_env.exit_code == 1 and "not a team token of competition 'login-two'" in (
        from_env.output
    )

    # A competition no stored token belongs to is asked as nobody, and says so.
    assert run("logout", "login-demo").exit_code == 0
    nobody = run("submissions", "login-demo")
    assert nobody.exit_code == 1 and "401" in nobody.output
    assert f"no token of login-demo is stored for {server.url}" in nobody.output
    assert json.loads(run("status", "login-two", "--json").stdout)["name"] == "beta"
    for token in (server.team_token, server.second_token):
        assert token not in nobody.output + alpha.output + beta.output


def test_the_organisers_token_and_a_teams_token_are_kept_side_by_side(server, config):
    assert run("login", "--server", server.url, "--token", server.team_token).exit_code == 0
    organiser = run("login", "--server", server.url, "--token", server.admin_token)
    assert organiser.exit_code == 0, organiser.output
    assert "login-demo (team alpha), the organiser" in organiser.output

    team = run("status", "login-demo", "--json")  # the team's token, not the organiser's
    assert team.exit_code == 0 and json.loads(team.stdout)["name"] == "alpha"
    teams = run("team", "list", "login-demo", "--json")  # the organiser's
    assert teams.exit_code == 0 and {t["name"] for t in json.loads(teams.stdout)} == {"alpha"}
    # A competition with no team token stored: the organiser reads its board.
    board = run("leaderboard", "login-two", "--private", "--json")
    assert board.exit_code == 0, board.output

    listed = run("whoami", "--json")
    assert listed.exit_code == 0, listed.output
    assert [(i["role"], i["competition"], i["team"]) for i in json.loads(listed.stdout)] == [
        ("organiser", None, None),
        ("team", "login-demo", "alpha"),
    ]
    drawn = run("whoami")
    assert "login-demo" in drawn.output and "(default)" in drawn.output
    for token in (server.team_token, server.admin_token):
        assert token not in listed.output + drawn.output


def test_a_file_of_one_token_per_server_is_read_then_rewritten(server, config):
    """The file's earlier form (one token per server) keeps working: its
    token is used for every verb on its server, and the next login writes
    the file in its present form, the token filed as whose it is."""
    config.mkdir(mode=0o700)
    path = config / "credentials.json"
    path.write_text(
        json.dumps({"default": server.url, "tokens": {server.url + "/": server.team_token}})
    )
    path.chmod(0o600)
    assert json.loads(run("status", "login-demo", "--json").stdout)["name"] == "alpha"
    listed = json.loads(run("whoami", "--json").stdout)
    assert [(i["server"], i["role"]) for i in listed] == [(server.url, "unknown")]

    assert run("login", "--server", server.url, "--token", server.team_token).exit_code == 0
    assert stored(config)["servers"] == {
        server.url: {
            "organiser": None,
            "competitions": {"login-demo": {"team": "alpha", "token": server.team_token}},
            "other": None,
        }
    }
    assert json.loads(run("status", "login-demo", "--json").stdout)["name"] == "alpha"


def test_a_credentials_file_of_another_shape_is_refused(server, config):
    config.mkdir(mode=0o700)
    path = config / "credentials.json"
    path.write_text(json.dumps({"servers": {server.url: {"competitions": {"x": "no team"}}}}))
    path.chmod(0o600)
    result = run("status", "login-demo")
    assert result.exit_code == 2 and "is not a credentials file" in result.output
