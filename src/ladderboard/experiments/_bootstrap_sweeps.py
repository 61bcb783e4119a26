"""Freedman's attack swept over ``k`` and the step-forward attack swept over
its iterations, each from one run, through the bootstrap ladders of Chaibub
Neto et al. (2016, Figs. 5-6 and supplements S2, S4; the experiments e7, e8
and e10), with the data designs they are played on.

Sweeping ``k`` (or the number of iterations) from one run gives exactly what
separate runs of :func:`~ladderboard.attacks.freedman_attack` (or
:func:`~ladderboard.attacks.step_forward_attack`) would: the attacks make no
random draws, and a mechanism's draws are keyed by submission index, so a copy
of the board taken just before the final submission releases what the board of
the separate run would. The tests check this row by row.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ladderboard._validation import check_int
from ladderboard.attacks import (
    HoldoutOracle,
    correlated_regression_data,
    real_regression_data,
    step_forward_attack,
)
from ladderboard.attacks.freedman import rank_features
from ladderboard.attacks.regression import candidate_predictions, fit_predict
from ladderboard.mechanisms import MetricFullDisclosure
from ladderboard.random import RandomState

__all__ = [
    "DESIGNS",
    "DisclosedToAll",
    "design_data",
    "freedman_sweep",
    "spread_of_mean_of_means",
    "step_forward_sweep",
]

DESIGNS = ("simulated", "real")
SIMULATED_N = 120
"""The paper's simulated design: ``n = 120`` samples (40 per set)."""


def design_data(design: str, *, p: int, permute: bool = True, random_state: RandomState) -> Any:
    """The training/public/final sets of ``design``, with ``p`` features.

    ``"simulated"``: :func:`~ladderboard.attacks.correlated_regression_data`
    (``n = 120``, AR(1) features with ``rho = 0.9``), the paper's simulated
    design. ``"real"``: :func:`~ladderboard.attacks.real_regression_data`
    (tissue gene expression, 189 samples), ``p`` random genes, standing in
    for the paper's ADNI data.
    """
    p = check_int("p", p, 1)
    if design == "simulated":
        return correlated_regression_data(
            n=SIMULATED_N, p=p, permute=permute, random_state=random_state
        )
    if design == "real":
        return real_regression_data(p=p, permute=permute, random_state=random_state)
    raise ValueError(f"design must be one of {DESIGNS}, got {design!r}")


class DisclosedToAll(MetricFullDisclosure):
    """:class:`~ladderboard.mechanisms.MetricFullDisclosure` counting every
    submission as accepted: each one's own score is released, which is what
    E8's "accepted" column means for a full-disclosure board.

    >>> board = DisclosedToAll(metric="ccc", y_true=[1.0, 2.0, 3.0])
    >>> board.submit(np.array([1.0, 2.0, 2.5])).score   # 2 cov / (var + var + shift²)
    0.92308
    >>> board.submit(np.array([3.0, 2.0, 1.0])).improved
    True
    """

    def _step(self, x: np.ndarray, total: float, index: int) -> tuple[float, bool]:
        score, _ = super()._step(x, total, index)
        return score, True


def _branch_release(oracle: HoldoutOracle, prediction: np.ndarray) -> float:
    """What ``oracle`` would release for ``prediction``, leaving ``oracle`` as it was."""
    return copy.deepcopy(oracle).submit(prediction)


def freedman_sweep(oracle: HoldoutOracle, data: Any, ks: Sequence[int]) -> list[dict[str, Any]]:
    """Freedman's attack (Chaibub Neto et al. 2016, Figs. 1-2) for every ``k``
    in ``ks``, from one set of ``p`` univariate submissions to ``oracle``.

    One dict per ``k``: ``k``, ``public_released`` (the board's release for
    the final model, on a copy of the board), ``public_exact`` (its exact
    public score, organiser-side), ``final`` (its score on the final set) and
    ``n_submissions`` (``p + 1``), as ``freedman_attack(oracle, ..., k=k)``
    on a fresh board gives them, and ``accepted``: how many of the univariate
    submissions the board accepted (organiser-side).
    """
    X_train, y_train = data.X_train, data.y_train
    p = X_train.shape[1]
    ks = sorted({check_int("k", k, 1) for k in ks})
    if not ks or ks[-1] > p:
        raise ValueError(f"ks must be non-empty values in [1, p={p}], got {ks}")
    univariate = candidate_predictions(X_train, y_train, data.X_public, [], np.arange(p))
    released = np.fromiter((oracle.submit(c) for c in univariate.T), dtype=np.float64, count=p)
    order = rank_features(released, greater_is_better=oracle.greater_is_better)
    accepted = oracle.n_improvements
    rows = []
    for k in ks:
        public, fresh = fit_predict(
            X_train, y_train, order[:k].tolist(), data.X_public, data.X_final
        )
        rows.append(
            {
                "k": k,
                "public_released": _branch_release(oracle, public),
                "public_exact": oracle.holdout_score(public),
                "final": oracle.evaluate(data.y_final, fresh),
                "accepted": accepted,
                "n_submissions": p + 1,
            }
        )
    return rows


class _SnapshotOracle(HoldoutOracle):
    """A :class:`HoldoutOracle` that keeps a copy of its board after given submission counts."""

    def __init__(self, *args: Any, at: set[int], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._at = at
        self._count = 0
        self.snapshots: dict[int, Any] = {}
        self.accepted: dict[int, int] = {}

    def submit(self, prediction: Any) -> float:
        score = super().submit(prediction)
        self._count += 1
        if self._count in self._at:
            self.snapshots[self._count] = copy.deepcopy(self.mechanism)
            self.accepted[self._count] = self.n_improvements
        return score


def step_forward_sweep(
    mechanism: Any, data: Any, *, iterations: int, loss: str = "squared"
) -> list[dict[str, Any]]:
    """The step-forward attack (Chaibub Neto et al. 2016, Alg. 7;
    ``locate="auto"``, ``n_jumps="told"``) stopped after each of
    ``1..iterations`` iterations, from one run on a board ``mechanism``
    (fresh, loss-based).

    One dict per iteration count ``i``: ``k`` (= ``i``), ``n_selected``,
    ``public_released``, ``public_exact``, ``final`` and ``n_submissions``, as
    ``step_forward_attack(n_iterations=i)`` on the same fresh board gives them,
    ``accepted`` (the board's acceptances before the final submission), and
    ``hits``: in how many of those iterations the located submission was
    the board's true last acceptance (the jump the attack is after). On the
    Ladder, whose releases are rounded to ``1/n``, nearly all: an acceptance
    that rounds to the previous release is a jump no one can see.
    An attack that locates no jump in some iteration stops there, and so does
    every longer one.
    """
    iterations = check_int("iterations", iterations, 1)
    p = data.X_train.shape[1]
    if iterations > p:
        raise ValueError(f"iterations must be at most p={p}, got {iterations}")
    boundary = [0]
    for i in range(iterations):
        boundary.append(boundary[-1] + p - i)
    oracle = _SnapshotOracle(data.y_public, mechanism, loss=loss, at=set(boundary[1:]))
    result = step_forward_attack(
        oracle,
        data.X_train,
        data.y_train,
        data.X_public,
        n_iterations=iterations,
        X_final=data.X_final,
        y_final=data.y_final,
    )
    selected = result.selected.tolist()
    found = len(selected)
    # An iteration's located submission is a hit when it is the board's last
    # acceptance by the end of that iteration (organiser-side knowledge).
    hit = [
        int(result.located[j]) + 1 == oracle.snapshots[boundary[j + 1]].best_index
        for j in range(found)
    ]
    rows = []
    for i in range(1, iterations + 1):
        done = min(i, found + 1)  # iterations an attack told to run i makes
        features = selected[: min(i, found)]
        if features:
            public, fresh = fit_predict(
                data.X_train, data.y_train, features, data.X_public, data.X_final
            )
        else:
            public = np.full(data.X_public.shape[0], data.y_train.mean())
            fresh = np.full(data.X_final.shape[0], data.y_train.mean())
        board = HoldoutOracle(data.y_public, oracle.snapshots[boundary[done]], loss=loss)
        rows.append(
            {
                "k": i,
                "n_selected": len(features),
                "hits": int(sum(hit[: len(features)])),
                "public_released": _branch_release(board, public),
                "public_exact": oracle.holdout_score(public),
                "final": oracle.evaluate(data.y_final, fresh),
                "accepted": oracle.accepted[boundary[done]],
                "n_submissions": boundary[done] + 1,
            }
        )
    return rows


def spread_of_mean_of_means(losses: np.ndarray, b: int) -> float:
    """The standard deviation of LadderBoot's release of a loss vector: the mean
    of ``b`` bootstrap means is the mean of ``b·n`` draws with replacement, so
    ``sd_pop(l) / √(b n)`` (population sd, ``ddof = 0``).

    >>> round(spread_of_mean_of_means(np.array([0.0, 2.0]), 1), 6)   # sd 1, over √2
    0.707107
    """
    losses = np.asarray(losses, dtype=np.float64)
    return float(losses.std()) / math.sqrt(b * losses.shape[0])
