"""Least-squares fits for Freedman's attacks (Chaibub Neto et al. 2016).

Every model is ordinary least squares with an intercept, fitted on the public
training data by ``numpy.linalg.lstsq``. The step-forward attack fits one model
per remaining feature, each on the selected features plus that one; all of them
come from two least-squares solves by the Frisch-Waugh-Lovell theorem: with
``Z = [1, X_S]``, ``y = Z b + r_y`` and ``x_j = Z γ_j + r_j``, the coefficient of
``x_j`` is ``β_j = r_j·r_y / r_j·r_j``, and the model predicts
``Z b + β_j (x_j - Z γ_j)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["candidate_predictions", "check_design", "fit_predict"]

_COLLINEAR = 1e-10  # residual sum of squares below this share of x·x: no new direction


def _matrix(name: str, value: Any) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric array: {exc}") from None
    if array.ndim != 2 or 0 in array.shape:
        raise ValueError(
            f"{name} must be a non-empty 2-D array (rows × features), got {array.shape}"
        )
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite")
    return array


def _vector(name: str, value: Any, length: int, rows_of: str) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric vector: {exc}") from None
    if array.shape != (length,):
        raise ValueError(
            f"{name} must be a vector with one value per row of {rows_of} "
            f"({length}), got shape {array.shape}"
        )
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite")
    return array


def check_design(
    X_train: Any, y_train: Any, X_test: Any, X_final: Any, y_final: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Validate the public data of a Freedman attack (and optional fresh data)."""
    X_train = _matrix("X_train", X_train)
    y_train = _vector("y_train", y_train, X_train.shape[0], "X_train")
    if X_train.shape[0] < 3:
        raise ValueError(f"X_train must have at least 3 rows, got {X_train.shape[0]}")
    X_test = _matrix("X_test", X_test)
    if X_test.shape[1] != X_train.shape[1]:
        raise ValueError(
            f"X_test must have the {X_train.shape[1]} features of X_train, got {X_test.shape[1]}"
        )
    if (X_final is None) != (y_final is None):
        raise ValueError("X_final and y_final must be given together")
    if X_final is not None:
        X_final = _matrix("X_final", X_final)
        if X_final.shape[1] != X_train.shape[1]:
            raise ValueError(
                f"X_final must have the {X_train.shape[1]} features of X_train, "
                f"got {X_final.shape[1]}"
            )
        y_final = _vector("y_final", y_final, X_final.shape[0], "X_final")
    return X_train, y_train, X_test, X_final, y_final


def _with_intercept(X: np.ndarray) -> np.ndarray:
    return np.column_stack([np.ones(X.shape[0]), X])


def fit_predict(
    X_train: np.ndarray, y_train: np.ndarray, features: list[int], *X_new: np.ndarray
) -> list[np.ndarray]:
    """OLS with intercept of ``y_train`` on ``features``; its predictions on
    each of ``X_new``."""
    coef = np.linalg.lstsq(_with_intercept(X_train[:, features]), y_train, rcond=None)[0]
    return [_with_intercept(X[:, features]) @ coef for X in X_new]


def candidate_predictions(
    X_train: np.ndarray,
    y_train: np.ndarray,
    X_test: np.ndarray,
    selected: list[int],
    remaining: np.ndarray,
) -> np.ndarray:
    """Predictions on ``X_test`` (``rows × len(remaining)``) of the OLS models
    ``y ~ 1 + X_selected + x_j``, one per ``j`` in ``remaining``.

    With nothing selected these are the univariate models of Freedman's
    attack. A feature that adds no direction to the selected ones (collinear)
    gets coefficient 0, i.e. the selected features' model.
    """
    Z = _with_intercept(X_train[:, selected])
    Z_test = _with_intercept(X_test[:, selected])
    candidates = X_train[:, remaining]
    solution = np.linalg.lstsq(Z, np.column_stack([y_train, candidates]), rcond=None)[0]
    b, gamma = solution[:, 0], solution[:, 1:]
    residual_y = y_train - Z @ b
    residual_x = candidates - Z @ gamma
    rss = np.einsum("ij,ij->j", residual_x, residual_x)
    cross = residual_x.T @ residual_y
    scale = np.einsum("ij,ij->j", candidates, candidates)
    usable = rss > _COLLINEAR * np.maximum(scale, np.finfo(float).tiny)
    beta = np.divide(cross, rss, out=np.zeros_like(cross), where=usable)
    return (Z_test @ b)[:, None] + (X_test[:, remaining] - Z_test @ gamma) * beta
