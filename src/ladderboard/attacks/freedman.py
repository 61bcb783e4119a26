"""Freedman's attack (Chaibub Neto et al. 2016, "Freedman's attack", Fig. 1-2),
after Freedman's paradox (1983).

Feature selection guided by the public board: fit a univariate regression per
feature on the public training data, submit all ``p``, and refit a multiple
regression on the ``k`` features the board scored best. On permuted responses
no feature carries signal, so whatever the final model gains on the public
board over the final (private) set is overfitting to the holdout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from ladderboard._validation import check_int
from ladderboard.attacks._common import (
    Oracle,
    ScoringOracle,
    check_oracle,
    direction_of,
    exact_public_score,
    read_only,
)
from ladderboard.attacks.regression import candidate_predictions, check_design, fit_predict
from ladderboard.direction import Direction

__all__ = ["FreedmanResult", "freedman_attack"]


@dataclass(frozen=True, eq=False, slots=True)
class FreedmanResult:
    """The outcome of :func:`freedman_attack`.

    Attributes
    ----------
    selected : ndarray of int
        The ``k`` features of the final model, best-scored first (read-only).
    prediction : ndarray of float64
        The final model's predictions on ``X_test``, its submission (read-only).
    score : float
        The released (public) score of the final submission. A ladder that
        rejects it releases its best so far instead.
    public_score : float or None
        The final model's exact score on the public holdout, measured
        organiser-side (:meth:`HoldoutOracle.holdout_score`; ``None`` for an
        oracle without it). The paper's ``ΔMSE = MSE_public - MSE_final`` is
        ``public_score - true_score``: what the selection fitted to the
        holdout.
    released : ndarray of float64
        The released scores of the ``p`` univariate models (read-only): the
        paper's Fig. 1.
    n_submissions : int
        ``p + 1``.
    true_score : float or None
        The final model's score on ``(X_final, y_final)`` by the board's rule
        (the final/private MSE), if given.
    """

    selected: np.ndarray
    prediction: np.ndarray
    score: float
    public_score: float | None
    released: np.ndarray
    n_submissions: int
    true_score: float | None = None


def rank_features(released: np.ndarray, *, greater_is_better: bool = False) -> np.ndarray:
    """Features ordered best released score first; ties keep index order.

    Neto et al. (Fig. 1b): a ladder repeats its best for every later feature,
    "by convention, we simply select the first k consecutive features".

    >>> rank_features(np.array([1.0, 0.8, 0.8, 0.9]))
    array([1, 2, 3, 0])
    """
    return Direction(greater_is_better).order(released)


def freedman_attack(
    oracle: Oracle,
    X_train: Any,
    y_train: Any,
    X_test: Any,
    *,
    k: int,
    X_final: Any = None,
    y_final: Any = None,
) -> FreedmanResult:
    """Select features by the public board, then refit (Chaibub Neto et al.
    2016, "Freedman's attack"; Fig. 1 and 2).

    1. For each of the ``p`` features, fit ``y ~ 1 + x_j`` by least squares on
       ``(X_train, y_train)`` and submit its predictions on ``X_test``.
    2. Rank the features by their released scores (best first; ties in index
       order, the paper's convention).
    3. Fit ``y ~ 1 + x_{j1} + … + x_{jk}`` on the ``k`` best and submit it.

    ``X_test`` holds the features of every row a submission predicts (the
    oracle's ``public_index`` picks the scored ones). The board scores with
    its loss (squared for MSE) or, for a metric-based board, its metric. The
    attack makes no random draws.

    Parameters
    ----------
    oracle : HoldoutOracle
        The board, e.g. ``HoldoutOracle(y_public, mechanism, loss="squared")``.
    X_train, y_train : arrays
        The public training data.
    X_test : array
        Features of the rows to predict.
    k : int
        Features in the final model (at most ``p``).
    X_final, y_final : arrays, optional
        Fresh (final-scoring) data on which to report ``true_score``.

    Examples
    --------
    The paper's simulated design with permuted responses (Fig. 2's ``ΔMSE``
    at ``k = 10``): under full disclosure the final model fits the public
    holdout far better than the final set; the Ladder at ``α = 0.15``
    (Alg. 3) leaks less.

    >>> from ladderboard.attacks import HoldoutOracle, correlated_regression_data
    >>> from ladderboard.mechanisms import FullDisclosure, SignificanceLadder
    >>> d = correlated_regression_data(random_state=4)
    >>> for board in (FullDisclosure(), SignificanceLadder(alpha=0.15)):
    ...     oracle = HoldoutOracle(d.y_public, board, loss="squared")
    ...     r = freedman_attack(oracle, d.X_train, d.y_train, d.X_public, k=10,
    ...                         X_final=d.X_final, y_final=d.y_final)
    ...     print(type(board).__name__, round(r.public_score - r.true_score, 2))
    FullDisclosure -0.59
    SignificanceLadder -0.4
    """
    check_oracle(oracle)
    X_train, y_train, X_test, X_final, y_final = check_design(
        X_train, y_train, X_test, X_final, y_final
    )
    p = X_train.shape[1]
    k = check_int("k", k, 1)
    if k > p:
        raise ValueError(f"k must be at most the number of features p={p}, got {k}")

    univariate = candidate_predictions(X_train, y_train, X_test, [], np.arange(p))
    released = np.fromiter(
        (oracle.submit(column) for column in univariate.T), dtype=np.float64, count=p
    )
    selected = direction_of(oracle).order(released)[:k]
    features = selected.tolist()
    if X_final is None:
        (prediction,) = fit_predict(X_train, y_train, features, X_test)
        true_score = None
    else:
        prediction, fresh = fit_predict(X_train, y_train, features, X_test, X_final)
        # Fresh data asks for an oracle that scores it (a HoldoutOracle).
        true_score = float(cast(ScoringOracle, oracle).evaluate(y_final, fresh))
    score = float(oracle.submit(prediction))

    read_only(selected, prediction, released)
    return FreedmanResult(
        selected=selected,
        prediction=prediction,
        score=score,
        public_score=exact_public_score(oracle, prediction),
        released=released,
        n_submissions=p + 1,
        true_score=true_score,
    )
