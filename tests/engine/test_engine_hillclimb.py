"""Near-duplicate hill-climbing played through the competition engine on an
exact paired-test board: the deployed threat, with the engine's refusal of
identical files in place. (The noisy boards are in test_engine_attacks.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine_attacks import (
    TRUE_ERROR,
    EngineBoard,
    library_board,
    open_competition,
    random_solution,
    rules,
)
from ladderboard.advisor.yardstick import blind_reference
from ladderboard.attacks import near_duplicate_attack

ROWS, PUBLIC, K = 3000, 1000, 300


@pytest.mark.slow
def test_the_climb_through_the_engine_is_the_library_attack_release_for_release(tmp_path):
    """The parameter-free Ladder is deterministic, so the engine's releases
    are the library's, draw for draw, and so is the gain: well above what
    the best of ``k`` blind files gains on a noiseless board plus ``1/√n``
    (the yardstick of Blum & Hardt 2015, Def. 2.1 and Thm 3.3)."""
    solution = random_solution(ROWS, PUBLIC, 37)
    start = np.random.default_rng(1).integers(0, 2, ROWS)
    common = dict(k=K, random_state=5, true_score=TRUE_ERROR)
    store = open_competition(tmp_path, solution, "parameter-free-ladder", {})
    try:
        board = EngineBoard(store, solution, rules("parameter-free-ladder", {}, PUBLIC))
        deployed = near_duplicate_attack(board, start, **common)
        assert deployed.n_submissions == board.stored() == K
    finally:
        store.engine.dispose()
    direct = near_duplicate_attack(
        library_board(solution, "parameter-free-ladder", {}, random_state=None), start, **common
    )

    assert board.refused == 0
    assert deployed.released.tolist() == direct.released.tolist()
    assert deployed.raw_gain == direct.raw_gain
    blind = blind_reference(PUBLIC, K, repetitions=20, random_state=37)
    assert deployed.raw_gain > blind.high + 1 / math.sqrt(PUBLIC)
