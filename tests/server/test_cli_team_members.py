"""``ladderboard team create|invite|join|leave|merge|show`` with personal
tokens, against a live server on a loopback port."""

from __future__ import annotations

import json

import pytest
from server_helpers import LABELS
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.engine import Competitions
from ladderboard.files.solution import Solution
from ladderboard.rules.config import CompetitionConfig
from ladderboard.server.local import LocalServer

runner = CliRunner()


@pytest.fixture(scope="module", autouse=True)
def no_stored_credentials(tmp_path_factory):
    """A configuration folder of the tests' own: the user's stored tokens stay out."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
        yield


@pytest.fixture(scope="module")
def people(tmp_path_factory):
    """A live server, a competition ``demo`` and three registered accounts'
    personal tokens."""
    url = f"sqlite:///{tmp_path_factory.mktemp('cli') / 'ladderboard.db'}"
    with LocalServer(url) as live:
        store = Competitions.open(url)
        solution = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)
        store.create("demo", solution, CompetitionConfig(score="zero_one", mechanism="ladder"))
        tokens = {}
        for handle in ("ann", "bob", "cat"):
            account = store.accounts.create(handle)
            store.accounts.register("demo", account.id, rules_sha256="0" * 64, via="open")
            tokens[handle] = store.accounts.create_token(account.id, "cli")[1]
        store.engine.dispose()
        yield live, tokens


def invoke(args, people, who):
    live, tokens = people
    env = {"LADDERBOARD_SERVER": live.url, "LADDERBOARD_TOKEN": tokens[who], "COLUMNS": "120"}
    return runner.invoke(app, ["team", *args], env=env)


@pytest.mark.slow
def test_cli_team_members_form_merge_and_leave(people):
    created = invoke(["create", "demo", "owls"], people, "ann")
    assert created.exit_code == 0 and "team owls: you are its captain" in created.output
    invited = invoke(["invite", "demo", "--json"], people, "ann")
    assert invited.exit_code == 0, invited.output
    code = json.loads(invited.output)["code"]
    joined = invoke(["join", "demo", code], people, "bob")
    assert joined.exit_code == 0 and "bob (member)" in joined.output, joined.output
    again = invoke(["join", "demo", code], people, "cat")
    assert again.exit_code == 1 and "used already" in again.output, again.output
    assert invoke(["create", "demo", "bats"], people, "cat").exit_code == 0
    asked = invoke(["merge", "demo", "bats"], people, "ann")
    assert asked.exit_code == 0 and "owls into bats, pending" in asked.output, asked.output
    merge_id = asked.output.split()[1].rstrip(":")
    withdrawn = invoke(["merge", "demo", "--withdraw", merge_id], people, "ann")
    assert withdrawn.exit_code == 0 and "withdrawn" in withdrawn.output, withdrawn.output
    asked = invoke(["merge", "demo", "bats"], people, "ann")
    merge_id = asked.output.split()[1].rstrip(":")
    refused = invoke(["merge", "demo", "--accept", merge_id], people, "bob")
    assert refused.exit_code == 1 and "captain" in refused.output, refused.output
    accepted = invoke(["merge", "demo", "--accept", merge_id], people, "cat")
    assert accepted.exit_code == 0 and "accepted" in accepted.output, accepted.output
    shown = invoke(["show", "demo", "--json"], people, "bob")
    assert json.loads(shown.output)["name"] == "bats"
    assert invoke(["merge", "demo"], people, "cat").exit_code == 2
    left = invoke(["leave", "demo"], people, "bob")
    assert left.exit_code == 0, left.output
    assert invoke(["show", "demo"], people, "bob").exit_code == 1


def test_cli_team_members_settings_on_create_and_edit(people, tmp_path):
    live, _ = people
    env = {"LADDERBOARD_SERVER": live.url, "LADDERBOARD_TOKEN": live.admin_token}
    solution = tmp_path / "solution.csv"
    solution.write_bytes(Solution.from_labels(LABELS, public_fraction=0.5, random_state=0).to_csv())
    created = runner.invoke(
        app,
        [
            "competition", "create", "sized", "--solution", str(solution), "--score",
            "zero_one", "--max-team-size", "3", "--merger-deadline", "2030-01-01T00:00:00+00:00",
            "--deadline", "2030-02-01T00:00:00+00:00", "--json",
        ],
        env=env,
    )  # fmt: skip
    assert created.exit_code == 0, created.output
    info = json.loads(created.output)
    assert (info["max_team_size"], info["merger_deadline"][:10]) == (3, "2030-01-01")
    edited = runner.invoke(
        app,
        ["competition", "edit", "sized", "--max-team-size", "none", "--merger-deadline", "none",
         "--json"],
        env=env,
    )  # fmt: skip
    assert edited.exit_code == 0, edited.output
    info = json.loads(edited.output)
    assert (info["max_team_size"], info["merger_deadline"]) == (None, None)
    late = runner.invoke(
        app, ["competition", "edit", "sized", "--merger-deadline", "2031-01-01T00:00:00+00:00"],
        env=env,
    )  # fmt: skip
    assert late.exit_code == 1 and "merger_deadline" in late.output.lower(), late.output
