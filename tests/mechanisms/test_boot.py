"""Statistical checks, with fixed seeds and tolerances set well outside the
run-to-run spread, of LadderBoot and the Bayesian-bootstrap ladders (Chaibub
Neto et al. 2016, Alg. 4-6)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import reference
from ladderboard import bootstrap
from ladderboard.bootstrap import (
    bootstrap_count_matrix,
    bootstrap_mean_of_means,
    chunk_rows,
    empirical_support,
    limit_threads,
)
from ladderboard.mechanisms import BayesBootLadder, BayesBootLadderBoot, LadderBoot
from ladderboard.mechanisms.boot import successes_needed
from ladderboard.metrics import get_metric

# ------------------------------------------------------------------- LadderBoot


def test_ladder_boot_release_mean_and_variance():
    rng = np.random.default_rng(7)
    n, b = 400, 10
    best = (rng.random(n) < 0.3).astype(float)
    worse = np.ones(n)
    board = LadderBoot(alpha=0.15, b=b, random_state=8)
    board.submit(best)
    releases = np.array([board.submit(worse).score for _ in range(3000)])
    assert board.best_index == 1  # every later release is a fresh draw of the best
    sd = best.std() / math.sqrt(b * n)
    assert releases.mean() == pytest.approx(best.mean(), abs=4 * sd / math.sqrt(3000))
    assert releases.std() == pytest.approx(sd, rel=0.06)


def test_ladder_boot_decisions_follow_alg4():
    rng = np.random.default_rng(9)
    for alpha in (0.01, 0.15, 0.5):
        seq = [(rng.random(30) < p).astype(float) for p in rng.uniform(0.1, 0.6, 25)]
        board = LadderBoot(alpha=alpha, b=5, random_state=0)
        got = [board.submit(v).improved for v in seq]
        assert got == reference.ladder_boot_decisions(seq, alpha)


# ------------------------------------------------------------- BayesBootLadder


def test_bayes_boot_posterior_matches_normal_approximation():
    """For MSE the statistic is a mean: the Bayesian-bootstrap posterior of
    Δ = mean(d) is close to N(d̄, σ²_pop/n), so P(H1) ≈ Φ(-d̄ / (σ/√n))."""
    rng = np.random.default_rng(16)
    n = 500
    y = rng.normal(size=n)
    board = BayesBootLadder(metric="mse", y_true=y, B=4000, random_state=17)
    best = y + rng.normal(scale=1.0, size=n)
    board.submit(best)
    for scale in (0.9, 0.95, 1.0, 1.05):
        new = y + rng.normal(scale=scale, size=n)
        d = (new - y) ** 2 - (best - y) ** 2
        expected = stats.norm.cdf(-d.mean() / (d.std() / math.sqrt(n)))
        assert board.posterior_probability(new, 2) == pytest.approx(expected, abs=0.035)


def test_bayes_boot_threshold_is_posterior_odds():
    rng = np.random.default_rng(18)
    y = rng.normal(size=200)
    best = y + rng.normal(size=200)
    new = y + rng.normal(scale=0.93, size=200)
    for threshold in (99.0, 5.67, 1.0):
        board = BayesBootLadder(
            metric="mae", y_true=y, B=500, po_threshold=threshold, random_state=19
        )
        board.submit(best)
        p = board.posterior_probability(new, 2)
        odds = math.inf if p == 1 else p / (1 - p)
        assert board.submit(new).improved == (odds >= threshold)


@pytest.mark.parametrize("B", [1, 2, 3, 7, 100, 1000, 1001])
@pytest.mark.parametrize("threshold", [0.01, 0.5, 1.0, 5.67, 99.0, 1e9])
def test_bayes_boot_successes_needed_is_the_least_passing_count(B, threshold):
    board = BayesBootLadder(metric="mse", y_true=np.arange(4.0), B=B, po_threshold=threshold)
    passing = [c for c in range(B + 1) if c / B >= threshold * (1 - c / B)]
    assert board.successes_needed == min(passing)
    assert passing == list(range(min(passing), B + 1))  # monotone: a threshold on counts


@pytest.mark.parametrize("metric", ["mse", "ccc", "auc", "log_loss"])
def test_bayes_boot_decisions_are_the_posterior_odds_of_all_replicates(metric):
    """The early-stopping test decides as thresholding P(H1|D) computed from all
    B replicates of the same draws, along a whole sequence of submissions."""
    rng = np.random.default_rng(23)
    n = 400
    y = (rng.random(n) < 0.4).astype(float)
    board = BayesBootLadder(metric=metric, y_true=y, B=300, random_state=24)
    shadow = BayesBootLadder(metric=metric, y_true=y, B=300, random_state=24)
    for t in range(25):
        p = np.clip(y * rng.uniform(0.5, 0.7) + rng.uniform(0.1, 0.4, n), 0.01, 0.99)
        if t > 0:
            post = shadow.posterior_probability(p, t)
            assert board.submit(p).improved == (post >= 5.67 * (1 - post))
        else:
            board.submit(p)
        shadow.set_state(board.get_state(secrets=True))


class _CountingGenerator:
    """A generator that counts the rows of weights drawn from it."""

    def __init__(self, generator: np.random.Generator, drawn: list[int]):
        self._generator, self._drawn = generator, drawn

    def standard_exponential(self, *, out: np.ndarray) -> np.ndarray:
        self._drawn.append(out.shape[0])
        return self._generator.standard_exponential(out=out)


def _weight_rows_drawn(n: int, threads: int) -> tuple[int, bool]:
    """Rows of weights a BayesBootLadder (B = 1000) draws to reject a clearly
    worse submission at holdout size ``n``, and whether it was rejected."""
    rng = np.random.default_rng(31)
    y = rng.normal(size=n)
    board = BayesBootLadder(metric="mse", y_true=y, B=1000, random_state=32)
    board.submit(y + rng.normal(scale=0.5, size=n))
    drawn: list[int] = []
    keyed = board._generator
    board._generator = lambda index, sub=0: _CountingGenerator(keyed(index, sub), drawn)  # type: ignore[method-assign]
    with limit_threads(threads):
        improved = board.submit(y + rng.normal(scale=2.0, size=n)).improved
    return sum(drawn), improved


@pytest.mark.parametrize("threads", [1, 2])
def test_bayes_boot_early_stop_draws_do_not_grow_with_n(threads):
    """A clearly worse submission is settled after B - needed + 1 = 150 failing
    replicates whatever n: the chunks not needed draw nothing (each chunk has
    its own keyed stream, so that changes none of the drawn weights)."""
    settle = 1000 - successes_needed(1000, 5.67) + 1
    drawn = {}
    for n in (10**3, 10**5):
        drawn[n], improved = _weight_rows_drawn(n, threads)
        assert not improved
        block = chunk_rows(n, 1000, bootstrap.BLOCK_BYTES)
        # The settling block, and at most one more block per other thread.
        assert settle <= drawn[n] <= settle - 1 + threads * block
    assert drawn[10**5] <= drawn[10**3]


@pytest.mark.parametrize("metric", ["log_loss", "mse", "accuracy"])
def test_mean_metric_bootstrap_release_matches_resampled_rows_in_distribution(metric):
    """For a plain mean the release draws one multinomial instead of b rows of
    counts; both are the mean of b bootstrap replicates of the metric."""
    rng = np.random.default_rng(25)
    y = (rng.random(150) < 0.5).astype(float)
    p = np.clip(0.5 + (y - 0.5) * rng.uniform(0, 0.8, 150), 0.01, 0.99)
    m = get_metric(metric)
    fast_rng, slow_rng = np.random.default_rng(26), np.random.default_rng(27)
    fast = [m.bootstrap_mean(y, p, 5, fast_rng) for _ in range(2000)]
    counts = [bootstrap_count_matrix(150, 5, slow_rng) for _ in range(2000)]
    slow = [float(np.mean(m.score(y, p, sample_weight=c))) for c in counts]
    assert stats.ks_2samp(fast, slow).pvalue > 0.001
    assert np.mean(fast) == pytest.approx(m.score(y, p), abs=4 * np.std(fast) / math.sqrt(2000))


def test_bayes_boot_ladder_boot_shares_alg5_decisions():
    """With one random stream M8's test draws are M7's (Alg. 6 = Alg. 5's test),
    so they accept the same submissions; M8 releases a bootstrap mean instead."""
    rng = np.random.default_rng(28)
    y = rng.normal(size=300)
    m7 = BayesBootLadder(metric="ccc", y_true=y, B=200, random_state=29)
    m8 = BayesBootLadderBoot(metric="ccc", y_true=y, B=200, b=20, random_state=29)
    for _ in range(30):
        p = y + rng.normal(scale=rng.uniform(0.6, 1.2), size=300)
        a, b = m7.submit(p), m8.submit(p)
        assert a.improved == b.improved
        assert m7.best_score == m8.best_score


def test_bayes_boot_refuses_undefined_baseline():
    y = np.arange(10.0)
    with pytest.raises(ValueError, match="undefined on the baseline"):
        BayesBootLadder(metric="pearson", y_true=y, baseline=np.full(10, y.mean()))
    board = BayesBootLadder(
        metric="mse", y_true=y, baseline=np.full(10, y.mean()), B=200, random_state=0
    )
    assert board.best_score == pytest.approx(np.var(y))
    assert board.submit(np.full(10, 100.0)).improved is False


def test_grouped_bootstrap_matches_full_multinomial_for_discrete_losses():
    x = (np.random.default_rng(20).random(300) < 0.3).astype(float)
    support = empirical_support(x)
    assert support is not None and support[0].tolist() == [0.0, 1.0]
    rng_a, rng_b = np.random.default_rng(21), np.random.default_rng(22)
    grouped = [bootstrap_mean_of_means(x, 10, rng_a, support=support) for _ in range(3000)]
    full = [bootstrap_mean_of_means(x, 10, rng_b) for _ in range(3000)]
    assert stats.ks_2samp(grouped, full).pvalue > 0.001
    assert np.std(grouped) == pytest.approx(x.std() / math.sqrt(3000), rel=0.06)
