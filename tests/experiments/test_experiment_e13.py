"""E13: a randomized search on a small validation set, plain against guarded."""

import math

import pytest
from scipy import stats

from ladderboard.experiments import RunInfo, get_experiment, run_experiment
from ladderboard.experiments.e13_selection import ARMS, QUICK_N_ITER


@pytest.fixture(scope="module")
def quick():
    return run_experiment("e13", quick=True, seed=0).frame


@pytest.mark.slow
def test_the_table_has_one_row_per_split_and_arm(quick):
    assert list(quick.columns) == [
        "rep",
        "arm",
        "n_iter",
        "validation",
        "validation_exact",
        "test",
        "optimism",
        "best_index",
        "holdout_answers",
        "n_train",
        "n_validation",
        "n_test",
    ]
    assert len(quick) == 4 * len(ARMS) and set(quick.n_iter) == {QUICK_N_ITER}
    assert (quick.optimism == quick.validation - quick.test).all()


@pytest.mark.slow
def test_the_plain_validation_set_is_optimistic(quick):
    """Over seeds 0-5 of the quick run the plain set's mean optimism was
    0.019-0.071."""
    plain = quick[quick.arm == "full disclosure"]
    assert plain.optimism.mean() > 0.01
    assert (plain.validation == plain.validation_exact).all()


@pytest.mark.slow
def test_the_pf_ladder_never_releases_more_than_the_plain_best(quick):
    """It releases the score of a candidate it accepted, and the plain set's
    best is the best of all of them: split by split, never above."""
    plain = quick[quick.arm == "full disclosure"].set_index("rep").validation
    ladder = quick[quick.arm == "PF Ladder"].set_index("rep").validation
    assert (ladder <= plain + 1e-9).all()


@pytest.mark.slow
def test_thresholdout_with_large_noise_selects_its_noise(quick):
    """At 4/√n on 100 rows the noise scale is 0.1: the best release is the
    largest noise draw. Over seeds 0-5 its optimism was 0.13-0.32, always
    above the plain set's."""
    by_arm = quick.groupby("arm").optimism.mean()
    assert by_arm["Thresholdout 4/√n"] > by_arm["full disclosure"]


def test_arms_of_one_split_share_the_split_and_candidates():
    tasks = get_experiment("e13").tasks(reps=3, quick=True, seed=0)
    assert len({t.kwargs["random_state"] for t in tasks}) == 1
    assert [t.kwargs["first_rep"] for t in tasks] == [0, 1, 2]


@pytest.mark.slow
def test_the_outputs(tmp_path):
    run_experiment("e13", quick=True, reps=2, seed=1, out=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "e13.csv",
        "e13.md",
        "e13.png",
        "e13.svg",
    ]
    report = (tmp_path / "e13.md").read_text()
    assert "optimism" in report and "GuardedRandomizedSearch" in report


@pytest.mark.slow
def test_the_report_gives_student_t_intervals(quick):
    """4 splits: the half-width is t_{0.975, 3} · sd/√4, 1.62 times the normal
    1.96 · sd/√4, and the report says which it is."""
    report = get_experiment("e13").report(quick, RunInfo(4, True, 0, 1, "loky", 1.0))
    assert "95 % Student-t interval (3 degrees of freedom)" in report
    assert "normal" not in report
    optimism = quick[quick.arm == "full disclosure"].optimism
    half = stats.t.ppf(0.975, 3) * optimism.std(ddof=1) / math.sqrt(4)
    assert f"{optimism.mean():.3f} ± {half:.3f}" in report
