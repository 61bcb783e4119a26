"""E12: the reusable holdout's variable selection (Dwork et al. 2015, Figs. 1-2)."""

import math

import pytest

from ladderboard.experiments import run_experiment
from ladderboard.experiments.e12_reusable_holdout import ARMS, QUICK_KS, QUICK_N, e12_cell

KMAX = QUICK_KS[-1]
T = 4 / math.sqrt(QUICK_N)


@pytest.fixture(scope="module")
def quick():
    return run_experiment("e12", quick=True, seed=0).frame


def _mean(frame, figure, arm, column, k=KMAX):
    part = frame[(frame.figure == figure) & (frame.arm == arm) & (frame.k == k)]
    return float(part[column].mean())


def test_the_standard_holdout_overfits_where_there_is_no_signal(quick):
    """Fig. 1A: over seeds 0-5 of the quick run the standard holdout answered
    0.67-0.69 at k = 100 and fresh data scored 0.50-0.51."""
    assert _mean(quick, 1, "holdout", "holdout") > 0.6
    assert _mean(quick, 1, "holdout", "train") > 0.6
    assert abs(_mean(quick, 1, "holdout", "fresh") - 0.5) < 0.03


def test_thresholdout_answers_within_its_noise_of_a_coin(quick):
    """Fig. 1B: its answer is the noisy holdout's or the training estimate
    within its threshold T = 4/√n of it; over seeds 0-5 the mean answer at
    k = 100 was 0.506-0.520."""
    assert abs(_mean(quick, 1, "thresholdout", "holdout") - 0.5) < T / 2
    assert abs(_mean(quick, 1, "thresholdout", "fresh") - 0.5) < 0.03


def test_a_ladder_guards_only_the_queries_it_answers(quick):
    """Selecting on training alone, the ladder's release stays near 0.5; with
    the correlations checked on the plain holdout first, it releases the
    overfitted accuracy."""
    assert _mean(quick, 1, "PF Ladder", "holdout") < 0.55
    assert _mean(quick, 1, "PF Ladder, plain check", "holdout") > 0.6


def test_with_signal_the_standard_holdout_overstates_and_thresholdout_does_not(quick):
    """Fig. 2: over seeds 0-5 the standard holdout's answer exceeded fresh by
    0.11-0.14 at k = 100; Thresholdout's differed by at most 0.022."""
    gap = _mean(quick, 2, "holdout", "holdout") - _mean(quick, 2, "holdout", "fresh")
    assert gap > 0.05
    guarded = _mean(quick, 2, "thresholdout", "holdout") - _mean(quick, 2, "thresholdout", "fresh")
    assert abs(guarded) < 0.04
    assert _mean(quick, 2, "holdout", "fresh", k=QUICK_KS[2]) > 0.6


def test_a_cell_is_reproducible_and_checks_its_figure():
    one = e12_cell(figure=2, n=300, d=400, ks=(5, 10), reps=1, random_state=3)
    two = e12_cell(figure=2, n=300, d=400, ks=(5, 10), reps=1, random_state=3)
    assert one.equals(two) and set(one.arm) == set(ARMS)
    with pytest.raises(ValueError, match="figure must be 1 or 2"):
        e12_cell(figure=3, n=300, d=400, ks=(5,), reps=1, random_state=0)


def test_the_outputs(tmp_path):
    run_experiment("e12", quick=True, reps=1, seed=1, out=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "e12.csv",
        "e12.md",
        "e12.png",
        "e12.svg",
    ]
    report = (tmp_path / "e12.md").read_text()
    assert "63 ± 0.4%" in report and "Thresholdout" in report
