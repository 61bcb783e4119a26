"""``ladderboard join`` with an account's personal token, and the
organiser's ``competition invite``, ``invitations``, ``revoke-invitation``,
``registrations`` and ``--registration``, against a live server."""

from __future__ import annotations

import json

import pytest
from server_helpers import LABELS
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.engine import Competitions
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer

runner = CliRunner()
SOLUTION = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)
RULES = "# Rules\n\nOne account per person.\n"


@pytest.fixture(scope="module", autouse=True)
def no_stored_credentials(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
        yield


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('join') / 'ladderboard.db'}"
    with LocalServer(url) as server:
        store = Competitions.open(url)
        yield server, store
        store.dispose()


def run(server, token, *args, stdin: str | None = None):
    env = {"LADDERBOARD_SERVER": server.url, "LADDERBOARD_TOKEN": token or "", "COLUMNS": "200"}
    return runner.invoke(app, [str(a) for a in args], env=env, input=stdin)


def personal_token(store, handle: str) -> str:
    made = store.accounts.create(handle, created_from="cli test")
    return store.accounts.create_token(made.id, "cli")[1]


@pytest.mark.slow
def test_an_invitation_from_the_cli_lets_an_account_join(live, tmp_path):
    server, store = live
    (tmp_path / "solution.csv").write_bytes(SOLUTION.to_csv())
    (tmp_path / "rules.md").write_text(RULES)
    created = run(
        server, server.admin_token,
        "competition", "create", "inv", "--solution", tmp_path / "solution.csv",
        "--score", "zero_one", "--rules-file", tmp_path / "rules.md",
        "--registration", "invitation", "--json",
    )  # fmt: skip
    assert created.exit_code == 0, created.output
    assert json.loads(created.output)["registration"] == "invitation"
    made = run(server, server.admin_token, "competition", "invite", "inv", "--uses", 1, "--json")
    assert made.exit_code == 0, made.output
    code = json.loads(made.output)["code"]
    listed = run(server, server.admin_token, "competition", "invitations", "inv", "--json")
    assert code not in listed.output and json.loads(listed.output)[0]["max_uses"] == 1

    token = personal_token(store, "ada")
    declined = run(server, token, "join", "inv", "--code", code, stdin="n\n")
    assert declined.exit_code != 0 and "One account per person." in declined.output
    assert store.accounts.registrations("inv") == []
    joined = run(server, token, "join", "inv", "--code", code, "--team", "ada", stdin="y\n")
    assert joined.exit_code == 0, joined.output
    assert "One account per person." in joined.output

    rows = run(server, server.admin_token, "competition", "registrations", "inv", "--json")
    [row] = json.loads(rows.output)
    assert (row["account"], row["team"], row["via"]) == ("ada", "ada", "invitation")

    used = run(
        server, personal_token(store, "bea"), "join", "inv", "--code", code, "--accept-rules"
    )
    assert used.exit_code == 1 and "used up" in used.output

    revoked = run(server, server.admin_token, "competition", "revoke-invitation", "inv", 1)
    assert revoked.exit_code == 0, revoked.output
    opened = run(
        server, server.admin_token, "competition", "edit", "inv", "--registration", "open", "--json"
    )
    assert opened.exit_code == 0 and json.loads(opened.output)["registration"] == "open"
    assert run(server, personal_token(store, "cy"), "join", "inv", "--accept-rules").exit_code == 0
