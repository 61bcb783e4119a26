"""Argument checks shared by the core modules and the attacks: scalars, with
the standard library alone (the command line imports this module);
:mod:`ladderboard._array_checks` checks arrays.

Wrong type raises ``TypeError``, wrong value ``ValueError``; both messages name
the parameter and the value it got.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

__all__ = ["check_int", "check_real", "show"]


def check_int(name: str, value: object, minimum: int) -> int:
    """``value`` as an ``int`` at least ``minimum``.

    >>> check_int("k", 3, 1)
    3
    >>> check_int("k", 0, 1)
    Traceback (most recent call last):
    ValueError: k must be an integer >= 1, got 0
    """
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_real(
    name: str,
    value: object,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    low_open: bool = True,
    high_open: bool = True,
) -> float:
    """``value`` as a finite ``float`` in the interval from ``low`` to ``high``.

    The ends are excluded unless ``low_open`` / ``high_open`` is false.

    >>> check_real("beta", 0.05, low=0, high=1)
    0.05
    >>> check_real("eta", 0.0, low=0)
    Traceback (most recent call last):
    ValueError: eta must be a finite number in (0, inf), got 0.0
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    x = float(value)
    above = x > low if low_open else x >= low
    below = x < high if high_open else x <= high
    if not (math.isfinite(x) and above and below):
        left, right = "(" if low_open else "[", ")" if high_open else "]"
        raise ValueError(
            f"{name} must be a finite number in {left}{low:g}, {high:g}{right}, got {value!r}"
        )
    return x


def show(value: Any) -> str:
    """``repr(value)``, cut to 60 characters for an error message.

    >>> show("x" * 100)[-5:]
    'xx...'
    """
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
