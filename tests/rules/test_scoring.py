"""Scoring aligned predictions: a scratch lent to the scorer changes where
the losses are written, never their values."""

from __future__ import annotations

import numpy as np
import pytest

from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.scoring import ScoringScratch, check_targets, score_predictions

N = 300


def _case(score: str, seed: int):
    """A scoring, its targets and predictions, and row numbers of a split
    that leaves some rows in neither part (Ignored rows)."""
    rng = np.random.default_rng(seed)
    usage = rng.integers(0, 3, N)  # 0 public, 1 private, 2 ignored
    public, private = np.flatnonzero(usage == 0), np.flatnonzero(usage == 1)
    if score == "multiclass_log_loss":
        targets = np.eye(3)[rng.integers(0, 3, N)]
        predictions = rng.dirichlet(np.ones(3), size=N)
    elif score in ("log_loss", "brier", "auc"):
        targets = rng.integers(0, 2, N).astype(float)
        predictions = rng.random(N)
        predictions[:2] = [0.0, 1.0]
    elif score == "zero_one":
        targets = rng.integers(0, 3, N).astype(float)
        predictions = rng.integers(0, 3, N).astype(float)
    else:
        targets, predictions = rng.normal(size=N), rng.normal(size=N)
    mechanism = "ladder" if score != "auc" else "metric-full-disclosure"
    params = {"eta": 0.1} if mechanism == "ladder" else {}
    config = CompetitionConfig(score=score, mechanism=mechanism, mechanism_params=params)
    return config.scoring(), targets, predictions, public, private


SCORES = ["zero_one", "absolute", "squared", "log_loss", "brier", "multiclass_log_loss"]


@pytest.mark.parametrize("score", SCORES)
def test_a_scratch_holds_the_same_scores_and_losses_as_new_arrays(score):
    for seed in range(3):
        scoring, targets, predictions, public, private = _case(score, seed)
        check_targets(scoring, targets)
        fresh = score_predictions(scoring, targets, predictions, public, private, checked=True)
        scratch = ScoringScratch(N, public.size, private.size)
        scratch.losses.fill(np.nan)
        lent = score_predictions(
            scoring, targets, predictions, public, private, checked=True, scratch=scratch
        )
        assert lent.public_input is scratch.public
        assert lent.public_input.tobytes() == fresh.public_input.tobytes()
        assert (lent.public_raw, lent.private) == (fresh.public_raw, fresh.private)
        # Scored again into the same scratch, after it was scribbled over.
        scratch.public.fill(-1.0)
        again = score_predictions(
            scoring, targets, predictions, public, private, checked=True, scratch=scratch
        )
        assert (again.public_raw, again.private) == (fresh.public_raw, fresh.private)


def test_a_scratch_of_another_shape_or_a_metric_is_left_alone():
    scoring, targets, predictions, public, private = _case("zero_one", 0)
    wrong = ScoringScratch(N, public.size + 1, private.size)
    scored = score_predictions(scoring, targets, predictions, public, private, scratch=wrong)
    assert scored.public_input is not wrong.public
    plain = score_predictions(scoring, targets, predictions, public, private)
    assert scored.public_input.tobytes() == plain.public_input.tobytes()
    scoring, targets, predictions, public, private = _case("auc", 0)
    scratch = ScoringScratch(N, public.size, private.size)
    scored = score_predictions(scoring, targets, predictions, public, private, scratch=scratch)
    assert scored.public_input is not scratch.public
    assert np.array_equal(scored.public_input, predictions[public])
