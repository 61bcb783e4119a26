"""Near-duplicate hill-climbing and averaging through near-duplicates: what
they get from each kind of board, on small seeded sizes."""

import itertools
import math

import numpy as np
import pytest

from ladderboard.attacks import (
    AveragingResult,
    HoldoutOracle,
    NearDuplicateResult,
    near_duplicate_attack,
    near_duplicate_averaging_attack,
)
from ladderboard.attacks.hillclimb import _stopping_thresholds, pass_margin, reading_of
from ladderboard.mechanisms import (
    BayesBootLadder,
    FullDisclosure,
    Ladder,
    LadderBoot,
    ParameterFreeLadder,
    ShakyLadder,
    SignificanceLadder,
)

N = 2000


def labels(seed, n=N):
    return np.random.default_rng(seed).integers(0, 2, n)


class Watching:
    """An oracle that also keeps every file it was given (organiser-side)."""

    def __init__(self, oracle):
        self.oracle, self.files = oracle, []

    def __getattr__(self, name):
        return getattr(self.oracle, name)

    def submit(self, prediction):
        self.files.append(np.asarray(prediction).tobytes())
        return self.oracle.submit(prediction)


def climb(mechanism, *, k, seed=0, n=N, **kwargs):
    y = labels(seed, n)
    oracle = Watching(HoldoutOracle(y, mechanism))
    start = np.random.default_rng(seed + 100).integers(0, 2, n)
    result = near_duplicate_attack(oracle, start, k=k, random_state=seed, true_score=0.5, **kwargs)
    return result, oracle


def test_it_climbs_the_parameter_free_ladder_far_above_one_over_root_n():
    """The paired test's threshold shrinks like √m/n with the rows changed, so
    the climb keeps passing: several times 1/√n at k = 400 (Hardt 2017,
    Sec. 3-4)."""
    gains = [climb(ParameterFreeLadder(), k=400, seed=s)[0].raw_gain for s in range(3)]
    assert min(gains) > 3 / math.sqrt(N)


def test_it_gets_little_from_the_fixed_step_ladder():
    """η = 1/√n does not shrink with the rows changed: a few steps at most."""
    for seed in range(3):
        result, _ = climb(Ladder(eta=1 / math.sqrt(N)), k=400, seed=seed)
        assert result.raw_gain < 2.5 / math.sqrt(N)
        assert result.n_adopted <= 3


def test_it_never_submits_the_same_file_twice():
    for mechanism in (ParameterFreeLadder(), LadderBoot(b=10, random_state=0)):
        result, oracle = climb(mechanism, k=300, m=1)  # one row: collisions are likely
        assert len(oracle.files) == result.n_submissions == len(set(oracle.files))


def test_an_exact_ladder_is_read_from_its_changed_releases():
    result, oracle = climb(ParameterFreeLadder(), k=200)
    assert isinstance(result, NearDuplicateResult) and result.reading == "changes"
    # The file it selects is the one the board holds as best, and the board
    # shows that file's public error.
    assert oracle.holdout_score(result.prediction) == pytest.approx(result.displayed)
    assert result.n_adopted == oracle.n_improvements - 1  # the start is the first


def test_full_disclosure_shows_the_best_release():
    result, oracle = climb(FullDisclosure(), k=200)
    assert result.reading == "best"
    assert result.displayed == result.released.min()
    assert oracle.holdout_score(result.prediction) == result.displayed
    assert result.raw_gain > 2 / math.sqrt(N)


def test_the_bootstrap_board_is_read_through_its_draws_and_fished():
    """LadderBoot (Chaibub Neto et al. 2016, Alg. 4) hides its decisions, but
    the draws betray a pass; the last files fish for a low draw."""
    result, oracle = climb(LadderBoot(b=1000, random_state=3), k=400, seed=1)
    assert result.reading == "draws"
    assert result.n_adopted >= 3
    assert 1 <= result.n_fished <= 20
    assert result.n_submissions <= 400
    assert result.raw_gain > 2 / math.sqrt(N)
    # What it selects is close to what the board holds: its public error is
    # within a few rows of the board's final draws.
    assert oracle.holdout_score(result.prediction) == pytest.approx(result.displayed, abs=0.01)


def test_bootstrap_noise_costs_the_attacker_but_does_not_stop_it():
    """b = 10 draws are 10× noisier than b = 1000's: fewer passes are seen."""
    quiet = [climb(LadderBoot(b=1000, random_state=s), k=400, seed=s)[0] for s in range(3)]
    loud = [climb(LadderBoot(b=10, random_state=s), k=400, seed=s)[0] for s in range(3)]
    assert np.mean([r.n_adopted for r in loud]) < np.mean([r.n_adopted for r in quiet])
    assert min(r.raw_gain for r in loud) > 0


def test_the_shaky_ladder_is_read_from_changed_releases():
    result, _ = climb(ShakyLadder(n=N, random_state=0), k=300)
    assert result.reading == "changes" and result.n_fished == 0
    assert result.n_adopted >= 1


def test_a_metric_board_is_climbed_in_its_own_direction():
    """BayesBootLadder on accuracy (Chaibub Neto et al. 2016, Alg. 5): higher
    is better, and the gain is the displayed accuracy minus the truth."""
    y = labels(4)
    board = BayesBootLadder(metric="accuracy", y_true=y, B=100, random_state=0)
    start = np.zeros(N, dtype=np.int8)
    result = near_duplicate_attack(
        HoldoutOracle(None, board), start, k=300, random_state=0, true_score=0.5
    )
    assert result.displayed > 0.5 and result.raw_gain == pytest.approx(result.displayed - 0.5)
    assert result.raw_gain > 2 / math.sqrt(N)


def test_only_the_public_rows_count_when_the_file_is_longer():
    """In a competition a file predicts every row and the board scores a hidden
    part: the attacker flips rows everywhere, scaled to the whole file."""
    rng = np.random.default_rng(5)
    y_all = rng.integers(0, 2, 3 * N)
    public = rng.choice(3 * N, N, replace=False)
    private = np.setdiff1d(np.arange(3 * N), public)
    board = ParameterFreeLadder()
    oracle = HoldoutOracle(y_all[public], board, public_index=public, n_labels=3 * N)
    result = near_duplicate_attack(
        oracle,
        np.zeros(3 * N, dtype=np.int8),
        k=300,
        random_state=0,
        fresh_index=private,
        fresh_labels=y_all[private],
    )
    assert result.raw_gain > 2 / math.sqrt(N)
    assert abs(result.true_score - 0.5) < 0.03  # the private rows are untouched chance


def test_the_stopping_thresholds_fall_with_the_files_left():
    v = _stopping_thresholds(0.4, 0.01, 20)
    assert v[0] == 0.4 and all(b < a for a, b in itertools.pairwise(v))
    # It asks for less than the expected minimum of 20 draws: waiting costs.
    assert v[20] > 0.4 - 0.01 * math.sqrt(2 * math.log(20))


def test_the_board_model_comes_from_public_rules():
    y = labels(0, 100)
    assert pass_margin(HoldoutOracle(y, ParameterFreeLadder()), 100) == (1.0, 0.0)
    assert pass_margin(HoldoutOracle(y, Ladder(eta=0.1)), 100) == (0.0, pytest.approx(10.0))
    c, a = pass_margin(HoldoutOracle(y, SignificanceLadder(alpha=0.01)), 100)
    assert c == pytest.approx(2.365, abs=0.01) and a == 0.0
    assert reading_of(HoldoutOracle(y, LadderBoot())) == "draws"
    assert reading_of(HoldoutOracle(y, FullDisclosure())) == "best"


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"start": [0, 2, 1]}, ValueError),
        ({"start": np.zeros(5)}, ValueError),  # not the oracle's length
        ({"m": 0}, ValueError),
        ({"reading": "peek"}, ValueError),
        ({"true_score": 0.5, "fresh_index": [0], "fresh_labels": [1]}, ValueError),
    ],
)
def test_bad_arguments_are_refused_before_any_submission(kwargs, error):
    oracle = Watching(HoldoutOracle(labels(0, 4), ParameterFreeLadder()))
    kwargs = {"start": np.zeros(4, dtype=np.int8), **kwargs}
    with pytest.raises(error):
        near_duplicate_attack(oracle, k=5, random_state=0, **kwargs)
    assert oracle.files == []


# ----------------------------------------------------- averaging, near-duplicates
def test_near_duplicate_averaging_estimates_the_best_with_distinct_files():
    """Each copy differs from the model in one row, so a refusal of identical
    files lets all of them through, and their mean is as good as identical
    files' (Chaibub Neto et al. 2016, Discussion)."""
    y = labels(7)
    model = np.where(np.random.default_rng(8).random(N) < 0.3, 1 - y, y)
    oracle = Watching(HoldoutOracle(y, LadderBoot(b=1, random_state=0)))
    oracle.submit(model)
    truth = oracle.holdout_score(model)
    result = near_duplicate_averaging_attack(oracle, model, T=200, random_state=1, true_score=truth)
    assert isinstance(result, AveragingResult)
    assert len(set(oracle.files)) == len(oracle.files) == 201
    single = np.sqrt(0.3 * 0.7 / N)  # sd of one b = 1 draw
    assert result.standard_error == pytest.approx(single / np.sqrt(200), rel=0.25)
    assert abs(result.error) < 3.5 * result.standard_error


def test_near_duplicate_averaging_of_real_predictions_jitters_them():
    rng = np.random.default_rng(2)
    y = rng.normal(size=300)
    model = y + rng.normal(scale=0.5, size=300)
    oracle = Watching(HoldoutOracle(y, LadderBoot(b=10, random_state=0), loss="squared"))
    near_duplicate_averaging_attack(oracle, model, T=50, random_state=0, rows=3)
    assert len(set(oracle.files)) == 50 and model.tobytes() not in oracle.files


def test_a_budget_beyond_the_distinct_files_stops_with_a_sentence():
    oracle = HoldoutOracle(labels(0, 2), ParameterFreeLadder())
    with pytest.raises(RuntimeError, match="no new file"):
        near_duplicate_attack(oracle, np.zeros(2, dtype=np.int8), k=10, random_state=0, m=1)
