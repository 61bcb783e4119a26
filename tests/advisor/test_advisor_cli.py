"""``ladderboard advise``, registered on a fresh Typer app and run in-process."""

import json

import pytest
import typer
from typer.testing import CliRunner

from ladderboard.advisor.cli import SCORE_CHOICES, register
from ladderboard.advisor.grid import SCORE_NAMES, default_grid, scoring_rule
from ladderboard.losses import LOSSES
from ladderboard.mechanisms.traits import families
from ladderboard.recommended import RECOMMENDED

runner = CliRunner()


def _app():
    app = typer.Typer()
    register(app)

    @app.callback()
    def main():
        """A root, so that ``advise`` is a subcommand as in ``ladderboard``."""

    return app


VALID = "score must be one of zero_one, log_loss, squared (registered names)"


@pytest.mark.parametrize(
    ("args", "option", "message"),
    [
        (["--n", "9", "--budget", "10"], "--n", "n must be at least 10, got 9"),
        (["--n", "100", "--budget", "0"], "--budget", "budget must be at least 1"),
        (["--n", "100", "-k", "5", "--score", "f1"], "--score", VALID),
        (["--n", "100", "-k", "5", "--reps", "0"], "--reps", "reps must be"),
        (["--n", "100", "-k", "5", "--jobs", "0"], "--jobs", "greater than or equal to 1"),
        (["--n", "100", "-k", "5", "--family", "kaggle"], "--family", "unknown family"),
    ],
)
def test_bad_options_fail_clearly(args, option, message):
    result = runner.invoke(_app(), ["advise", *args], terminal_width=200)
    assert result.exit_code == 2
    assert option in result.output and message in result.output


@pytest.mark.parametrize("spelling", ["accuracy", "log-loss", "mse", "error", "Zero_One"])
def test_only_registered_score_names_are_taken(spelling):
    """Other spellings of a score are refused, the valid names in one line."""
    result = runner.invoke(_app(), ["advise", "--n", "100", "-k", "5", "--score", spelling])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if "score must be" in line]
    assert len(lines) == 1 and "zero_one, log_loss, squared" in lines[0]
    assert f"got {spelling!r}" in result.output


def test_the_old_option_names_are_gone():
    for old in (["--submissions", "5"], ["-k", "5", "--metric", "zero_one"]):
        result = runner.invoke(_app(), ["advise", "--n", "100", *old])
        assert result.exit_code == 2 and "No such option" in result.output


def test_missing_options_are_named():
    result = runner.invoke(_app(), ["advise", "--n", "100"], terminal_width=200)
    assert result.exit_code == 2 and "--budget" in result.output


def test_the_cli_knows_the_advisors_scores_and_families():
    """The families are the cards' (one definition); the grid has a setting
    of each, and the CLI refuses any other with the list."""
    grid = default_grid(scoring_rule("zero_one"))
    assert [s.family for s in grid if s.family not in families()] == []
    assert set(families()) == {s.family for s in grid}
    result = runner.invoke(_app(), ["advise", "--n", "100", "-k", "5", "--family", "kaggle"])
    assert result.exit_code == 2 and "shaky-ladder" in result.output
    assert SCORE_CHOICES == SCORE_NAMES
    assert set(SCORE_CHOICES) <= set(LOSSES)


SMALL = ["--n", "100", "--budget", "12", "--reps", "1", "--seed", "2", "--family", "shaky-ladder"]


def test_advise_piped_prints_the_whole_table_and_its_sentences_apart():
    """Piped, stdout is the table alone, as TSV with whole cells; the rule,
    the recommendation and the command go to stderr."""
    result = runner.invoke(_app(), ["advise", *SMALL])  # not a terminal: TSV
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split("\t") == [
        "setting",
        "binding attack",
        "excess gain",
        "95 % interval",
        "gain",
        "lberr",
        "tau",
        "share released",
        "delay",
        "pick",
    ]
    rows = {line.split("\t")[0]: line.split("\t") for line in lines[1:]}
    assert {"Kaggle 1e-5", "Kaggle 1/√n", "Shaky σ=1 λ=2"} <= set(rows)
    assert all(len(row) == 10 for row in rows.values())
    assert rows["Kaggle 1e-5"][1] in {"boosting", "generalized boosting", "majority"} | {
        "shifted majority"
    }
    picks = {row[9]: name for name, row in rows.items() if row[9]}
    assert set(picks) <= {"recommended", "Shaky pick", "default"} and "recommended" in picks
    assert "…" not in result.stdout
    err = result.stderr
    assert f"Recommended: {picks['recommended']}" in err
    assert "Rule:" in err and "Among the Shaky Ladder settings: Shaky" in err
    assert "Excess gain:" in err and "lberr" in err
    assert (
        f"ladderboard's default for a competition of unknown size and budget: {RECOMMENDED.label}"
        in err
    )
    assert (
        "Reproduce with: ladderboard advise --n 100 --budget 12 --score zero_one "
        "--reps 1 --seed 2 --family shaky-ladder"
    ) in err


def test_advise_as_json_gives_the_rows_and_the_recommendation():
    result = runner.invoke(_app(), ["advise", *SMALL, "--score", "log_loss", "--json"])
    assert result.exit_code == 0, result.output
    advice = json.loads(result.output)
    assert advice["score"] == "log_loss" and advice["budget"] == 12
    settings = [row["setting"] for row in advice["settings"]]
    assert settings[0] == "Kaggle 1e-5" and advice["recommended"] in settings
    assert advice["recommended_shaky"].startswith("Shaky")
    assert advice["default"] == RECOMMENDED.label
    assert {
        "binding_attack",
        "gain",
        "excess_gain",
        "excess_se",
        "excess_interval",
        "lberr",
        "tau",
        "share_released",
        "median_delay",
        "eligible",
    } <= set(advice["settings"][0])
    assert advice["interval"] == 0.95 and advice["target_se"] is None
    first = advice["settings"][0]
    assert first["excess_se"] is None  # one repetition: no standard error
    assert first["binding_attack"] in {"boosting", "generalized boosting"}
    assert advice["command"].endswith("--score log_loss --reps 1 --seed 2 --family shaky-ladder")


def test_target_se_not_reached_is_said():
    result = runner.invoke(
        _app(),
        ["advise", *SMALL[:-2], "--family", "ladder", "--target-se", "1e-9", "--max-reps", "2"],
    )
    assert result.exit_code == 0, result.output
    assert "Target SE 1e-09 not reached" in result.stderr and "after 2 repetitions" in result.stderr
    assert "--reps 2 --seed 2" in result.stderr
    bad = runner.invoke(_app(), ["advise", *SMALL, "--target-se", "0"], terminal_width=200)
    assert bad.exit_code == 2 and "--target-se" in bad.output


def test_advise_squared_as_json_lists_the_step_forward_attack():
    """Every setting's row names the attacks run against it, the step-forward
    attack (A6) among them for the squared loss."""
    args = ["--n", "60", "--budget", "12", "--reps", "1", "--seed", "2"]
    result = runner.invoke(
        _app(), ["advise", *args, "--score", "squared", "--family", "ladder", "--json"]
    )
    assert result.exit_code == 0, result.output
    advice = json.loads(result.output)
    for row in advice["settings"]:
        assert {"Freedman", "step-forward"} <= set(row["attacks"]), row["setting"]
        assert set(row["attacks"]["step-forward"]) == {"gain", "excess_gain"}
