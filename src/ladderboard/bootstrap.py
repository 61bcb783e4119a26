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
not depend on the number of threads that compute them. A chunk is drawn and
used a cache-sized block at a time. A ladder only asks whether enough
replicates favour a submission; :func:`bayesian_bootstrap_test` stops drawing
once that is settled, which for a clearly worse submission is after a fraction
of the ``B`` replicates, with the answer all of them would give.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ladderboard._blas import single_blas_thread
from ladderboard._validation import check_int

__all__ = [
    "CHUNK_BYTES",
    "bayesian_bootstrap",
    "bayesian_bootstrap_test",
    "bootstrap_count_matrix",
    "bootstrap_mean_of_means",
    "chunk_rows",
    "empirical_support",
    "limit_threads",
    "naive_bootstrap_mean_of_means",
    "successes_needed",
]

CHUNK_BYTES = 16 * 2**20
"""Target size of one chunk of float64 weights (16 MiB). Part of a mechanism's
definition: changing it changes which sub-stream draws which replicate."""

BLOCK_BYTES = 2**19
"""Weights drawn and used at a time within a chunk (512 KiB, in a core's L2
cache). Not part of any definition: the draws do not depend on it."""

_THREAD_LIMIT: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "bootstrap_threads", default=None
)


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


def _blocks(
    generator: np.random.Generator, rows: int, n: int, block_bytes: int
) -> Iterator[np.ndarray]:
    """Draw a chunk's ``(rows, n)`` standard exponentials as consecutive blocks.

    numpy fills an array variate by variate from the generator, so the blocks
    are exactly the rows one ``standard_exponential((rows, n))`` call would
    give; drawing them a block at a time keeps each in cache while it is used.
    The yielded array is a buffer reused for the next block.
    """
    step = chunk_rows(n, rows, block_bytes)
    buffer = np.empty((step, n))
    for start in range(0, rows, step):
        block = buffer[: min(step, rows - start)]
        generator.standard_exponential(out=block)
        yield block


def _apply(statistic: Callable[[np.ndarray], np.ndarray], weights: np.ndarray) -> np.ndarray:
    # A copy: a statistic may return a view of the weights, whose buffer the
    # next block overwrites.
    values = np.array(statistic(weights), dtype=np.float64, copy=True)
    if values.shape != (weights.shape[0],):
        raise ValueError(f"statistic returned shape {values.shape}, expected ({weights.shape[0]},)")
    return values


def _chunks(
    n: int, B: int, chunk_bytes: int, generator_for_chunk: Callable[[int], np.random.Generator]
) -> list[Callable[[], Iterator[np.ndarray]]]:
    """For each chunk of the ``B`` replicates, a function yielding its weight blocks."""
    rows = chunk_rows(n, B, chunk_bytes)

    def chunk(j: int) -> Callable[[], Iterator[np.ndarray]]:
        return lambda: _blocks(generator_for_chunk(j), min(rows, B - j * rows), n, BLOCK_BYTES)

    return [chunk(j) for j in range(-(-B // rows))]


def _map_chunks(run: Callable[[Any], Any], chunks: list[Any], threads: int | None) -> list[Any]:
    """``run`` over ``chunks``, in order, on :func:`_workers` threads."""
    workers = _workers(threads, len(chunks))
    if workers == 1:
        return [run(chunk) for chunk in chunks]
    with single_blas_thread(), ThreadPoolExecutor(workers) as pool:
        return list(pool.map(run, chunks))


def _workers(threads: int | None, chunks: int) -> int:
    if threads is not None:
        return max(1, min(threads, chunks))
    limit = _THREAD_LIMIT.get()
    cores = os.cpu_count() or 1
    return max(1, min(chunks, cores if limit is None else limit))


@contextlib.contextmanager
def limit_threads(threads: int) -> Iterator[None]:
    """Use at most ``threads`` threads per Bayesian bootstrap inside the block.

    For callers that already run one mechanism per core (replay's team threads,
    experiment workers): the default, one thread per core, would oversubscribe
    them. It never changes a result. The limit is a context variable: threads
    started inside the block do not inherit it, so set it in each of them.

    >>> with limit_threads(1):
    ...     _workers(None, 8)
    1
    """
    token = _THREAD_LIMIT.set(check_int("threads", threads, 1))
    try:
        yield
    finally:
        _THREAD_LIMIT.reset(token)


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
    ``c`` values. Chunk ``j`` holds ``chunk_rows(n, B, chunk_bytes)``
    replicates and draws its weights from ``generator_for_chunk(j)``, in
    cache-sized blocks (the values do not depend on the block size). Chunks
    are computed by ``threads`` threads (default: the machine's cores, or
    :func:`limit_threads`), which does not change the result; the weights are
    drawn in parallel, as numpy releases the GIL while drawing.

    >>> y = np.arange(6.0)
    >>> def weighted_mean(w):
    ...     return w @ y / w.sum(axis=1)
    >>> reps = bayesian_bootstrap(weighted_mean, 6, 500, lambda j: np.random.default_rng(j))
    >>> reps.shape, bool(abs(reps.mean() - 2.5) < 0.2)
    ((500,), True)
    """
    n = check_int("n", n, 1)
    B = check_int("B", B, 1)

    def run(blocks: Callable[[], Iterator[np.ndarray]]) -> np.ndarray:
        return np.concatenate([_apply(statistic, w) for w in blocks()])

    chunks = _chunks(n, B, chunk_bytes, generator_for_chunk)
    return np.concatenate(_map_chunks(run, chunks, threads))


def bayesian_bootstrap_test(
    success: Callable[[np.ndarray], np.ndarray],
    n: int,
    B: int,
    needed: int,
    generator_for_chunk: Callable[[int], np.random.Generator],
    *,
    chunk_bytes: int = CHUNK_BYTES,
    threads: int | None = None,
) -> bool:
    """Whether at least ``needed`` of the ``B`` replicates of
    :func:`bayesian_bootstrap` (same chunks, same draws) are successes.

    ``success`` maps a ``(c, n)`` block of weights to ``c`` booleans. Blocks are
    drawn only until the answer is settled: once ``needed`` successes have
    been seen, or once the replicates not yet drawn could no longer reach it.
    Each chunk has its own random stream, so the blocks left undrawn change
    none of the drawn ones, and the work does not grow with the number of
    chunks: at most one block per thread is drawn past the settling one.
    The answer is the one all ``B`` replicates give, whatever the threads and
    whatever order the blocks finish in; only the work differs. A ladder's
    test is a threshold on the share of successes, and a clearly worse
    submission is settled after about ``B - needed`` replicates.

    >>> y = np.arange(6.0)
    >>> def above_two(w):
    ...     return w @ y / w.sum(axis=1) > 2.0
    >>> gen = lambda j: np.random.default_rng(j)
    >>> share = bayesian_bootstrap(above_two, 6, 500, gen).mean()
    >>> bayesian_bootstrap_test(above_two, 6, 500, 250, gen), bool(share >= 0.5)
    (True, True)
    """
    n = check_int("n", n, 1)
    B = check_int("B", B, 1)
    needed = check_int("needed", needed, 0)
    if needed == 0:
        return True
    if needed > B:
        return False
    lock = threading.Lock()
    tally = {"successes": 0, "unseen": B}
    settled = threading.Event()

    def run(blocks: Callable[[], Iterator[np.ndarray]]) -> None:
        chunk = blocks()
        # Asked before each block is drawn, not after: a chunk started once
        # the answer is settled draws nothing.
        while not settled.is_set():
            w = next(chunk, None)
            if w is None:
                return
            hits = np.asarray(success(w), dtype=bool)
            if hits.shape != (w.shape[0],):
                raise ValueError(f"success returned shape {hits.shape}, expected ({w.shape[0]},)")
            with lock:
                tally["successes"] += int(np.count_nonzero(hits))
                tally["unseen"] -= w.shape[0]
                if tally["successes"] >= needed or tally["successes"] + tally["unseen"] < needed:
                    settled.set()

    _map_chunks(run, _chunks(n, B, chunk_bytes, generator_for_chunk), threads)
    return tally["successes"] >= needed


@functools.lru_cache(maxsize=64)
def successes_needed(B: int, po_threshold: float) -> int:
    """The fewest of ``B`` replicates favouring a submission for which the
    posterior odds ``PO = P/(1 - P)``, ``P`` = that count / ``B``, reach
    ``po_threshold`` (Chaibub Neto et al. 2016, Alg. 5, line 11); ``B + 1``
    if no count does.

    >>> successes_needed(1000, 5.67), successes_needed(100, 99.0)
    (851, 100)
    """

    def passes(count: int) -> bool:
        # PO >= threshold, written without dividing by zero; nondecreasing in
        # the count, so a least passing count exists.
        p = count / B
        return p >= po_threshold * (1.0 - p)

    low, high = 0, B + 1  # passes(B + 1) is taken as true
    while low < high:
        mid = (low + high) // 2
        if passes(mid):
            high = mid
        else:
            low = mid + 1
    return low
