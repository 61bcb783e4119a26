"""The shifted majority attack (Hardt 2017, Sec. 3-4, Fig. 2)."""

import numpy as np
import pytest

from ladderboard.attacks import (
    HoldoutOracle,
    boosting_attack,
    shifted_majority_attack,
)
from ladderboard.mechanisms import Ladder, ParameterFreeLadder, ShakyLadder
from ladderboard.random import KeyedStream


# ------------------------------------------------------------------ shifted
def _hidden(seed, n=2000):
    return np.random.default_rng(seed).integers(0, 2, n)


def _agreement(result, y):
    hard = result.hard_index
    return float(np.mean(result.prediction[hard] == y[hard]))


def test_shifted_answers_are_exact_on_the_parameter_free_ladder():
    y = _hidden(0, 600)
    easy = np.arange(1, 600, 2)  # every other label is easy
    result = shifted_majority_attack(
        HoldoutOracle(y, ParameterFreeLadder()),
        easy_index=easy,
        easy_labels=y[easy],
        k=60,
        random_state=4,
    )
    hard = result.hard_index
    queries = (
        KeyedStream.from_random_state(4)
        .generator(0)
        .integers(0, 2, size=(60, hard.size), dtype=np.int8)
    )
    errors = np.mean(queries[: result.n_answered] != y[hard], axis=1)
    np.testing.assert_allclose(result.answers, 1 - 2 * errors, atol=1e-12)
    assert result.offsets[0] == easy.size  # the first submission flips the whole easy set
    assert (np.diff(result.offsets) != 0).any()
    np.testing.assert_array_equal(result.prediction[easy], y[easy])


def test_the_shifted_attack_keeps_a_ladder_answering_and_overfits_it():
    """Shaky Ladder Sec. 4: shifted queries extract about (m/n)/step answers from
    a ladder; the plain boosting attack on the same budget gets two or three."""
    shifted = []
    for seed in range(3):
        y = _hidden(seed)
        easy = np.arange(1000)
        result = shifted_majority_attack(
            HoldoutOracle(y, ParameterFreeLadder()),
            easy_index=easy,
            easy_labels=y[easy],
            k=200,
            random_state=seed,
        )
        assert result.n_answered > 30 and result.exhausted
        shifted.append(_agreement(result, y))
        boost = boosting_attack(
            HoldoutOracle(y, ParameterFreeLadder()),
            n_labels=2000,
            k=result.n_submissions,
            random_state=seed,
        )
        assert boost.n_kept < 10
    assert np.mean(shifted) > 0.55  # chance is 0.5; measured 0.557-0.582


@pytest.mark.slow
def test_noise_of_three_over_root_n_neutralises_the_shifted_attack():
    """Shaky Ladder Fig. 3-4: Gaussian noise 3/√n on comparisons and releases."""
    clean, noisy = [], []
    for seed in range(4):
        y = _hidden(seed)
        easy = np.arange(1000)
        shaky = ShakyLadder(noise="gaussian", noise_scale=3 / np.sqrt(2000), random_state=seed)
        for board, out in [(Ladder(eta=0.01), clean), (shaky, noisy)]:
            result = shifted_majority_attack(
                HoldoutOracle(y, board),
                easy_index=easy,
                easy_labels=y[easy],
                k=200,
                random_state=seed,
            )
            out.append(_agreement(result, y) - 0.5)
    assert np.mean(clean) > 0.05
    assert np.mean(noisy) < np.mean(clean) / 2


def test_figure_two_start_and_a_budget_cap():
    y = _hidden(1, 400)
    easy = np.arange(200)
    args = {"easy_index": easy, "easy_labels": y[easy], "k": 5, "random_state": 1}
    literal = shifted_majority_attack(
        HoldoutOracle(y, ParameterFreeLadder()), head_start=None, **args
    )
    quick = shifted_majority_attack(HoldoutOracle(y, ParameterFreeLadder()), **args)
    assert literal.n_answered == quick.n_answered == 5
    assert literal.n_submissions > quick.n_submissions  # Fig. 2 starts higher
    capped = shifted_majority_attack(
        HoldoutOracle(y, ParameterFreeLadder()), max_submissions=20, **args
    )
    assert capped.n_submissions == 20 and capped.exhausted


def test_a_budget_of_a_quarter_of_n_submissions_exhausts_the_ladder():
    """On the Ladder with η = 1/√n the easy set buys about (m/n)/η answers
    (Hardt 2017, Sec. 4). Scans that started above ``c`` rather than above the
    observed threshold ``c - η`` paid about 100 submissions an answer and got a
    fifth of them from this budget, too few to beat blind guessing."""
    n = 2000
    budget = n // 4
    answered, agreement = [], []
    for seed in range(3):
        y = _hidden(seed, n)
        easy = np.arange(n // 2)
        result = shifted_majority_attack(
            HoldoutOracle(y, Ladder(eta=1 / np.sqrt(n), n=n)),
            easy_index=easy,
            easy_labels=y[easy],
            k=budget,
            random_state=seed,
            max_submissions=budget,
        )
        answered.append(result.n_answered)
        agreement.append(_agreement(result, y))
    # (m/n)/η = 0.5 · √2000 ≈ 22 answers
    assert min(answered) >= 18
    assert np.mean(agreement) > 0.54  # chance is 0.5


def test_without_the_learned_margin_each_answer_costs_the_whole_step():
    n = 2000
    y = _hidden(5, n)
    easy = np.arange(n // 2)
    runs = [
        shifted_majority_attack(
            HoldoutOracle(y, Ladder(eta=1 / np.sqrt(n), n=n)),
            easy_index=easy,
            easy_labels=y[easy],
            k=400,
            random_state=5,
            learn_margin=learn,
        )
        for learn in (True, False)
    ]
    learned, naive = (r.n_submissions / r.n_answered for r in runs)
    # a scan of about 3σ (67 labels) against 3σ + η (130 labels), in steps of 6
    assert learned < 0.6 * naive


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"easy_index": [0, 0]}, ValueError, "distinct"),
        ({"easy_index": np.arange(10), "easy_labels": np.zeros(10)}, ValueError, "hard set"),
        ({"easy_labels": [0, 2]}, ValueError, "0/1"),
        ({"easy_labels": [0]}, ValueError, "one label per easy position"),
        ({"shift": 0}, ValueError, "shift must"),
        ({"head_start": -1.0}, ValueError, "head_start must"),
        ({"learn_margin": 1}, TypeError, "learn_margin must"),
        ({"k": "3"}, TypeError, "k must"),
    ],
)
def test_shifted_attack_rejects_bad_arguments(kwargs, error, message):
    args = {"easy_index": [0, 1], "easy_labels": [0, 1], "k": 3, "random_state": 0, **kwargs}
    with pytest.raises(error, match=message):
        shifted_majority_attack(HoldoutOracle(np.zeros(10, int), ParameterFreeLadder()), **args)


def test_shifted_attack_needs_a_board_that_scores_whole_submissions():
    oracle = HoldoutOracle([0, 1], ParameterFreeLadder(), public_index=[0, 2], n_labels=4)
    with pytest.raises(ValueError, match="public_index"):
        shifted_majority_attack(oracle, easy_index=[1], easy_labels=[0], k=2, random_state=0)
