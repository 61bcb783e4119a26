"""Metrics as functions of weighted sample moments.

The Bayesian-bootstrap mechanisms (BayesBootLadder, Chaibub Neto et al. 2016,
Alg. 5-6, after Rubin 1981) score a submission under ``B`` Dirichlet weightings
of the holdout. Every metric here is a function of weighted moments, so all
``B`` replicates cost one matrix product ``W @ X``: ``W`` is the ``(B, n)``
weight matrix and ``X`` the ``(n, m)`` moment columns, computed once per
submission (for Pearson: ``y, p, y^2, p^2, y p`` after centring ``y`` and ``p``
by their unweighted means, so that covariances do not cancel). AUC, a weighted
Mann-Whitney statistic, costs ``O(B n)`` after one sort.

Weights are unnormalised: the weighted mean is ``sum(w x) / sum(w)``, so integer
weights (bootstrap counts) give exactly the metric of the replicated rows
(up to rounding), except for Spearman, whose ranks are computed once, unweighted.

Degenerate cases return ``nan``: a correlation (pearson, spearman) when either
side has zero weighted variance, ``r2`` when ``y`` has zero weighted variance,
``ccc`` when its denominator is zero, ``auc`` when a weighting gives one class
zero weight, and any metric for a weight row summing to zero. Where a number
must stand for such a score (a part of a holdout, a bootstrap replicate),
:meth:`Metric.or_worst` gives the metric's worst value, :attr:`Metric.worst`. A weighted
variance below ``1e-12`` times the second moment about the unweighted mean is
treated as zero (it is rounding noise). Values whose squares overflow are not
supported.

>>> from ladderboard.metrics import METRICS, get_metric
>>> sorted(METRICS)
['accuracy', 'auc', 'brier', 'ccc', 'log_loss', 'mae', 'mse', 'pearson', 'r2', 'rmse', 'spearman']
>>> m = get_metric("pearson")
>>> round(m.score([1, 2, 3, 4], [1, 3, 2, 4]), 6)
0.8
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ladderboard._array_checks import as_array, check_binary, check_probabilities
from ladderboard._kernels import (
    KAGGLE_CLIP,
    absolute_of,
    brier_of,
    log_loss_of,
    mann_whitney,
    sample_weight_matrix,
    squared_of,
    weight_rows,
    weighted_means,
)
from ladderboard._validation import show
from ladderboard.bootstrap import bootstrap_count_matrix, bootstrap_mean_of_means
from ladderboard.direction import GREATER_IS_BETTER, LOWER_IS_BETTER, Direction

__all__ = ["METRICS", "Metric", "get_metric"]

WeightedFn = Callable[[np.ndarray], np.ndarray]
_VARIANCE_RTOL = 1e-12


def _variance(m1: np.ndarray, m2: np.ndarray) -> np.ndarray:
    v = m2 - m1 * m1
    return np.where(v > _VARIANCE_RTOL * m2, v, 0.0)


class Metric(ABC):
    """A score of predictions against labels, computable under many weightings.

    Subclasses set ``name``, ``greater_is_better`` (the metric's direction,
    stated once: every comparison goes through :attr:`direction`),
    ``requires_probabilities``, ``takes_labels`` (predictions are class
    labels compared with the solution's, as accuracy's) and ``bounds``, and
    implement ``_weighted``.

    >>> from ladderboard.metrics import get_metric
    >>> mse = get_metric("mse")
    >>> mse.greater_is_better, mse.score([0.0, 1.0, 2.0], [0.0, 1.0, 5.0])
    (False, 3.0)
    >>> mse.direction.better(1.0, 3.0)
    True
    """

    name: str
    greater_is_better: bool
    requires_probabilities: bool = False
    takes_labels: bool = False
    bounds: tuple[float, float] = (-math.inf, math.inf)
    """A range that holds every value of the metric (``[-1, 1]`` for a correlation)."""

    @property
    def direction(self) -> Direction:
        """The :class:`~ladderboard.direction.Direction` of ``greater_is_better``."""
        return GREATER_IS_BETTER if self.greater_is_better else LOWER_IS_BETTER

    @property
    def worst(self) -> float:
        """The worse end of :attr:`bounds`: what a score the metric leaves
        undefined counts as (see :meth:`or_worst`).

        >>> from ladderboard.metrics import get_metric
        >>> get_metric("pearson").worst, get_metric("auc").worst, get_metric("mse").worst
        (-1.0, 0.0, inf)
        """
        low, high = self.bounds
        return low if self.greater_is_better else high

    def or_worst(self, values: Any) -> Any:
        """``values`` (a score or an array of them) with every undefined one
        (``nan``) counted as :attr:`worst`.

        A score that must be a number wherever it is undefined (a correlation
        of predictions constant on a part of the holdout, or under a bootstrap
        weighting) is the worst the metric gives: never better than any
        defined score, and the same number whichever rows made it undefined.

        >>> import numpy as np
        >>> from ladderboard.metrics import get_metric
        >>> pearson = get_metric("pearson")
        >>> pearson.or_worst(pearson.score([1.0, 2.0, 3.0], [5.0, 5.0, 5.0]))
        -1.0
        >>> pearson.or_worst(np.array([0.5, np.nan]))
        array([ 0.5, -1. ])
        """
        if isinstance(values, np.ndarray):
            return np.where(np.isnan(values), self.worst, values)
        return self.worst if math.isnan(values) else values

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"

    # ------------------------------------------------------------------ validation
    def _targets(self, y_true: Any) -> np.ndarray:
        return as_array(y_true, "y_true")

    def _predictions(self, y_pred: Any, name: str = "y_pred") -> np.ndarray:
        p = as_array(y_pred, name)
        if self.requires_probabilities:
            check_probabilities(p, name)
        return p

    def _inputs(self, y_true: Any, **predictions: Any) -> list[np.ndarray]:
        y = self._targets(y_true)
        out = [y]
        for name, value in predictions.items():
            p = self._predictions(value, name)
            if p.shape != y.shape:
                raise ValueError(
                    f"y_true and {name} must have matching shapes, got y_true {y.shape} "
                    f"and {name} {p.shape}"
                )
            out.append(p)
        return out

    def check_targets(self, y_true: Any) -> None:
        """Raise ``TypeError``/``ValueError`` if ``y_true`` is invalid for this metric.

        >>> from ladderboard.metrics import get_metric
        >>> get_metric("auc").check_targets([0, 1, 2])
        Traceback (most recent call last):
        ...
        ValueError: y_true must contain only 0 and 1, got 2.0 at index 2
        """
        self._targets(y_true)

    def check_predictions(self, y_pred: Any) -> None:
        """Raise ``TypeError``/``ValueError`` if ``y_pred`` is invalid for this metric.

        Predictions must be a finite numeric 1-D array, and probabilities in
        ``[0, 1]`` when ``requires_probabilities``. Nothing else happens.

        >>> from ladderboard.metrics import get_metric
        >>> get_metric("log_loss").check_predictions([0.2, 1.5])
        Traceback (most recent call last):
        ...
        ValueError: y_pred must be probabilities in [0, 1], got 1.5 at index 1
        """
        self._predictions(y_pred)

    # ------------------------------------------------------------------ scoring
    def score(self, y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float | np.ndarray:
        """The metric, unweighted or under each row of ``sample_weight``.

        ``sample_weight`` is ``None``, a nonnegative ``(n,)`` vector (returns a
        float), or a nonnegative ``(B, n)`` matrix of unnormalised weights, one
        weighting per row (returns a ``(B,)`` float64 array).

        >>> from ladderboard.metrics import get_metric
        >>> acc = get_metric("accuracy")
        >>> acc.score([1, 0, 1, 1], [1, 1, 1, 0])
        0.5
        >>> acc.score([1, 0, 1, 1], [1, 1, 1, 0], sample_weight=[[1, 1, 1, 1], [3, 0, 1, 0]])
        array([0.5, 1. ])
        """
        y, p = self._inputs(y_true, y_pred=y_pred)
        values = self._weighted(y, p)
        if sample_weight is None:
            return float(values(np.ones((1, y.size)))[0])
        W = sample_weight_matrix(sample_weight, y.size)
        out = values(W)
        return float(out[0]) if np.ndim(sample_weight) == 1 else out

    def bootstrap_mean(self, y_true: Any, y_pred: Any, b: int, rng: np.random.Generator) -> float:
        """The mean of ``b`` bootstrap replicates of the metric (resampled rows,
        drawn from ``rng``): BayesBootLadderBoot's release (Chaibub Neto et al.
        2016, Alg. 6, lines 12-13). A replicate on which the metric is
        undefined (the rows it draws all predicted alike, under a correlation)
        counts as the metric's :attr:`worst` (:meth:`or_worst`).

        >>> import numpy as np
        >>> from ladderboard.metrics import get_metric
        >>> y = np.arange(20.0)
        >>> value = get_metric("pearson").bootstrap_mean(y, y, 50, np.random.default_rng(0))
        >>> round(value, 12)
        1.0
        """
        y, p = self._inputs(y_true, y_pred=y_pred)
        counts = bootstrap_count_matrix(y.size, b, rng)
        return float(np.mean(self.or_worst(self._weighted(y, p)(counts))))

    def weighted(self, y_true: Any, y_pred: Any) -> WeightedFn:
        """Precompute once; return ``f(W) -> (c,)`` values for a ``(c, n)`` weight matrix.

        This is the hot path of the Bayesian bootstrap: ``f`` checks only the
        shape of ``W`` (nonnegative rows with a positive sum are the caller's
        duty; a zero row gives ``nan``).

        >>> import numpy as np
        >>> from ladderboard.metrics import get_metric
        >>> f = get_metric("ccc").weighted([1.0, 2.0, 3.0, 4.0], [1.1, 1.9, 3.2, 3.8])
        >>> W = np.random.default_rng(0).dirichlet(np.ones(4), size=3)  # Rubin (1981)
        >>> f(W).shape
        (3,)
        """
        y, p = self._inputs(y_true, y_pred=y_pred)
        return self._weighted(y, p)

    def paired(self, y_true: Any, y_a: Any, y_b: Any) -> WeightedFn:
        """``f(W) -> (c,)`` values of ``score(y_a) - score(y_b)`` under the same weights.

        The difference ``Delta s`` whose Bayesian-bootstrap posterior decides a
        BayesBootLadder update (Chaibub Neto et al. 2016, Alg. 5, line 9).

        >>> import numpy as np
        >>> from ladderboard.metrics import get_metric
        >>> d = get_metric("mae").paired([0.0, 1.0, 2.0], [0.0, 1.0, 1.0], [1.0, 1.0, 1.0])
        >>> d(np.array([[1.0, 1.0, 1.0], [0.0, 1.0, 1.0]]))
        array([-0.33333333,  0.        ])
        """
        y, a, b = self._inputs(y_true, y_a=y_a, y_b=y_b)
        return self._paired(y, a, b)

    @abstractmethod
    def _weighted(self, y: np.ndarray, p: np.ndarray) -> WeightedFn: ...

    def _paired(self, y: np.ndarray, a: np.ndarray, b: np.ndarray) -> WeightedFn:
        fa, fb = self._weighted(y, a), self._weighted(y, b)
        return lambda W: fa(W) - fb(W)


class _MomentMetric(Metric):
    """A function of the weighted means of moment columns.

    ``_target_columns(y)`` gives the columns that depend on ``y`` only (shared by
    both sides of :meth:`paired`) and a centre; ``_prediction_columns`` the
    columns involving ``p``; ``_from_moments`` maps the weighted means to values.
    """

    def _target_columns(self, y: np.ndarray) -> tuple[np.ndarray, float]:
        return np.empty((y.size, 0)), 0.0

    @abstractmethod
    def _prediction_columns(
        self, y: np.ndarray, Y: np.ndarray, p: np.ndarray
    ) -> tuple[np.ndarray, float]: ...

    @abstractmethod
    def _from_moments(
        self, my: np.ndarray, mp: np.ndarray, y_centre: float, p_centre: float
    ) -> np.ndarray: ...

    def _weighted(self, y: np.ndarray, p: np.ndarray) -> WeightedFn:
        Y, yc = self._target_columns(y)
        P, pc = self._prediction_columns(y, Y, p)
        X = np.ascontiguousarray(np.column_stack([np.ones(y.size), Y, P]))
        k = Y.shape[1]

        def values(W: np.ndarray) -> np.ndarray:
            M = weighted_means(weight_rows(W, y.size), X)
            return self._from_moments(M[:, :k], M[:, k:], yc, pc)

        return values

    def _paired(self, y: np.ndarray, a: np.ndarray, b: np.ndarray) -> WeightedFn:
        Y, yc = self._target_columns(y)
        A, ac = self._prediction_columns(y, Y, a)
        B, bc = self._prediction_columns(y, Y, b)
        X = np.ascontiguousarray(np.column_stack([np.ones(y.size), Y, A, B]))
        k, m = Y.shape[1], A.shape[1]

        def values(W: np.ndarray) -> np.ndarray:
            M = weighted_means(weight_rows(W, y.size), X)
            my = M[:, :k]
            sa = self._from_moments(my, M[:, k : k + m], yc, ac)
            return sa - self._from_moments(my, M[:, k + m :], yc, bc)

        return values


class _MeanOf(_MomentMetric):
    """The weighted mean of a per-sample column, optionally transformed."""

    def __init__(
        self,
        name: str,
        column: Callable[[np.ndarray, np.ndarray], np.ndarray],
        *,
        greater_is_better: bool = False,
        requires_probabilities: bool = False,
        binary_targets: bool = False,
        takes_labels: bool = False,
        transform: Callable[[np.ndarray], np.ndarray] | None = None,
        bounds: tuple[float, float] = (0.0, math.inf),
    ) -> None:
        self.name = name
        self.greater_is_better = greater_is_better
        self.bounds = bounds
        self.requires_probabilities = requires_probabilities
        self.takes_labels = takes_labels
        self.binary_targets = binary_targets
        self.column = column
        self.transform = transform

    def _targets(self, y_true: Any) -> np.ndarray:
        y = super()._targets(y_true)
        if self.binary_targets:
            check_binary(y, "y_true")
        return y

    def _prediction_columns(self, y, Y, p):
        return self.column(y, p)[:, None], 0.0

    def bootstrap_mean(self, y_true: Any, y_pred: Any, b: int, rng: np.random.Generator) -> float:
        """As :meth:`Metric.bootstrap_mean`; for a plain mean, the mean of ``b``
        replicate means is the mean of ``b·n`` draws, one multinomial of counts
        (:func:`ladderboard.bootstrap.bootstrap_mean_of_means`): the same
        distribution, in O(n) instead of O(b·n)."""
        if self.transform is not None:
            return super().bootstrap_mean(y_true, y_pred, b, rng)
        y, p = self._inputs(y_true, y_pred=y_pred)
        return bootstrap_mean_of_means(self.column(y, p), b, rng)

    def _from_moments(self, my, mp, y_centre, p_centre):
        mean = mp[:, 0]
        return mean if self.transform is None else self.transform(mean)


class _Pearson(_MomentMetric):
    """Pearson's correlation (Pearson 1896) under weights; ``nan`` for zero variance."""

    name = "pearson"
    greater_is_better = True
    bounds = (-1.0, 1.0)

    def _transform(self, v: np.ndarray) -> np.ndarray:
        return v

    def _centred(self, v: np.ndarray) -> tuple[np.ndarray, float]:
        t = self._transform(v)
        centre = float(t.mean())
        return t - centre, centre

    def _target_columns(self, y):
        d, centre = self._centred(y)
        return np.column_stack([d, d * d]), centre

    def _prediction_columns(self, y, Y, p):
        d, centre = self._centred(p)
        return np.column_stack([d, d * d, Y[:, 0] * d]), centre

    @staticmethod
    def _moments(my, mp):
        vy, vp = _variance(my[:, 0], my[:, 1]), _variance(mp[:, 0], mp[:, 1])
        bound = np.sqrt(vy) * np.sqrt(vp)
        cov = np.clip(mp[:, 2] - my[:, 0] * mp[:, 0], -bound, bound)
        return vy, vp, cov, bound

    def _from_moments(self, my, mp, y_centre, p_centre):
        _, _, cov, bound = self._moments(my, mp)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(bound > 0, cov / bound, np.nan)


class _Spearman(_Pearson):
    """Spearman's rho: weighted Pearson of average ranks computed once, unweighted.

    Because the ranks do not change with the weights, integer weights do *not*
    equal replicated rows for this metric (replication would re-rank).
    """

    name = "spearman"

    def _transform(self, v):
        from scipy.stats import rankdata  # here: scipy.stats takes a second to import

        return rankdata(v)


class _CCC(_Pearson):
    """Lin's concordance correlation coefficient (Lin 1989, Biometrics 45:255-268).

    ``2 cov / (var_y + var_p + (mean_y - mean_p)^2)`` with population (weighted)
    moments; ``nan`` when the denominator is zero.
    """

    name = "ccc"

    def _from_moments(self, my, mp, y_centre, p_centre):
        vy, vp, cov, _ = self._moments(my, mp)
        shift = (y_centre - p_centre) + (my[:, 0] - mp[:, 0])
        den = vy + vp + shift * shift
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(den > 0, 2 * cov / den, np.nan)


class _R2(_MomentMetric):
    """Coefficient of determination ``1 - E_w[(y - p)^2] / Var_w(y)``; ``nan`` if Var_w(y) = 0."""

    name = "r2"
    greater_is_better = True
    bounds = (-math.inf, 1.0)

    def _target_columns(self, y):
        centre = float(y.mean())
        d = y - centre
        return np.column_stack([d, d * d]), centre

    def _prediction_columns(self, y, Y, p):
        return ((y - p) ** 2)[:, None], 0.0

    def _from_moments(self, my, mp, y_centre, p_centre):
        vy = _variance(my[:, 0], my[:, 1])
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(vy > 0, 1 - mp[:, 0] / vy, np.nan)


class _AUC(Metric):
    """ROC AUC as a weighted Mann-Whitney statistic (Mann & Whitney 1947; Hanley & McNeil 1982).

    ``sum_{i pos, j neg} w_i w_j ([p_i > p_j] + [p_i = p_j] / 2) / (W_pos W_neg)``,
    the area under the weighted ROC curve (scikit-learn's ``roc_auc_score`` with
    ``sample_weight``). ``y_true`` must be 0/1 with both classes present.

    Cost ``O(c n)`` for ``c`` weight rows after one ``O(n log n)`` sort
    (see :func:`ladderboard._kernels.mann_whitney`).
    """

    name = "auc"
    greater_is_better = True
    bounds = (0.0, 1.0)

    def _targets(self, y_true):
        y = super()._targets(y_true)
        check_binary(y, "y_true")
        if y.min() == y.max():
            raise ValueError(f"y_true must contain both classes 0 and 1, got only {float(y[0])!r}")
        return y

    def _weighted(self, y, p):
        return mann_whitney(y, p)


METRICS: dict[str, Metric] = {
    "mse": _MeanOf("mse", squared_of),
    "rmse": _MeanOf("rmse", squared_of, transform=np.sqrt),
    "mae": _MeanOf("mae", absolute_of),
    "accuracy": _MeanOf(
        "accuracy",
        lambda y, p: (y == p).astype(np.float64),
        greater_is_better=True,
        takes_labels=True,
        bounds=(0.0, 1.0),
    ),
    "r2": _R2(),
    "pearson": _Pearson(),
    "spearman": _Spearman(),
    "ccc": _CCC(),
    "auc": _AUC(),
    "log_loss": _MeanOf(
        "log_loss",
        partial(log_loss_of, clip=KAGGLE_CLIP),
        requires_probabilities=True,
        binary_targets=True,
    ),
    "brier": _MeanOf(
        "brier", brier_of, requires_probabilities=True, binary_targets=True, bounds=(0.0, 1.0)
    ),
}
"""Every metric by name. ``mse``, ``mae``, ``log_loss`` and ``brier`` are the
means of the losses ``squared``, ``absolute``, ``log_loss`` and ``brier`` of
:mod:`ladderboard.losses` (the log loss with Kaggle's clip 1e-15), computed by
the same kernels."""


def get_metric(name: str) -> Metric:
    """The metric called ``name``.

    >>> get_metric("spearman").greater_is_better
    True
    >>> get_metric("f1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown metric 'f1'; known metrics: accuracy, auc, ...
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__} {show(name)}")
    if name not in METRICS:
        raise ValueError(f"unknown metric {name!r}; known metrics: {', '.join(sorted(METRICS))}")
    return METRICS[name]
