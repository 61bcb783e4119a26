"""Leaderboard error and the papers' bounds on it.

:func:`lberr` measures how far a board's releases are from the truth (Blum &
Hardt 2015, Def. 2.1). The other functions evaluate the rates the papers prove,
so that experiments can draw them beside measured errors:

===========================  ==================================================
``ladder_error_bound``       tail bound of the Ladder (Blum & Hardt, Thm 3.1)
``ladder_max_submissions``   how many submissions keep that bound below ``β``
``ladder_step``              the step ``η`` that balances it
``ladder_lower_bound``       ``√(log k / n)``, any mechanism (Thm 3.3)
``kaggle_attack_error``      ``√(k / n)``, full disclosure under attack (Cor. 5.2)
``shaky_error_bound``        the Shaky Ladder's rate (Hardt 2017, Thm 2.7)
===========================  ==================================================

The last four are rates without their constants: they give the shape of a
curve in ``n`` and ``k``, not a certified number.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ladderboard._validation import check_int, check_real

__all__ = [
    "kaggle_attack_error",
    "ladder_error_bound",
    "ladder_lower_bound",
    "ladder_max_submissions",
    "ladder_step",
    "lberr",
    "shaky_error_bound",
]


def _risks(name: str, values: Any) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 1-D vector of numbers: {exc}") from None
    if array.ndim != 1 or array.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty 1-D vector, got shape {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite")
    return array


def lberr(released: Any, true_risks: Any) -> float:
    """Leaderboard error: ``max_t |min_{i≤t} R_D(f_i) − R_t|`` (Blum & Hardt 2015, Def. 2.1).

    ``released[t]`` is the score ``R_t`` the board showed after submission
    ``t``; ``true_risks[t]`` is the true risk ``R_D(f_t)`` of that submission
    (in a simulation, its risk on fresh data). A board is accurate when each
    release is close to the best true risk submitted so far.

    Parameters
    ----------
    released, true_risks : 1-D arrays of the same length

    Examples
    --------
    True risks 0.50, 0.45, 0.47 have running minimum 0.50, 0.45, 0.45; against
    releases 0.49, 0.40, 0.40 the deviations are 0.01, 0.05, 0.05:

    >>> lberr([0.49, 0.40, 0.40], [0.50, 0.45, 0.47])
    0.05
    """
    released = _risks("released", released)
    true_risks = _risks("true_risks", true_risks)
    if released.shape != true_risks.shape:
        raise ValueError(
            f"released and true_risks must have the same length, got {released.shape[0]} "
            f"and {true_risks.shape[0]}"
        )
    best_true = np.minimum.accumulate(true_risks)
    return float(np.max(np.abs(best_true - released)))


def ladder_error_bound(n: int, t: int, eps: float, eta: float) -> float:
    """The Ladder's tail bound (Blum & Hardt 2015, Thm 3.1).

    For the Ladder with step ``eta`` after ``t`` submissions on a holdout of
    ``n`` points, ``P{|min_{i≤t} R_D(f_i) − R_t| > eps + eta}`` is at most
    ``exp(−2 eps² n + (1/eta + 2) log(4t/eta) + 1)``. The exponent is formed
    in log space and the result capped at 1, so neither side overflows.

    Examples
    --------
    At ``n = 10⁶`` and ``t = 1000`` with ``eps = 0.03`` and ``eta = 0.1`` the
    exponent is ``−1800 + 12 log(40000) + 1 ≈ −1671.8``, below the smallest
    double:

    >>> ladder_error_bound(10**6, 1000, 0.03, 0.1)
    0.0
    >>> ladder_error_bound(10**5, 1000, 0.03, 0.1)   # exponent −51.8
    3.1e-23
    >>> ladder_error_bound(4000, 400, 0.05, 0.1)      # exponent 97.2: vacuous
    1.0
    """
    n = check_int("n", n, 1)
    t = check_int("t", t, 1)
    eps = check_real("eps", eps, low=0, low_open=False)
    eta = check_real("eta", eta, low=0)
    exponent = -2.0 * eps * eps * n + (1.0 / eta + 2.0) * math.log(4.0 * t / eta) + 1.0
    return math.exp(min(0.0, exponent))


def ladder_max_submissions(n: int, eps: float, eta: float, beta: float) -> int:
    """The most submissions ``t`` for which :func:`ladder_error_bound` is at most ``beta``.

    Solving Blum & Hardt 2015, Thm 3.1 for ``t``: the bound is at most ``β``
    while ``t ≤ (η/4) exp((2 ε² n − 1 + log β) / (1/η + 2))``. Up to that many
    submissions, the Ladder with step ``eta`` on ``n`` holdout points releases
    the best true risk so far within ``eps + eta`` with probability at least
    ``1 − beta``; 0 when not even one submission is covered. Capped at
    ``2**63 − 1``.

    >>> ladder_max_submissions(10**5, 0.03, 0.1, 0.05)
    58579
    >>> ladder_error_bound(10**5, 58579, 0.03, 0.1) <= 0.05 < ladder_error_bound(
    ...     10**5, 58580, 0.03, 0.1)
    True
    >>> ladder_max_submissions(4000, 0.05, 0.1, 0.05)   # the bound is vacuous there
    0
    """
    n = check_int("n", n, 1)
    eps = check_real("eps", eps, low=0, low_open=False)
    eta = check_real("eta", eta, low=0)
    beta = check_real("beta", beta, low=0, high=1)
    log_t = math.log(eta / 4.0) + (2.0 * eps * eps * n - 1.0 + math.log(beta)) / (1.0 / eta + 2.0)
    if log_t >= math.log(2.0**63 - 1):
        return 2**63 - 1
    t = math.floor(math.exp(log_t))
    # Round-off at the edge: step down until the bound itself agrees.
    while t >= 1 and ladder_error_bound(n, t, eps, eta) > beta:
        t -= 1
    return max(0, t)


def ladder_step(n: int, k: int) -> float:
    """The Ladder's step ``η = (log(k n) / n)^(1/3)`` (Blum & Hardt 2015, Thm 3.1).

    With this ``η`` the Ladder's leaderboard error after ``k`` submissions is
    ``O((log(k n) / n)^(1/3))``.

    >>> round(ladder_step(4000, 400), 4)     # (log(1.6e6) / 4000)^(1/3)
    0.1529
    """
    n = check_int("n", n, 1)
    k = check_int("k", k, 1)
    return (math.log(k * n) / n) ** (1.0 / 3.0)


def ladder_lower_bound(n: int, k: int) -> float:
    """``√(log k / n)``: no mechanism does better against ``k`` adaptive queries.

    Blum & Hardt 2015, Thm 3.3 states ``Ω(√(log k / n))``; this is the rate
    without its (unspecified) constant.

    >>> round(ladder_lower_bound(4000, 400), 4)   # √(log(400) / 4000)
    0.0387
    """
    n = check_int("n", n, 1)
    k = check_int("k", k, 1)
    return math.sqrt(math.log(k) / n)


def kaggle_attack_error(n: int, k: int) -> float:
    """``√(k / n)``: the error the boosting attack forces on full disclosure.

    Blum & Hardt 2015, Thm 5.1 and Cor. 5.2: ``k`` random guesses and their
    majority push the public score ``Ω(√(k / n))`` below 1/2 when releases are
    accurate to ``1/√n``. The rate without its constant.

    >>> kaggle_attack_error(4000, 400)
    0.31622776601683794
    """
    n = check_int("n", n, 1)
    k = check_int("k", k, 1)
    return math.sqrt(k / n)


def shaky_error_bound(n: int, k: int, beta: float) -> float:
    """The Shaky Ladder's rate ``log(k/β)^(2/5) log(k n/β)^(1/5) / n^(2/5)``.

    Hardt 2017, Thm 2.7: with probability ``1 − β`` the Shaky Ladder's
    leaderboard error over ``k`` rounds is ``O`` of this; the constant is not
    included.

    >>> round(shaky_error_bound(4000, 400, 0.05), 4)
    0.1542
    """
    n = check_int("n", n, 1)
    k = check_int("k", k, 1)
    beta = check_real("beta", beta, low=0, high=1)
    return math.log(k / beta) ** 0.4 * math.log(k * n / beta) ** 0.2 / n**0.4
