"""What an attacker talks to: a board behind the hidden labels.

An attacker never holds the labels. It hands a prediction to a
:class:`HoldoutOracle`, which scores it on the hidden public labels with the
board's loss, gives the per-sample loss vector to the mechanism (or, for a
metric-based mechanism, the prediction itself), and returns the released score
and nothing else.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ladderboard._validation import check_int
from ladderboard.attacks._common import direction_of
from ladderboard.direction import Direction
from ladderboard.losses import Loss, get_loss

__all__ = ["HoldoutOracle"]


def _binary_vector(name: str, value: Any) -> np.ndarray:
    """``value`` as a 1-D int8 array of zeros and ones, or raise ValueError."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged input
        raise ValueError(f"{name} must be a 1-D vector of 0/1 labels: {exc}") from None
    if array.ndim != 1:
        raise ValueError(f"{name} must be a 1-D vector, got shape {array.shape}")
    if array.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold 0/1 labels, got dtype {array.dtype}")
    if not ((array == 0) | (array == 1)).all():
        raise ValueError(f"{name} must hold only 0/1 labels")
    return array.astype(np.int8)


def _array(name: str, value: Any) -> np.ndarray:
    """``value`` as an array with at least one dimension (rows are samples)."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array: {exc}") from None
    if array.ndim == 0:
        raise ValueError(f"{name} must have one row per sample, got a scalar {value!r}")
    return array


def _resolve_loss(loss: Any) -> Loss | None:
    """``None`` (binary 0/1 labels), a loss name or a :class:`Loss`."""
    if loss is None or isinstance(loss, Loss):
        return loss
    if isinstance(loss, str):
        return get_loss(loss)
    raise TypeError(f"loss must be None, a loss name or a Loss, got {type(loss).__name__}")


class HoldoutOracle:
    """What an attacker talks to: submit a prediction, see the released score.

    The oracle holds the hidden public labels and a board (a mechanism).

    * For a loss-based mechanism (the ladders, the Shaky Ladder, LadderBoot,
      full disclosure) it turns each prediction into its per-sample loss vector
      on the public labels and submits that. The default, ``loss=None``, is the
      0/1 loss on binary labels (predictions must be 0/1 too); any loss of
      :mod:`ladderboard.losses` can be given instead, by name or as a
      :class:`~ladderboard.losses.Loss` (rescale it for the Shaky Ladder, which
      needs losses in ``[0, 1]``).
    * A metric-based mechanism (``BayesBootLadder``, ``BayesBootLadderBoot``)
      holds the labels itself: pass ``labels_public=None``, and the oracle
      hands it the public part of each prediction unchanged.

    :meth:`submit` returns ``release.score``, never the labels, the losses or
    ``release.improved``. :meth:`evaluate`, :meth:`holdout_score` and
    :attr:`n_improvements` are for the experiment that runs an attack, to
    measure it; an attack never calls them.

    Parameters
    ----------
    labels_public : array or None
        The hidden labels of the public part of the holdout (``None`` for a
        metric-based mechanism).
    mechanism : Mechanism
        The board; anything with ``submit(x) -> Release``.
    loss : str, Loss or None
        The per-sample loss of a loss-based board.
    public_index : array of int, optional
        Where the public labels sit in a submission, as in a competition
        where participants predict the whole test set and the board scores a
        hidden subset of it. By default a submission covers the public labels
        only.
    n_labels : int, optional
        The length of a submission (its number of rows); required with
        ``public_index``.

    Examples
    --------
    The Kaggle set-up of Blum & Hardt 2015, Sec. 5.1: a submission predicts
    six labels, four of which score the public board.

    >>> from ladderboard.mechanisms import FullDisclosure, LadderBoot
    >>> oracle = HoldoutOracle([0, 1, 1, 0], FullDisclosure(),
    ...                        public_index=[5, 0, 2, 3], n_labels=6)
    >>> oracle.submit([1, 0, 1, 0, 0, 1])   # scored at 5 (wrong), 0, 2, 3 (right)
    0.25

    Squared loss on a LadderBoot board (Chaibub Neto et al. 2016, Alg. 4):

    >>> board = HoldoutOracle([0.5, -1.0, 2.0], LadderBoot(b=100, random_state=0),
    ...                       loss="squared")
    >>> round(board.holdout_score([0.5, 0.0, 2.0]), 4)   # organiser-side, exact
    0.3333
    """

    def __init__(
        self,
        labels_public: Any,
        mechanism: Any,
        *,
        loss: str | Loss | None = None,
        public_index: Any = None,
        n_labels: int | None = None,
    ):
        if not callable(getattr(mechanism, "submit", None)):
            raise TypeError(f"mechanism must have a submit method, got {type(mechanism).__name__}")
        kind = getattr(mechanism, "input_kind", "losses")
        if kind == "predictions":
            if loss is not None:
                raise ValueError(
                    f"loss must be None for the metric-based {type(mechanism).__name__}, "
                    f"which scores predictions with its own metric; got {loss!r}"
                )
            if labels_public is not None:
                raise ValueError(
                    f"labels_public must be None for the metric-based {type(mechanism).__name__}, "
                    "which holds the labels itself"
                )
            labels = None
            n_public = getattr(mechanism, "n", None)
            if n_public is None:
                raise ValueError("a metric-based mechanism must know its number of labels (n)")
        elif kind == "losses":
            loss = _resolve_loss(loss)
            if loss is None:
                labels = _binary_vector("labels_public", labels_public)
            else:
                labels = np.array(_array("labels_public", labels_public))
            if labels.shape[0] == 0:
                raise ValueError("labels_public must not be empty")
            labels.setflags(write=False)
            n_public = labels.shape[0]
        else:
            raise ValueError(
                f"mechanism.input_kind must be 'losses' or 'predictions', got {kind!r}"
            )

        if public_index is None:
            if n_labels is not None and n_labels != n_public:
                raise ValueError(
                    f"n_labels must equal the number of public labels ({n_public}) without "
                    f"public_index, got {n_labels!r}"
                )
            index = None
            n_labels = n_public
        else:
            if n_labels is None:
                raise ValueError("n_labels is required with public_index")
            n_labels = check_int("n_labels", n_labels, n_public)
            index = np.asarray(public_index)
            if index.dtype.kind not in "iu" or index.shape != (n_public,):
                raise ValueError(
                    "public_index must be a 1-D integer array as long as labels_public, "
                    f"got dtype {index.dtype} and shape {index.shape}"
                )
            if index.min() < 0 or index.max() >= n_labels or np.unique(index).size != index.size:
                raise ValueError(f"public_index must hold distinct positions in [0, {n_labels})")
            index = index.astype(np.intp)
            index.setflags(write=False)
        self._labels = labels
        self._kind = kind
        self.loss = loss if kind == "losses" else None
        self.mechanism = mechanism
        self.public_index = index
        self.n_labels = n_labels
        self.n_public = n_public
        self._n_improvements = 0

    # ------------------------------------------------------------ the attacker's side
    @property
    def direction(self) -> Direction:
        """Which way the board's scores improve (public: the rules say so)."""
        return direction_of(self.mechanism)

    @property
    def greater_is_better(self) -> bool:
        """Whether the board ranks higher scores first: ``direction.greater_is_better``."""
        return self.direction.greater_is_better

    def submit(self, prediction: Any) -> float:
        """Score a prediction with ``n_labels`` rows; return the released score."""
        prediction = self._prediction(prediction)
        public = prediction if self.public_index is None else prediction[self.public_index]
        if self._kind == "predictions":
            release = self.mechanism.submit(public)
        elif self.loss is None:
            assert self._labels is not None  # a loss-based board's oracle holds the labels
            release = self.mechanism.submit(np.not_equal(public, self._labels).astype(np.float64))
        else:
            release = self.mechanism.submit(self.loss(self._labels, public))
        if release.improved:
            self._n_improvements += 1
        return float(release.score)

    # ---------------------------------------------------------- the organiser's side
    @property
    def n_improvements(self) -> int:
        """How many submissions became the board's new best (organiser-side).

        Not derivable from the released scores of a noisy board. Chaibub Neto
        et al. (2016) told their change-point detector this number
        (:func:`~ladderboard.attacks.step_forward_attack` with ``n_jumps="told"``).
        """
        return self._n_improvements

    def evaluate(self, y_true: Any, y_pred: Any) -> float:
        """The board's scoring rule, exact and unreleased, on data the caller
        supplies (fresh or private labels): the mean loss, or the metric.

        It does not touch the holdout; experiments use it for the true score
        of an attack's final submission.
        """
        if self._kind == "predictions":
            return float(self.mechanism.metric.score(y_true, y_pred))
        if self.loss is None:
            y = _binary_vector("y_true", y_true)
            p = _binary_vector("y_pred", y_pred)
            if y.shape != p.shape:
                raise ValueError(f"y_true and y_pred must match, got {y.shape} and {p.shape}")
            return float(np.mean(y != p))
        return float(np.mean(self.loss(y_true, y_pred)))

    def holdout_score(self, prediction: Any) -> float:
        """The exact public score of ``prediction`` (organiser-side: it reads the
        hidden labels, and submits nothing)."""
        prediction = self._prediction(prediction)
        public = prediction if self.public_index is None else prediction[self.public_index]
        labels = self.mechanism.y_true if self._kind == "predictions" else self._labels
        return self.evaluate(labels, public)

    # ------------------------------------------------------------------- helpers
    def _prediction(self, prediction: Any) -> np.ndarray:
        if self._kind == "losses" and self.loss is None:
            prediction = _binary_vector("prediction", prediction)
        else:
            prediction = _array("prediction", prediction)
        if prediction.shape[0] != self.n_labels:
            raise ValueError(
                f"prediction must have length n_labels={self.n_labels}, got {prediction.shape[0]}"
            )
        return prediction

    def __repr__(self) -> str:
        loss = "" if self.loss is None else f", loss={self.loss.name!r}"
        return (
            f"HoldoutOracle(n_public={self.n_public}, n_labels={self.n_labels}{loss}, "
            f"mechanism={self.mechanism!r})"
        )
