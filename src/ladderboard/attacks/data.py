"""Simulated data for Freedman's attacks (Chaibub Neto et al. 2016, Fig. 1, 3, 5).

The paper's simulated design: ``n = 120`` samples, ``p = 1000`` features drawn
from a multivariate normal "with strong correlation structure", split into
training, public-leaderboard and final-scoring sets of roughly equal size,
each set's features and response scaled separately; in the "permuted response"
experiments the response is permuted within each set, so that no feature is
truly associated with it and every gain on the public board is overfitting.

The paper gives no correlation matrix. Here the features are a stationary
Gaussian AR(1) sequence, ``corr(x_i, x_j) = rho^|i-j|`` (``rho = 0.9`` by
default): strongly correlated neighbours, as the paper's Fig. 1b suggests ("the
feature responsible for the last jump and, possibly, a few neighbouring
features due to the strong correlation").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ladderboard._validation import check_int, check_real
from ladderboard.attacks._common import generator, read_only
from ladderboard.random import RandomState

__all__ = ["RegressionData", "correlated_regression_data"]


@dataclass(frozen=True, eq=False, slots=True)
class RegressionData:
    """Training, public-leaderboard and final-scoring sets (read-only arrays).

    The public set's features ``X_public`` are what a participant predicts
    on; ``y_public`` is the board's hidden labels; ``X_final, y_final`` the
    private (final) set.
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_public: np.ndarray
    y_public: np.ndarray
    X_final: np.ndarray
    y_final: np.ndarray
    informative: np.ndarray


def _scaled(a: np.ndarray) -> np.ndarray:
    """Centred and scaled to unit standard deviation (``ddof=1``, as R's ``scale``)."""
    sd = a.std(axis=0, ddof=1)
    return (a - a.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def correlated_regression_data(
    *,
    n: int = 120,
    p: int = 1000,
    rho: float = 0.9,
    n_informative: int | None = None,
    noise: float = 1.0,
    permute: bool = True,
    random_state: RandomState = None,
) -> RegressionData:
    """Chaibub Neto et al.'s simulated regression design (Fig. 1, 3, 5).

    ``X`` is ``n × p`` with AR(1) columns, ``x_0 = z_0``,
    ``x_j = rho x_{j-1} + √(1 - rho²) z_j``; ``n_informative`` features
    (default ``min(10, p)``) at random positions get coefficients ±1 and
    ``y = X β + noise · ε``. The rows
    are split at random into training, public and final sets of ``n // 3``
    rows each (the remainder goes to training); with ``permute`` the response
    is permuted within each set, destroying every association. Each set's
    features and response are then centred and scaled.

    All draws come from ``KeyedStream.from_random_state(random_state).generator(0)``.

    >>> data = correlated_regression_data(random_state=0)
    >>> data.X_train.shape, data.X_public.shape, data.X_final.shape
    ((40, 1000), (40, 1000), (40, 1000))
    >>> round(float(np.corrcoef(data.X_train[:, 10], data.X_train[:, 11])[0, 1]), 1)
    0.9
    """
    n = check_int("n", n, 9)
    p = check_int("p", p, 1)
    rho = check_real("rho", rho, low=-1, high=1)
    n_informative = min(10, p) if n_informative is None else n_informative
    n_informative = check_int("n_informative", n_informative, 0)
    if n_informative > p:
        raise ValueError(f"n_informative must be at most p={p}, got {n_informative}")
    noise = check_real("noise", noise, low=0, low_open=False)
    if not isinstance(permute, bool):
        raise TypeError(f"permute must be a bool, got {type(permute).__name__}")

    rng = generator(random_state)
    z = rng.standard_normal((n, p))
    X = np.empty((n, p))
    X[:, 0] = z[:, 0]
    innovation = np.sqrt(1.0 - rho * rho)
    for j in range(1, p):
        X[:, j] = rho * X[:, j - 1] + innovation * z[:, j]
    informative = np.sort(rng.choice(p, size=n_informative, replace=False))
    beta = np.zeros(p)
    beta[informative] = rng.choice([-1.0, 1.0], size=n_informative)
    y = X @ beta + noise * rng.standard_normal(n)

    rows = rng.permutation(n)
    size = n // 3
    parts = [rows[2 * size :], rows[:size], rows[size : 2 * size]]  # train, public, final
    sets = []
    for part in parts:
        y_part = y[part]
        if permute:
            y_part = y_part[rng.permutation(part.size)]
        sets += [_scaled(X[part]), _scaled(y_part)]
    read_only(*sets, informative)
    return RegressionData(*sets, informative=informative)
