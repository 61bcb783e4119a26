"""Numerical kernels behind :mod:`ladderboard.losses` and :mod:`ladderboard.metrics`.

Per-sample losses of arrays already checked (float64, aligned, finite, in
the loss's domain): ``zero_one_of``, ``absolute_of``, ``squared_of``,
``log_loss_of`` and ``brier_of``, shared by the losses of the same names
and the metrics that are their means.

A weight matrix ``W`` has one row per weighting of the ``n`` holdout samples
(Bayesian-bootstrap Dirichlet draws, Rubin 1981, or bootstrap counts). The
kernels here check such matrices, form weighted means of moment columns in one
matrix product, and compute the weighted Mann-Whitney statistic (ROC AUC) of
every row in ``O(c n)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ladderboard._array_checks import as_array

__all__ = [
    "KAGGLE_CLIP",
    "absolute_of",
    "brier_of",
    "log_loss_of",
    "mann_whitney",
    "sample_weight_matrix",
    "squared_of",
    "weight_rows",
    "weighted_means",
    "zero_one_of",
]

KAGGLE_CLIP = (1e-15, 1 - 1e-15)
"""Kaggle's clip of predicted probabilities for its log loss."""

_BLOCK_BYTES = 2**19  # weights per step in mann_whitney: its (rows, n) temporaries stay in cache


def zero_one_of(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``[y != p]`` per sample.

    >>> zero_one_of(np.array([0.0, 1.0]), np.array([1.0, 1.0]))
    array([1., 0.])
    """
    return (y != p).astype(np.float64)


def absolute_of(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``|y - p|`` per sample."""
    return np.abs(y - p)


def squared_of(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``(y - p)^2`` per sample."""
    return (y - p) ** 2


def log_loss_of(y: np.ndarray, p: np.ndarray, *, clip: tuple[float, float]) -> np.ndarray:
    """Binary ``-y log p - (1 - y) log(1 - p)`` per sample, ``p`` clipped to ``clip``.

    >>> log_loss_of(np.array([1.0, 0.0]), np.array([1.0, 0.5]), clip=(0.01, 0.99)).round(4)
    array([0.0101, 0.6931])
    """
    p = np.clip(p, *clip)
    return -np.where(y == 1, np.log(p), np.log1p(-p))


def brier_of(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Binary ``(p - y)^2`` per sample (Brier 1950)."""
    return (p - y) ** 2


def weight_rows(W: Any, n: int) -> np.ndarray:
    """``W`` as a float64 ``(c, n)`` matrix; the hot path's only check is its shape.

    >>> weight_rows([[1, 2, 3]], 3).dtype
    dtype('float64')
    """
    W = np.asarray(W, dtype=np.float64)
    if W.ndim != 2 or W.shape[1] != n:
        raise ValueError(f"W must have shape (c, {n}), got {W.shape}")
    return W


def sample_weight_matrix(sample_weight: Any, n: int) -> np.ndarray:
    """A validated ``(n,)`` or ``(B, n)`` ``sample_weight`` as a ``(B, n)`` matrix.

    Weights must be finite and nonnegative, and every row must have a positive sum.

    >>> sample_weight_matrix([0, 2, 1], 3)
    array([[0., 2., 1.]])
    >>> sample_weight_matrix([0, -2, 1], 3)
    Traceback (most recent call last):
    ...
    ValueError: sample_weight must be nonnegative, got -2.0 at index (1,)
    """
    W = as_array(sample_weight, "sample_weight", ndim=(1, 2))
    if W.shape[-1] != n:
        raise ValueError(
            f"sample_weight must have shape ({n},) or (B, {n}) to match y_true, got {W.shape}"
        )
    if (W < 0).any():
        where = tuple(int(i) for i in np.argwhere(W < 0)[0])
        raise ValueError(
            f"sample_weight must be nonnegative, got {float(W[where])!r} at index {where}"
        )
    W = np.atleast_2d(W)
    empty = W.sum(axis=1) <= 0
    if empty.any():
        raise ValueError(f"sample_weight row {int(np.flatnonzero(empty)[0])} sums to 0")
    return W


def weighted_means(W: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Weighted means ``(c, m - 1)`` of ``X[:, 1:]``, whose column 0 must be all ones.

    One matrix product gives the weight totals (from the ones) and the weighted
    sums together; a row of zero weights gives ``nan``.

    >>> X = np.column_stack([np.ones(3), [1.0, 2.0, 3.0]])
    >>> weighted_means(np.array([[1.0, 1.0, 1.0], [0.0, 1.0, 3.0]]), X)
    array([[2.  ],
           [2.75]])
    """
    S = W @ X
    with np.errstate(divide="ignore", invalid="ignore"):
        return S[:, 1:] / S[:, :1]


def mann_whitney(y: np.ndarray, p: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """Precompute for labels ``y`` (0/1) and scores ``p``; return ``f(W) -> (c,)`` AUCs.

    The weighted Mann-Whitney statistic (Mann & Whitney 1947; Hanley & McNeil
    1982) of each row ``w``::

        sum_{i pos, j neg} w_i w_j ([p_i > p_j] + [p_i = p_j] / 2) / (W_pos W_neg)

    After one ``O(n log n)`` sort by ``(p, y)``, which puts negatives first
    among tied scores, a row costs one gather of its weights into that order
    and one cumulative sum: the cumulative negative weight at a positive
    counts its tied negatives fully, so half of ``sum_g P_g N_g`` over the tie
    groups ``g`` holding both classes is subtracted, ``N_g`` read off the same
    cumulative sum and ``P_g`` summed over the group's positives. A row giving
    one class zero weight yields ``nan``.

    >>> f = mann_whitney(np.array([0.0, 0.0, 1.0, 1.0]), np.array([0.1, 0.5, 0.5, 0.9]))
    >>> f(np.array([[1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 1.0, 0.0]]))
    array([0.875, 0.5  ])
    """
    n = y.size
    order = np.lexsort((y, p))
    ps, positive = p[order], y[order]
    negative = 1.0 - positive
    starts = np.flatnonzero(np.r_[True, ps[1:] != ps[:-1]])
    ends = np.r_[starts[1:], n]
    n_pos = np.add.reduceat(positive, starts).astype(np.intp)
    mixed = (n_pos > 0) & (n_pos < ends - starts)
    # A tie group holding both classes is [start, first positive) of
    # negatives, then [first positive, end) of positives.
    first_pos, end = (ends - n_pos)[mixed], ends[mixed]
    before = starts[mixed] - 1  # the position before the group; -1 for none
    has_before = before >= 0
    before = np.maximum(before, 0)
    # reduceat over [first_pos, end), [end, next first_pos), ...: the even
    # segments are the groups' positives; an end at n closes the last itself.
    segments = np.column_stack([first_pos, end]).ravel()
    if segments.size and segments[-1] == n:
        segments = segments[:-1]
    step = max(1, _BLOCK_BYTES // (8 * max(n, 1)))

    def values(W: np.ndarray) -> np.ndarray:
        W = weight_rows(W, n)
        out = np.empty(W.shape[0])
        for r in range(0, W.shape[0], step):
            ws = np.take(W[r : r + step], order, axis=1)
            below = ws * negative
            np.cumsum(below, axis=1, out=below)  # negative weight up to each position
            ws *= positive
            num = np.einsum("ij,ij->i", ws, below)
            if first_pos.size:
                p_g = np.add.reduceat(ws, segments, axis=1)[:, 0::2]
                n_g = below[:, first_pos - 1] - below[:, before] * has_before
                num -= 0.5 * np.einsum("ij,ij->i", p_g, n_g)
            den = ws.sum(axis=1) * below[:, -1]
            with np.errstate(divide="ignore", invalid="ignore"):
                out[r : r + step] = np.where(den > 0, num / den, np.nan)
        return out

    return values
