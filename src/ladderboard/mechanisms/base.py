"""What every leaderboard mechanism shares: the submit interface, validation,
the registry, and state that can be saved, restored and audited.

A mechanism sees one submission at a time and releases one number. Loss-based
mechanisms (FullDisclosure, the ladders, the Shaky Ladder, LadderBoot) take the
submission's per-sample loss vector on the holdout; metric-based ones
(BayesBootLadder and its bootstrap variant) hold the labels and take the
prediction vector. Either way ``mechanism.submit(x)`` returns a frozen
:class:`Release` and advances the mechanism's state, or raises ``ValueError``
and leaves the state exactly as it was.

Parameters are fixed at construction: the mechanism decides with the
parameters it reports (:meth:`Mechanism.get_params`) and saves, and setting
one afterwards raises ``AttributeError``. The saved state leaves out the
organiser's secrets (the random key, the labels) unless asked for them, and
:meth:`Mechanism.from_state` takes them back as arguments.
"""

from __future__ import annotations

import functools
import inspect
import math
import operator
from abc import ABC, ABCMeta, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ladderboard.direction import LOWER_IS_BETTER, Direction
from ladderboard.encoding import decode_array, decode_float, encode_array, encode_float
from ladderboard.metrics import Metric, get_metric
from ladderboard.random import KeyedStream, RandomState

if TYPE_CHECKING:
    from ladderboard.mechanisms.card import Card

__all__ = [
    "COMPETITION_MECHANISMS",
    "MECHANISMS",
    "STATE_FORMAT",
    "Mechanism",
    "Release",
    "make_mechanism",
    "round_to",
]

STATE_FORMAT = 1
MECHANISMS: dict[str, type[Mechanism]] = {}
"""Every concrete mechanism, by its registry name (filled on class creation)."""
COMPETITION_MECHANISMS: dict[str, type[Mechanism]] = {}
"""The registered mechanisms a competition can run: those that need nothing
but the submission (not :attr:`Mechanism.takes_training_estimate`)."""


@dataclass(frozen=True, slots=True)
class Release:
    """The outcome of one submission.

    Attributes
    ----------
    score : float
        The number the participant sees on the public board.
    improved : bool
        Whether the submission became the mechanism's new best. This is the
        organiser's to know: under a noisy mechanism it is not derivable from
        the released scores, and must not be shown to participants.
    index : int
        The submission's 1-based position in this mechanism's sequence.
    """

    score: float
    improved: bool
    index: int


def round_to(x: float, step: float) -> float:
    """``[x]_step``: ``x`` rounded to the nearest integer multiple of ``step``.

    Halves round to even (as numpy and Julia do). Steps of the form ``1/m``
    and ``10**-d`` are handled through ``m`` and ``d``, so that ``[x]_{1/n}``
    is ``round(x * n) / n`` exactly, without the representation error of
    ``1/n``. Infinite ``x`` is returned unchanged.

    >>> round_to(0.8763, 0.1), round_to(0.8763, 0.01), round_to(0.8763, 0.001)
    (0.9, 0.88, 0.876)
    >>> round_to(0.12345678, 1e-5), round_to(1 / 3, 1 / 4000)
    (0.12346, 0.33325)
    >>> round_to(np.float64(0.505), 0.01), round_to(0.505, 0.01)
    (0.51, 0.51)
    """
    if not math.isfinite(x):
        return float(x)
    if step <= 0 or not math.isfinite(step):
        raise ValueError(f"step must be positive and finite, got {step!r}")
    digits = -math.log10(step)
    if abs(digits - round(digits)) < 1e-9 and digits > 0:
        # Python's round of a float decides on its exact binary value (0.505
        # is 0.50500000000000000444, so it goes up to 0.51); numpy's, which a
        # numpy scalar would call, scales by 10**d first and may round the
        # other way. The same number must release the same score.
        return float(round(float(x), round(digits)))
    inverse = 1.0 / step
    if abs(inverse - round(inverse)) < 1e-9 * inverse:
        m = round(inverse)
        return float(np.round(x * m) / m)
    return float(np.round(x / step) * step)


def _encode_value(value: Any, encode: Callable[[np.ndarray], Any] = encode_array) -> Any:
    if isinstance(value, np.ndarray):
        return {"array": encode(value)}
    if isinstance(value, float | np.floating):
        return encode_float(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, Metric):
        return {"metric": value.name}
    return value


def _decode_value(value: Any) -> Any:
    if isinstance(value, dict) and "array" in value:
        return decode_array(value["array"])
    if isinstance(value, dict) and "metric" in value:
        return value["metric"]
    if isinstance(value, str) and value in {"inf", "-inf", "nan"}:
        return decode_float(value)
    return value


def _secret_key(klass: type, saved: Any, given: Any) -> KeyedStream:
    """The key of a stochastic mechanism: given, or saved in the state."""
    if given is None and saved is None:
        raise ValueError(
            f"the state of {klass.__name__} holds no random key (saved without secrets): "
            "pass it, from_state(state, key=...)"
        )
    if given is None:
        return KeyedStream.from_hex(saved)
    stream = given if isinstance(given, KeyedStream) else KeyedStream.from_hex(given)
    if saved is not None and stream.key_hex != saved:
        raise ValueError("the key given differs from the key saved in the state")
    return stream


def _secret_labels(klass: type, saved: Any, given: Any) -> Any:
    """The labels of a metric mechanism: given, or saved in the state."""
    if given is None and saved is None:
        raise ValueError(
            f"the state of {klass.__name__} holds no labels (saved without secrets): "
            "pass them, from_state(state, y_true=...)"
        )
    if given is None:
        return saved
    labels = _decode_value(given)
    if saved is not None and not np.array_equal(np.asarray(saved), np.asarray(labels)):
        raise ValueError("the labels given differ from the labels saved in the state")
    return labels


@functools.cache
def _param_names(klass: type[Mechanism]) -> tuple[str, ...]:
    """The keyword-only parameters of ``klass.__init__`` but ``random_state``."""
    signature = inspect.signature(klass.__init__)
    return tuple(
        name
        for name, p in signature.parameters.items()
        if p.kind is p.KEYWORD_ONLY and name != "random_state"
    )


class _Parameter(property):
    """A mechanism's parameter: set by ``__init__``, read-only once the
    instance is constructed. A property on the class, so that only parameters
    pay for the check, not the state a submission updates; it reads through
    :func:`operator.attrgetter`, so a read runs no Python code."""

    def __init__(self, name: str) -> None:
        slot = f"_param_{name}"

        def set_(instance: Any, value: Any) -> None:
            if instance.__dict__.get("_constructed", False):
                kind = type(instance).__name__
                raise AttributeError(
                    f"{kind}.{name} is fixed at construction (it is "
                    f"{instance.__dict__.get(slot)!r}): build a new {kind}"
                )
            instance.__dict__[slot] = value

        def delete(instance: Any) -> None:
            raise AttributeError(
                f"{type(instance).__name__}.{name} is a parameter: it cannot be deleted"
            )

        super().__init__(operator.attrgetter(slot), set_, delete, f"The parameter ``{name}``.")


class _Constructed(ABCMeta):
    """Marks an instance constructed once the outermost ``__init__`` returns:
    from then on its parameters are read-only."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        instance = super().__call__(*args, **kwargs)
        object.__setattr__(instance, "_constructed", True)
        return instance


class Mechanism(ABC, metaclass=_Constructed):
    """Base class of every leaderboard mechanism.

    Subclasses set ``name`` (the registry key), ``input_kind`` (``"losses"``
    or ``"predictions"``), ``stochastic``, and implement :meth:`_step`,
    :meth:`_reset_vars`, :meth:`_get_vars`, :meth:`_set_vars` and
    :attr:`resolution`. Their
    ``__init__`` takes keyword-only parameters, validates them and stores each
    under its own name, so that :meth:`get_params` can read them back, and
    decides with them alone: after construction they are read-only.

    >>> from ladderboard.mechanisms import Ladder
    >>> board = Ladder(eta=0.1)
    >>> board.eta = -5
    Traceback (most recent call last):
    ...
    AttributeError: Ladder.eta is fixed at construction (it is 0.1): build a new Ladder
    """

    name: ClassVar[str]
    input_kind: ClassVar[str] = "losses"
    stochastic: ClassVar[bool] = False
    loss_bounds: ClassVar[tuple[float, float]] = (-math.inf, math.inf)
    release_is_current_best: ClassVar[bool] = True
    """Whether each release states the current best, so that a board shows a
    team's latest release; otherwise (full disclosure) it shows the best one."""
    release_hides_decision: ClassVar[bool] = False
    """Whether every submission is answered with a fresh estimate of the current
    best, accepted or not (the bootstrap releases of Chaibub Neto et al. 2016,
    Alg. 4 and 6), so that the releases do not say whether a file became the
    best: that decision stays with the organiser until the private board is
    published, and nothing shown to a team may depend on it. (On a per-rank
    board a file that takes a rank shows it by its rank, whatever the
    mechanism: there the decision is public by the board's nature.)"""
    noisy_comparison: ClassVar[bool] = False
    """Whether a file is taken as the new best by comparing scores with noise
    added (the Shaky Ladder, Hardt 2017, Fig. 1), so that a file scoring worse
    than the best may be taken; otherwise the best never gets worse."""
    caution: ClassVar[str] = ""
    """What an organiser choosing this board for a competition should know it
    concedes, in a sentence the create form shows beside it (empty: nothing
    beyond what every board concedes)."""
    pinned_defaults: ClassVar[tuple[str, ...]] = ()
    """Parameters whose defaults follow from the holdout size and may be
    chosen again in a later release: a competition stores the values they
    settle to at its creation, so that no later default changes a running
    board or the audit of a finished one."""
    unsaved_when_off: ClassVar[tuple[str, ...]] = ()
    """Options added after boards were first stored, ``None`` when off: a
    saved state leaves them out while they are off, so that a board stored
    before they existed still saves the state its re-run saves (the audit
    compares the two), and :meth:`from_state` reads a missing one as off."""
    takes_training_estimate: ClassVar[bool] = False
    """Whether each submission comes with the submitter's own training-set
    estimate of its loss (Thresholdout): a leaderboard submission carries only
    predictions, so such a mechanism is left out of competitions."""
    card: ClassVar[Card | None] = None
    """What the mechanism says to participants and where it is listed
    (:class:`~ladderboard.mechanisms.card.Card`): every registered mechanism
    declares one beside its class."""

    _t: int
    _best_index: int | None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("n", *_param_names(cls)):
            if not isinstance(getattr(cls, name, None), _Parameter):
                setattr(cls, name, _Parameter(name))
        if not inspect.isabstract(cls) and "name" in cls.__dict__:
            if cls.name in MECHANISMS:
                raise TypeError(f"mechanism name {cls.name!r} is already registered")
            MECHANISMS[cls.name] = cls
            if not cls.takes_training_estimate:
                COMPETITION_MECHANISMS[cls.name] = cls

    def __init__(self, *, n: int | None = None, random_state: RandomState = None):
        if n is not None:
            if isinstance(n, bool) or not isinstance(n, int | np.integer):
                raise TypeError(f"n must be an int, got {type(n).__name__}")
            if n < self._min_n():
                raise ValueError(f"n must be at least {self._min_n()}, got {n}")
            n = int(n)
        self.n = n
        self._stream = KeyedStream.from_random_state(random_state) if self.stochastic else None
        if n is not None:
            self._n_known(n)
        self.reset()

    def _settle_param(self, name: str, value: Any) -> None:
        """Set a parameter left open at construction (``None``, resolved from
        the holdout size on the first submission); it is read-only after."""
        self.__dict__[f"_param_{name}"] = value

    def _n_known(self, n: int) -> None:
        """Settle what depends on the holdout size, once it is known: at
        construction, or at the first submission when ``n`` was left open."""

    # ----------------------------------------------------------------- public
    def submit(self, x: Any) -> Release:
        """Score one submission and return what is released.

        ``x`` is the per-sample loss vector (loss-based mechanisms) or the
        prediction vector (metric-based ones). Invalid input raises
        ``ValueError`` and leaves the mechanism exactly as it was.
        """
        vector, total = self._validate(x)
        return self._advance(vector, total, self._step)

    def _advance(
        self,
        vector: np.ndarray,
        total: float,
        step: Callable[[np.ndarray, float, int], tuple[float, bool]],
    ) -> Release:
        """Score a validated submission with ``step`` (:meth:`_step`, or a
        variant taking more than the submission) and count it."""
        if self.n is None:
            n = int(vector.shape[0])
            self._settle_param("n", n)
            self._n_known(n)
        index = self._t + 1
        score, improved = step(vector, total, index)
        self._t = index
        if improved:
            self._best_index = index
        return Release(score=float(score), improved=bool(improved), index=index)

    @property
    def direction(self) -> Direction:
        """Which way this mechanism's scores improve: lower for losses, the
        metric's own direction for a metric mechanism."""
        return LOWER_IS_BETTER

    @property
    def greater_is_better(self) -> bool:
        """``direction.greater_is_better``: whether higher released scores are better."""
        return self.direction.greater_is_better

    @property
    def n_submissions(self) -> int:
        """How many valid submissions this mechanism has scored."""
        return self._t

    @property
    def best_index(self) -> int | None:
        """1-based index of the current best submission (organiser-side)."""
        return self._best_index

    @property
    @abstractmethod
    def best_score(self) -> float:
        """The unrounded, noise-free score of the current best (organiser-side)."""

    @property
    @abstractmethod
    def resolution(self) -> float | None:
        """The finest step the released scores carry: every release is an
        integer multiple of it. ``None`` when the releases lie on no grid
        (unrounded noise or bootstrap estimates), or when the grid depends on
        the holdout size ``n`` and ``n`` is not known yet.

        A board can show a release with the decimals this step supports and no
        more: further digits would be rounding error or noise, not information.
        """

    def reset(self) -> None:
        """Forget every submission; keep the parameters and the random key."""
        self._t = 0
        self._best_index = None
        self._reset_vars()

    def get_params(self) -> dict[str, Any]:
        """The constructor's keyword parameters, read back from the instance."""
        return {name: getattr(self, name) for name in _param_names(type(self))}

    def get_state(
        self,
        *,
        secrets: bool = False,
        encode_vars: Callable[[str, np.ndarray], Any] | None = None,
    ) -> dict[str, Any]:
        """A JSON-serialisable snapshot: parameters, counters and learned state.

        The organiser's secrets, the random key of a stochastic mechanism and
        the labels (``params["y_true"]``) of a metric mechanism, are left out
        (``"key"`` is ``None``) unless ``secrets=True``: a state without them
        can be stored beside the secrets' own safe place, and
        :meth:`from_state` takes them back as arguments. ``encode_vars(name,
        array)``, when given, encodes the learned arrays in place of
        :func:`~ladderboard.encoding.encode_array` (the competition engine
        passes one that reuses the encoding of an array that has not changed).

        >>> from ladderboard.mechanisms import ShakyLadder
        >>> board = ShakyLadder(n=4, random_state=0)
        >>> board.get_state()["key"] is None, len(board.get_state(secrets=True)["key"])
        (True, 32)
        """
        if encode_vars is None:
            vars_ = {k: _encode_value(v) for k, v in self._get_vars().items()}
        else:
            vars_ = {
                k: _encode_value(v, functools.partial(encode_vars, k))
                for k, v in self._get_vars().items()
            }
        params = self.get_params()
        if not secrets:
            params.pop("y_true", None)
        for name in self.unsaved_when_off:
            if params.get(name, 0) is None:
                del params[name]
        return {
            "mechanism": self.name,
            "format": STATE_FORMAT,
            "params": {k: _encode_value(v) for k, v in params.items()},
            "key": self._stream.key_hex if secrets and self._stream is not None else None,
            "n_submissions": self._t,
            "best_index": self._best_index,
            "vars": vars_,
        }

    @classmethod
    def from_state(
        cls, state: dict[str, Any], *, key: str | KeyedStream | None = None, y_true: Any = None
    ) -> Mechanism:
        """Rebuild a mechanism from :meth:`get_state`; it continues bit for bit.

        A state saved without its secrets needs them back: ``key`` (the hex
        key, or a :class:`~ladderboard.random.KeyedStream`) for a stochastic
        mechanism, ``y_true`` (the labels, or their encoding) for a metric
        mechanism. A state saved with them (``get_state(secrets=True)``, or
        one written by earlier versions) needs nothing more; giving a secret
        that differs from the one in the state is an error. A secret the
        mechanism does not have (a key for a deterministic one, labels for a
        loss-based one) is ignored, so one call serves every mechanism.

        >>> from ladderboard.mechanisms import ShakyLadder
        >>> board = ShakyLadder(n=4, random_state=0)
        >>> first = board.submit([0.0, 1.0, 0.0, 0.0])
        >>> key = board.get_state(secrets=True)["key"]
        >>> again = ShakyLadder.from_state(board.get_state(), key=key)
        >>> again.submit([0.0, 0.0, 0.0, 0.0]) == board.submit([0.0, 0.0, 0.0, 0.0])
        True
        """
        if not isinstance(state, dict) or "mechanism" not in state:
            raise ValueError("state must be a dict produced by get_state()")
        if state.get("format") != STATE_FORMAT:
            raise ValueError(f"unsupported state format {state.get('format')!r}")
        klass = MECHANISMS.get(state["mechanism"])
        if klass is None:
            raise ValueError(f"unknown mechanism {state['mechanism']!r}")
        if cls is not Mechanism and not issubclass(klass, cls):
            raise ValueError(f"state is of {klass.__name__}, not {cls.__name__}")
        params = {k: _decode_value(v) for k, v in state["params"].items()}
        if klass.stochastic:
            params["random_state"] = _secret_key(klass, state.get("key"), key)
        if klass.input_kind == "predictions":
            params["y_true"] = _secret_labels(klass, params.get("y_true"), y_true)
        mechanism = klass(**params)
        mechanism._t = int(state["n_submissions"])
        best = state["best_index"]
        mechanism._best_index = None if best is None else int(best)
        mechanism._set_vars({k: _decode_value(v) for k, v in state["vars"].items()})
        return mechanism

    def set_state(
        self, state: dict[str, Any], *, key: str | KeyedStream | None = None, y_true: Any = None
    ) -> None:
        """Replace this instance's parameters and state by ``state`` (and the
        secrets given, as :meth:`from_state` takes them)."""
        other = type(self).from_state(state, key=key, y_true=y_true)
        if type(other) is not type(self):
            raise ValueError(f"state is of {type(other).__name__}, not {type(self).__name__}")
        self.__dict__.clear()
        self.__dict__.update(other.__dict__)

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items() if v is not None)
        return f"{type(self).__name__}({params})"

    # ------------------------------------------------------------ for subclasses
    @classmethod
    def _min_n(cls) -> int:
        return 1

    @classmethod
    def _unit_test_params(cls, n: int, rng: np.random.Generator) -> dict[str, Any]:
        """Parameters for the shared test suite (overridden where required)."""
        return {"n": n}

    def _generator(self, index: int, substream: int = 0) -> np.random.Generator:
        assert self._stream is not None
        return self._stream.generator(index, substream)

    def _validate(self, x: Any) -> tuple[np.ndarray, float]:
        """Return ``x`` as a 1-D float64 array and its sum, or raise ValueError.

        The sum doubles as the finiteness check: a sum is finite only if every
        term is (overflow aside, which falls back to an element-wise check).
        """
        what = "losses" if self.input_kind == "losses" else "predictions"
        try:
            vector = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{what} must be numbers: {exc}") from None
        if vector.ndim != 1:
            raise ValueError(f"{what} must be a 1-D vector, got shape {vector.shape}")
        expected = self.n
        if expected is not None and vector.shape[0] != expected:
            raise ValueError(f"{what} must have length n={expected}, got {vector.shape[0]}")
        if vector.shape[0] < self._min_n():
            raise ValueError(f"{what} must have at least {self._min_n()} entries")
        total = float(vector.sum())
        if not math.isfinite(total):
            bad = ~np.isfinite(vector)
            if bad.any():
                first = int(np.flatnonzero(bad)[0])
                raise ValueError(
                    f"{what} must be finite: {int(bad.sum())} NaN or infinite value(s), "
                    f"first at position {first} ({vector[first]!r})"
                )
            total = float(math.fsum(vector))
        lo, hi = self.loss_bounds
        if self.input_kind == "losses" and (lo > -math.inf or hi < math.inf):
            low, high = float(vector.min()), float(vector.max())
            if low < lo or high > hi:
                raise ValueError(
                    f"{type(self).__name__} needs losses in [{lo:g}, {hi:g}], got values in "
                    f"[{low:.6g}, {high:.6g}]: rescale or clip the loss"
                )
        self._validate_more(vector)
        return vector, total

    def _validate_more(self, vector: np.ndarray) -> None:
        """Further checks of a subclass; raise ValueError without side effects."""

    @abstractmethod
    def _step(self, x: np.ndarray, total: float, index: int) -> tuple[float, bool]:
        """Advance on a valid submission; return (released score, improved)."""

    @abstractmethod
    def _reset_vars(self) -> None:
        """Set the learned state to its value before any submission."""

    @abstractmethod
    def _get_vars(self) -> dict[str, Any]:
        """The learned state, as floats, ints, bools and numpy arrays."""

    @abstractmethod
    def _set_vars(self, data: dict[str, Any]) -> None:
        """Inverse of :meth:`_get_vars`."""


class MetricMechanism(Mechanism):
    """A mechanism that holds the public labels and takes predictions, scored
    by a metric of :mod:`ladderboard.metrics` in the metric's own
    :attr:`direction` (:class:`~ladderboard.mechanisms.MetricFullDisclosure`
    and the Bayesian-bootstrap ladders). Subclasses call :meth:`_hold_labels`
    first in ``__init__``.
    """

    input_kind = "predictions"
    _best: float
    """The unrounded score of the current best, set by each subclass."""

    def _hold_labels(self, metric: Any, y_true: Any) -> None:
        """Set ``metric`` (a name or Metric) and ``y_true``, a finite float64
        vector of at least 2 labels the metric can score."""
        resolved = get_metric(metric) if isinstance(metric, str) else metric
        if not isinstance(resolved, Metric):
            raise TypeError(f"metric must be a metric name or Metric, got {metric!r}")
        y = np.array(y_true, dtype=np.float64)  # a read-only copy: fixed, as the parameters
        if y.ndim != 1 or y.shape[0] < 2:
            raise ValueError(f"y_true must be a 1-D vector of at least 2 labels, got {y.shape}")
        if not np.isfinite(y).all():
            raise ValueError("y_true must be finite")
        resolved.check_targets(y)
        y.setflags(write=False)
        self.metric, self.y_true = resolved, y

    @property
    def direction(self) -> Direction:
        return self.metric.direction

    def get_params(self) -> dict[str, Any]:
        params = super().get_params()
        params.pop("n", None)  # the labels' length
        return params

    @classmethod
    def _min_n(cls) -> int:
        return 2

    @property
    def best_score(self) -> float:
        return self._best

    def _validate_more(self, vector: np.ndarray) -> None:
        self.metric.check_predictions(vector)


def make_mechanism(name: str, **params: Any) -> Mechanism:
    """Build a registered mechanism by name; ``random_state`` is dropped for
    deterministic mechanisms.

    >>> make_mechanism("parameter-free-ladder", random_state=0)
    ParameterFreeLadder()
    """
    try:
        klass = MECHANISMS[name]
    except KeyError:
        known = ", ".join(sorted(MECHANISMS))
        raise ValueError(f"unknown mechanism {name!r}; known: {known}") from None
    if not klass.stochastic:
        params.pop("random_state", None)
    return klass(**params)
