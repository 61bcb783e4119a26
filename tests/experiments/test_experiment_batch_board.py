"""The batch board of the Freedman experiments (e4, e5, e6, e9): its releases
are the mechanisms', submission by submission (Chaibub Neto et al. 2016,
Alg. 3 for the significance Ladder)."""

import numpy as np
import pytest

from ladderboard.experiments._significance_paths import BatchBoard, mechanism


def _blocks(y, rng, *, blocks, size):
    """Batches of predictions that improve now and then, some by little."""
    scale = 1.0
    for _ in range(blocks):
        scales = scale * np.exp(-rng.exponential(0.05, size).cumsum())
        scale = float(scales[-1])
        yield y[:, None] + rng.normal(size=(y.size, size)) * scales


@pytest.mark.parametrize("alpha", [None, 0.01, 0.15, 0.5])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_releases_are_the_mechanisms(alpha, seed):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=50)
    board, reference = BatchBoard(y, alpha), mechanism(alpha)
    accepted = 0
    for predictions in _blocks(y, rng, blocks=6, size=15):
        released = board.submit(predictions)
        expected = []
        for column in predictions.T:
            release = reference.submit((y - column) ** 2)
            expected.append(release.score)
            accepted += release.improved
        assert released.tolist() == expected
    if alpha is not None:
        assert accepted > 2  # the step was taken, not only the first release


def test_the_batch_significance_step_is_the_significance_ladders():
    rng = np.random.default_rng(7)
    y = rng.normal(size=40)
    board, reference = BatchBoard(y, 0.15), mechanism(0.15)
    for predictions in _blocks(y, rng, blocks=3, size=20):
        losses = board.losses(predictions)
        released = board.batch_significance_step(losses, losses.sum(axis=1))
        assert released.tolist() == [reference.submit(row).score for row in losses]


def test_a_copy_tries_a_submission_without_making_it():
    rng = np.random.default_rng(3)
    y = rng.normal(size=30)
    board = BatchBoard(y, 0.15)
    board.submit(y[:, None] + rng.normal(size=(30, 5)))
    probe = y[:, None] + 0.01 * rng.normal(size=(30, 1))
    before = (board.multiple, board.best_total, board.best.copy())
    tried = board.copy().submit(probe)
    assert tried[0] < before[0] / board.n  # the probe is a new best on the copy
    assert (board.multiple, board.best_total) == before[:2]  # and leaves the board as it was
    assert np.array_equal(board.best, before[2])
    assert board.submit(probe).tolist() == tried.tolist()
