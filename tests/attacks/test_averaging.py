"""The averaging attack (Chaibub Neto et al. 2016, Discussion)."""

import numpy as np
import pytest

from ladderboard.attacks import AveragingResult, HoldoutOracle, averaging_attack
from ladderboard.mechanisms import BayesBootLadderBoot, FullDisclosure, LadderBoot


def test_averaging_cuts_the_error_like_one_over_root_t():
    """LadderBoot b = 1 (the noisiest): RMS error of the mean of T = 16 releases
    is about a quarter of a single release's, over 150 independent boards."""
    errors = {1: [], 16: []}
    rng = np.random.default_rng(0)
    for rep in range(150):
        y = rng.integers(0, 2, 400)
        model = np.where(rng.random(400) < 0.3, 1 - y, y)
        oracle = HoldoutOracle(y, LadderBoot(b=1, random_state=rep))
        truth = oracle.holdout_score(model)
        for T in errors:
            errors[T].append(averaging_attack(oracle, model, T=T, true_score=truth).error)
    rms = {T: np.sqrt(np.mean(np.square(e))) for T, e in errors.items()}
    assert 3.0 < rms[1] / rms[16] < 5.3  # sqrt(16) = 4
    assert abs(np.mean(errors[16])) < 3 * rms[16] / np.sqrt(150)  # unbiased
    assert rms[1] == pytest.approx(np.sqrt(0.3 * 0.7 / 400), rel=0.2)  # sd(l)/sqrt(b n)


def test_a_deterministic_board_gives_nothing_to_average():
    oracle = HoldoutOracle([0, 1, 1, 0], FullDisclosure())
    result = averaging_attack(oracle, [0, 1, 0, 0], T=5, true_score=0.25)
    assert isinstance(result, AveragingResult)
    assert result.error == 0.0 and result.standard_error == 0.0
    assert result.n_submissions == 5 and result.released.tolist() == [0.25] * 5


def test_the_metric_based_bootstrap_board_is_averaged_too():
    rng = np.random.default_rng(1)
    y = rng.normal(size=300)
    model = y + rng.normal(size=300)
    board = BayesBootLadderBoot(metric="pearson", y_true=y, B=50, b=5, random_state=0)
    oracle = HoldoutOracle(None, board)
    result = averaging_attack(oracle, model, T=60, true_score=oracle.holdout_score(model))
    assert np.std(result.released) > 0.005  # single releases are noisy
    assert abs(result.error) < 4 * result.standard_error + 0.01


def test_jitter_makes_every_copy_different_and_is_replayable():
    seen = []

    class Spy:
        def submit(self, prediction):
            seen.append(np.array(prediction))
            return 0.0

    averaging_attack(Spy(), np.zeros(5), T=3, jitter=0.1, random_state=2)
    assert len({tuple(s) for s in seen}) == 3
    first = [s.copy() for s in seen]
    seen.clear()
    averaging_attack(Spy(), np.zeros(5), T=3, jitter=0.1, random_state=2)
    np.testing.assert_array_equal(first, seen)
    assert averaging_attack(Spy(), np.zeros(5), T=1).error is None


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"T": 0}, ValueError, "T must"),
        ({"T": 2.0}, TypeError, "T must"),
        ({"jitter": -1.0}, ValueError, "jitter must"),
        ({"jitter": 0.1, "prediction": np.array([0, 1])}, ValueError, "real-valued"),
        ({"true_score": "0.5"}, TypeError, "true_score must"),
        ({"prediction": 3.0}, ValueError, "scalar"),
    ],
)
def test_averaging_rejects_bad_arguments(kwargs, error, message):
    args = {"prediction": np.zeros(2), "T": 2, **kwargs}
    with pytest.raises(error, match=message):
        averaging_attack(HoldoutOracle([0.0, 1.0], FullDisclosure(), loss="squared"), **args)
