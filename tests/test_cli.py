"""The ``ladderboard`` command, run in-process; the demo starts a real server."""

import re
import subprocess
import sys
from importlib.resources import files

import pytest
from typer.testing import CliRunner

from ladderboard import __version__
from ladderboard.cli import app
from ladderboard.demo import ATTACKER, HONEST_TEAMS

runner = CliRunner()
NUMBER = re.compile(r"\d+\.\d+")
SMALL = ["demo", "--budget", "150", "--teams", "2"]  # enough for the attacker to climb


def row(output: str, team: str) -> list[float]:
    """The scores in the table row of ``team``: public and private on each board."""
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
    result = runner.invoke(app, SMALL, env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.slow
def test_demo_prints_both_boards_of_every_team(demo_output):
    for team in [*list(HONEST_TEAMS)[:2], ATTACKER]:
        assert len(row(demo_output, team)) == 4
    assert list(HONEST_TEAMS)[2] not in demo_output
    assert "Kaggle public" in demo_output and "Ladder public" in demo_output


@pytest.mark.slow  # with every test of the module-wide demo run
def test_demo_the_kaggle_board_rewards_the_attacker_and_the_ladder_does_not(demo_output):
    kaggle_public, kaggle_private, ladder_public, ladder_private = row(demo_output, ATTACKER)
    assert kaggle_public < ladder_public
    assert kaggle_public < kaggle_private
    assert ladder_private < kaggle_private
    assert "climbed from its model's" in demo_output
    assert "stayed at its model's" in demo_output


@pytest.mark.slow  # with every test of the module-wide demo run
def test_demo_honest_models_are_far_better_than_chance(demo_output):
    for team in list(HONEST_TEAMS)[:2]:
        assert max(row(demo_output, team)) < 0.2


@pytest.mark.slow
def test_demo_is_reproducible_and_seeded(demo_output):
    again = runner.invoke(app, SMALL, env={"COLUMNS": "160"})
    assert again.output == demo_output
    other = runner.invoke(app, [*SMALL, "--seed", "1"], env={"COLUMNS": "160"})
    assert other.exit_code == 0 and other.output != demo_output


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--teams", "9"], "n_teams must be at most"), (["--budget", "0"], "--budget")],
)
def test_demo_rejects_bad_options(args, message):
    result = runner.invoke(app, ["demo", *args], env={"COLUMNS": "200"})
    assert result.exit_code != 0
    assert message in result.output


def test_python_dash_m_runs_the_command():
    done = subprocess.run(
        [sys.executable, "-m", "ladderboard", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert __version__ in done.stdout


def test_the_package_says_it_is_typed():
    assert files("ladderboard").joinpath("py.typed").is_file()


def test_shell_completion_is_offered():
    done = CliRunner().invoke(app, ["--help"])
    assert "--install-completion" in done.output and "--show-completion" in done.output
