"""Per-sample losses, each knowing its name, its parameters and its range.

A leaderboard mechanism of the Ladder family (Blum & Hardt 2015) sees a
submission only through its per-sample loss vector ``l_i = loss(y_i, yhat_i)``
on the holdout; the Shaky Ladder (Hardt 2017, Fig. 1) further needs every
``l_i`` in ``[0, 1]``. A :class:`Loss` therefore declares ``bounds``, the range
of each per-sample value given its parameters, and :meth:`Loss.rescaled` maps a
bounded loss into ``[0, 1]``.

The metrics (functions of weighted sample moments, for the Bayesian-bootstrap
mechanisms of Chaibub Neto et al. 2016) live in :mod:`ladderboard.metrics`,
below this module, and are re-exported here, so that ``from ladderboard.losses
import get_metric, get_loss, METRICS, LOSSES`` works.

Every loss is better lower (:data:`~ladderboard.direction.LOWER_IS_BETTER`),
and declares whether it ``requires_probabilities``.

>>> sorted(LOSSES)
['absolute', 'brier', 'log_loss', 'multiclass_brier', 'multiclass_log_loss', 'squared', 'zero_one']
>>> loss = get_loss("log_loss", clip=LADDER_CLIP)
>>> loss([1, 0, 1], [0.9, 0.2, 0.0]).round(4)
array([0.1054, 0.2231, 4.6052])
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar

import numpy as np

from ladderboard._array_checks import (
    as_array,
    check_binary,
    check_probabilities,
    first_violation,
    same_length,
)
from ladderboard._kernels import (
    KAGGLE_CLIP,
    absolute_of,
    brier_of,
    log_loss_of,
    squared_of,
    zero_one_of,
)
from ladderboard._validation import show
from ladderboard.direction import LOWER_IS_BETTER, Direction
from ladderboard.metrics import METRICS, Metric, get_metric

__all__ = [
    "KAGGLE_CLIP",
    "LADDER_CLIP",
    "LOSSES",
    "METRICS",
    "Loss",
    "Metric",
    "get_loss",
    "get_metric",
]

LADDER_CLIP = (0.01, 0.99)
"""The clip of the Ladder authors' experiment code (bounds the log loss by log 100)."""


# --------------------------------------------------------------------------- validation
def _check_clip(clip: Any) -> tuple[float, float]:
    if not (isinstance(clip, tuple | list) and len(clip) == 2) or not all(
        isinstance(c, numbers.Real) and not isinstance(c, bool) for c in clip
    ):
        raise TypeError(f"clip must be a pair (lo, hi) of real numbers, got {show(clip)}")
    lo, hi = float(clip[0]), float(clip[1])
    if not 0 < lo < hi < 1:
        raise ValueError(f"clip must satisfy 0 < lo < hi < 1, got {show(clip)}")
    return lo, hi


# --------------------------------------------------------------------------- kernels
def _pointwise(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    y = as_array(y_true, "y_true")
    p = as_array(y_pred, "y_pred")
    same_length(y, p)
    return y, p


# The kernels ``*_of(y, p)`` (:mod:`ladderboard._kernels`) compute from float64
# arrays already checked; ``_X_values(y_true, y_pred)`` checks its input first.
def _zero_one_values(y_true: Any, y_pred: Any) -> np.ndarray:
    return zero_one_of(*_pointwise(y_true, y_pred))


def _absolute_values(y_true: Any, y_pred: Any) -> np.ndarray:
    return absolute_of(*_pointwise(y_true, y_pred))


def _squared_values(y_true: Any, y_pred: Any) -> np.ndarray:
    return squared_of(*_pointwise(y_true, y_pred))


def _binary_probabilities(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    y, p = _pointwise(y_true, y_pred)
    check_binary(y, "y_true")
    check_probabilities(p, "y_pred")
    return y, p


def _log_loss_values(y_true: Any, y_pred: Any, *, clip: tuple[float, float]) -> np.ndarray:
    return log_loss_of(*_binary_probabilities(y_true, y_pred), clip=clip)


def _brier_values(y_true: Any, y_pred: Any) -> np.ndarray:
    return brier_of(*_binary_probabilities(y_true, y_pred))


def _labels_and_matrix(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    """Integer labels (n,) and a probability matrix (n, K); one-hot y_true is accepted."""
    P = as_array(y_pred, "y_pred", ndim=2)
    y = as_array(y_true, "y_true", ndim=(1, 2))
    same_length(y, P, exact=y.ndim == 2)
    if P.shape[1] < 2:
        raise ValueError(f"y_pred must have at least 2 class columns, got shape {P.shape}")
    check_probabilities(P, "y_pred")
    if y.ndim == 2:
        check_binary(y, "y_true")
        sums = y.sum(axis=1)
        if (sums != 1).any():
            row = int(np.flatnonzero(sums != 1)[0])
            raise ValueError(f"one-hot y_true must have one 1 per row, got row {row}: {y[row]}")
        return np.argmax(y, axis=1), P
    bad = (y != np.round(y)) | (y < 0) | (y >= P.shape[1])
    if bad.any():
        raise ValueError(
            f"y_true must hold class labels 0..{P.shape[1] - 1} (the columns of y_pred), "
            f"got {first_violation(y, bad)}"
        )
    return y.astype(np.intp), P


def _multiclass_log_loss_values(
    y_true: Any, y_pred: Any, *, clip: tuple[float, float]
) -> np.ndarray:
    labels, P = _labels_and_matrix(y_true, y_pred)
    P = np.clip(P, *clip)
    P /= P.sum(axis=1, keepdims=True)
    # Renormalising can push the true-class probability below lo, the loss above
    # -log(lo); Loss.__call__ clips every loss to its bounds, which amounts to
    # clipping that probability at lo once more. Rows that summed to 1 with
    # entries inside the clip are unaffected.
    return -np.log(P[np.arange(P.shape[0]), labels])


def _multiclass_brier_values(y_true: Any, y_pred: Any) -> np.ndarray:
    labels, P = _labels_and_matrix(y_true, y_pred)
    sums = P.sum(axis=1)
    off = np.abs(sums - 1) > 1e-6
    if off.any():
        row = int(np.flatnonzero(off)[0])
        raise ValueError(
            f"rows of y_pred must sum to 1, got row {row} summing to {float(sums[row])!r}"
        )
    onehot = np.zeros_like(P)
    onehot[np.arange(P.shape[0]), labels] = 1.0
    return ((P - onehot) ** 2).sum(axis=1)


def _affine(kernel: Callable[..., np.ndarray], lo: float, hi: float, y_true: Any, y_pred: Any):
    return (kernel(y_true, y_pred) - lo) / (hi - lo)


def _affine_checked(
    kernel: Callable[..., np.ndarray],
    lo: float,
    hi: float,
    y: np.ndarray,
    p: np.ndarray,
    out: np.ndarray | None = None,
) -> np.ndarray:
    if out is None:  # as _affine: the kernel's dtype promoted as arithmetic does
        return (kernel(y, p) - lo) / (hi - lo)
    values = kernel(y, p, out=out)
    np.subtract(values, lo, out=values)
    return np.divide(values, hi - lo, out=values)


# --------------------------------------------------------------------------- Loss
@dataclass(frozen=True)
class Loss:
    """A per-sample loss with its declared range.

    Parameters
    ----------
    name : str
        Registry name (``"log_loss"``, ...).
    bounds : tuple of float
        ``(lo, hi)``: every per-sample value lies in ``[lo, hi]`` for any valid
        input, given the loss's parameters (``hi`` may be ``inf``).
    kernel : callable
        ``kernel(y_true, y_pred)`` validating its input and returning the raw
        per-sample values.
    params : tuple of (str, value) pairs
        The parameters the loss was built with, e.g. ``(("clip", (0.01, 0.99)),)``.
    checked : callable or None
        ``checked(y, p, out=None)``: the kernel's values from float64 vectors
        the caller has already checked (see :meth:`of_checked`), written into
        ``out`` when given, else as a new writable float64 array
        (:meth:`of_checked` clips it in place); None where there is none.
    requires_probabilities : bool
        Whether predictions must be probabilities in ``[0, 1]`` (the log losses
        and the Brier scores), as :attr:`Metric.requires_probabilities
        <ladderboard.metrics.Metric.requires_probabilities>` states for a metric.
    takes_labels : bool
        Whether predictions are class labels, compared with the solution's
        (``zero_one``): a prediction that is no class of the solution is then
        an error in the file, not a wrong answer.

    Every loss is better lower: :attr:`direction` is
    :data:`~ladderboard.direction.LOWER_IS_BETTER`.

    Calling the loss returns a float64 vector, one value per sample, clipped to
    ``bounds``: this removes floating-point excursions, and the excursions that
    tolerances in the input checks allow (a multiclass row summing to 1 + 1e-7).
    Get losses with :func:`get_loss` rather than building them.

    >>> sq = get_loss("squared")
    >>> sq([1.0, 2.0, 3.0], [1.5, 2.0, 1.0])
    array([0.25, 0.  , 4.  ])
    >>> sq.bounds, sq.requires_probabilities, sq.direction.greater_is_better
    ((0.0, inf), False, False)
    """

    direction: ClassVar[Direction] = LOWER_IS_BETTER

    name: str
    bounds: tuple[float, float]
    kernel: Callable[[Any, Any], np.ndarray] = field(repr=False, compare=False)
    params: tuple[tuple[str, Any], ...] = ()
    checked: Callable[..., np.ndarray] | None = field(default=None, repr=False, compare=False)
    requires_probabilities: bool = False
    takes_labels: bool = False

    def __call__(self, y_true: Any, y_pred: Any) -> np.ndarray:
        """Per-sample losses, shape ``(n,)``.

        Raises ``TypeError`` for non-numeric input and ``ValueError`` for
        mismatched shapes, non-finite values or values outside the loss's domain.

        >>> get_loss("zero_one")([0, 1, 2], [0, 2, 2])
        array([0., 1., 0.])
        """
        return np.clip(self.kernel(y_true, y_pred), *self.bounds)

    def of_checked(self, y: np.ndarray, p: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """What calling the loss returns, without checking the input again.

        For vectors already known good: float64, aligned, finite, ``y`` and
        ``p`` in the loss's domain (a competition's solution, checked when it
        was created, and a parsed submission). Anything else gives undefined
        values rather than an error. Losses without a ``checked`` kernel
        (the multiclass ones) check anyway.

        ``out``, a float64 array of ``y``'s shape that overlaps neither
        input, receives the values (and is returned) where the loss has a
        ``checked`` kernel: the same values, with no new array as large as
        the input (a caller scoring many large files reuses one).

        >>> loss = get_loss("log_loss")
        >>> y, p = np.array([0.0, 1.0]), np.array([0.2, 0.9])
        >>> bool((loss.of_checked(y, p) == loss(y, p)).all())
        True
        >>> out = np.empty(2)
        >>> loss.of_checked(y, p, out=out) is out and bool((out == loss(y, p)).all())
        True
        """
        if self.checked is None:
            return self(y, p)
        values = self.checked(y, p, out=out)  # a new array or out: clipped in place
        return np.clip(values, *self.bounds, out=values)

    def rescaled(self) -> Loss:
        """This loss mapped affinely from its bounds into ``[0, 1]``.

        Needed by the Shaky Ladder (Hardt 2017), whose privacy analysis assumes
        losses in ``[0, 1]``. A loss already bounded by ``[0, 1]`` is returned as is.

        >>> ll = get_loss("log_loss", clip=(0.01, 0.99)).rescaled()
        >>> ll.name, ll.bounds
        ('log_loss_rescaled', (0.0, 1.0))
        >>> ll([1, 1], [0.0, 1.0]).round(4)
        array([1.    , 0.0022])
        >>> get_loss("squared").rescaled()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: loss 'squared' has infinite bounds (0.0, inf) and cannot be rescaled ...
        """
        lo, hi = self.bounds
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise ValueError(
                f"loss {self.name!r} has infinite bounds {self.bounds} and cannot be rescaled "
                "into [0, 1]; use a bounded loss (zero_one, brier, log_loss with a clip)"
            )
        if (lo, hi) == (0.0, 1.0):
            return self
        return Loss(
            name=f"{self.name}_rescaled",
            bounds=(0.0, 1.0),
            kernel=partial(_affine, self.kernel, lo, hi),
            params=self.params,
            checked=(
                None if self.checked is None else partial(_affine_checked, self.checked, lo, hi)
            ),
            requires_probabilities=self.requires_probabilities,
            takes_labels=self.takes_labels,
        )


def _zero_one() -> Loss:
    return Loss("zero_one", (0.0, 1.0), _zero_one_values, checked=zero_one_of, takes_labels=True)


def _absolute() -> Loss:
    return Loss("absolute", (0.0, math.inf), _absolute_values, checked=absolute_of)


def _squared() -> Loss:
    return Loss("squared", (0.0, math.inf), _squared_values, checked=squared_of)


def _log_loss(*, clip: tuple[float, float] = KAGGLE_CLIP) -> Loss:
    lo, hi = _check_clip(clip)
    top = -math.log(min(lo, 1 - hi))
    return Loss(
        "log_loss",
        (0.0, top),
        partial(_log_loss_values, clip=(lo, hi)),
        (("clip", (lo, hi)),),
        checked=partial(log_loss_of, clip=(lo, hi)),
        requires_probabilities=True,
    )


def _multiclass_log_loss(*, clip: tuple[float, float] = KAGGLE_CLIP) -> Loss:
    lo, hi = _check_clip(clip)
    kernel = partial(_multiclass_log_loss_values, clip=(lo, hi))
    return Loss(
        "multiclass_log_loss",
        (0.0, -math.log(lo)),
        kernel,
        (("clip", (lo, hi)),),
        requires_probabilities=True,
    )


def _brier() -> Loss:
    return Loss("brier", (0.0, 1.0), _brier_values, checked=brier_of, requires_probabilities=True)


def _multiclass_brier() -> Loss:
    return Loss(
        "multiclass_brier", (0.0, 2.0), _multiclass_brier_values, requires_probabilities=True
    )


_FACTORIES: dict[str, Callable[..., Loss]] = {
    "zero_one": _zero_one,
    "absolute": _absolute,
    "squared": _squared,
    "log_loss": _log_loss,
    "multiclass_log_loss": _multiclass_log_loss,
    "brier": _brier,
    "multiclass_brier": _multiclass_brier,
}

LOSSES: dict[str, Loss] = {name: make() for name, make in _FACTORIES.items()}
"""Every loss with its default parameters, by name.

* ``zero_one``: ``[y_pred != y_true]`` for labels, bounds ``[0, 1]``.
* ``absolute``, ``squared``: ``|p - y|`` and ``(p - y)^2``, bounds ``[0, inf)``.
* ``log_loss``: binary ``-y log p - (1 - y) log(1 - p)`` with ``p`` clipped to
  ``clip = (lo, hi)`` (default :data:`KAGGLE_CLIP`); bounds ``[0, -log min(lo, 1 - hi)]``.
* ``multiclass_log_loss``: ``y_true`` labels ``0..K-1``, ``y_pred`` an ``(n, K)``
  matrix clipped, renormalised per row (as Kaggle and scikit-learn < 1.5 did),
  and the loss clipped to its bounds ``[0, -log lo]``.
* ``brier``: binary ``(p - y)^2``, bounds ``[0, 1]`` (Brier 1950).
* ``multiclass_brier``: ``sum_k (P_k - [y = k])^2`` with rows of ``P`` summing to 1,
  ``y_true`` labels or one-hot; bounds ``[0, 2]``.
"""


def get_loss(name: str, /, **params: Any) -> Loss:
    """The loss called ``name``, built with ``params``.

    >>> get_loss("log_loss", clip=(0.01, 0.99)).bounds
    (0.0, 4.60517)
    >>> get_loss("hinge")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown loss 'hinge'; known losses: absolute, brier, ...
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__} {show(name)}")
    if name not in _FACTORIES:
        raise ValueError(f"unknown loss {name!r}; known losses: {', '.join(sorted(_FACTORIES))}")
    factory = _FACTORIES[name]
    accepted = list(inspect.signature(factory).parameters)
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise TypeError(
            f"get_loss({name!r}) got unexpected parameter(s) {', '.join(unknown)}; "
            f"{name} accepts {', '.join(accepted) if accepted else 'no parameters'}"
        )
    return factory(**params)
