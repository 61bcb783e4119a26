"""Checks of array arguments (the metrics' and the kernels' inputs): wrong
type raises ``TypeError``, wrong value ``ValueError``; both messages name the
parameter and what it got."""

from __future__ import annotations

from typing import Any

import numpy as np

from ladderboard._validation import show

__all__ = ["as_array", "check_binary", "check_probabilities", "first_violation", "same_length"]


def as_array(value: Any, name: str, *, ndim: int | tuple[int, ...] = 1) -> np.ndarray:
    """``value`` as a finite, nonempty float64 array with ``ndim`` dimensions, or raise.

    >>> as_array([1, 2], "y_true")
    array([1., 2.])
    >>> as_array([1.0, float("nan")], "y_pred")
    Traceback (most recent call last):
    ValueError: y_pred must be finite, got nan at index 1 (1 non-finite value(s))
    """
    if value is None or isinstance(value, str | bytes | dict | set):
        raise TypeError(f"{name} must be a numeric array, got {type(value).__name__} {show(value)}")
    try:
        array = np.asarray(value)
    except ValueError as exc:  # ragged nested sequences
        raise ValueError(f"{name} must be a rectangular numeric array, got {show(value)}") from exc
    if array.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a numeric array, got dtype {array.dtype}: {show(value)}")
    array = array.astype(np.float64, copy=False)
    dims = (ndim,) if isinstance(ndim, int) else ndim
    if array.ndim not in dims:
        wanted = " or ".join(f"{d}-D" for d in dims)
        raise ValueError(f"{name} must be {wanted}, got shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {array.shape}")
    bad = ~np.isfinite(array)
    if bad.any():
        raise ValueError(
            f"{name} must be finite, got {first_violation(array, bad)}"
            f" ({int(bad.sum())} non-finite value(s))"
        )
    return array


def same_length(y_true: np.ndarray, y_pred: np.ndarray, *, exact: bool = True) -> None:
    """Raise ``ValueError`` unless the shapes match (only the first axis when not ``exact``)."""
    same = y_true.shape == y_pred.shape if exact else y_true.shape[0] == y_pred.shape[0]
    if not same:
        raise ValueError(
            f"y_true and y_pred must have matching shapes, got y_true {y_true.shape} "
            f"and y_pred {y_pred.shape}"
        )


def first_violation(array: np.ndarray, bad: np.ndarray) -> str:
    """The first value of ``array`` where ``bad`` holds, and its index, for a message."""
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    return f"{float(array[where])!r} at index {where[0] if len(where) == 1 else where}"


def check_binary(y: np.ndarray, name: str) -> None:
    """Raise ``ValueError`` unless every entry of ``y`` is 0 or 1.

    >>> check_binary(np.array([0.0, 2.0]), "y_true")
    Traceback (most recent call last):
    ValueError: y_true must contain only 0 and 1, got 2.0 at index 1
    """
    bad = (y != 0) & (y != 1)
    if bad.any():
        raise ValueError(f"{name} must contain only 0 and 1, got {first_violation(y, bad)}")


def check_probabilities(p: np.ndarray, name: str) -> None:
    """Raise ``ValueError`` unless every entry of ``p`` lies in ``[0, 1]``."""
    bad = (p < 0) | (p > 1)
    if bad.any():
        raise ValueError(f"{name} must be probabilities in [0, 1], got {first_violation(p, bad)}")
