"""Label recovery from the digits of a released log loss (Whitehill 2017)
played through the engine: a log-loss competition on SQLite, the attacker
reading each submission's released score."""

from __future__ import annotations

import numpy as np
import pytest

from engine_attacks import EngineBoard, open_competition, random_solution, rules
from ladderboard.attacks import label_recovery_attack
from ladderboard.attacks.labelrecovery import encoding_probabilities

ROWS, PUBLIC, K = 3000, 1000, 10


def recover(tmp_path, solution, mechanism, params, precision=None, **attack):
    store = open_competition(
        tmp_path, solution, mechanism, params, score="log_loss", precision=precision
    )
    try:
        board = EngineBoard(store, solution, rules(mechanism, params, PUBLIC))
        result = label_recovery_attack(
            board,
            n_labels=ROWS,
            n_public=PUBLIC,
            k=K,
            true_labels=solution.targets.astype(int),
            **attack,
        )
        assert board.refused == 0
        assert board.stored() == result.n_submissions
        decimals = store.decimals(store.competition("comp"))
    finally:
        store.engine.dispose()
    return result, decimals


def scored_among_probed(solution, result) -> int:
    probed = result.n_submissions * result.rows_per_submission
    return int(solution.public_mask[:probed].sum())


@pytest.mark.slow
def test_a_full_precision_board_gives_labels_away_and_the_default_far_fewer(tmp_path):
    solution = random_solution(ROWS, PUBLIC, 5)
    full, decimals = recover(tmp_path, solution, "full-disclosure", {"precision": 1e-15}, 15)
    assert decimals == 15
    assert full.n_submissions == K and full.n_inconsistent == 0
    # Every scored row it probed, exactly, and which rows are scored.
    assert full.n_correct == full.n_recovered == scored_among_probed(solution, full)
    probed = np.arange(K * full.rows_per_submission)
    assert (full.scored[probed] == solution.public_mask[probed]).all()

    # The engine's defaults: full disclosure rounds to 1e-5, the boards
    # show five decimals.
    default, decimals = recover(tmp_path, solution, "full-disclosure", {})
    assert decimals == 5
    assert default.n_correct == default.n_recovered == scored_among_probed(solution, default)
    assert default.rows_per_submission == len(encoding_probabilities(PUBLIC, 1e-5))
    assert full.rows_per_submission >= 4 * default.rows_per_submission
    assert full.n_recovered >= 4 * default.n_recovered

    # A coarser board spells no row at all, and is not asked.
    coarse, decimals = recover(tmp_path, solution, "full-disclosure", {"precision": 1e-3}, 3)
    assert decimals == 3
    assert coarse.n_submissions == coarse.n_recovered == 0


@pytest.mark.slow
def test_a_ladder_board_leaks_no_labels_even_to_a_full_precision_decoder(tmp_path):
    """The parameter-free Ladder releases its best rounded to 1/n, not the
    file's own loss: decoded as finely as a full-precision board allows,
    its releases give labels no better than coin flips."""
    solution = random_solution(ROWS, PUBLIC, 6)
    m = len(encoding_probabilities(PUBLIC, 1e-15))
    result, _ = recover(tmp_path, solution, "parameter-free-ladder", {}, m=m, resolution=0.0)
    assert result.n_submissions == K
    assert result.n_correct is not None and result.n_recovered > 0
    # No better than coin flips, within three binomial standard deviations.
    assert result.n_correct <= result.n_recovered / 2 + 1.5 * np.sqrt(result.n_recovered)
