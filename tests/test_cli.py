"""The ``ladderboard`` command, run in-process."""

import re

import pytest
from typer.testing import CliRunner

from ladderboard import __version__
from ladderboard.cli import app
from ladderboard.demo import ATTACKER, HONEST_TEAMS

runner = CliRunner()
NUMBER = re.compile(r"\d+\.\d+")


def row(output: str, team: str) -> list[float]:
    """The numbers in the table row of ``team``: public and true error per board."""
    lines = [line for line in output.splitlines() if re.match(rf"\W*{team}\b", line)]
    assert lines, f"no row for {team} in:\n{output}"
    return [float(x) for x in NUMBER.findall(lines[0])]


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"ladderboard {__version__}\n"


def test_without_arguments_shows_the_commands():
    result = runner.invoke(app, [])
    assert "demo" in result.output and "Usage" in result.output


@pytest.fixture(scope="module")
def demo_output() -> str:
    result = runner.invoke(app, ["demo", "--k", "100"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    return result.output


def test_demo_prints_every_team(demo_output):
    for team in [*HONEST_TEAMS, ATTACKER]:
        assert len(row(demo_output, team)) == 4
    assert "FullDisclosure" in demo_output and "ParameterFreeLadder" in demo_output


def test_demo_the_kaggle_board_rewards_the_attacker_and_the_ladder_does_not(demo_output):
    kaggle_public, kaggle_true, ladder_public, ladder_true = row(demo_output, ATTACKER)
    assert kaggle_public < ladder_public
    assert kaggle_public < kaggle_true
    assert abs(kaggle_true - 0.5) < 0.03 and abs(ladder_true - 0.5) < 0.03


def test_demo_honest_teams_are_scored_alike_on_both_boards(demo_output):
    for team in HONEST_TEAMS:
        kaggle_public, kaggle_true, _, ladder_true = row(demo_output, team)
        assert kaggle_true == ladder_true
        assert abs(kaggle_public - kaggle_true) < 0.03


def test_demo_is_reproducible_and_seeded(demo_output):
    again = runner.invoke(app, ["demo", "--k", "100"], env={"COLUMNS": "100"})
    assert again.output == demo_output
    other = runner.invoke(app, ["demo", "--k", "100", "--seed", "1"], env={"COLUMNS": "100"})
    assert other.exit_code == 0 and other.output != demo_output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--n-public", "12000"], "n_public must be smaller"),
        (["--k", "0"], "--k"),
    ],
)
def test_demo_rejects_bad_options(args, message):
    result = runner.invoke(app, ["demo", *args], env={"COLUMNS": "200"})
    assert result.exit_code != 0
    assert message in result.output
