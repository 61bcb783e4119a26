"""E10: the spread of LadderBoot's releases (Chaibub Neto et al. 2016, S4,
Figs. S12-S13): 1/√b, smaller for better predictions, the mechanism's own
distribution, and what the averaging attack (A7) wins back."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ladderboard.attacks import HoldoutOracle, averaging_attack
from ladderboard.experiments import run_experiment
from ladderboard.experiments._bootstrap_sweeps import spread_of_mean_of_means
from ladderboard.experiments.e10_ladderboot_spread import (
    CORRELATIONS,
    KNN,
    LASSO,
    e10_repetition,
    release_draws,
)
from ladderboard.experiments.runner import write_outputs
from ladderboard.mechanisms import LadderBoot


@pytest.fixture(scope="module")
def run():
    return run_experiment("e10", quick=True, seed=0)


@pytest.fixture(scope="module")
def quick(run):
    return run.frame


def test_the_spread_falls_like_one_over_root_b(quick):
    """sd(b = 10) / sd(b = 1000) should be √100 = 10; over seeds 0-4 of the
    quick run (1000 releases per cell) every cell's ratio was within 9.27-10.89,
    and the measured sd over sd_pop(l)/√(b n) within 0.925-1.063."""
    low = quick[quick.b == 10].set_index(["rep", "model"]).release_sd
    high = quick[quick.b == 1000].set_index(["rep", "model"]).release_sd
    ratio = low / high.loc[low.index]
    assert ratio.between(8.5, 11.5).all(), ratio.describe()
    fit = quick.release_sd / quick.theory_sd
    assert fit.between(0.88, 1.12).all(), fit.describe()


def test_better_predictions_spread_less(quick):
    """S13: the spread falls monotonically as the predictions improve. Mean sd
    over the quick run's 3 designs, every b, over seeds 0-4: always decreasing;
    the mean exact MSE of the noisy truths ran from 1.33-1.99 down to 0.12-0.18."""
    noisy = quick[quick.target_r.notna()]
    for b in (10, 1000):
        sd = noisy[noisy.b == b].groupby("target_r").release_sd.mean().sort_index()
        assert sd.is_monotonic_decreasing, sd
    mse = noisy.groupby("target_r").mse.mean().sort_index()
    assert mse.is_monotonic_decreasing
    assert mse.iloc[0] > 1.2 and mse.iloc[-1] < 0.25
    assert set(quick.model) == {f"r={r:.2f}" for r in CORRELATIONS} | {LASSO, KNN}


def test_the_averaging_attack_recovers_the_score(quick):
    """A7: T = 20 resubmissions should cut the error by about √20 = 4.5; over
    seeds 0-4 the RMS gain at each b was 3.1-8.0 (RMS over 30 predictions)."""
    for b, cell in quick.groupby("b"):
        single = math.sqrt(np.mean(cell.single_error**2))
        averaged = math.sqrt(np.mean(cell.averaged_error**2))
        assert averaged < single / 2, (b, single, averaged)


def test_the_vectorised_draws_match_the_mechanisms_releases():
    """LadderBoot resubmitted 400 times (its releases after rejections are fresh
    draws for the best) against :func:`release_draws`: both spreads agree with
    sd_pop(l)/√(b n) within 12 % (the sd of an sd estimate from 400 draws is
    about 3.5 %)."""
    rng = np.random.default_rng(2)
    y = rng.normal(size=60)
    prediction = y + rng.normal(scale=0.8, size=60)
    losses = (prediction - y) ** 2
    for b in (10, 1000):
        oracle = HoldoutOracle(y, LadderBoot(b=b, random_state=b), loss="squared")
        mechanism = averaging_attack(oracle, prediction, T=400).released
        vectorised = release_draws(losses, b, 400, np.random.default_rng(b))
        theory = spread_of_mean_of_means(losses, b)
        for draws in (mechanism, vectorised):
            assert abs(draws.std(ddof=1) / theory - 1) < 0.12
            assert abs(draws.mean() - losses.mean()) < 4 * theory / math.sqrt(400)


@settings(max_examples=25, deadline=None)
@given(
    values=st.lists(st.floats(0, 10, allow_nan=False), min_size=2, max_size=30),
    b=st.integers(1, 10_000),
)
def test_theory_spread_is_population_sd_over_root_bn(values, b):
    losses = np.array(values)
    expected = losses.std() / math.sqrt(b * losses.size)
    assert math.isclose(spread_of_mean_of_means(losses, b), expected, rel_tol=1e-12)
    assert math.isclose(
        spread_of_mean_of_means(losses, 4 * b), expected / 2, rel_tol=1e-9, abs_tol=1e-300
    )


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="bs"):
        e10_repetition(rep=0, bs=(), random_state=0)
    with pytest.raises(ValueError, match="T"):
        e10_repetition(rep=0, T=1, random_state=0)
    with pytest.raises(TypeError, match="releases"):
        e10_repetition(rep=0, releases=2.5, random_state=0)


@pytest.mark.slow
def test_the_figure_and_the_report(run, tmp_path):
    result = write_outputs(run, tmp_path)
    names = sorted(p.name for p in result.paths)
    assert names == ["e10.csv", "e10.md", "e10.png", "e10.svg"]
    report = (tmp_path / "e10.md").read_text()
    assert report.startswith("# E10: ")
    for paper in (
        "1.64 to 0.15",
        "0.18 to 0.92",
        "| lasso MSE | 0.79 |",
        "| knn (k=3) MSE | 1.12 |",
    ):
        assert paper in report
    assert "Measured (mean sd over designs, every b): held." in report
