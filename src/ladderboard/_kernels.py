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

import math
import threading
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
_PREFIX_DEPTH = 32  # rows of mann_whitney's prefix-sum block: 31 vectorised additions a row


def zero_one_of(y: np.ndarray, p: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``[y != p]`` per sample, written into ``out`` when given (as for the
    other kernels here: the same values as a new array, bit for bit).

    >>> zero_one_of(np.array([0.0, 1.0]), np.array([1.0, 1.0]))
    array([1., 0.])
    """
    return np.not_equal(y, p, out=np.empty(y.shape) if out is None else out)


def absolute_of(y: np.ndarray, p: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``|y - p|`` per sample."""
    difference = np.subtract(y, p, out=out)
    return np.abs(difference, out=difference)


def squared_of(y: np.ndarray, p: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``(y - p)^2`` per sample."""
    difference = np.subtract(y, p, out=out)
    return np.square(difference, out=difference)


def log_loss_of(
    y: np.ndarray, p: np.ndarray, *, clip: tuple[float, float], out: np.ndarray | None = None
) -> np.ndarray:
    """Binary ``-y log p - (1 - y) log(1 - p)`` per sample, ``p`` clipped to ``clip``.

    Each sample takes the one logarithm its label selects, in place: no
    array as large as ``p`` is made beyond the result (the labels' masks
    are a byte a sample).

    >>> log_loss_of(np.array([1.0, 0.0]), np.array([1.0, 0.5]), clip=(0.01, 0.99)).round(4)
    array([0.0101, 0.6931])
    """
    values = np.clip(p, *clip, out=out)
    one = np.equal(y, 1)
    other = np.logical_not(one)
    np.log(values, out=values, where=one)
    np.negative(values, out=values, where=other)
    np.log1p(values, out=values, where=other)  # log(1 - p)
    return np.negative(values, out=values)


def brier_of(y: np.ndarray, p: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Binary ``(p - y)^2`` per sample (Brier 1950)."""
    difference = np.subtract(p, y, out=out)
    return np.square(difference, out=difference)


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

    With ``S(k)`` the weight of the first ``k`` negatives in score order, a
    positive ``i`` contributes ``w_i (S(lt_i) + S(le_i)) / 2``, where ``lt_i`` and
    ``le_i`` count the negatives scored below it and at most its score. One
    ``O(n log n)`` sort by score finds those counts; then a row costs one gather of its
    weights (negatives in score order, positives) and one prefix sum.

    The prefix sum is the part NumPy does slowly (``cumsum`` adds one element
    after another, about 3.5 ns each). The negatives' weights are therefore
    gathered column by column into a ``(depth, width)`` block, so that
    ``depth - 1`` vectorised row additions give every column's running sums
    and one short ``cumsum`` over the column totals gives their offsets. The
    gathers write into buffers kept per thread, reused by every call: fresh
    arrays of ``n`` floats cost as much in page faults as the gathers
    themselves. A row giving one class zero weight yields ``nan``.

    >>> f = mann_whitney(np.array([0.0, 0.0, 1.0, 1.0]), np.array([0.1, 0.5, 0.5, 0.9]))
    >>> f(np.array([[1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 1.0, 0.0]]))
    array([0.875, 0.5  ])
    """
    n = y.size
    order = np.argsort(p, kind="stable")
    positive = y[order] == 1
    negatives, positives = order[~positive], order[positive]
    le = np.searchsorted(p[negatives], p[positives], side="right")
    lt = np.searchsorted(p[negatives], p[positives], side="left")
    # S(0..m) laid out column-major: prefix position s sits at row s % depth of
    # column s // depth; position 0 and the padding past m hold zero weight.
    m = negatives.size
    depth = max(1, min(_PREFIX_DEPTH, math.isqrt(m + 1)))
    width = -(-(m + 1) // depth)
    position = np.arange(depth * width).reshape(width, depth).T
    gather = np.ascontiguousarray(negatives[np.clip(position - 1, 0, m - 1)] if m else position)
    blank = np.r_[0, m + 1 : depth * width]

    def slot(s: np.ndarray) -> np.ndarray:
        return (s % depth) * width + s // depth

    blank, at_le = slot(blank), slot(le)
    at_lt = slot(lt) if (le != lt).any() else None  # None: no positive ties a negative
    at_total = int(slot(np.array(m)))
    step = max(1, _BLOCK_BYTES // (8 * max(n, 1)))
    scratch = threading.local()

    def buffers(c: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        if getattr(scratch, "rows", 0) < c:
            scratch.rows = c
            scratch.prefix = np.empty((c, depth, width))
            scratch.offsets = np.zeros((c, width))
            scratch.positive = np.empty((c, positives.size))
            scratch.below = np.empty((c, positives.size))
        return scratch.prefix[:c], scratch.offsets[:c], scratch.positive[:c], scratch.below[:c]

    def values(W: np.ndarray) -> np.ndarray:
        W = weight_rows(W, n)
        out = np.empty(W.shape[0])
        for r in range(0, W.shape[0], step):
            block = W[r : r + step]
            G, offsets, wpos, below = buffers(block.shape[0])
            np.take(block, gather, axis=1, out=G, mode="clip")
            S = G.reshape(G.shape[0], -1)
            S[:, blank] = 0.0
            for i in range(1, depth):
                np.add(G[:, i], G[:, i - 1], out=G[:, i])
            np.cumsum(G[:, -1, :-1], axis=1, out=offsets[:, 1:])
            G += offsets[:, None, :]
            np.take(block, positives, axis=1, out=wpos, mode="clip")
            np.take(S, at_le, axis=1, out=below, mode="clip")
            num = np.einsum("ij,ij->i", wpos, below)
            if at_lt is not None:
                np.take(S, at_lt, axis=1, out=below, mode="clip")
                num = 0.5 * (num + np.einsum("ij,ij->i", wpos, below))
            den = wpos.sum(axis=1) * S[:, at_total]
            with np.errstate(divide="ignore", invalid="ignore"):
                out[r : r + step] = np.where(den > 0, num / den, np.nan)
        return out

    return values
