"""Statistical checks, with fixed seeds and tolerances set well outside the
run-to-run spread, of the Shaky Ladder's draws (Hardt 2017, Fig. 1)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import reference
from ladderboard.mechanisms import ShakyLadder
from ladderboard.mechanisms.shaky import snap_grid
from ladderboard.random import KeyedStream

# ------------------------------------------------------------------ Shaky Ladder


@pytest.mark.slow
@pytest.mark.parametrize(("noise", "dist"), [("laplace", stats.laplace), ("gaussian", stats.norm)])
def test_shaky_release_noise_has_the_declared_scale(noise, dist):
    n, sigma = 1000, 0.02
    losses = (np.random.default_rng(10).random(n) < 0.4).astype(float)
    errors = []
    for seed in range(2000):
        board = ShakyLadder(
            n=n, noise_scale=sigma, step=0.01, noise=noise, snap=False, random_state=seed
        )
        release = board.submit(losses)
        assert release.improved
        errors.append(release.score - losses.mean())
    assert stats.kstest(errors, dist(scale=sigma).cdf).pvalue > 0.001


def test_shaky_follows_fig1_given_its_draws():
    n, sigma, lam = 200, 0.03, 0.02
    rng = np.random.default_rng(11)
    seq = [(rng.random(n) < p).astype(float) for p in np.linspace(0.5, 0.2, 30)]
    board = ShakyLadder(
        n=n, noise_scale=sigma, step=lam, snap=False, max_updates=10**6, random_state=12
    )
    got = [board.submit(v).score for v in seq]
    stream = KeyedStream.from_random_state(12)
    xi0 = stream.generator(0).laplace(0, sigma, 1)[0]
    rounds = [tuple(stream.generator(t).laplace(0, sigma, 3)) for t in range(1, 31)]
    assert got == reference.shaky_ladder(seq, (xi0, rounds, lam))


def test_shaky_snapped_releases_lie_on_the_grid_in_unit_interval():
    n = 4000
    board = ShakyLadder(n=n, random_state=13)
    grid = snap_grid(board.noise_scale)
    rng = np.random.default_rng(14)
    for p in np.linspace(0.6, 0.0, 40):
        score = board.submit((rng.random(n) < p).astype(float)).score
        assert 0.0 <= score <= 1.0
        assert (score / grid) == round(score / grid)


def test_shaky_caps_updates():
    board = ShakyLadder(n=100, noise_scale=1e-9, step=0.01, max_updates=3, random_state=0)
    results = [board.submit(np.full(100, v)).improved for v in (0.9, 0.8, 0.7, 0.6, 0.5)]
    assert results == [True, True, True, False, False]


def test_shaky_theory_settings_follow_eq2():
    n, k, beta = 4000, 400, 0.05
    board = ShakyLadder.from_theory(n=n, k=k, beta=beta)
    delta = beta / (k * n)
    eps = (math.log(k / beta) * math.sqrt(math.log(1 / delta)) / n) ** 0.6
    sigma = math.sqrt(math.log(1 / delta)) / (eps * n)
    assert board.noise_scale == pytest.approx(sigma)
    assert board.step == pytest.approx(4 * math.log(4 * k / beta) * sigma)
    assert board.step > 0.5  # the proof's step never lets a real model update
    with pytest.raises(ValueError, match="epsilon < 1/3"):
        ShakyLadder.from_theory(n=50, k=10**6, beta=0.05)


@pytest.mark.slow
def test_shaky_practical_default_separates_guesses_from_improvements():
    """The default (noise and step 0.25/√n): a random guess after a random
    guess updates about four times in ten (0.38 here), a real improvement of
    1/√n about eight in ten (0.80), one of 3/√n nearly always (0.999)."""
    n, reps = 4000, 1500
    rng = np.random.default_rng(15)

    def pass_rate(improvement):
        hits = 0
        for seed in range(reps):
            board = ShakyLadder(n=n, random_state=seed)
            board.submit((rng.random(n) < 0.5).astype(float))
            hits += board.submit((rng.random(n) < 0.5 - improvement).astype(float)).improved
        return hits / reps

    assert 0.32 < pass_rate(0.0) < 0.44
    assert 0.74 < pass_rate(1 / math.sqrt(n)) < 0.86
    assert pass_rate(3 / math.sqrt(n)) > 0.98
