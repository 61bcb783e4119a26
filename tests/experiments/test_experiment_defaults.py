"""The defaults experiment: one quick run feeds every check."""

import pandas as pd
import pytest

from ladderboard.advisor.defaults import across_budgets, default_choice
from ladderboard.experiments import get_experiment, run_experiment
from ladderboard.experiments.defaults import defaults_tasks

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
    assert [t.kwargs["random_state"] for t in whole] == [t.kwargs["random_state"] for t in parts]
    assert len({t.kwargs["random_state"] for t in whole}) == len(whole)


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
    header = (
        "| setting | worst k | binding attack | excess gain | 95 % interval | top over k | k=10 |"
    )
    assert header in report
    for label in table.index:
        assert f"| {label} |" in report
    assert "--quick" in report
