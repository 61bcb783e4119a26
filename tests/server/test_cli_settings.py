"""``competition create`` with every setting the web form takes, and
``competition edit`` of the settings that change while a competition runs,
against a live server; a refusal is one line and changes nothing."""

from __future__ import annotations

import pytest
from server_helpers import LABELS
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.client import Client
from ladderboard.client.transport import ServerError
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer

runner = CliRunner()
SOLUTION = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)


@pytest.fixture(scope="module", autouse=True)
def no_stored_credentials(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
        yield


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('cli-settings') / 'ladderboard.db'}"
    with LocalServer(url) as live:
        yield live


def run(server, *args):
    env = {"LADDERBOARD_SERVER": server.url, "LADDERBOARD_TOKEN": server.admin_token}
    return runner.invoke(app, [str(a) for a in args], env=env | {"COLUMNS": "200"})


@pytest.mark.slow
def test_cli_create_takes_every_setting_of_the_web_form(server, tmp_path):
    solution = tmp_path / "solution.csv"
    solution.write_bytes(SOLUTION.to_csv())
    created = run(
        server, "competition", "create", "every", "--solution", solution,
        "--score", "log_loss", "--mechanism", "ladder", "--param", "eta=0.1",
        "--score-param", "clip=[0.01,0.99]", "--daily-quota", "4", "--total-quota", "30",
        "--invalid-quota", "none", "--n-selections", "3", "--max-bytes", 2**20,
        "--precision", "3", "--json",
    )  # fmt: skip
    assert created.exit_code == 0, created.output
    info = Client(server.url).competition("every")
    assert (info["daily_quota"], info["total_quota"], info["invalid_quota"]) == (4, 30, None)
    assert (info["n_selections"], info["max_bytes"], info["precision"]) == (3, 2**20, 3)
    assert info["mechanism_params"]["eta"] == 0.1
    assert info["score_params"] == {"clip": [0.01, 0.99]}
    bad = run(
        server, "competition", "create", "bad", "--solution", solution, "--score", "zero_one",
        "--total-quota", "lots",
    )  # fmt: skip
    assert bad.exit_code == 2 and "--total-quota" in bad.output, bad.output


def test_cli_edit_changes_the_settings_and_refuses_what_is_fixed(server, tmp_path):
    solution = tmp_path / "solution.csv"
    solution.write_bytes(SOLUTION.to_csv())
    created = run(
        server, "competition", "create", "edited", "--solution", solution, "--score", "zero_one",
        "--mechanism", "parameter-free-ladder",
    )  # fmt: skip
    assert created.exit_code == 0, created.output
    edited = run(
        server, "competition", "edit", "edited", "--daily-quota", "2", "--total-quota", "none",
        "--n-selections", "1", "--precision", "2", "--no-auto-publish",
    )  # fmt: skip
    assert edited.exit_code == 0, edited.output
    assert "daily_quota" in edited.output and "2" in edited.output
    client = Client(server.url)
    info = client.competition("edited")
    assert (info["daily_quota"], info["total_quota"], info["n_selections"]) == (2, None, 1)
    assert [change["words"] for change in client.history("edited")] == [
        "Daily quota: 5 → 2 submissions",
        "Final selections: 2 → 1 submission",
        "Decimals shown: 5 → 2",
    ]
    zero = run(server, "competition", "edit", "edited", "--daily-quota", "0")
    assert zero.exit_code == 1 and "daily_quota must be an integer >= 1" in zero.output.lower()
    assert client.competition("edited") == info


def test_cli_sets_and_changes_who_sees_a_competition(server, tmp_path):
    """``--visibility`` on ``create`` and ``edit``: a private competition
    answers 404 to a client without a token, the organiser's CLI still
    reaches it, and the change is in the history; a value that is not one of
    the three is a usage error that sends nothing."""
    solution = tmp_path / "solution.csv"
    solution.write_bytes(SOLUTION.to_csv())
    created = run(
        server, "competition", "create", "hidden", "--solution", solution, "--score", "zero_one",
        "--visibility", "private", "--json",
    )  # fmt: skip
    assert created.exit_code == 0, created.output
    anonymous = Client(server.url)
    assert "hidden" not in [c["slug"] for c in anonymous.competitions()]
    with pytest.raises(ServerError) as hidden:
        anonymous.competition("hidden")
    assert hidden.value.status == 404
    edited = run(server, "competition", "edit", "hidden", "--visibility", "unlisted")
    assert edited.exit_code == 0 and "unlisted" in edited.output, edited.output
    assert anonymous.competition("hidden")["visibility"] == "unlisted"
    assert "hidden" not in [c["slug"] for c in anonymous.competitions()]
    organiser = anonymous.with_token(server.admin_token)
    assert [change["words"] for change in organiser.history("hidden")] == [
        "Visibility: private → unlisted"
    ]
    wrong = run(server, "competition", "edit", "hidden", "--visibility", "secret")
    assert wrong.exit_code == 2 and "--visibility" in wrong.output, wrong.output
    assert anonymous.competition("hidden")["visibility"] == "unlisted"
