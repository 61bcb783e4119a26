"""The defaults experiment: one quick run feeds every check."""

import pandas as pd
import pytest

from ladderboard.advisor.defaults import ETA_LADDER_LABEL, across_budgets, default_choice
from ladderboard.advisor.grid import default_grid, scoring_rule, shaky_default_label
from ladderboard.experiments import get_experiment, run_experiment
from ladderboard.experiments.defaults import GOAL, SETTINGS, defaults_tasks

pytestmark = pytest.mark.slow  # the shared quick run takes a few seconds


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    return run_experiment("defaults", quick=True, seed=0, out=tmp_path_factory.mktemp("out"))


def test_registered_under_its_alias():
    assert get_experiment("default-mechanism").id == "defaults"


def test_chunks_of_repetitions_make_the_same_run():
    whole = defaults_tasks(reps=3, quick=True, seed=0)
    parts = defaults_tasks(reps=1, quick=True, seed=0) + defaults_tasks(
        reps=2, quick=True, seed=0, first_rep=1
    )
    seeds = sorted(t.kwargs["random_state"] for t in whole)
    assert seeds == sorted(t.kwargs["random_state"] for t in parts)
    assert len(set(seeds)) == len(whole)


def test_the_full_run_plays_fewer_repetitions_at_the_largest_budget_only():
    tasks = defaults_tasks(reps=12, quick=False, seed=0)
    per_k = {k: sum(t.kwargs["k"] == k for t in tasks) for k in (100, 1000, 10_000)}
    assert per_k == {100: 12, 1000: 12, 10_000: 4}
    assert tasks[0].kwargs["k"] == 10_000  # the longest tasks start first
    assert all(t.kwargs["honest"] == (t.kwargs["k"] == 100) for t in tasks)
    assert not any(t.kwargs["baselines"] for t in tasks)


def test_report_states_both_defaults_and_the_table_behind_them(result):
    files = {p.suffix: p for p in result.paths}
    assert set(files) == {".csv", ".png", ".svg", ".md"}
    frame = pd.read_csv(files[".csv"])
    assert sorted(frame.k.unique()) == [10, 30]
    table = across_budgets(frame)
    report = files[".md"].read_text()
    assert report.startswith("# The defaults and the measurements behind them")
    overall = default_choice(table, n=200)
    assert "The recommended default mechanism" in report
    assert f"**{overall.label}**" in report
    assert "The Shaky Ladder's default" in report and "`ShakyLadder()`" in report
    assert GOAL in report
    assert f"For the rule's choice, **{overall.label}**, against {ETA_LADDER_LABEL}" in report
    assert "The goal is **met**" in report or "The goal is **not met**" in report
    assert "Student-t 95 % interval" in report
    for section in (
        "## The fixed references",
        "## Near-duplicate hill-climbing's raw gain",
        "## The worst raw gain over the whole suite (binding attack)",
        "## The rule: excess over the blind reference, lberr, tau",
        f"## Paired difference with {ETA_LADDER_LABEL}",
    ):
        assert section in report
    # Every setting compared, the rows among them, in every table.
    grid = {s.label for s in default_grid(scoring_rule("zero_one"))}
    labels = list(SETTINGS)
    assert set(labels) <= grid
    for row in (
        "PF Ladder",
        "Sig-Ladder α=0.15",
        "Sig-Ladder α=0.01",
        "LadderBoot b=1000",
        "LadderBoot b=100",
        "LadderBoot b=10",
        "BayesBoot",
        shaky_default_label(),
        ETA_LADDER_LABEL,
        "Kaggle 1e-5",
    ):
        assert row in labels
    assert list(table.index) == labels
    for label in labels:
        assert report.count(f"| {label} |") == 4, label
    assert "--quick" in report
