"""Checks and small pieces every attack shares."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from ladderboard._validation import check_int
from ladderboard.direction import LOWER_IS_BETTER, Direction
from ladderboard.mechanisms import FullDisclosure
from ladderboard.random import KeyedStream, RandomState

__all__ = [
    "CountingOracle",
    "Oracle",
    "ScoringOracle",
    "check_fresh",
    "check_n_labels",
    "check_oracle",
    "check_random_state",
    "direction_of",
    "exact_public_score",
    "fresh_score",
    "generator",
    "is_full_disclosure",
    "is_stochastic",
    "read_only",
]


class Oracle(Protocol):
    """The attacker's whole view of a board."""

    def submit(self, prediction: Any) -> float: ...


class ScoringOracle(Oracle, Protocol):
    """An oracle that also scores data the caller supplies by the board's rule,
    organiser-side (:meth:`HoldoutOracle.evaluate`)."""

    def evaluate(self, y_true: Any, y_pred: Any) -> float: ...


class CountingOracle(Oracle, Protocol):
    """An oracle that also tells how many submissions became the board's new
    best, organiser-side (:attr:`HoldoutOracle.n_improvements`)."""

    @property
    def n_improvements(self) -> int: ...


def check_oracle(oracle: Any) -> Any:
    if not callable(getattr(oracle, "submit", None)):
        raise TypeError(f"oracle must have a submit method, got {type(oracle).__name__}")
    return oracle


def check_random_state(random_state: Any) -> KeyedStream:
    """The attack's stream; an int seed, a key, a stream or ``None``."""
    return KeyedStream.from_random_state(random_state)


def generator(random_state: RandomState) -> np.random.Generator:
    """Where an attack draws from: ``KeyedStream.from_random_state(rs).generator(0)``."""
    return check_random_state(random_state).generator(0)


def direction_of(board: Any) -> Direction:
    """A board's direction (public rules): its ``direction``, else its
    ``greater_is_better``, else its mechanism's; lower is better without any."""
    found = getattr(board, "direction", None)
    if isinstance(found, Direction):
        return found
    if hasattr(board, "greater_is_better"):
        return Direction(bool(board.greater_is_better))
    mechanism = getattr(board, "mechanism", None)
    return LOWER_IS_BETTER if mechanism is None else direction_of(mechanism)


def is_full_disclosure(oracle: Any) -> bool:
    return isinstance(getattr(oracle, "mechanism", None), FullDisclosure)


def is_stochastic(oracle: Any) -> bool:
    return bool(getattr(getattr(oracle, "mechanism", None), "stochastic", False))


def check_n_labels(oracle: Any, n_labels: Any) -> int:
    """``n_labels`` as an int, and equal to the oracle's when it declares one."""
    n_labels = check_int("n_labels", n_labels, 1)
    declared = getattr(oracle, "n_labels", None)
    if declared is not None and declared != n_labels:
        raise ValueError(f"n_labels must equal oracle.n_labels={declared}, got {n_labels}")
    return n_labels


def fresh_score(
    oracle: Any, prediction: np.ndarray, fresh_index: Any, fresh_labels: Any
) -> float | None:
    """The final submission's score on fresh (private) labels the caller gave,
    by the board's own rule (:meth:`HoldoutOracle.evaluate`); ``None`` without them."""
    if fresh_index is None and fresh_labels is None:
        return None
    if fresh_index is None or fresh_labels is None:
        raise ValueError("fresh_index and fresh_labels must be given together")
    index = np.asarray(fresh_index)
    if index.dtype.kind not in "iu" or index.ndim != 1:
        raise ValueError(
            f"fresh_index must be a 1-D integer array, got {index.dtype} {index.shape}"
        )
    if index.size and (index.min() < 0 or index.max() >= prediction.shape[0]):
        raise ValueError(f"fresh_index must hold positions in [0, {prediction.shape[0]})")
    if not callable(getattr(oracle, "evaluate", None)):
        raise TypeError("fresh labels need an oracle with an evaluate method (HoldoutOracle)")
    return float(oracle.evaluate(fresh_labels, prediction[index]))


def exact_public_score(oracle: Any, prediction: np.ndarray) -> float | None:
    """The final submission's exact public score, measured organiser-side for
    the result (never seen by the attack); ``None`` if the oracle cannot."""
    measure = getattr(oracle, "holdout_score", None)
    return None if measure is None else float(measure(prediction))


def check_fresh(fresh_index: Any, fresh_labels: Any) -> None:
    """Fail early, before any submission, on half-given fresh data."""
    if (fresh_index is None) != (fresh_labels is None):
        raise ValueError("fresh_index and fresh_labels must be given together")


def read_only(*arrays: np.ndarray) -> None:
    for array in arrays:
        array.setflags(write=False)
