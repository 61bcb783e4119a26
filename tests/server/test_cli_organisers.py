"""``ladderboard competition organisers`` against a live server: the
administrator makes an owner, the owner a co-organiser, the list shows
them, the last owner stays, and a co-organiser's token may not add one."""

from __future__ import annotations

import csv
import io

import pytest
from server_helpers import LABELS
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.client import Client
from ladderboard.engine import Competitions
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer

runner = CliRunner()


@pytest.fixture(scope="module", autouse=True)
def no_stored_credentials(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
        yield


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('cli') / 'ladderboard.db'}"
    with LocalServer(url) as live:
        solution = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)
        with Client(live.url, token=live.admin_token) as client:
            client.create_competition("demo", solution.to_csv(), score="zero_one")
        store = Competitions.open(url, create_schema=False)
        tokens = {}
        for handle in ("ola", "ta"):
            account = store.accounts.create(handle, created_from="tests")
            tokens[handle] = store.accounts.create_token(account.id, "cli")[1]
        store.dispose()
        yield live, tokens


def invoke(args, live, token):
    env = {"LADDERBOARD_SERVER": live.url, "LADDERBOARD_TOKEN": token, "COLUMNS": "120"}
    return runner.invoke(app, ["competition", "organisers", "demo", *args], env=env)


@pytest.mark.slow
def test_organisers_are_added_listed_and_removed_from_the_command_line(server):
    live, tokens = server
    made = invoke(["add", "ola", "--role", "owner"], live, live.admin_token)
    assert made.exit_code == 0 and "ola is now owner of demo" in made.output
    helped = invoke(["add", "ta"], live, tokens["ola"])
    assert helped.exit_code == 0 and "ta is now co-organiser of demo" in helped.output
    listed = list(
        csv.DictReader(io.StringIO(invoke([], live, tokens["ta"]).output), delimiter="\t")
    )
    assert [(r["account"], r["role"]) for r in listed] == [("ola", "owner"), ("ta", "co-organiser")]
    refused = invoke(["add", "ta", "--role", "owner"], live, tokens["ta"])
    assert refused.exit_code == 1 and "403" in refused.output and "owner" in refused.output
    last = invoke(["remove", "ola"], live, tokens["ola"])
    assert last.exit_code == 1 and "409" in last.output
    removed = invoke(["remove", "ta"], live, tokens["ola"])
    assert removed.exit_code == 0 and "ta no longer organises demo" in removed.output
    wrong = invoke(["promote", "ta"], live, tokens["ola"])
    assert wrong.exit_code == 2 and "add or remove" in wrong.output
