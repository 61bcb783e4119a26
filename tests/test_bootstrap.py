"""The bootstrap and Bayesian-bootstrap kernels (Chaibub Neto et al. 2016;
Rubin 1981): statistical checks with fixed seeds and tolerances set well
outside the run-to-run spread, and the early-stopping test."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from ladderboard import bootstrap
from ladderboard.bootstrap import (
    bayesian_bootstrap,
    bayesian_bootstrap_test,
    bootstrap_count_matrix,
    bootstrap_mean_of_means,
    naive_bootstrap_mean_of_means,
)
from ladderboard.random import KeyedStream

# ------------------------------------------------------------- bootstrap kernels


def test_fast_bootstrap_mean_matches_naive_in_distribution():
    x = np.random.default_rng(0).exponential(size=200)
    fast_rng, naive_rng = np.random.default_rng(1), np.random.default_rng(2)
    fast = np.array([bootstrap_mean_of_means(x, 20, fast_rng) for _ in range(1500)])
    naive = np.array([naive_bootstrap_mean_of_means(x, 20, naive_rng) for _ in range(1500)])
    assert stats.ks_2samp(fast, naive).pvalue > 0.001
    expected_sd = x.std() / math.sqrt(20 * 200)  # population sd over b·n draws
    for sample in (fast, naive):
        assert abs(sample.mean() - x.mean()) < 4 * expected_sd / math.sqrt(1500)
        assert sample.std() == pytest.approx(expected_sd, rel=0.08)


def test_bootstrap_count_matrix_rows_are_multinomial():
    counts = bootstrap_count_matrix(50, 4000, np.random.default_rng(3))
    assert counts.shape == (4000, 50)
    assert (counts.sum(axis=1) == 50).all()
    # Each cell is Binomial(50, 1/50): mean 1, variance 49/50.
    assert counts.mean() == pytest.approx(1.0, abs=0.01)
    assert counts.var() == pytest.approx(49 / 50, rel=0.03)


def test_bayesian_bootstrap_weights_are_dirichlet():
    y = np.random.default_rng(4).normal(size=40)
    reps = bayesian_bootstrap(
        lambda w: w @ y / w.sum(axis=1), 40, 20000, lambda j: np.random.default_rng([5, j])
    )
    # Weighted mean under Dirichlet(1,…,1): mean ȳ, variance σ²_pop / (n + 1).
    assert reps.mean() == pytest.approx(y.mean(), abs=4 * y.std() / math.sqrt(41 * 20000))
    assert reps.var() == pytest.approx(y.var() / 41, rel=0.05)


def test_bayesian_bootstrap_does_not_depend_on_threads():
    y = np.random.default_rng(6).normal(size=5000)
    stream = KeyedStream.from_random_state(0)

    def stat(w):
        return w @ y / w.sum(axis=1)

    def gen(j):
        return stream.generator(1, j)

    one = bayesian_bootstrap(stat, 5000, 300, gen, chunk_bytes=8 * 5000 * 7, threads=1)
    two = bayesian_bootstrap(stat, 5000, 300, gen, chunk_bytes=8 * 5000 * 7, threads=2)
    assert np.array_equal(one, two)


def test_bayesian_bootstrap_blocks_are_the_chunk_draws(monkeypatch):
    """Drawing a chunk a block at a time gives the rows one draw of the whole
    chunk gives, whatever the block size."""
    n, B = 300, 50
    y = np.random.default_rng(8).normal(size=n)

    def gen(j):
        return np.random.default_rng([9, j])

    def whole(j):
        rows = bootstrap.chunk_rows(n, B, 8 * n * 20)
        return gen(j).standard_exponential((min(rows, B - j * rows), n))

    expected = np.concatenate([whole(j) for j in range(3)]) @ y
    for block_bytes in (8 * n, 8 * n * 3, 8 * n * 7, 2**20):
        monkeypatch.setattr(bootstrap, "BLOCK_BYTES", block_bytes)
        got = bayesian_bootstrap(lambda w: w @ y, n, B, gen, chunk_bytes=8 * n * 20)
        assert np.allclose(got, expected, rtol=1e-13, atol=0)


def test_a_statistic_may_return_a_view_of_the_weights(monkeypatch):
    monkeypatch.setattr(bootstrap, "BLOCK_BYTES", 8 * 50 * 3)  # blocks of 3 rows

    def gen(j):
        return np.random.default_rng([13, j])

    first = bayesian_bootstrap(lambda w: w[:, 0], 50, 20, gen)
    again = bayesian_bootstrap(lambda w: w[:, 0].copy(), 50, 20, gen)
    assert np.array_equal(first, again)
    assert len(set(first.tolist())) == 20  # not one block's values repeated


@settings(max_examples=60, deadline=None)
@given(
    shift=st.floats(-0.4, 0.4),
    B=st.integers(1, 120),
    needed=st.integers(0, 130),
    chunk=st.integers(1, 40),
    block=st.integers(1, 15),
    threads=st.integers(1, 3),
)
def test_early_stopping_test_agrees_with_the_full_count(shift, B, needed, chunk, block, threads):
    """Stopping once the count is settled never changes the answer the full set
    of replicates gives, for any chunk, block size or number of threads."""
    n = 30
    x = np.random.default_rng(10).normal(size=n) + shift

    def success(w):
        return w @ x > 0

    def gen(j):
        return np.random.default_rng([11, j])

    full = np.count_nonzero(
        bayesian_bootstrap(
            lambda w: (w @ x > 0).astype(float), n, B, gen, chunk_bytes=8 * n * chunk, threads=1
        )
    )
    saved = bootstrap.BLOCK_BYTES
    bootstrap.BLOCK_BYTES = 8 * n * block
    try:
        decided = bayesian_bootstrap_test(
            success, n, B, needed, gen, chunk_bytes=8 * n * chunk, threads=threads
        )
    finally:
        bootstrap.BLOCK_BYTES = saved
    assert decided == (full >= needed)


def test_early_stopping_draws_only_what_settles_the_answer():
    n, B = 50, 1000
    seen = []

    def success(w):
        seen.append(w.shape[0])
        return np.zeros(w.shape[0], dtype=bool)  # never a success

    def gen(j):
        return np.random.default_rng([12, j])

    assert (
        bayesian_bootstrap_test(success, n, B, 850, gen, chunk_bytes=8 * n * 10, threads=1) is False
    )
    # 850 of 1000 become impossible after 151 failures: 16 chunks of 10 rows.
    assert sum(seen) == 160
    assert bayesian_bootstrap_test(success, n, B, 0, gen) is True


def test_limit_threads_is_scoped():
    assert bootstrap._workers(None, 1) == 1
    with bootstrap.limit_threads(1):
        assert bootstrap._workers(None, 64) == 1
        assert bootstrap._workers(2, 64) == 2  # an explicit count wins
    assert bootstrap._workers(None, 64) == min(64, os.cpu_count() or 1)
    with pytest.raises(ValueError), bootstrap.limit_threads(0):
        pass
