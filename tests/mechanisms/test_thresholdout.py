"""Thresholdout against its definition (Dwork et al. 2015, Science; the
pseudo-code of CACM 2017, Fig. 1), answer by answer."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from scipy import stats

from ladderboard.mechanisms import BudgetExhaustedError, Mechanism, Thresholdout
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


def test_thresholdout_defaults_are_the_papers_experiment():
    board = Thresholdout(budget=5, n=10_000)
    assert (board.threshold, board.noise_scale) == (0.04, 0.01)
    late = Thresholdout(budget=5, random_state=0)
    late.submit(np.zeros(400), train_value=0.0)
    assert (late.threshold, late.noise_scale) == (0.2, 0.05)


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
