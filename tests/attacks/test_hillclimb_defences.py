"""Near-duplicate hill-climbing against the two defences measured by
``benchmarks/bench_defences.py``: a distance guard (the attacker steps over
it with ``min_rows``) and a floor on the paired-test ladders."""

import math

import numpy as np
import pytest

from ladderboard.attacks import HoldoutOracle, near_duplicate_attack
from ladderboard.attacks.hillclimb import pass_margin
from ladderboard.mechanisms import (
    BayesBootLadder,
    LadderBoot,
    ParameterFreeLadder,
    SignificanceLadder,
)

N = 2000


class Keeping:
    """An oracle that also keeps every file it was given (organiser-side)."""

    def __init__(self, oracle):
        self.oracle, self.files = oracle, []

    def __getattr__(self, name):
        return getattr(self.oracle, name)

    def submit(self, prediction):
        self.files.append(np.array(prediction, dtype=np.int8))
        return self.oracle.submit(prediction)


def climb(mechanism, *, k, seed=0, **kwargs):
    y = np.random.default_rng(seed).integers(0, 2, N)
    oracle = Keeping(HoldoutOracle(y, mechanism))
    start = np.random.default_rng(seed + 100).integers(0, 2, N)
    result = near_duplicate_attack(oracle, start, k=k, random_state=seed, true_score=0.5, **kwargs)
    return result, oracle


@pytest.mark.parametrize(
    "mechanism", [ParameterFreeLadder(), LadderBoot(b=10, random_state=0)], ids=["exact", "draws"]
)
def test_with_min_rows_no_file_is_within_d_rows_of_an_earlier_one(mechanism):
    """A guard refusing files within ``d = 20`` rows of an earlier file never
    fires on an attacker that changes at least 21, confirming files included."""
    result, oracle = climb(mechanism, k=150, min_rows=21)
    assert result.flips[1:].min() >= 21
    files = np.stack(oracle.files)
    for t in range(1, len(files)):
        assert np.count_nonzero(files[:t] != files[t], axis=1).min() > 20


@pytest.mark.parametrize("min_rows", [0, N + 1, 2.5])
def test_a_bad_min_rows_is_refused_before_any_submission(min_rows):
    y = np.random.default_rng(0).integers(0, 2, N)
    oracle = Keeping(HoldoutOracle(y, ParameterFreeLadder()))
    with pytest.raises((TypeError, ValueError), match="min_rows"):
        near_duplicate_attack(
            oracle, np.zeros(N, dtype=np.int8), k=5, min_rows=min_rows, random_state=0
        )
    assert oracle.files == []


def test_the_attackers_model_adds_the_floor_in_rows():
    y = np.zeros(100, dtype=np.int8)
    floor = 0.1
    assert pass_margin(HoldoutOracle(y, ParameterFreeLadder(floor=floor)), 100) == (
        1.0,
        pytest.approx(10.0),
    )
    c, a = pass_margin(HoldoutOracle(y, LadderBoot(floor=floor)), 100)
    assert c == pytest.approx(LadderBoot().critical_value(100)) and a == pytest.approx(10.0)
    board = BayesBootLadder(metric="accuracy", y_true=y, floor=floor)
    assert pass_margin(HoldoutOracle(None, board), 100)[1] == pytest.approx(10.0)


@pytest.mark.parametrize(
    "make", [ParameterFreeLadder, lambda floor: SignificanceLadder(floor=floor)]
)
def test_a_floor_of_one_over_root_n_stops_the_climb(make):
    """Without a floor the climb passes near-duplicates that fix a few more rows
    than they break and gains several times ``1/√n``; with a floor of ``1/√n``
    it gets about what the fixed-step Ladder concedes (Blum & Hardt 2015,
    Fig. 1), a step or two."""
    root = 1 / math.sqrt(N)
    for seed in range(3):
        plain, _ = climb(make(floor=None), k=400, seed=seed)
        floored, _ = climb(make(floor=root), k=400, seed=seed)
        assert plain.raw_gain > 3 * root
        assert floored.raw_gain < 2.5 * root
        assert floored.n_adopted <= 3


def test_the_confirming_files_of_one_suspect_differ_from_each_other():
    """On a bootstrap board a suspect is confirmed by files drawn together, each
    one row from it; on a small file two such draws often coincide, and the
    second would be refused as a resubmission."""
    n = 20
    for seed in range(6):
        y = np.random.default_rng(seed).integers(0, 2, n)
        oracle = Keeping(HoldoutOracle(y, LadderBoot(b=1000, random_state=seed)))
        start = np.random.default_rng(seed + 9).integers(0, 2, n)
        near_duplicate_attack(oracle, start, k=200, random_state=seed, true_score=0.5)
        sent = {f.tobytes() for f in oracle.files}
        assert len(sent) == len(oracle.files)
