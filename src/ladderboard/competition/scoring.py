"""From aligned predictions to what the mechanism sees and the private score."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ladderboard.competition.config import Scoring

__all__ = ["Scored", "score_predictions"]

_MULTICLASS = {"multiclass_log_loss", "multiclass_brier"}


@dataclass(frozen=True)
class Scored:
    """``public_input`` goes to the mechanism (per-sample losses of the public
    rows, or their predictions); ``public_raw`` and ``private`` are the
    organiser's unrounded scores."""

    public_input: np.ndarray
    public_raw: float
    private: float


def _per_sample_losses(scoring: Scoring, targets: np.ndarray, predictions: np.ndarray):
    loss = scoring.loss()
    if targets.ndim == 1:
        return loss(targets, predictions)
    if scoring.name in _MULTICLASS:
        # One-hot (or probability) solution columns: the class is the argmax.
        return loss(np.argmax(targets, axis=1), predictions)
    # Several targets: the mean of each column's loss, row by row.
    columns = [loss(targets[:, j], predictions[:, j]) for j in range(targets.shape[1])]
    return np.mean(columns, axis=0)


def score_predictions(
    scoring: Scoring,
    targets: np.ndarray,
    predictions: np.ndarray,
    public_mask: np.ndarray,
    private_mask: np.ndarray,
) -> Scored:
    """Score aligned ``predictions`` against ``targets`` on both parts.

    >>> from ladderboard.competition.config import CompetitionConfig
    >>> scoring = CompetitionConfig(score="zero_one", mechanism="ladder",
    ...                             mechanism_params={"eta": 0.1}).scoring()
    >>> y, p = np.array([1.0, 0, 1, 1]), np.array([1.0, 1, 1, 0])
    >>> public = np.array([True, True, False, False])
    >>> scored = score_predictions(scoring, y, p, public, ~public)
    >>> scored.public_input.tolist(), scored.public_raw, scored.private
    ([0.0, 1.0], 0.5, 0.5)
    """
    if scoring.kind == "loss":
        losses = _per_sample_losses(scoring, targets, predictions)
        public = np.ascontiguousarray(losses[public_mask])
        return Scored(public, float(public.mean()), float(losses[private_mask].mean()))
    if targets.ndim != 1:
        raise ValueError(f"metric {scoring.name!r} scores a single target column")
    metric = scoring.metric()
    public = np.ascontiguousarray(predictions[public_mask], dtype=np.float64)
    return Scored(
        public,
        float(metric.score(targets[public_mask], public)),
        float(metric.score(targets[private_mask], predictions[private_mask])),
    )
