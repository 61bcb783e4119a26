"""What every registered mechanism shares beyond the public checks
(:mod:`ladderboard.mechanisms.checks`, run over the registry in
``test_checks.py``): a new mechanism is tested here the moment it is
registered in ``MECHANISMS``, selected by its declared traits, never by name."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from ladderboard.mechanisms import (
    MECHANISMS,
    BayesBootLadder,
    BayesBootLadderBoot,
    Mechanism,
    make_mechanism,
)
from ladderboard.mechanisms.traits import select
from ladderboard.random import KeyedStream

N = 60
ALL = sorted(MECHANISMS)


def build(name: str, random_state=7, n: int = N) -> Mechanism:
    klass = MECHANISMS[name]
    params = klass._unit_test_params(n, np.random.default_rng(123))
    if klass.stochastic:
        params["random_state"] = random_state
    return klass(**params)


def inputs(mechanism: Mechanism, count: int, seed: int = 0) -> list[np.ndarray]:
    """A stream of valid, mostly improving submissions for ``mechanism``."""
    rng = np.random.default_rng(seed)
    n = mechanism.n or N
    out = []
    for t in range(count):
        if mechanism.input_kind == "losses":
            error_rate = max(0.05, 0.5 - 0.03 * t + 0.05 * rng.standard_normal())
            out.append((rng.random(n) < error_rate).astype(float))
        else:
            noise = max(0.1, 2.0 - 0.15 * t)
            out.append(mechanism.y_true + noise * rng.standard_normal(n))
    return out


def run(mechanism: Mechanism, xs) -> list[tuple[float, bool, int]]:
    return [(r.score, r.improved, r.index) for r in map(mechanism.submit, xs)]


def roundtrip(state: dict) -> dict:
    return json.loads(json.dumps(state, allow_nan=False))


def secrets_of(mechanism: Mechanism) -> dict:
    """The secrets ``from_state`` takes back, as a caller keeping them elsewhere holds them."""
    out = {}
    if mechanism.stochastic:
        out["key"] = mechanism.get_state(secrets=True)["key"]
    if mechanism.input_kind == "predictions":
        out["y_true"] = mechanism.y_true.copy()
    return out


@pytest.mark.parametrize("name", ALL)
def test_one_from_state_call_serves_every_mechanism(name):
    """As the engine restores any mechanism: both secrets given, the ones a
    mechanism does not have are ignored."""
    xs = inputs(build(name), 5, seed=13)
    first = build(name)
    run(first, xs[:2])
    labels = getattr(first, "y_true", np.zeros(N))
    key = KeyedStream.from_random_state(3).key_hex
    secrets = {"key": key, "y_true": labels, **secrets_of(first)}
    restored = Mechanism.from_state(roundtrip(first.get_state()), **secrets)
    assert run(restored, xs[2:]) == run(first, xs[2:])


@pytest.mark.parametrize("name", ALL)
def test_state_missing_or_conflicting_secrets_is_a_clear_error(name):
    mechanism = build(name)
    run(mechanism, inputs(mechanism, 2))
    state = roundtrip(mechanism.get_state())
    secrets = secrets_of(mechanism)
    for missing in secrets:
        partial = {k: v for k, v in secrets.items() if k != missing}
        with pytest.raises(ValueError, match=f"{missing}="):
            Mechanism.from_state(state, **partial)
    saved = roundtrip(mechanism.get_state(secrets=True))
    if "key" in secrets:
        with pytest.raises(ValueError, match="key given differs"):
            Mechanism.from_state(
                saved, key=build(name, random_state=1234).get_state(secrets=True)["key"]
            )
    if "y_true" in secrets:
        with pytest.raises(ValueError, match="labels given differ"):
            Mechanism.from_state(saved, y_true=secrets["y_true"] + 1.0)
    if not secrets:
        assert saved == state, "a mechanism without secrets saves the same state either way"


@pytest.mark.parametrize("name", select(stochastic=True))
def test_different_keys_different_draws(name):
    xs = inputs(build(name), 8, seed=3)
    a, b = build(name, random_state=5), build(name, random_state=6)
    if isinstance(a, BayesBootLadder) and not isinstance(a, BayesBootLadderBoot):
        # Randomness enters only the test: compare the posterior probabilities.
        a.submit(xs[0])
        b.submit(xs[0])
        assert a.posterior_probability(xs[1], 2) != b.posterior_probability(xs[1], 2)
    else:
        assert [r[0] for r in run(a, xs)] != [r[0] for r in run(b, xs)]


@pytest.mark.parametrize("name", select(noisy_comparison=False))
def test_best_never_gets_worse(name):
    # (A mechanism comparing noisy scores may accept a worse submission: see below.)
    mechanism = build(name)
    best = []
    for x in inputs(mechanism, 15, seed=5) + inputs(mechanism, 10, seed=6):
        mechanism.submit(x)
        best.append(mechanism.best_score)
    assert not any(mechanism.direction.better(a, b) for a, b in itertools.pairwise(best))


DETERMINISTIC_LOSS_LADDERS = select(releases="best", stochastic=False, input_kind="losses")


@pytest.mark.parametrize("name", DETERMINISTIC_LOSS_LADDERS)
def test_deterministic_ladder_release_never_rises(name):
    mechanism = build(name)
    scores = [r[0] for r in run(mechanism, inputs(mechanism, 25, seed=7))]
    assert all(b <= a for a, b in itertools.pairwise(scores))


def test_shaky_release_rises_only_by_noise():
    # With negligible noise the Shaky Ladder is a deterministic ladder.
    board = make_mechanism(
        "shaky-ladder", n=N, noise_scale=1e-12, step=0.02, snap=False, random_state=0
    )
    scores = [r[0] for r in run(board, inputs(board, 25, seed=8))]
    assert all(b <= a + 1e-9 for a, b in itertools.pairwise(scores))


def test_unknown_mechanism_is_a_clear_error():
    with pytest.raises(ValueError, match=r"unknown mechanism 'kaggle'.*parameter-free-ladder"):
        make_mechanism("kaggle")
    with pytest.raises(ValueError, match="unknown mechanism"):
        Mechanism.from_state({"mechanism": "nope", "format": 1})


@pytest.mark.parametrize("name", select(input_kind="predictions"))
def test_a_metric_mechanisms_holdout_size_is_fixed_too(name):
    """``n`` of a metric mechanism is the labels' length, not a keyword: it is
    read-only all the same."""
    klass = MECHANISMS[name]
    seed = {"random_state": 0} if klass.stochastic else {}
    mechanism = klass(metric="auc", y_true=np.array([0, 1, 0, 1.0]), **seed)
    with pytest.raises(AttributeError, match="fixed at construction"):
        mechanism.n = 3
    assert mechanism.n == 4
