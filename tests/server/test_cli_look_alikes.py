"""``ladderboard competition look-alikes SLUG`` against a live server: the
organiser's table (and JSON) of accounts that look like one person's; a
team's token is refused in one line."""

from __future__ import annotations

import json

import pytest
from server_helpers import LABELS
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.engine import Competitions
from ladderboard.files.solution import Solution
from ladderboard.rules.config import CompetitionConfig
from ladderboard.server.deps import hash_token
from ladderboard.server.local import LocalServer

runner = CliRunner()


@pytest.fixture(autouse=True)
def no_stored_credentials(tmp_path, monkeypatch):
    """A configuration folder of the test's own: the user's stored tokens stay out."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def run(server, token, *args):
    env = {"LADDERBOARD_SERVER": server.url, "LADDERBOARD_TOKEN": token or "", "COLUMNS": "200"}
    return runner.invoke(app, [str(a) for a in args], env=env)


@pytest.mark.slow
def test_cli_look_alikes_lists_each_flag_for_the_organiser_alone(tmp_path):
    url = f"sqlite:///{tmp_path / 'ladderboard.db'}"
    store = Competitions.open(url)
    solution = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)
    store.create("owl-cup", solution, CompetitionConfig(score="zero_one", mechanism="ladder"))
    team_token = "listed-team-token-" + "x" * 32
    store.add_team("owl-cup", "listed", token_hash=hash_token(team_token))
    alice = store.accounts.create("alice", email="alice@example.org")
    alias = store.accounts.create("alias", email="ALICE@example.org")
    for person in (alice, alias):  # each joined itself, as the join route records
        store.accounts.register("owl-cup", person.id, rules_sha256="0" * 64, via="open")
    store.accounts.create_account_team("owl-cup", alice.id, "owls")
    store.accounts.create_account_team("owl-cup", alias.id, "larks")
    store.dispose()
    with LocalServer(url) as server:
        table = run(server, server.admin_token, "competition", "look-alikes", "owl-cup")
        assert table.exit_code == 0, table.output
        [line] = [x for x in table.output.splitlines() if x.startswith("same-email")]
        assert "alice (owls), alias (larks)" in line and "alice@example.org" in line
        as_json = run(server, server.admin_token, "competition", "look-alikes", "owl-cup", "--json")
        [flag] = json.loads(as_json.stdout)
        assert flag["rule"] == "same-email" and flag["teams"] == ["larks", "owls"]
        refused = run(server, team_token, "competition", "look-alikes", "owl-cup")
        assert refused.exit_code == 1 and refused.output.startswith("error: "), refused.output
        assert "403" in refused.output and refused.output.count("\n") == 1
