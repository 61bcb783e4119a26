"""``Mechanism.resolution``: every release of every registered mechanism is a
multiple of the step it claims, and the step is the one its paper rounds to."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ladderboard.mechanisms import (
    MECHANISMS,
    BayesBootLadder,
    BayesBootLadderBoot,
    FullDisclosure,
    Ladder,
    LadderBoot,
    Mechanism,
    MetricFullDisclosure,
    ParameterFreeLadder,
    ShakyLadder,
    SignificanceLadder,
    shaky,
)
from ladderboard.mechanisms.shaky import snap_grid

N = 80


def _resolution_build(klass: type[Mechanism], n: int = N) -> Mechanism:
    params = klass._unit_test_params(n, np.random.default_rng(5))
    if klass.stochastic:
        params["random_state"] = 3
    return klass(**params)


def _resolution_inputs(mechanism: Mechanism, count: int) -> list[np.ndarray]:
    """Mostly improving submissions, with real-valued losses in [0, 1], so
    that no release falls on a grid by accident of integer losses."""
    rng = np.random.default_rng(11)
    n = mechanism.n or N
    out = []
    for t in range(count):
        if mechanism.input_kind == "losses":
            out.append(np.clip(rng.random(n) * max(0.05, 1.0 - 0.06 * t), 0.0, 1.0))
        else:
            noise = max(0.1, 2.0 - 0.15 * t)
            out.append(mechanism.y_true + noise * rng.standard_normal(n))
    return out


def _on_grid(value: float, step: float) -> bool:
    multiple = value / step
    return math.isinf(value) or abs(multiple - round(multiple)) < 1e-6


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_resolution_every_release_is_a_multiple(name):
    mechanism = _resolution_build(MECHANISMS[name])
    releases = [mechanism.submit(x).score for x in _resolution_inputs(mechanism, 15)]
    step = mechanism.resolution
    if step is None:
        return
    assert step > 0
    off = [r for r in releases if not _on_grid(r, step)]
    assert off == [], f"{name} released values off its {step} grid"


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_resolution_is_defined_by_each_mechanism(name):
    """``resolution`` is abstract: a new mechanism must state its own."""
    assert "resolution" in Mechanism.__abstractmethods__
    assert not getattr(MECHANISMS[name], "__abstractmethods__", frozenset())


def test_resolution_values_follow_the_papers():
    y = np.random.default_rng(0).normal(size=50)
    assert FullDisclosure().resolution == 1e-5
    assert FullDisclosure(precision=0.01).resolution == 0.01
    assert MetricFullDisclosure(metric="mse", y_true=y, precision=0.001).resolution == 0.001
    assert Ladder(eta=0.02).resolution == 0.02
    assert ParameterFreeLadder(n=4000).resolution == 1 / 4000
    assert SignificanceLadder(alpha=0.05, n=200).resolution == 1 / 200
    # The default noise's power-of-two grid (Mironov 2012), at n = 4000.
    default_noise = shaky.DEFAULT_NOISE_MULTIPLE / math.sqrt(4000)
    assert ShakyLadder(n=4000, random_state=0).resolution == snap_grid(default_noise)
    assert ShakyLadder(noise_scale=0.1, random_state=0).resolution == snap_grid(0.1) == 0.125
    assert ShakyLadder(n=4000, snap=False, random_state=0).resolution is None
    assert LadderBoot(random_state=0).resolution is None
    assert LadderBoot(precision=1e-4, random_state=0).resolution == 1e-4
    assert BayesBootLadder(metric="mse", y_true=y, random_state=0).resolution == 1 / 50
    assert BayesBootLadderBoot(metric="mse", y_true=y, random_state=0).resolution is None


def test_resolution_waits_for_n_when_it_depends_on_it():
    pending = [ParameterFreeLadder(), SignificanceLadder(), ShakyLadder(random_state=0)]
    assert [m.resolution for m in pending] == [None, None, None]
    for mechanism in pending:
        mechanism.submit(np.full(400, 0.5))
    grid = snap_grid(shaky.DEFAULT_NOISE_MULTIPLE / math.sqrt(400))
    assert [m.resolution for m in pending] == [1 / 400, 1 / 400, grid]
