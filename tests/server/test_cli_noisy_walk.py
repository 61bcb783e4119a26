"""A team's walk through the ``ladderboard`` CLI on a board of bootstrap
releases (LadderBoot b = 100), against a live server: a good model, then
files of random guesses, and no selection. No answer to a random file says
it improved; the tables name the board's score, not a file's; after
publication the team's list marks the model as what counts, and the private
board ranks the team on it."""

from __future__ import annotations

import csv
import io

import pytest
from server_helpers import LABELS, flipped
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer

runner = CliRunner()
SOLUTION = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)
RANDOM_FILES = 3


@pytest.fixture(scope="module", autouse=True)
def no_stored_credentials(tmp_path_factory):
    """A configuration folder of the tests' own: the user's stored tokens stay out."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
        yield


def _rows(output: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(output), delimiter="\t"))


def _run(args, server, token):
    env = {"LADDERBOARD_SERVER": server.url, "LADDERBOARD_TOKEN": token, "COLUMNS": "200"}
    result = runner.invoke(app, [str(a) for a in args], env=env)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.slow
def test_a_cli_team_that_sends_random_files_after_a_model_is_ranked_on_it(tmp_path):
    with LocalServer(f"sqlite:///{tmp_path / 'walk.db'}") as server:
        solution = tmp_path / "solution.csv"
        solution.write_bytes(SOLUTION.to_csv())
        organiser = server.admin_token
        _run(
            ["competition", "create", "walk", "--solution", solution, "--score", "zero_one",
             "--mechanism", "ladder-boot", "--param", "b=100", "--daily-quota", "none"],
            server, organiser,
        )  # fmt: skip
        added = _run(["team", "add", "walk", "alpha"], server, organiser)
        token = added.split("token (shown once): ")[1].split()[0]
        answers = []
        for name, wrong, seed in [("model", 0.05, 1)] + [
            (f"random-{k}", 0.5, 10 + k) for k in range(RANDOM_FILES)
        ]:
            path = tmp_path / f"{name}.csv"
            path.write_bytes(flipped(SOLUTION, wrong, seed))
            answers.append(_run(["submit", "walk", "-f", path, "-m", name], server, token))
        for answer in answers[1:]:
            assert "better than" not in answer, answer
            assert "whether or not this one improved on your best" in " ".join(answer.split())
        listed = _rows(_run(["submissions", "walk"], server, token))
        assert "board score after file" in listed[0]
        assert all(row["final"] == "" for row in listed), listed  # the decisions stay hidden

        _run(["close", "walk"], server, organiser)
        _run(["publish", "walk"], server, organiser)
        listed = _rows(_run(["submissions", "walk"], server, token))
        by_message = {row["message"]: row for row in listed}
        assert by_message["model"]["final"] == "yes" and by_message["model"]["held best"] == "yes"
        assert all(by_message[f"random-{k}"]["final"] == "" for k in range(RANDOM_FILES))
        (entry,) = _rows(_run(["leaderboard", "walk", "--private"], server, ""))
        assert entry["score"] == by_message["model"]["private"]
