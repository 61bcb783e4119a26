"""The ``ladderboard`` command, run in-process; the demo starts a real server."""

import re
import subprocess
import sys
from importlib.resources import files

import pytest
from typer.testing import CliRunner

import ladderboard.recommended as recommended
from ladderboard import __version__
from ladderboard.cli import app
from ladderboard.demo import ATTACKER, CLIMBER, HONEST_TEAMS
from ladderboard.recommended import Recommended

runner = CliRunner()
NUMBER = re.compile(r"\d+\.\d+")
SMALL = ["demo", "--budget", "150", "--teams", "2"]  # enough for the attackers to climb


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
def demo_runs() -> dict[str, str]:
    """The demo's output, run twice and once with another seed, with the
    default board pinned to the fixed-step Ladder, a deterministic board: the
    server draws each competition's key at random, so a stochastic board's
    releases differ from run to run whatever the seed
    (``tests/test_demo_attacker.py`` plays the default as recommended)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            recommended, "RECOMMENDED", Recommended("Ladder", "ladder", per_root_n={"eta": 1.0})
        )
        first = runner.invoke(app, SMALL, env={"COLUMNS": "160"})
        again = runner.invoke(app, SMALL, env={"COLUMNS": "160"})
        other = runner.invoke(app, [*SMALL, "--seed", "1"], env={"COLUMNS": "160"})
    for result in (first, again, other):
        assert result.exit_code == 0, result.output
    return {"first": first.output, "again": again.output, "other": other.output}


@pytest.fixture(scope="module")
def demo_output(demo_runs) -> str:
    return demo_runs["first"]


@pytest.mark.slow
def test_demo_prints_both_boards_of_every_team(demo_output):
    for team in [*list(HONEST_TEAMS)[:2], ATTACKER, CLIMBER]:
        assert len(row(demo_output, team)) == 4
    assert list(HONEST_TEAMS)[2] not in demo_output
    assert "Kaggle public" in demo_output and "Default public" in demo_output
    assert "The default board, Ladder (eta = 0.0765):" in demo_output


@pytest.mark.slow  # with every test of the module-wide demo run
def test_demo_the_kaggle_board_rewards_the_attackers_and_the_default_does_not(demo_output):
    for team in (ATTACKER, CLIMBER):
        kaggle_public, kaggle_private, _, default_private = row(demo_output, team)
        assert kaggle_public < kaggle_private
        assert default_private <= kaggle_private
    words = " ".join(demo_output.split())  # the console wraps its lines
    kaggle, default = words.split("The default board")
    assert kaggle.count("the board flatters it by") == 2
    assert default.count("the attack won nothing (+0.000)") == 2  # on the Ladder


@pytest.mark.slow  # with every test of the module-wide demo run
def test_demo_honest_models_are_far_better_than_chance(demo_output):
    for team in list(HONEST_TEAMS)[:2]:
        assert max(row(demo_output, team)) < 0.2


@pytest.mark.slow
def test_demo_is_reproducible_and_seeded(demo_runs):
    assert demo_runs["again"] == demo_runs["first"]
    assert demo_runs["other"] != demo_runs["first"]


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
