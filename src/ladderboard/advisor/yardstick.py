"""The papers' yardstick for an attack: its raw gain, with Student-t intervals,
paired between boards, against a reference that does not depend on a board.

Blum & Hardt (2015, Def. 2.1) measure a board by its distance from the truth:
the *raw gain* of an attack is the true score of the file it would select
minus what the board displays for it at the end. Subtracting what blind
submissions gain on the same board (as :func:`~ladderboard.advisor.protection.attack_measures`
does) counts a noisy board's own noise as safety: blind play there selects
the noise. The reference here is fixed instead:

* the best of ``k`` blind files on the noiseless full-disclosure board
  (:func:`blind_reference`), what any board concedes to a team that submits
  ``k`` files and keeps the best without adapting;
* ``√(log k / n)``, the order of the lower bound for every mechanism (Blum &
  Hardt 2015, Thm 3.3; :func:`lower_bound_reference`).

Every repetition draws random labels (true error 0.5 for every file: no file
predicts fresh coin flips) and a board key from one stream, by repetition
only, so two boards measured with the same ``random_state`` see the same
labels and the same attacker's draws (:func:`paired_difference` then
compares them repetition by repetition). Intervals are Student-t 95 %
intervals of the mean over repetitions (:func:`t_interval`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from ladderboard.advisor.grid import ScoringRule, Setting, scoring_rule
from ladderboard.attacks import HoldoutOracle, near_duplicate_attack
from ladderboard.random import KeyedStream, RandomState

__all__ = [
    "TRUE_ERROR",
    "GainRow",
    "Interval",
    "blind_gain",
    "blind_reference",
    "lower_bound_reference",
    "measure_gains",
    "near_duplicate_gain",
    "paired_difference",
    "random_labels",
    "raw_gains",
    "t_interval",
]

TRUE_ERROR = 0.5
"""The true 0/1 error of any file on random labels (and its true accuracy)."""

Attack = Callable[[HoldoutOracle, int, KeyedStream], float]
"""``attack(oracle, k, stream) -> raw gain``: plays ``k`` files against the
board behind ``oracle`` with draws from ``stream``."""


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean over repetitions with its Student-t interval.

    ``half_width`` is ``t_{0.975, r−1} · sd/√r`` for ``r`` repetitions (the
    interval is ``mean ± half_width``; ``nan`` for one repetition).
    """

    mean: float
    half_width: float
    n: int
    confidence: float = 0.95

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    def __str__(self) -> str:
        return f"{self.mean:.3f} ± {self.half_width:.3f}"


def t_interval(values: Any, confidence: float = 0.95) -> Interval:
    """The mean of ``values`` and its Student-t interval.

    >>> str(t_interval([0.10, 0.12, 0.11, 0.13]))
    '0.115 ± 0.021'
    """
    array = np.asarray(values, dtype=np.float64).ravel()
    if array.size == 0 or not np.isfinite(array).all():
        raise ValueError("values must be a non-empty array of finite numbers")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    mean = float(array.mean())
    if array.size == 1:
        return Interval(mean, math.nan, 1, confidence)
    quantile = float(stats.t.ppf(0.5 + confidence / 2, array.size - 1))
    half = quantile * float(array.std(ddof=1)) / math.sqrt(array.size)
    return Interval(mean, half, int(array.size), confidence)


def paired_difference(a: Any, b: Any, confidence: float = 0.95) -> Interval:
    """``a − b`` repetition by repetition (the same labels and attacker's draws
    on both boards), with its Student-t interval: a paired t-test's interval.

    >>> paired_difference([0.10, 0.12, 0.11], [0.05, 0.08, 0.06]).mean
    0.04666666666666667
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"a and b must pair up, got shapes {a.shape} and {b.shape}")
    return t_interval(a - b, confidence)


def _stream(random_state: RandomState) -> KeyedStream:
    return KeyedStream.from_random_state(random_state)


def random_labels(n: int, repetition: int, random_state: RandomState) -> np.ndarray:
    """The ``n`` hidden 0/1 labels of one repetition (by repetition only, so
    every board of a comparison sees the same)."""
    stream = _stream(random_state).derive(f"labels/{repetition}")
    return stream.generator(0).integers(0, 2, n).astype(np.int8)


def lower_bound_reference(n: int, k: int) -> float:
    """``√(log k / n)``: the order of the error no mechanism avoids against
    ``k`` adaptive files (Blum & Hardt 2015, Thm 3.3).

    >>> round(lower_bound_reference(4000, 1000), 4)
    0.0416
    """
    if n < 1 or k < 1:
        raise ValueError(f"need n >= 1 and k >= 1, got n={n!r}, k={k!r}")
    return math.sqrt(math.log(k) / n)


def blind_gain(labels: Any, k: int, rng: np.random.Generator, *, chunk: int = 500) -> float:
    """The raw gain of the best of ``k`` uniformly random 0/1 files on the
    noiseless full-disclosure board of ``labels`` (random labels, so every
    file's true error is :data:`TRUE_ERROR`): ``0.5 −`` their lowest error.

    >>> labels = np.random.default_rng(0).integers(0, 2, 4000)
    >>> round(blind_gain(labels, 1000, np.random.default_rng(1)), 4)
    0.0255
    """
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size == 0:
        raise ValueError(f"labels must be a non-empty 1-D array, got shape {labels.shape}")
    if k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    lowest = math.inf
    for start in range(0, k, chunk):
        files = rng.integers(0, 2, size=(min(chunk, k - start), labels.size), dtype=np.int8)
        errors = np.count_nonzero(files != labels, axis=1) / labels.size
        lowest = min(lowest, float(errors.min()))
    return TRUE_ERROR - lowest


def blind_reference(
    n: int, k: int, *, repetitions: int, random_state: RandomState, chunk: int = 500
) -> Interval:
    """The raw gain of ``k`` blind files on the noiseless full-disclosure
    board (:func:`blind_gain`), on each repetition's labels. It depends on no
    board's noise, so it is the same reference for every board of a
    comparison.

    >>> str(blind_reference(4000, 100, repetitions=5, random_state=0))
    '0.019 ± 0.004'
    """
    gains = []
    for rep in range(repetitions):
        labels = random_labels(n, rep, random_state)
        rng = _stream(random_state).derive(f"blind/{rep}").generator(0)
        gains.append(blind_gain(labels, k, rng, chunk=chunk))
    return t_interval(gains)


def near_duplicate_gain(oracle: HoldoutOracle, k: int, stream: KeyedStream) -> float:
    """The raw gain of :func:`~ladderboard.attacks.near_duplicate_attack` from
    a random start file, on random labels."""
    start = stream.derive("start").generator(0).integers(0, 2, oracle.n_labels).astype(np.int8)
    result = near_duplicate_attack(
        oracle, start, k=k, random_state=stream.derive("attack"), true_score=TRUE_ERROR
    )
    assert result.raw_gain is not None
    return result.raw_gain


def _oracle(setting: Setting, rule: ScoringRule, labels: np.ndarray, key: KeyedStream):
    mechanism = setting.build(labels.size, rule, labels, key)
    if mechanism.input_kind == "predictions":
        return HoldoutOracle(None, mechanism)
    return HoldoutOracle(labels, mechanism, loss=setting.board_loss(rule))


def raw_gains(
    setting: Setting,
    *,
    n: int,
    k: int,
    repetitions: int,
    random_state: RandomState,
    attack: Attack = near_duplicate_gain,
) -> np.ndarray:
    """An attack's raw gain against ``setting`` in each repetition, on ``n``
    random public labels with a budget of ``k`` files (0/1 error; a board
    releasing accuracy is read in its own direction, the gain being the
    same number)."""
    rule = scoring_rule("zero_one")
    root = _stream(random_state)
    gains = np.empty(repetitions)
    for rep in range(repetitions):
        labels = random_labels(n, rep, random_state)
        oracle = _oracle(setting, rule, labels, root.derive(f"board/{rep}"))
        gains[rep] = attack(oracle, k, root.derive(f"attacker/{rep}"))
    return gains


@dataclass(frozen=True, slots=True)
class GainRow:
    """One board at one budget: its raw gains, their interval, and the time."""

    label: str
    k: int
    gains: np.ndarray
    interval: Interval
    seconds: float


def measure_gains(
    settings: Iterable[Setting],
    *,
    n: int,
    ks: Sequence[int],
    repetitions: int,
    random_state: RandomState,
    attack: Attack = near_duplicate_gain,
    progress: Callable[[GainRow], None] | None = None,
) -> list[GainRow]:
    """:func:`raw_gains` for every setting and budget, on the same labels and
    draws (pair any two rows of one ``k`` with :func:`paired_difference`)."""
    rows = []
    for setting in settings:
        for k in ks:
            began = time.perf_counter()
            gains = raw_gains(
                setting,
                n=n,
                k=k,
                repetitions=repetitions,
                random_state=random_state,
                attack=attack,
            )
            row = GainRow(setting.label, k, gains, t_interval(gains), time.perf_counter() - began)
            if progress is not None:
                progress(row)
            rows.append(row)
    return rows
