"""Checks every registered mechanism passes: a new mechanism is tested here the
moment it is registered in ``MECHANISMS``."""

from __future__ import annotations

import copy
import itertools
import json
import math

import numpy as np
import pytest

from ladderboard.mechanisms import (
    MECHANISMS,
    BayesBootLadder,
    BayesBootLadderBoot,
    Mechanism,
    Release,
    make_mechanism,
)

N = 60
ALL = sorted(MECHANISMS)
LADDERS = [name for name in ALL if name != "full-disclosure"]


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


@pytest.mark.parametrize("name", ALL)
def test_registered_under_its_name(name):
    klass = MECHANISMS[name]
    assert klass.name == name
    assert klass.__doc__ and ("20" in klass.__doc__), "docstring must cite its paper"


@pytest.mark.parametrize("name", ALL)
def test_release_is_frozen_and_counts(name):
    mechanism = build(name)
    xs = inputs(mechanism, 3)
    releases = [mechanism.submit(x) for x in xs]
    assert all(isinstance(r, Release) for r in releases)
    assert [r.index for r in releases] == [1, 2, 3]
    assert mechanism.n_submissions == 3
    assert releases[0].improved, "the first submission is always accepted"
    assert mechanism.best_index is not None and 1 <= mechanism.best_index <= 3
    with pytest.raises(AttributeError):
        releases[0].score = 0.0
    with pytest.raises(AttributeError):
        mechanism.n_submissions = 0


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("cut", [0, 1, 4])
def test_save_restore_continues_bit_identically(name, cut):
    xs = inputs(build(name), 9, seed=1)
    uninterrupted = build(name)
    expected = run(uninterrupted, xs)

    first = build(name)
    run(first, xs[:cut])
    state = roundtrip(first.get_state(secrets=True))
    restored = Mechanism.from_state(state)
    assert type(restored) is type(first)
    assert restored.n_submissions == cut
    got = run(restored, xs[cut:])
    assert got == expected[cut:]  # exact float equality: bit for bit
    assert roundtrip(restored.get_state(secrets=True)) == roundtrip(
        uninterrupted.get_state(secrets=True)
    )

    # set_state on another instance does the same.
    other = build(name, random_state=99)
    other.set_state(state)
    assert run(other, xs[cut:]) == expected[cut:]


def secrets_of(mechanism: Mechanism) -> dict:
    """The secrets ``from_state`` takes back, as a caller keeping them elsewhere holds them."""
    out = {}
    if mechanism.stochastic:
        out["key"] = mechanism.get_state(secrets=True)["key"]
    if mechanism.input_kind == "predictions":
        out["y_true"] = mechanism.y_true.copy()
    return out


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("cut", [0, 3])
def test_state_without_secrets_plus_the_secrets_continues_bit_identically(name, cut):
    xs = inputs(build(name), 7, seed=11)
    expected = run(build(name), xs)
    first = build(name)
    run(first, xs[:cut])
    state = roundtrip(first.get_state())
    assert state["key"] is None and "y_true" not in state["params"]
    restored = Mechanism.from_state(state, **secrets_of(first))
    other = build(name, random_state=99)
    other.set_state(state, **secrets_of(first))
    assert roundtrip(other.get_state(secrets=True)) == roundtrip(first.get_state(secrets=True))
    assert run(restored, xs[cut:]) == expected[cut:]
    assert run(other, xs[cut:]) == expected[cut:]


@pytest.mark.parametrize("name", ALL)
def test_one_from_state_call_serves_every_mechanism(name):
    """As the engine restores any mechanism: both secrets given, the ones a
    mechanism does not have are ignored."""
    xs = inputs(build(name), 5, seed=13)
    first = build(name)
    run(first, xs[:2])
    labels = getattr(first, "y_true", np.zeros(N))
    key = build("shaky-ladder").get_state(secrets=True)["key"]
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


@pytest.mark.parametrize("name", ALL)
def test_parameters_are_read_only(name):
    mechanism = build(name)
    xs = inputs(mechanism, 6, seed=12)
    twin = build(name)
    run(mechanism, xs[:2])
    run(twin, xs[:2])
    before = roundtrip(mechanism.get_state(secrets=True))
    for param, value in mechanism.get_params().items():
        replacement = -5 if not isinstance(value, str) else "other"
        with pytest.raises(AttributeError, match=f"{param} is fixed at construction"):
            setattr(mechanism, param, replacement)
        with pytest.raises(AttributeError):
            delattr(mechanism, param)
        if isinstance(value, np.ndarray):  # the labels, a baseline: fixed too
            with pytest.raises(ValueError, match="read-only"):
                value[0] = -5
    assert roundtrip(mechanism.get_state(secrets=True)) == before
    assert run(mechanism, xs[2:]) == run(twin, xs[2:])


@pytest.mark.parametrize("name", ALL)
def test_state_is_compact_json(name):
    mechanism = build(name, n=N)
    run(mechanism, inputs(mechanism, 4))
    text = json.dumps(mechanism.get_state(), allow_nan=False)
    # Arrays are compressed, not lists of numbers.
    assert "[0.0, " not in text and "[1.0, " not in text


@pytest.mark.parametrize("name", ALL)
def test_same_seed_same_releases(name):
    xs = inputs(build(name), 8, seed=2)
    assert run(build(name, random_state=5), xs) == run(build(name, random_state=5), xs)


@pytest.mark.parametrize("name", [n for n in ALL if MECHANISMS[n].stochastic])
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


@pytest.mark.parametrize("name", [n for n in ALL if MECHANISMS[n].stochastic])
def test_secret_key_by_default(name):
    klass = MECHANISMS[name]
    params = klass._unit_test_params(N, np.random.default_rng(0))
    a, b = klass(**params), klass(**params)
    assert a.get_state(secrets=True)["key"] != b.get_state(secrets=True)["key"]


def bad_inputs(mechanism: Mechanism) -> list[tuple[object, str]]:
    n = mechanism.n or N
    good = inputs(mechanism, 1)[0]
    nan, inf = good.copy(), good.copy()
    nan[3], inf[5] = np.nan, np.inf
    cases = [
        (good[:-1], "length"),
        (np.concatenate([good, good[:1]]), "length"),
        (np.stack([good, good]), "1-D"),
        (nan, "finite"),
        (inf, "finite"),
        (["a"] * n, "numbers"),
        (np.float64(0.5), "1-D"),
    ]
    if mechanism.loss_bounds != (-math.inf, math.inf) and mechanism.input_kind == "losses":
        out = good.copy()
        out[0] = mechanism.loss_bounds[1] + 0.5
        cases.append((out, "rescale or clip"))
    return cases


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("before", [0, 3])
def test_invalid_input_changes_nothing(name, before):
    mechanism, twin = build(name), build(name)
    xs = inputs(mechanism, before + 2, seed=4)
    run(mechanism, xs[:before])
    run(twin, xs[:before])
    snapshot = copy.deepcopy(mechanism.get_state())
    for bad, message in bad_inputs(mechanism):
        with pytest.raises(ValueError, match=message):
            mechanism.submit(bad)
        assert mechanism.get_state() == snapshot
        assert mechanism.n_submissions == before
    # and the next valid submissions go exactly as if nothing had happened.
    assert run(mechanism, xs[before:]) == run(twin, xs[before:])


@pytest.mark.parametrize("name", [n for n in LADDERS if n != "shaky-ladder"])
def test_ladder_best_never_gets_worse(name):
    # (The Shaky Ladder may accept a worse submission by noise: see below.)
    mechanism = build(name)
    best = []
    for x in inputs(mechanism, 15, seed=5) + inputs(mechanism, 10, seed=6):
        mechanism.submit(x)
        best.append(mechanism.best_score)
    assert not any(mechanism.direction.better(a, b) for a, b in itertools.pairwise(best))


DETERMINISTIC_LOSS_LADDERS = [
    n for n in LADDERS if not MECHANISMS[n].stochastic and MECHANISMS[n].input_kind == "losses"
]


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


@pytest.mark.parametrize("name", ALL)
def test_make_mechanism_and_params_roundtrip(name):
    mechanism = build(name)
    params = mechanism.get_params()
    again = make_mechanism(name, **params, random_state=1)
    assert type(again) is type(mechanism)
    assert set(again.get_params()) == set(params)


def test_unknown_mechanism_is_a_clear_error():
    with pytest.raises(ValueError, match=r"unknown mechanism 'kaggle'.*parameter-free-ladder"):
        make_mechanism("kaggle")
    with pytest.raises(ValueError, match="unknown mechanism"):
        Mechanism.from_state({"mechanism": "nope", "format": 1})


@pytest.mark.parametrize(
    "name", sorted(n for n, k in MECHANISMS.items() if k.input_kind == "predictions")
)
def test_a_metric_mechanisms_holdout_size_is_fixed_too(name):
    """``n`` of a metric mechanism is the labels' length, not a keyword: it is
    read-only all the same."""
    klass = MECHANISMS[name]
    seed = {"random_state": 0} if klass.stochastic else {}
    mechanism = klass(metric="auc", y_true=np.array([0, 1, 0, 1.0]), **seed)
    with pytest.raises(AttributeError, match="fixed at construction"):
        mechanism.n = 3
    assert mechanism.n == 4
