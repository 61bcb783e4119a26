"""The contract every mechanism keeps, as checks anyone can run on their own.

:func:`check_mechanism` runs every check on a mechanism class (or on an
instance, whose parameters it reuses) and raises :class:`MechanismCheckError`
naming the check and what went wrong; :func:`mechanism_checks` lists the
checks that apply, so that a test suite can run them one at a time. The
project's own suite runs them over every registered mechanism
(``tests/mechanisms/test_checks.py``), and a mechanism written elsewhere is
checked the same way:

>>> from ladderboard.mechanisms import Ladder
>>> check_mechanism(Ladder)
>>> [name for name, _ in mechanism_checks(Ladder)][:3]
['check_card', 'check_docstring_cites_a_paper', 'check_params_round_trip']

What is checked: the card is present and complete (the words and the how
page's section for a mechanism a competition can run); the docstring cites a
paper; the parameters read back as given, are fixed after construction and
refuse an unknown name; each submission returns a frozen
:class:`~ladderboard.mechanisms.Release` counted from 1, the first accepted;
a saved state, with or without its secrets, restores a mechanism that
continues bit for bit; the state is compact JSON; invalid input raises
``ValueError`` and changes nothing; the same ``random_state`` gives the same
releases, and a stochastic mechanism without one draws a fresh secret key.

The checks build their mechanisms with ``klass._unit_test_params(n, rng)``
(``{"n": n}`` unless a class overrides it) or, given an instance, with its
parameters, and feed them ``n = 60`` rows of 0/1 losses that mostly improve
(loss-based mechanisms) or predictions near the labels (metric ones). They
need numpy only.
"""

from __future__ import annotations

import copy
import inspect
import json
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ladderboard.mechanisms.base import MECHANISMS, Mechanism, Release, make_mechanism
from ladderboard.mechanisms.traits import card_problems, traits_of

__all__ = ["MechanismCheckError", "check_mechanism", "mechanism_checks"]

N = 60
"""Rows of the holdout the checks build their mechanisms with."""


class MechanismCheckError(AssertionError):
    """A mechanism broke its contract; the message names the check."""


class _Subject:
    """How the checks build fresh mechanisms of one class, and feed them."""

    def __init__(self, mechanism: type[Mechanism] | Mechanism) -> None:
        if isinstance(mechanism, Mechanism):
            self.klass: type[Mechanism] = type(mechanism)
            self.params = dict(mechanism.get_params())
        elif isinstance(mechanism, type) and issubclass(mechanism, Mechanism):
            self.klass = mechanism
            self.params = mechanism._unit_test_params(N, np.random.default_rng(123))
        else:
            raise TypeError(f"mechanism must be a Mechanism class or instance, got {mechanism!r}")
        if inspect.isabstract(self.klass):
            raise TypeError(f"{self.klass.__name__} is abstract: it has nothing to check")

    def build(self, random_state: Any = 7) -> Mechanism:
        params = dict(self.params)
        if self.klass.stochastic:
            params["random_state"] = random_state
        return self.klass(**params)

    def inputs(self, mechanism: Mechanism, count: int, seed: int = 0) -> list[np.ndarray]:
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
                labels = np.asarray(mechanism.get_params()["y_true"])
                out.append(labels + noise * rng.standard_normal(n))
        return out


def _run(mechanism: Mechanism, xs: list[np.ndarray]) -> list[tuple[float, bool, int]]:
    return [(r.score, r.improved, r.index) for r in map(mechanism.submit, xs)]


def _json(state: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(state, allow_nan=False))


def _secrets(mechanism: Mechanism) -> dict[str, Any]:
    """The secrets ``from_state`` takes back, as a caller keeping them elsewhere holds them."""
    out: dict[str, Any] = {}
    if mechanism.stochastic:
        out["key"] = mechanism.get_state(secrets=True)["key"]
    if mechanism.input_kind == "predictions":
        out["y_true"] = np.array(mechanism.get_params()["y_true"])
    return out


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise MechanismCheckError(message)


# ------------------------------------------------------------------ checks
def check_card(subject: _Subject) -> None:
    """The card is present and complete."""
    problems = card_problems(subject.klass)
    _require(not problems, "; ".join(problems))


def check_docstring_cites_a_paper(subject: _Subject) -> None:
    """The class's docstring cites the paper it implements (a year)."""
    doc = subject.klass.__doc__ or ""
    _require(
        any(f"{year}" in doc for year in range(1950, 2100)),
        f"{subject.klass.__name__}'s docstring must cite its paper (author and year)",
    )


def check_params_round_trip(subject: _Subject) -> None:
    """``get_params`` reads back the keyword-only parameters; the class builds
    again from them (by name if registered), and refuses an unknown one."""
    mechanism = subject.build()
    params = mechanism.get_params()
    kind = subject.klass.__name__
    again = (
        make_mechanism(subject.klass.name, **params, random_state=1)
        if MECHANISMS.get(getattr(subject.klass, "name", "")) is subject.klass
        else subject.klass(**params, **({"random_state": 1} if subject.klass.stochastic else {}))
    )
    _require(type(again) is subject.klass, f"{kind} rebuilt from its params is a {type(again)}")
    _require(
        set(again.get_params()) == set(params),
        f"{kind}.get_params() changes when rebuilt from it: {sorted(params)}",
    )
    try:
        subject.klass(**{**params, "not_a_parameter": 1})
    except TypeError:
        pass
    else:
        raise MechanismCheckError(f"{kind} accepts an unknown parameter not_a_parameter=1")


def check_parameters_are_read_only(subject: _Subject) -> None:
    """Setting or deleting a parameter after construction raises
    ``AttributeError`` and changes nothing."""
    mechanism, twin = subject.build(), subject.build()
    xs = subject.inputs(mechanism, 6, seed=12)
    _run(mechanism, xs[:2])
    _run(twin, xs[:2])
    before = _json(mechanism.get_state(secrets=True))
    kind = subject.klass.__name__
    for param, value in mechanism.get_params().items():
        replacement = -5 if not isinstance(value, str) else "other"
        try:
            setattr(mechanism, param, replacement)
        except AttributeError:
            pass
        else:
            raise MechanismCheckError(f"{kind}.{param} can be set after construction")
        try:
            delattr(mechanism, param)
        except AttributeError:
            pass
        else:
            raise MechanismCheckError(f"{kind}.{param} can be deleted")
        if isinstance(value, np.ndarray) and value.flags.writeable:
            raise MechanismCheckError(f"{kind}.{param} is an array left writeable")
    _require(
        _json(mechanism.get_state(secrets=True)) == before,
        f"{kind}: a refused parameter change altered the state",
    )
    _require(
        _run(mechanism, xs[2:]) == _run(twin, xs[2:]),
        f"{kind}: a refused parameter change altered the releases",
    )


def check_releases(subject: _Subject) -> None:
    """Each submission returns a frozen Release counted from 1; the first is
    accepted; the counters follow."""
    mechanism = subject.build()
    kind = subject.klass.__name__
    releases = [mechanism.submit(x) for x in subject.inputs(mechanism, 3)]
    _require(all(isinstance(r, Release) for r in releases), f"{kind}.submit must return a Release")
    _require(
        [r.index for r in releases] == [1, 2, 3],
        f"{kind}: release indices {[r.index for r in releases]}, not [1, 2, 3]",
    )
    _require(
        all(isinstance(r.score, float) and isinstance(r.improved, bool) for r in releases),
        f"{kind}: a release's score must be a float and improved a bool",
    )
    _require(mechanism.n_submissions == 3, f"{kind}.n_submissions is not 3 after 3 submissions")
    _require(releases[0].improved, f"{kind}: the first submission must be accepted")
    best = mechanism.best_index
    _require(best is not None and 1 <= best <= 3, f"{kind}.best_index is {best!r}")
    try:
        releases[0].score = 0.0  # type: ignore[misc]
    except AttributeError:
        pass
    else:
        raise MechanismCheckError(f"{kind}: a Release can be changed")


def check_save_restore(subject: _Subject) -> None:
    """A state saved with its secrets after 0, 1 or 4 submissions, through
    JSON, restores a mechanism that continues bit for bit (``from_state`` and
    ``set_state`` alike) and saves the same state as one never interrupted."""
    kind = subject.klass.__name__
    xs = subject.inputs(subject.build(), 9, seed=1)
    uninterrupted = subject.build()
    expected = _run(uninterrupted, xs)
    for cut in (0, 1, 4):
        first = subject.build()
        _run(first, xs[:cut])
        state = _json(first.get_state(secrets=True))
        restored = Mechanism.from_state(state)
        _require(type(restored) is type(first), f"{kind}: from_state built {type(restored)}")
        _require(restored.n_submissions == cut, f"{kind}: restored n_submissions is wrong")
        _require(
            _run(restored, xs[cut:]) == expected[cut:],
            f"{kind}: restored after {cut} submissions, it does not continue bit for bit",
        )
        _require(
            _json(restored.get_state(secrets=True)) == _json(uninterrupted.get_state(secrets=True)),
            f"{kind}: restored after {cut}, it ends in another state than one never interrupted",
        )
        other = subject.build(random_state=99)
        other.set_state(state)
        _require(
            _run(other, xs[cut:]) == expected[cut:],
            f"{kind}: set_state after {cut} submissions does not continue bit for bit",
        )


def check_state_without_secrets(subject: _Subject) -> None:
    """A state saved without its secrets holds no key and no labels; with the
    secrets given back (``from_state`` and ``set_state`` alike) it continues
    bit for bit; without one of them ``from_state`` raises ``ValueError``
    naming it."""
    kind = subject.klass.__name__
    xs = subject.inputs(subject.build(), 7, seed=11)
    expected = _run(subject.build(), xs)
    for cut in (0, 3):
        first = subject.build()
        _run(first, xs[:cut])
        state = _json(first.get_state())
        _require(
            state["key"] is None and "y_true" not in state["params"],
            f"{kind}: get_state() without secrets=True holds a secret",
        )
        secrets = _secrets(first)
        restored = Mechanism.from_state(state, **secrets)
        other = subject.build(random_state=99)
        other.set_state(state, **secrets)
        _require(
            _json(other.get_state(secrets=True)) == _json(first.get_state(secrets=True)),
            f"{kind}: set_state with the secrets given back ends in another state",
        )
        for again in (restored, other):
            _require(
                _run(again, xs[cut:]) == expected[cut:],
                f"{kind}: restored after {cut} with its secrets given back, it does not "
                "continue bit for bit",
            )
        for missing in secrets:
            partial = {k: v for k, v in secrets.items() if k != missing}
            try:
                Mechanism.from_state(state, **partial)
            except ValueError as error:
                _require(f"{missing}=" in str(error), f"{kind}: the error must name {missing}=")
            else:
                raise MechanismCheckError(f"{kind}: restored without its {missing}")


def check_state_is_compact_json(subject: _Subject) -> None:
    """The state is JSON (no NaN), and arrays are encoded, not number lists."""
    mechanism = subject.build()
    _run(mechanism, subject.inputs(mechanism, 4))
    try:
        text = json.dumps(mechanism.get_state(), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise MechanismCheckError(
            f"{subject.klass.__name__}.get_state() is not JSON: {error}"
        ) from None
    _require(
        "[0.0, " not in text and "[1.0, " not in text,
        f"{subject.klass.__name__}: the state holds arrays as lists (return numpy arrays "
        "from _get_vars)",
    )


def _bad_inputs(subject: _Subject, mechanism: Mechanism) -> list[tuple[object, str]]:
    n = mechanism.n or N
    good = subject.inputs(mechanism, 1)[0]
    nan, inf = good.copy(), good.copy()
    nan[3], inf[5] = np.nan, np.inf
    cases: list[tuple[object, str]] = [
        (good[:-1], "length"),
        (np.concatenate([good, good[:1]]), "length"),
        (np.stack([good, good]), "1-D"),
        (nan, "finite"),
        (inf, "finite"),
        (["a"] * n, "numbers"),
        (np.float64(0.5), "1-D"),
    ]
    if traits_of(subject.klass).loss_bounded and mechanism.input_kind == "losses":
        out = good.copy()
        out[0] = mechanism.loss_bounds[1] + 0.5
        cases.append((out, "rescale or clip"))
    return cases


def check_invalid_input_changes_nothing(subject: _Subject) -> None:
    """Invalid input raises ``ValueError`` saying what is wrong and leaves the
    mechanism exactly as it was, before and after submissions."""
    kind = subject.klass.__name__
    for before in (0, 3):
        mechanism, twin = subject.build(), subject.build()
        xs = subject.inputs(mechanism, before + 2, seed=4)
        _run(mechanism, xs[:before])
        _run(twin, xs[:before])
        snapshot = copy.deepcopy(mechanism.get_state())
        for bad, words in _bad_inputs(subject, mechanism):
            try:
                mechanism.submit(bad)
            except ValueError as error:
                _require(words in str(error), f"{kind}: the error {error!r} should say {words!r}")
            else:
                raise MechanismCheckError(f"{kind} accepted invalid input ({words})")
            _require(
                mechanism.get_state() == snapshot and mechanism.n_submissions == before,
                f"{kind}: refused input ({words}) changed the state",
            )
        _require(
            _run(mechanism, xs[before:]) == _run(twin, xs[before:]),
            f"{kind}: refused input changed the releases that follow",
        )


def check_same_seed_same_releases(subject: _Subject) -> None:
    """The same ``random_state`` gives the same releases."""
    xs = subject.inputs(subject.build(), 8, seed=2)
    first, second = _run(subject.build(5), xs), _run(subject.build(5), xs)
    _require(
        first == second,
        f"{subject.klass.__name__}: the same random_state gave different releases "
        f"({first[:3]} ... vs {second[:3]} ...): draw only from self._generator(index)",
    )


def check_secret_key_by_default(subject: _Subject) -> None:
    """A stochastic mechanism built without ``random_state`` draws a fresh key."""
    params = dict(subject.params)
    a, b = subject.klass(**params), subject.klass(**params)
    _require(
        a.get_state(secrets=True)["key"] != b.get_state(secrets=True)["key"],
        f"{subject.klass.__name__}: two instances without random_state share a key",
    )


_ALWAYS: tuple[Callable[[_Subject], None], ...] = (
    check_card,
    check_docstring_cites_a_paper,
    check_params_round_trip,
    check_releases,
    check_same_seed_same_releases,
    check_parameters_are_read_only,
    check_save_restore,
    check_state_without_secrets,
    check_state_is_compact_json,
    check_invalid_input_changes_nothing,
)
"""The checks every mechanism runs, the simplest first: a mechanism whose
releases the seed does not fix fails on that, before the checks that
compare two runs."""
_STOCHASTIC: tuple[Callable[[_Subject], None], ...] = (check_secret_key_by_default,)


def mechanism_checks(
    mechanism: type[Mechanism] | Mechanism,
) -> Iterator[tuple[str, Callable[[], None]]]:
    """The checks that apply to ``mechanism``, as ``(name, run)`` pairs; each
    ``run()`` raises :class:`MechanismCheckError` when the check fails. The
    ones for stochastic mechanisms come only for those (:func:`traits_of`)."""
    subject = _Subject(mechanism)
    checks = _ALWAYS + (_STOCHASTIC if traits_of(subject.klass).stochastic else ())
    for check in checks:
        yield check.__name__, _bound(check, subject)


def _bound(check: Callable[[_Subject], None], subject: _Subject) -> Callable[[], None]:
    def run() -> None:
        try:
            check(subject)
        except MechanismCheckError as error:
            raise MechanismCheckError(f"{check.__name__}: {error}") from None

    return run


def check_mechanism(mechanism: type[Mechanism] | Mechanism) -> None:
    """Run every check of the mechanism contract on ``mechanism`` (a class, or
    an instance whose parameters the checks reuse); raise
    :class:`MechanismCheckError` at the first that fails, naming it."""
    for _, run in mechanism_checks(mechanism):
        run()
