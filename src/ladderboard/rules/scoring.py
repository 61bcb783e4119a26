"""From aligned predictions to what the mechanism sees and the private score."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ladderboard.rules.config import Scoring

__all__ = ["Scored", "ScoringScratch", "check_targets", "score_predictions"]

_MULTICLASS = {"multiclass_log_loss", "multiclass_brier"}


@dataclass(frozen=True)
class Scored:
    """``public_input`` goes to the mechanism (per-sample losses of the public
    rows, or their predictions); ``public_raw`` and ``private`` are the
    organiser's unrounded scores; ``overall`` is the score of all the scored
    rows together.

    Whether a file can be scored at all is decided by ``overall``, which is
    the same whichever rows are public: a file whose ``overall`` is not a
    finite number (a metric undefined on every row, a loss too large to add
    up) is refused. A part on which a metric is undefined (a correlation of
    predictions constant on the public rows, or on the private ones) counts
    as the metric's worst value (:meth:`~ladderboard.metrics.Metric.or_worst`),
    as the metric mechanisms count it: refusing it would tell the parts apart.
    """

    public_input: np.ndarray
    public_raw: float
    private: float
    overall: float


class ScoringScratch:
    """Arrays :func:`score_predictions` writes a loss's values into instead of
    new ones: the per-sample losses of all ``n`` rows and those of each part.

    Scoring a large holdout makes three arrays as large as the file's
    predictions; memory the process has just been handed back by the
    system costs a page fault a page to touch again, more than the scoring
    itself on a virtual machine. A caller scoring many files of one
    solution lends the same scratch to each, one submission at a time: the
    public losses a score returns live in it until it is lent again.
    """

    __slots__ = ("losses", "private", "public")

    def __init__(self, n: int, n_public: int, n_private: int) -> None:
        self.losses = np.empty(n)
        self.public = np.empty(n_public)
        self.private = np.empty(n_private)

    @property
    def nbytes(self) -> int:
        return self.losses.nbytes + self.public.nbytes + self.private.nbytes

    def fits(self, n: int, n_public: int, n_private: int) -> bool:
        """Whether this scratch has the shape of a holdout with these parts."""
        return (self.losses.size, self.public.size, self.private.size) == (n, n_public, n_private)


def _per_sample_losses(
    scoring: Scoring, targets: np.ndarray, predictions: np.ndarray, checked: bool = False
):
    loss = scoring.loss()
    values = loss.of_checked if checked else loss
    if targets.ndim == 1:
        return values(targets, predictions)
    if scoring.name in _MULTICLASS:
        # One-hot (or probability) solution columns: the class is the argmax.
        return loss(np.argmax(targets, axis=1), predictions)
    # Several targets: the mean of each column's loss, row by row.
    columns = [values(targets[:, j], predictions[:, j]) for j in range(targets.shape[1])]
    return np.mean(columns, axis=0)


def _rows(selection: np.ndarray) -> np.ndarray:
    selection = np.asarray(selection)
    return np.flatnonzero(selection) if selection.dtype == bool else selection


def check_targets(scoring: Scoring, targets: np.ndarray) -> None:
    """Raise ``ValueError`` if ``targets`` cannot be scored by ``scoring`` (a log
    loss on labels other than 0 and 1, a metric on several columns, ...).

    A competition checks its solution once, at creation, so that every
    submission can be scored with :meth:`~ladderboard.losses.Loss.of_checked`.

    >>> from ladderboard.rules.config import CompetitionConfig
    >>> scoring = CompetitionConfig(score="log_loss", mechanism="ladder",
    ...                             mechanism_params={"eta": 0.1}).scoring()
    >>> check_targets(scoring, np.array([0.0, 1.0, 2.0]))
    Traceback (most recent call last):
    ValueError: y_true must contain only 0 and 1, got 2.0 at index 2
    """
    if scoring.kind == "metric":
        if targets.ndim != 1:
            raise ValueError(f"metric {scoring.name!r} scores a single target column")
        scoring.metric().check_targets(targets)
        return
    if scoring.name in _MULTICLASS:
        neutral = np.full(targets.shape, 1.0 / targets.shape[1])
    elif scoring.requires_probabilities:
        neutral = np.full(targets.shape, 0.5)
    else:
        neutral = targets
    _per_sample_losses(scoring, targets, neutral)


def score_predictions(
    scoring: Scoring,
    targets: np.ndarray,
    predictions: np.ndarray,
    public: np.ndarray,
    private: np.ndarray,
    *,
    checked: bool = False,
    scratch: ScoringScratch | None = None,
) -> Scored:
    """Score aligned ``predictions`` against ``targets`` on both parts.

    ``public`` and ``private`` select rows, as boolean masks or as row
    numbers in increasing order (faster: :attr:`Solution.public_rows`).
    ``checked`` skips checking the input again, for predictions from
    :func:`~ladderboard.files.submission.parse_submission` and targets
    passed by :func:`check_targets`; the scores are the same.

    >>> from ladderboard.rules.config import CompetitionConfig
    >>> scoring = CompetitionConfig(score="zero_one", mechanism="ladder",
    ...                             mechanism_params={"eta": 0.1}).scoring()
    >>> y, p = np.array([1.0, 0, 1, 1]), np.array([1.0, 1, 1, 0])
    >>> public = np.array([True, True, False, False])
    >>> scored = score_predictions(scoring, y, p, public, ~public)
    >>> scored.public_input.tolist(), scored.public_raw, scored.private, scored.overall
    ([0.0, 1.0], 0.5, 0.5, 0.5)
    >>> again = score_predictions(scoring, y, p, np.array([0, 1]), np.array([2, 3]), checked=True)
    >>> again.public_input.tolist(), again.public_raw, again.private
    ([0.0, 1.0], 0.5, 0.5)
    """
    public, private = _rows(public), _rows(private)
    # Rows in neither part (Ignored) count in no score.
    ignored = public.size + private.size != len(targets)
    if scoring.kind == "loss":
        if scratch is not None and not scratch.fits(len(targets), public.size, private.size):
            scratch = None
        if scratch is not None and checked and targets.ndim == 1:
            losses = scoring.loss().of_checked(targets, predictions, out=scratch.losses)
        else:
            losses = _per_sample_losses(scoring, targets, predictions, checked)
        if scratch is not None:
            # The rows are the solution's, all in range: "clip" takes straight
            # into ``out``, where the default mode would go through a buffer.
            public_losses = np.take(losses, public, out=scratch.public, mode="clip")
            private_losses = np.take(losses, private, out=scratch.private, mode="clip")
        else:
            public_losses, private_losses = losses.take(public), losses.take(private)
        # Losses are nonnegative: when the sum of the scored rows' is finite, so is each part's.
        scored = np.concatenate([public_losses, private_losses]) if ignored else losses
        with np.errstate(over="ignore"):
            overall = float(scored.mean())
            return Scored(
                public_losses, float(public_losses.mean()), float(private_losses.mean()), overall
            )
    if targets.ndim != 1:
        raise ValueError(f"metric {scoring.name!r} scores a single target column")
    metric = scoring.metric()
    predictions = np.asarray(predictions, dtype=np.float64)
    public_predictions = predictions.take(public)
    rows = np.concatenate([public, private]) if ignored else slice(None)
    with np.errstate(over="ignore", invalid="ignore"):
        return Scored(
            public_predictions,
            metric.or_worst(float(metric.score(targets.take(public), public_predictions))),
            metric.or_worst(float(metric.score(targets.take(private), predictions.take(private)))),
            float(metric.score(targets[rows], predictions[rows])),
        )
