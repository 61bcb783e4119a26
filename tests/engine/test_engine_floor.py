"""A competition whose paired-test ladder has a floor: set by the organiser,
applied to every file, replayed by the audit, and what near-duplicate
hill-climbing gets through it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine_helpers import Clock, csv_for
from ladderboard.attacks import near_duplicate_attack
from ladderboard.engine import Competitions
from ladderboard.engine.audit import verify
from ladderboard.files.solution import Solution
from ladderboard.mechanisms import ParameterFreeLadder
from ladderboard.rules.config import CompetitionConfig

ROWS, PUBLIC, K = 1500, 500, 200


class EngineBoard:
    """The attacker's view: submit a CSV, read the public score; the public
    rules (``mechanism``) say how to climb."""

    def __init__(self, store, solution, mechanism):
        self.store, self.solution, self.mechanism = store, solution, mechanism
        self.n_labels, self.n_public = solution.n, solution.n_public

    def submit(self, prediction):
        return self.store.submit("comp", "alpha", csv_for(self.solution, prediction)).public_score

    def evaluate(self, y_true, y_pred):
        """The 0/1 error on labels the test supplies (the private rows)."""
        return float(np.mean(np.asarray(y_true) != np.asarray(y_pred)))


def climb(tmp_path, floor):
    labels = np.random.default_rng(37).integers(0, 2, ROWS)
    solution = Solution.from_labels(labels, public_fraction=PUBLIC / ROWS, random_state=37)
    params = {} if floor is None else {"floor": floor}
    store = Competitions.open(f"sqlite:///{tmp_path / f'{floor}.db'}", clock=Clock())
    try:
        config = CompetitionConfig(
            score="zero_one",
            mechanism="parameter-free-ladder",
            mechanism_params=params,
            daily_quota=100_000,
        )
        store.create("comp", solution, config, random_state=7)
        store.add_team("comp", "alpha")
        board = EngineBoard(store, solution, ParameterFreeLadder(floor=floor, n=PUBLIC))
        start = np.random.default_rng(1).integers(0, 2, ROWS)
        private = np.flatnonzero(~solution.public_mask)
        y = solution.targets.astype(int)
        result = near_duplicate_attack(
            board, start, k=K, random_state=5, fresh_index=private, fresh_labels=y[private]
        )
        verify(store, "comp")  # the audit replays the floor
    finally:
        store.engine.dispose()
    return result


@pytest.mark.slow
def test_a_floor_set_by_the_organiser_stops_the_climb_through_the_engine(tmp_path):
    root = 1 / math.sqrt(PUBLIC)
    plain = climb(tmp_path, None)
    floored = climb(tmp_path, root)
    assert plain.raw_gain > 1.5 * root
    assert floored.raw_gain < root
    assert floored.n_adopted < plain.n_adopted
