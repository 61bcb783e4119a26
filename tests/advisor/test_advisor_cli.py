"""``ladderboard advise``, registered on a fresh Typer app and run in-process."""

import pytest
import typer
from typer.testing import CliRunner

from ladderboard.advisor.cli import FAMILIES as CLI_FAMILIES
from ladderboard.advisor.cli import METRIC_CHOICES, register
from ladderboard.advisor.grid import FAMILIES, scoring_rule

runner = CliRunner()


def _app():
    app = typer.Typer()
    register(app)

    @app.callback()
    def main():
        """A root, so that ``advise`` is a subcommand as in ``ladderboard``."""

    return app


@pytest.mark.parametrize(
    ("args", "option", "message"),
    [
        (["--n", "9", "--submissions", "10"], "--n", "n must be at least 10, got 9"),
        (["--n", "100", "--submissions", "0"], "--submissions", "submissions must be at least 1"),
        (["--n", "100", "--submissions", "5", "--metric", "f1"], "--metric", "metric must be"),
        (["--n", "100", "--submissions", "5", "--reps", "0"], "--reps", "reps must be"),
        (["--n", "100", "--submissions", "5", "--family", "kaggle"], "--family", "unknown family"),
    ],
)
def test_bad_options_fail_clearly(args, option, message):
    result = runner.invoke(_app(), ["advise", *args], terminal_width=200)
    assert result.exit_code == 2
    assert option in result.output and message in result.output


def test_missing_options_are_named():
    result = runner.invoke(_app(), ["advise", "--n", "100"], terminal_width=200)
    assert result.exit_code == 2 and "--submissions" in result.output


def test_the_cli_knows_the_advisors_metrics_and_families():
    assert CLI_FAMILIES == FAMILIES
    for metric in METRIC_CHOICES:
        scoring_rule(metric)


def test_advise_prints_the_table_the_recommendation_and_the_command():
    args = ["--n", "100", "--submissions", "12", "--reps", "1", "--seed", "2"]
    args += ["--family", "shaky-ladder"]
    result = runner.invoke(_app(), ["advise", *args], terminal_width=200)
    assert result.exit_code == 0, result.output
    out = result.output
    for text in ("strongest attack", "Kaggle 1e-5", "Shaky σ=1 λ=2", "Recommended:", "Rule:"):
        assert text in out
    assert "Among the Shaky Ladder settings: Shaky" in out
    assert (
        "Reproduce with: ladderboard advise --n 100 --submissions 12 --metric accuracy "
        "--reps 1 --seed 2 --family shaky-ladder"
    ) in out
