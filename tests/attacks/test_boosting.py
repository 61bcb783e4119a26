"""The boosting attack (Blum & Hardt 2015, Sec. 5) and its generalisation
from two candidate submissions (Hardt's 2015 blog post, "A neat
generalization"), with their fresh-data reports."""

import numpy as np
import pytest

from ladderboard.attacks import (
    BoostingResult,
    GeneralizedBoostingResult,
    HoldoutOracle,
    boosting_attack,
    generalized_boosting_attack,
)
from ladderboard.mechanisms import BayesBootLadder, FullDisclosure, ParameterFreeLadder
from ladderboard.random import KeyedStream
from reference_attacks import whackyboost


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


# ------------------------------------------------------------ generalised
class ExactOracle:
    """Releases the exact 0/1 error on ``y``: the blog's ``score``."""

    def __init__(self, y):
        self.y = np.asarray(y)

    def submit(self, prediction):
        return float(np.mean(np.asarray(prediction) != self.y))


def kaggle_split(seed, n_labels=12000, n_public=4000):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n_labels)
    public = rng.permutation(n_labels)[:n_public]
    return labels, public, np.setdiff1d(np.arange(n_labels), public)


def test_equals_the_blog_code_on_the_same_random_matrix():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 500)
    v1 = np.where(rng.random(500) < 0.3, 1 - y, y).astype(float)
    v2 = np.where(rng.random(500) < 0.35, 1 - y, y).astype(float)
    result = generalized_boosting_attack(ExactOracle(y), v1, v2, k=80, random_state=5, keep="mean")
    A = KeyedStream.from_random_state(5).generator(0).integers(0, 2, size=(80, 500), dtype=np.int8)
    expected = whackyboost(v1, v2, 80, ExactOracle(y).submit, A.T.astype(float))
    np.testing.assert_array_equal(result.prediction, expected)
    assert result.n_submissions == 83
    assert result.candidate_scores == (np.mean(v1 != y), np.mean(v2 != y))


def test_ones_and_zeros_climb_full_disclosure_but_not_fresh_data():
    """The blog's reduction to whacky boosting: v1 = 1, v2 = 0 (Ladder Sec. 5.1 sizes)."""
    labels, public, fresh = kaggle_split(11)
    results = {}
    for board in (FullDisclosure(precision=1e-5), ParameterFreeLadder()):
        oracle = HoldoutOracle(labels[public], board, public_index=public, n_labels=12000)
        results[type(board).__name__] = generalized_boosting_attack(
            oracle,
            np.ones(12000, dtype=np.int8),
            np.zeros(12000, dtype=np.int8),
            k=400,
            random_state=0,
            fresh_index=fresh,
            fresh_labels=labels[fresh],
        )
    kaggle, ladder = results["FullDisclosure"], results["ParameterFreeLadder"]
    assert kaggle.keep == "mean" and ladder.keep == "improved"
    assert kaggle.score < 0.45  # released loss clearly below 1/2
    assert ladder.score > 0.47  # the Ladder gives little away
    for result in results.values():
        assert abs(result.true_score - 0.5) < 0.03  # 4.4 standard errors of 8000 coin flips


def test_two_classifiers_climb_above_their_mean_only_on_the_public_board():
    labels, public, fresh = kaggle_split(4)
    rng = np.random.default_rng(5)
    v1, v2 = (np.where(rng.random(12000) < e, 1 - labels, labels) for e in (0.30, 0.34))
    oracle = HoldoutOracle(labels[public], FullDisclosure(), public_index=public, n_labels=12000)
    result = generalized_boosting_attack(
        oracle, v1, v2, k=300, random_state=2, fresh_index=fresh, fresh_labels=labels[fresh]
    )
    bar = np.mean(result.candidate_scores)
    assert result.score < bar - 0.02
    fresh_bar = (np.mean(v1[fresh] != labels[fresh]) + np.mean(v2[fresh] != labels[fresh])) / 2
    assert abs(result.true_score - fresh_bar) < 0.015  # no real gain


def test_greater_is_better_boards_keep_high_scores():
    rng = np.random.default_rng(6)
    y = rng.normal(size=400)
    board = BayesBootLadder(metric="pearson", y_true=y, B=200, random_state=0)
    v1, v2 = y + rng.normal(scale=2, size=400), y + rng.normal(scale=2, size=400)
    result = generalized_boosting_attack(HoldoutOracle(None, board), v1, v2, k=30, random_state=1)
    assert result.keep == "improved"
    best, kept = np.mean(result.candidate_scores), 0
    for r in result.released:  # kept: a release above every one before it and the bar
        kept += r > best
        best = max(best, r)
    assert result.n_kept == kept > 0
    assert result.prediction.shape == (400,)
    assert np.isin(result.prediction, np.concatenate([v1, v2])).all()


def test_class_probability_rows_are_combined_whole():
    y = np.array([0, 1, 2, 1])
    P1, P2 = np.eye(3)[[0, 1, 2, 0]], np.eye(3)[[1, 1, 2, 1]]

    class RowOracle(ExactOracle):
        def submit(self, P):
            return float(np.mean(np.argmax(P, axis=1) != self.y))

    result = generalized_boosting_attack(RowOracle(y), P1, P2, k=20, random_state=0)
    for row in result.prediction:
        assert any((row == P[i]).all() for P in (P1, P2) for i in range(4))


def test_result_is_frozen():
    result = generalized_boosting_attack(ExactOracle([0, 1]), [0, 0], [1, 1], k=2, random_state=0)
    assert isinstance(result, GeneralizedBoostingResult)
    with pytest.raises(AttributeError):
        result.score = 0.0
    with pytest.raises(ValueError):
        result.prediction[0] = 1


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        (([0, 1], [0, 1, 1]), {}, ValueError, "same shape"),
        ((5, [0]), {}, ValueError, "v1 must have"),
        (([0, 1], [1, 0]), {"k": 0}, ValueError, "k must"),
        (([0, 1], [1, 0]), {"keep": "half"}, ValueError, "keep must"),
        (([0, 1], [1, 0]), {"fresh_index": [0]}, ValueError, "together"),
        (
            ([0, 1, 1], [1, 0, 0]),
            {"oracle": HoldoutOracle([0, 1], FullDisclosure())},
            ValueError,
            "oracle.n_labels",
        ),
        (([0, 1], [1, 0]), {"oracle": object()}, TypeError, "oracle must"),
    ],
)
def test_generalized_attack_rejects_bad_arguments(args, kwargs, error, message):
    kwargs = {"k": 2, "random_state": 0, **kwargs}
    oracle = kwargs.pop("oracle", ExactOracle([0, 1]))
    with pytest.raises(error, match=message):
        generalized_boosting_attack(oracle, *args, **kwargs)


def test_boosting_reports_fresh_error_and_submissions():
    labels, public, fresh = kaggle_split(2, 3000, 1000)
    oracle = HoldoutOracle(labels[public], FullDisclosure(), public_index=public, n_labels=3000)
    result = boosting_attack(
        oracle, n_labels=3000, k=50, random_state=0, fresh_index=fresh, fresh_labels=labels[fresh]
    )
    assert result.n_submissions == 51
    assert result.true_score == np.mean(result.prediction[fresh] != labels[fresh])
    assert boosting_attack(oracle, n_labels=3000, k=5, random_state=0).true_score is None
