"""The boosting attack (Blum & Hardt 2015, Sec. 5) and the oracle it talks to."""

import numpy as np
import pytest

from ladderboard.attacks import BoostingResult, HoldoutOracle, boosting_attack
from ladderboard.mechanisms import FullDisclosure, ParameterFreeLadder
from ladderboard.random import KeyedStream


class ScriptedOracle:
    """Releases a fixed sequence of scores and records what it was sent."""

    def __init__(self, scores):
        self.scores = list(scores)
        self.seen = []

    def submit(self, prediction):
        self.seen.append(np.array(prediction))
        return self.scores[len(self.seen) - 1]


def guesses(random_state, k, n_labels):
    rng = KeyedStream.from_random_state(random_state).generator(0)
    return rng.integers(0, 2, size=(k, n_labels), dtype=np.int8), rng


# ---------------------------------------------------------------------- oracle
def test_oracle_scores_the_public_labels_only():
    mechanism = FullDisclosure(precision=1e-5)
    oracle = HoldoutOracle([1, 1, 0, 0], mechanism, public_index=[0, 2, 4, 6], n_labels=8)
    # public positions 0, 2, 4, 6 hold 1, 1, 0, 1: one wrong; the others are ignored
    assert oracle.submit([1, 0, 1, 1, 0, 1, 1, 0]) == 0.25
    assert mechanism.n_submissions == 1


def test_oracle_returns_only_the_released_score():
    oracle = HoldoutOracle([0, 1, 0, 1], ParameterFreeLadder())
    first = oracle.submit([0, 0, 0, 0])
    assert type(first) is float and first == 0.5
    assert oracle.submit([1, 1, 1, 1]) == 0.5  # same risk: the ladder repeats itself


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"labels_public": [0, 2]}, "labels_public must hold only 0/1"),
        ({"labels_public": []}, "must not be empty"),
        ({"labels_public": [[0, 1]]}, "1-D"),
        ({"public_index": [0, 1]}, "n_labels is required"),
        ({"public_index": [0, 0], "n_labels": 3}, "distinct"),
        ({"public_index": [0, 3], "n_labels": 3}, "distinct positions in"),
        ({"public_index": [0.0, 1.0], "n_labels": 3}, "integer"),
        ({"n_labels": 5}, "n_labels must equal"),
    ],
)
def test_oracle_rejects_bad_construction(kwargs, message):
    args = {"labels_public": [0, 1], "mechanism": FullDisclosure(), **kwargs}
    with pytest.raises(ValueError, match=message):
        HoldoutOracle(**args)


def test_oracle_needs_a_mechanism():
    with pytest.raises(TypeError, match="mechanism"):
        HoldoutOracle([0, 1], object())


@pytest.mark.parametrize(
    ("prediction", "message"),
    [([0, 1, 1], "length n_labels=2"), ([0, 0.5], "0/1"), (["a", "b"], "0/1")],
)
def test_oracle_rejects_bad_predictions_without_submitting(prediction, message):
    mechanism = FullDisclosure()
    oracle = HoldoutOracle([0, 1], mechanism)
    with pytest.raises(ValueError, match=message):
        oracle.submit(prediction)
    assert mechanism.n_submissions == 0


# ---------------------------------------------------------------------- attack
def test_keep_half_takes_the_majority_of_guesses_at_or_below_one_half():
    oracle = ScriptedOracle([0.49, 0.51, 0.5, 0.48, 0.52, 0.47])
    result = boosting_attack(oracle, n_labels=50, k=5, random_state=3, keep="half")
    u, _ = guesses(3, 5, 50)
    kept = u[[0, 2, 3]]
    assert result.n_kept == 3 and result.keep == "half"
    np.testing.assert_array_equal(result.prediction, (kept.sum(axis=0) >= 2).astype(np.int8))
    np.testing.assert_array_equal(oracle.seen[-1], result.prediction)
    assert result.score == 0.47
    np.testing.assert_array_equal(result.released, [0.49, 0.51, 0.5, 0.48, 0.52])


def test_keep_improved_takes_the_guesses_that_lowered_the_best_release():
    # running best starts at 1/2: 0.6 no, 0.49 yes, 0.49 no (equal), 0.47 yes, 0.5 no
    oracle = ScriptedOracle([0.6, 0.49, 0.49, 0.47, 0.5, 0.46])
    result = boosting_attack(oracle, n_labels=40, k=5, random_state=4, keep="improved")
    u, _ = guesses(4, 5, 40)
    assert result.n_kept == 2
    # two kept vectors: a coordinate is 1 only where both are 1 (ties go to 0)
    np.testing.assert_array_equal(result.prediction, u[1] & u[3])


def test_no_guess_kept_submits_a_fresh_random_vector():
    oracle = ScriptedOracle([0.7, 0.8, 0.9, 0.5])
    result = boosting_attack(oracle, n_labels=64, k=3, random_state=5, keep="half")
    _, rng = guesses(5, 3, 64)
    assert result.n_kept == 0
    np.testing.assert_array_equal(result.prediction, rng.integers(0, 2, 64, dtype=np.int8))


def test_auto_keeps_half_on_full_disclosure_and_improved_otherwise():
    labels = np.zeros(20, dtype=np.int8)
    for mechanism, rule in [(FullDisclosure(), "half"), (ParameterFreeLadder(), "improved")]:
        result = boosting_attack(HoldoutOracle(labels, mechanism), n_labels=20, k=3, random_state=0)
        assert result.keep == rule
    assert boosting_attack(ScriptedOracle([0.5] * 3), n_labels=5, k=2, random_state=0).keep == (
        "improved"
    )


def test_result_is_frozen_and_read_only():
    result = boosting_attack(ScriptedOracle([0.4] * 3), n_labels=5, k=2, random_state=0)
    assert isinstance(result, BoostingResult)
    with pytest.raises(AttributeError):
        result.score = 0.0
    with pytest.raises(ValueError):
        result.prediction[0] = 1


def test_same_seed_same_attack():
    labels = np.random.default_rng(7).integers(0, 2, 500)
    runs = [
        boosting_attack(HoldoutOracle(labels, FullDisclosure()), n_labels=500, k=60, random_state=9)
        for _ in range(2)
    ]
    np.testing.assert_array_equal(runs[0].prediction, runs[1].prediction)
    assert runs[0].score == runs[1].score


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"k": 0}, ValueError, "k must"),
        ({"n_labels": 0}, ValueError, "n_labels must"),
        ({"k": 2.0}, TypeError, "k must"),
        ({"keep": "all"}, ValueError, "keep must"),
    ],
)
def test_attack_rejects_bad_arguments(kwargs, error, message):
    args = {"n_labels": 5, "k": 2, "random_state": 0, **kwargs}
    with pytest.raises(error, match=message):
        boosting_attack(ScriptedOracle([0.5] * 3), **args)


def test_the_attack_overfits_full_disclosure_but_not_fresh_data():
    """Ladder Sec. 5.1: N = 12000 labels of which n = 4000 public, k = 400."""
    rng = np.random.default_rng(11)
    n_labels, n_public = 12000, 4000
    labels = rng.integers(0, 2, n_labels)
    public = rng.permutation(n_labels)[:n_public]
    fresh = np.setdiff1d(np.arange(n_labels), public)
    results = {}
    for mechanism in (FullDisclosure(precision=1e-5), ParameterFreeLadder()):
        oracle = HoldoutOracle(labels[public], mechanism, public_index=public, n_labels=n_labels)
        results[type(mechanism).__name__] = boosting_attack(
            oracle, n_labels=n_labels, k=400, random_state=0
        )
    for result in results.values():
        true_error = np.mean(result.prediction[fresh] != labels[fresh])
        assert abs(true_error - 0.5) < 0.03  # 4.4 standard errors of 8000 coin flips
    # the authors' anchors at k = 400 (Blum & Hardt 2015, Sec. 5.1, Fig. 3):
    # Kaggle 0.427, Ladder 0.484
    assert results["FullDisclosure"].score < 0.45
    assert 0.46 < results["ParameterFreeLadder"].score <= 0.5
