"""Near-duplicate hill-climbing played through the competition engine: the
deployed threat, with the engine's refusal of identical files in place."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine_attacks import EngineBoard
from engine_helpers import Clock
from ladderboard.attacks import HoldoutOracle, near_duplicate_attack
from ladderboard.engine import Competitions
from ladderboard.files.solution import Solution
from ladderboard.mechanisms import LadderBoot, ParameterFreeLadder
from ladderboard.rules.config import CompetitionConfig

ROWS, PUBLIC, K = 3000, 1000, 300


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "params", "library", "tolerance"),
    [
        # Deterministic: the engine's releases are the mechanism's, draw for draw.
        ("parameter-free-ladder", {}, lambda: ParameterFreeLadder(n=PUBLIC), 0.0),
        # Bootstrap draws come from the competition's key: equal within noise.
        (
            "ladder-boot",
            {"b": 100},
            lambda: LadderBoot(b=100, n=PUBLIC, random_state=8),
            2.5 / math.sqrt(PUBLIC),
        ),
    ],
)
def test_the_climb_through_the_engine_gains_what_the_library_attack_gains(
    tmp_path, name, params, library, tolerance
):
    labels = np.random.default_rng(37).integers(0, 2, ROWS)
    solution = Solution.from_labels(labels, public_fraction=PUBLIC / ROWS, random_state=37)
    store = Competitions.open(f"sqlite:///{tmp_path / 'ladderboard.db'}", clock=Clock())
    try:
        config = CompetitionConfig(
            score="zero_one", mechanism=name, mechanism_params=params, daily_quota=100_000
        )
        store.create("comp", solution, config, random_state=7)
        store.add_team("comp", "alpha")
        board = EngineBoard(store, solution, library())
        start = np.random.default_rng(1).integers(0, 2, ROWS)
        public = np.flatnonzero(solution.public_mask)
        private = np.flatnonzero(~solution.public_mask)
        y = solution.targets.astype(int)
        common = dict(k=K, random_state=5, fresh_index=private, fresh_labels=y[private])
        deployed = near_duplicate_attack(board, start, **common)

        direct = near_duplicate_attack(
            HoldoutOracle(y[public], library(), public_index=public, n_labels=ROWS),
            start,
            **common,
        )
        assert deployed.n_submissions == len(store.submissions("comp", "alpha"))
    finally:
        store.engine.dispose()

    assert board.refused == 0
    assert deployed.raw_gain > 2 / math.sqrt(PUBLIC)  # the threat is real through the engine
    assert deployed.raw_gain == pytest.approx(direct.raw_gain, abs=tolerance)
    if tolerance == 0.0:
        assert deployed.released.tolist() == direct.released.tolist()
