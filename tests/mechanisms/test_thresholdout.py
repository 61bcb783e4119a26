"""Thresholdout against its definition (Dwork et al. 2015, Science; the
pseudo-code of CACM 2017, Fig. 1), answer by answer."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from scipy import stats

from ladderboard.mechanisms import (
    MECHANISMS,
    BudgetExhaustedError,
    GaussianThresholdout,
    Mechanism,
    Thresholdout,
    parameters_of,
)
from ladderboard.random import KeyedStream


def tenths(k: int) -> np.ndarray:
    """A 0/1 loss vector on 10 points with holdout loss ``k/10``."""
    return np.r_[np.ones(k), np.zeros(10 - k)]


def test_thresholdout_follows_the_pseudo_code_by_hand():
    # The draws of key 3 (printed once from KeyedStream.from_random_state(3)):
    # index 0, γ ~ Lap(2σ); index t, (η, ξ, γ) ~ (Lap(4σ), Lap(σ), Lap(2σ)), σ = 0.01.
    stream = KeyedStream.from_random_state(3)
    gamma_0 = stream.generator(0).laplace(0.0, 0.02)
    draws = {t: stream.generator(t).laplace(0.0, [0.04, 0.01, 0.02]) for t in (1, 2, 3)}
    assert gamma_0 == pytest.approx(-1.3736020e-05, abs=1e-12)
    assert draws[1] == pytest.approx([-0.08091444, -0.00344514, 0.01142125], abs=1e-8)
    assert draws[2] == pytest.approx([0.00295781, 0.00648932, -0.00009768], abs=1e-8)
    assert draws[3] == pytest.approx([-0.01775291, -0.02011293, -0.0647611], abs=1e-8)

    board = Thresholdout(threshold=0.05, noise_scale=0.01, budget=2, random_state=3)
    # T̂ = 0.05 + γ = 0.0499863. Query 1: |0.3 − 0.28| = 0.02 > T̂ + η = −0.0309281,
    # so the holdout answers, 0.3 + ξ = 0.2965549; B = 1, T̂ = 0.05 + 0.0114213.
    first = board.submit(tenths(3), train_value=0.28)
    assert first.score == pytest.approx(0.29655486, abs=1e-8)
    assert (first.improved, first.index, board.budget_left) == (True, 1, 1)
    # Query 2: 0.02 > 0.0614213 + 0.0029578 = 0.0643791 fails: the training estimate.
    second = board.submit(tenths(3), train_value=0.28)
    assert (second.score, second.improved, board.budget_left) == (0.28, False, 1)
    # Query 3: |0.2 − 0.25| = 0.05 > 0.0614213 − 0.0177529 = 0.0436684: the holdout,
    # 0.2 − 0.0201129 = 0.1798871; B = 0.
    third = board.submit(tenths(2), train_value=0.25)
    assert third.score == pytest.approx(0.17988707, abs=1e-8)
    assert (third.improved, board.budget_left, board.best_score, board.best_index) == (
        True,
        0,
        0.2,
        3,
    )
    # B < 1: ⊥, and nothing changes.
    state = board.get_state(secrets=True)
    with pytest.raises(BudgetExhaustedError, match=r"budget of 2 .* is spent"):
        board.submit(tenths(1), train_value=0.1)
    assert board.get_state(secrets=True) == state and board.n_submissions == 3


def test_thresholdout_with_negligible_noise_is_the_plain_threshold_rule():
    board = Thresholdout(threshold=0.1, noise_scale=1e-12, budget=3, random_state=0)
    answers = [
        board.submit(tenths(k), train_value=v).score
        for k, v in [(5, 0.45), (5, 0.41), (5, 0.39), (4, 0.4), (2, 0.0)]
    ]
    assert answers == pytest.approx([0.45, 0.41, 0.5, 0.4, 0.2], abs=1e-9)
    assert board.budget_left == 1


def test_thresholdout_without_a_training_estimate_asks_the_holdout():
    board = Thresholdout(threshold=0.5, noise_scale=1e-12, budget=2, random_state=0)
    assert board.submit(tenths(4)).score == pytest.approx(0.4, abs=1e-9)
    assert board.submit(tenths(6)).score == pytest.approx(0.6, abs=1e-9)
    assert board.budget_left == 0
    with pytest.raises(BudgetExhaustedError):
        board.submit(tenths(4))


def test_thresholdout_defaults_are_4_and_a_quarter_over_root_n():
    board = Thresholdout(budget=5, n=10_000)
    assert (board.threshold, board.noise_scale) == (0.04, 0.0025)
    late = Thresholdout(budget=5, random_state=0)
    late.submit(np.zeros(400), train_value=0.0)
    assert (late.threshold, late.noise_scale) == (0.2, 0.0125)


def test_the_default_answers_queries_that_do_not_overfit_from_training():
    """Training and holdout estimates that differ by sampling error alone
    (sd ≈ 0.65/√n for a 0/1 loss at 0.3) stay well inside T = 4/√n; the
    comparison noise must not push them out (at σ = 1/√n, its sd 6.3/√n
    sent about one in five to the holdout)."""
    n, queries = 2500, 400
    rng = np.random.default_rng(5)
    board = Thresholdout(budget=queries, n=n, random_state=5)
    for _ in range(queries):
        losses = (rng.random(n) < 0.3).astype(float)
        train_value = float((rng.random(n) < 0.3).mean())
        board.submit(losses, train_value=train_value)
    assert queries - board.budget_left <= 0.05 * queries


def test_the_default_answers_an_overfit_query_from_the_holdout():
    """A classifier of training accuracy 0.61 and holdout accuracy 0.50 at
    n = 10,000 (E12's overfit classifiers): 0.11 from its training estimate,
    against T = 0.04; at σ = 1/√n the noise let about one in ten through."""
    losses = np.r_[np.ones(5000), np.zeros(5000)]
    answers = [
        Thresholdout(budget=1, n=10_000, random_state=seed).submit(losses, train_value=0.39).score
        for seed in range(300)
    ]
    assert sum(answer == 0.39 for answer in answers) <= 2


@pytest.mark.parametrize("klass", [Thresholdout, GaussianThresholdout])
def test_an_answer_from_the_holdout_is_clipped_to_the_loss_range(klass):
    params = {"budget": 1} if klass is Thresholdout else {}
    noise = {"noise_scale": 0.5} if klass is Thresholdout else {"tolerance": 0.5}
    answers = [
        klass(threshold=0.0, n=10, random_state=seed, **params, **noise)
        .submit(tenths(int(seed % 2) * 10))
        .score
        for seed in range(40)
    ]
    assert all(0.0 <= answer <= 1.0 for answer in answers)
    assert 0.0 in answers and 1.0 in answers


@pytest.mark.parametrize(
    ("value", "error", "match"),
    [(1.5, ValueError, "train_value"), (-0.1, ValueError, "train_value"),
     (float("nan"), ValueError, "train_value"), ("0.3", TypeError, "train_value")],
)  # fmt: skip
def test_thresholdout_bad_training_estimate_changes_nothing(value, error, match):
    board = Thresholdout(budget=3, n=10, random_state=1)
    board.submit(tenths(3), train_value=0.3)
    state = copy.deepcopy(board.get_state(secrets=True))
    with pytest.raises(error, match=match):
        board.submit(tenths(3), train_value=value)
    assert board.get_state(secrets=True) == state


@pytest.mark.parametrize("cut", [0, 1, 3])
def test_thresholdout_state_round_trip_with_training_estimates(cut):
    rng = np.random.default_rng(4)
    queries = [
        (tenths(int(k)), float(v))
        for k, v in zip(rng.integers(0, 10, 8), rng.random(8), strict=True)
    ]
    whole = Thresholdout(budget=8, n=10, random_state=9)
    expected = [whole.submit(x, train_value=v) for x, v in queries]
    first = Thresholdout(budget=8, n=10, random_state=9)
    for x, v in queries[:cut]:
        first.submit(x, train_value=v)
    key = first.get_state(secrets=True)["key"]
    state = json.loads(json.dumps(first.get_state()))
    restored = Mechanism.from_state(state, key=key)
    assert isinstance(restored, Thresholdout)
    assert [restored.submit(x, train_value=v) for x, v in queries[cut:]] == expected[cut:]
    assert restored.budget_left == whole.budget_left


@pytest.mark.slow
def test_thresholdout_holdout_answers_carry_laplace_noise_of_scale_sigma():
    sigma = 0.02
    errors = []
    for seed in range(1500):
        board = Thresholdout(threshold=0.0, noise_scale=sigma, budget=1, random_state=seed)
        errors.append(board.submit(tenths(3)).score - 0.3)
    assert stats.kstest(errors, stats.laplace(scale=sigma).cdf).pvalue > 0.001


def test_gaussian_thresholdout_follows_the_science_code_by_hand():
    # The draws of key 3 at index t, scaled by τ = 0.01: (ζ, ξ) ~ N(0, τ²) each.
    stream = KeyedStream.from_random_state(3)
    draws = {t: 0.01 * stream.generator(t).standard_normal(2) for t in (1, 2, 3)}
    board = GaussianThresholdout(threshold=0.05, tolerance=0.01, random_state=3)
    queries = [(tenths(3), 0.28), (tenths(3), 0.2), (tenths(2), None)]
    for t, (losses, train_value) in enumerate(queries, start=1):
        zeta, xi = draws[t]
        holdout = losses.mean()
        release = board.submit(losses, train_value=train_value)
        # The threshold's noise is drawn afresh for every query, used or not.
        if train_value is not None and not abs(holdout - train_value) > 0.05 + zeta:
            assert release.score == train_value
        else:
            assert release.score == pytest.approx(holdout + xi, abs=1e-12)
    assert board.n_submissions == 3 and board.best_score == 0.2


def test_gaussian_thresholdout_has_no_budget_and_its_defaults_are_the_experiments():
    assert [p.name for p in parameters_of("gaussian-thresholdout")] == ["threshold", "tolerance"]
    assert MECHANISMS["gaussian-thresholdout"] is GaussianThresholdout
    board = GaussianThresholdout(n=10_000, random_state=0)
    assert (board.threshold, board.tolerance) == (0.04, 0.01)
    small = GaussianThresholdout(random_state=1)
    for _ in range(300):  # far more answers from the holdout than any budget above
        small.submit(tenths(3))
    assert (small.n_submissions, small.threshold, small.tolerance) == (300, 4 / 10**0.5, 10**-0.5)


def test_gaussian_thresholdout_holdout_answers_carry_gaussian_noise_of_sd_tau():
    tau = 0.02
    errors = [
        GaussianThresholdout(threshold=0.0, tolerance=tau, random_state=seed)
        .submit(tenths(3), train_value=0.1)
        .score
        - 0.3
        for seed in range(600)
    ]
    assert stats.kstest(errors, stats.norm(scale=tau).cdf).pvalue > 0.001
    assert np.std(errors) == pytest.approx(tau, rel=0.1)


@pytest.mark.parametrize(
    ("value", "error"), [(1.5, ValueError), (float("nan"), ValueError), ("0.3", TypeError)]
)
def test_gaussian_thresholdout_bad_input_changes_nothing(value, error):
    board = GaussianThresholdout(n=10, random_state=1)
    board.submit(tenths(3), train_value=0.3)
    state = copy.deepcopy(board.get_state(secrets=True))
    with pytest.raises(error, match="train_value"):
        board.submit(tenths(3), train_value=value)
    with pytest.raises(ValueError, match=r"losses in \[0, 1\]"):
        board.submit(tenths(3) * 2, train_value=0.3)
    assert board.get_state(secrets=True) == state
