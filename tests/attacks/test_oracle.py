"""The HoldoutOracle: it scores a prediction on the hidden public labels with
the board's loss (any per-sample loss), or passes it straight to a
metric-based board, and returns only the released score."""

import numpy as np
import pytest

from ladderboard.attacks import HoldoutOracle
from ladderboard.attacks.boosting import HoldoutOracle as HoldoutOracleFromBoosting
from ladderboard.losses import LADDER_CLIP, get_loss
from ladderboard.mechanisms import (
    BayesBootLadder,
    FullDisclosure,
    LadderBoot,
    ParameterFreeLadder,
    ShakyLadder,
)
from ladderboard.mechanisms.base import round_to


class Spy:
    """A loss-based board that records what it was given."""

    input_kind = "losses"

    def __init__(self, mechanism):
        self.mechanism, self.seen = mechanism, []

    def submit(self, x):
        self.seen.append(np.array(x))
        return self.mechanism.submit(x)


def test_boosting_module_still_exports_the_oracle():
    assert HoldoutOracleFromBoosting is HoldoutOracle


def test_squared_loss_on_a_loss_based_board():
    y = np.array([0.5, -1.0, 2.0, 0.0])
    spy = Spy(FullDisclosure(precision=1e-3))
    oracle = HoldoutOracle(y, spy, loss="squared")
    score = oracle.submit([0.5, 0.0, 1.0, 0.5])
    np.testing.assert_array_equal(spy.seen[0], [0.0, 1.0, 1.0, 0.25])
    assert type(score) is float and score == round_to(2.25 / 4, 1e-3)
    assert oracle.holdout_score([0.5, 0.0, 1.0, 0.5]) == 2.25 / 4
    assert not oracle.greater_is_better


def test_a_loss_object_and_a_public_index_select_rows_of_a_probability_matrix():
    loss = get_loss("multiclass_log_loss", clip=LADDER_CLIP)
    spy = Spy(FullDisclosure())
    oracle = HoldoutOracle([2, 0], spy, loss=loss, public_index=[3, 1], n_labels=4)
    P = np.full((4, 3), 1 / 3)
    P[3] = [0.1, 0.1, 0.8]
    oracle.submit(P)
    np.testing.assert_allclose(spy.seen[0], [-np.log(0.8), np.log(3)])


def test_a_rescaled_log_loss_feeds_the_shaky_ladder():
    y = np.random.default_rng(0).integers(0, 2, 200)
    p = np.clip(y * 0.8 + 0.1, 0, 1)
    raw = HoldoutOracle(y, ShakyLadder(n=200, random_state=0), loss="log_loss")
    with pytest.raises(ValueError, match="rescale or clip"):
        raw.submit(1 - p)  # confident and wrong: losses above 1
    loss = get_loss("log_loss", clip=LADDER_CLIP).rescaled()
    oracle = HoldoutOracle(y, ShakyLadder(n=200, random_state=0), loss=loss)
    assert 0.0 <= oracle.submit(p) <= 1.0


def test_predictions_pass_straight_to_a_metric_based_board():
    rng = np.random.default_rng(1)
    y = rng.normal(size=300)
    board = BayesBootLadder(metric="pearson", y_true=y, B=200, random_state=0)
    oracle = HoldoutOracle(None, board, public_index=np.arange(300) * 2, n_labels=600)
    prediction = np.zeros(600)
    prediction[::2] = y + rng.normal(size=300)
    score = oracle.submit(prediction)
    assert score == round_to(float(np.corrcoef(y, prediction[::2])[0, 1]), 1 / 300)
    assert oracle.greater_is_better
    assert oracle.holdout_score(prediction) == pytest.approx(np.corrcoef(y, prediction[::2])[0, 1])
    assert oracle.evaluate([1.0, 2.0, 3.0], [1.0, 2.0, 4.0]) == pytest.approx(
        np.corrcoef([1, 2, 3], [1, 2, 4])[0, 1]
    )


def test_metric_based_board_refuses_labels_and_losses():
    board = BayesBootLadder(metric="mse", y_true=[0.0, 1.0, 2.0], B=10, random_state=0)
    with pytest.raises(ValueError, match="labels_public must be None"):
        HoldoutOracle([0.0, 1.0, 2.0], board)
    with pytest.raises(ValueError, match="loss must be None"):
        HoldoutOracle(None, board, loss="squared")


@pytest.mark.parametrize(
    ("loss", "error", "message"),
    [(3, TypeError, "loss must be"), ("hinge", ValueError, "unknown loss")],
)
def test_bad_losses_are_refused(loss, error, message):
    with pytest.raises(error, match=message):
        HoldoutOracle([0.0, 1.0], FullDisclosure(), loss=loss)


def test_invalid_predictions_leave_the_board_untouched():
    board = FullDisclosure()
    oracle = HoldoutOracle([0.0, 1.0], board, loss="squared")
    with pytest.raises(ValueError, match="length n_labels=2"):
        oracle.submit([0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="finite"):
        oracle.submit([0.0, np.nan])
    with pytest.raises(ValueError, match="scalar"):
        oracle.submit(1.0)
    assert board.n_submissions == 0


def test_improvements_are_counted_organiser_side_only():
    oracle = HoldoutOracle([0, 1, 0, 1, 1, 0], ParameterFreeLadder())
    scores = [oracle.submit(p) for p in ([1] * 6, [0, 1, 0, 1, 1, 1], [0, 1, 0, 1, 1, 1])]
    assert all(type(s) is float for s in scores)
    assert oracle.n_improvements == 2  # the first, and the one that halved the loss


def test_evaluate_scores_fresh_labels_by_the_board_rule():
    oracle = HoldoutOracle([0, 1], FullDisclosure())
    assert oracle.evaluate([1, 1, 0, 0], [1, 0, 0, 0]) == 0.25
    squared = HoldoutOracle([0.0, 1.0], LadderBoot(b=5, random_state=0), loss="squared")
    assert squared.evaluate([0.0, 2.0], [1.0, 2.0]) == 0.5
    with pytest.raises(ValueError, match="must match"):
        oracle.evaluate([0, 1], [0, 1, 1])


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
