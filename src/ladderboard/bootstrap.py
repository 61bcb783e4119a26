"""Fast bootstrap and Bayesian-bootstrap kernels for the bootstrap ladders.

Two identities make the mechanisms of Chaibub Neto et al. (2016) cheap:

* The mean of ``b`` bootstrap means of a vector ``x`` of length ``n`` is the
  mean of ``b·n`` draws with replacement, i.e. ``counts · x / (b n)`` with
  ``counts ~ Multinomial(b n, 1/n)``: one O(n) draw instead of ``b``
  resamples of O(n) each (:func:`bootstrap_mean_of_means`).
* A Bayesian-bootstrap replicate (Rubin 1981) of a moment-based statistic is
  the statistic under Dirichlet(1, …, 1) weights, and Dirichlet weights are
  normalised standard exponentials. ``B`` replicates are a matrix of weights
  times the data's moment columns, computed here in chunks of rows so memory
  stays bounded (:func:`bayesian_bootstrap`).

Every chunk draws from its own counter-addressed sub-stream, so the values do
not depend on the number of threads that compute them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import threadpool_limits

from ladderboard._validation import check_int

__all__ = [
    "CHUNK_BYTES",
    "bayesian_bootstrap",
    "bootstrap_count_matrix",
    "bootstrap_mean_of_means",
    "chunk_rows",
    "empirical_support",
    "naive_bootstrap_mean_of_means",
]

CHUNK_BYTES = 16 * 2**20
"""Target size of one chunk of float64 weights (16 MiB). Part of a mechanism's
definition: changing it changes which sub-stream draws which replicate."""


def _check_vector(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1 or x.shape[0] == 0:
        raise ValueError(f"x must be a non-empty 1-D vector, got shape {x.shape}")
    return x


def empirical_support(x: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The distinct values of ``x`` and how often each occurs, when there are
    few of them (at most ``n/16``, as for 0/1 losses); ``None`` otherwise.

    >>> values, counts = empirical_support(np.array([0.0, 1.0, 1.0, 0.0, 1.0] * 8))
    >>> values.tolist(), counts.tolist()
    ([0.0, 1.0], [16, 24])
    >>> empirical_support(np.arange(20.0)) is None
    True
    """
    x = _check_vector(x)
    values, counts = np.unique(x, return_counts=True)
    if values.shape[0] > max(1, x.shape[0] // 16):
        return None
    return values, counts


def bootstrap_mean_of_means(
    x: np.ndarray,
    b: int,
    rng: np.random.Generator,
    *,
    support: tuple[np.ndarray, np.ndarray] | None = None,
) -> float:
    """Mean of ``b`` bootstrap replicates of ``mean(x)``, in O(n).

    The ``b·n`` draws with replacement are summarised by their counts,
    ``Multinomial(b n, 1/n)``: one draw instead of ``b`` resamples. Given the
    :func:`empirical_support` of ``x`` (``K`` distinct values), only how many
    draws land on each value matters, ``Multinomial(b n, counts/n)``: O(K).
    Both are exactly equal in distribution to
    :func:`naive_bootstrap_mean_of_means`.

    >>> rng = np.random.default_rng(0)
    >>> x = rng.random(1000)
    >>> value = bootstrap_mean_of_means(x, 100, np.random.default_rng(1))
    >>> bool(abs(value - x.mean()) < 4 * x.std() / np.sqrt(100 * 1000))
    True
    """
    x = _check_vector(x)
    b = check_int("b", b, 1)
    n = x.shape[0]
    if support is not None:
        values, frequencies = support
        draws = rng.multinomial(b * n, frequencies / n)
        return float(np.dot(draws, values)) / (b * n)
    counts = rng.multinomial(b * n, np.full(n, 1.0 / n))
    return float(np.dot(counts, x)) / (b * n)


def naive_bootstrap_mean_of_means(x: np.ndarray, b: int, rng: np.random.Generator) -> float:
    """The textbook version: ``b`` resamples with replacement, O(b·n).

    For tests and benchmarks only.

    >>> x = np.arange(10.0)
    >>> 0 <= naive_bootstrap_mean_of_means(x, 5, np.random.default_rng(0)) <= 9
    True
    """
    x = _check_vector(x)
    b = check_int("b", b, 1)
    n = x.shape[0]
    return float(np.mean([x[rng.integers(0, n, n)].mean() for _ in range(b)]))


def bootstrap_count_matrix(n: int, b: int, rng: np.random.Generator) -> np.ndarray:
    """A ``(b, n)`` matrix whose rows are bootstrap resampling counts.

    Row ``j`` counts how often each of the ``n`` points appears in the
    ``j``-th resample: ``Multinomial(n, 1/n)``, drawn as ``n`` uniform indices
    and a bincount (cheaper than ``n`` sequential binomials for large ``n``).
    Used as weights, a row turns any weighted statistic into its bootstrap
    replicate.

    >>> counts = bootstrap_count_matrix(5, 3, np.random.default_rng(0))
    >>> counts.shape, counts.sum(axis=1).astype(int).tolist()
    ((3, 5), [5, 5, 5])
    """
    n = check_int("n", n, 1)
    b = check_int("b", b, 1)
    idx = rng.integers(0, n, size=(b, n))
    idx += (np.arange(b) * n)[:, None]
    return np.bincount(idx.ravel(), minlength=b * n).reshape(b, n).astype(np.float64)


def chunk_rows(n: int, total_rows: int, chunk_bytes: int = CHUNK_BYTES) -> int:
    """Rows of ``n`` float64 weights per chunk so that a chunk is ~``chunk_bytes``.

    >>> chunk_rows(100_000, 1000)
    20
    >>> chunk_rows(100, 1000)
    1000
    """
    return max(1, min(total_rows, chunk_bytes // (8 * n)))


def bayesian_bootstrap(
    statistic: Callable[[np.ndarray], np.ndarray],
    n: int,
    B: int,
    generator_for_chunk: Callable[[int], np.random.Generator],
    *,
    chunk_bytes: int = CHUNK_BYTES,
    threads: int | None = None,
) -> np.ndarray:
    """``B`` Bayesian-bootstrap replicates of ``statistic``.

    ``statistic`` maps a ``(c, n)`` matrix of unnormalised weights (rows of
    standard exponentials, i.e. Dirichlet(1, …, 1) up to normalisation) to
    ``c`` values. Chunk ``j`` draws its weights from
    ``generator_for_chunk(j)``; chunks are computed by ``threads`` threads
    (default: the machine's cores), which does not change the result; the
    weights are drawn in parallel, as numpy releases the GIL while drawing.

    >>> y = np.arange(6.0)
    >>> def weighted_mean(w):
    ...     return w @ y / w.sum(axis=1)
    >>> reps = bayesian_bootstrap(weighted_mean, 6, 500, lambda j: np.random.default_rng(j))
    >>> reps.shape, bool(abs(reps.mean() - 2.5) < 0.2)
    ((500,), True)
    """
    n = check_int("n", n, 1)
    B = check_int("B", B, 1)
    rows = chunk_rows(n, B, chunk_bytes)
    starts = range(0, B, rows)

    def run(j: int) -> np.ndarray:
        c = min(rows, B - j * rows)
        weights = generator_for_chunk(j).standard_exponential((c, n))
        values = np.asarray(statistic(weights), dtype=np.float64)
        if values.shape != (c,):
            raise ValueError(f"statistic returned shape {values.shape}, expected ({c},)")
        return values

    workers = threads if threads is not None else min(len(starts), os.cpu_count() or 1)
    if workers <= 1 or len(starts) == 1:
        parts = [run(j) for j in range(len(starts))]
    else:
        # One BLAS thread per worker: the workers already use every core, and
        # BLAS threads on top of them oversubscribe it (about 1.6x slower).
        with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(workers) as pool:
            parts = list(pool.map(run, range(len(starts))))
    return np.concatenate(parts)
