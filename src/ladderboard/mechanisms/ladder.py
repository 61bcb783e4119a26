"""The Kaggle mechanism and the deterministic ladders.

Blum & Hardt, *The Ladder: A Reliable Leaderboard for Machine Learning
Competitions*, ICML 2015 (Fig. 1, Fig. 2, App. A), and the significance-level
generalisation of Chaibub Neto et al. 2016 (Alg. 3).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from ladderboard.mechanisms.base import Mechanism, round_to

__all__ = ["FullDisclosure", "Ladder", "ParameterFreeLadder", "SignificanceLadder"]


def _positive(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    value = float(value)
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"{name} must be positive and finite, got {value!r}")
    return value


class FullDisclosure(Mechanism):
    """The Kaggle mechanism: release every submission's risk, rounded.

    Blum & Hardt 2015, App. A: release ``[R_S(f_t)]_precision``. Kaggle shows
    five decimals (``precision=1e-5``); the boosting attack of Section 5 climbs
    it with random guesses.

    >>> board = FullDisclosure(precision=0.01)
    >>> [board.submit(l).score for l in ([0, 1, 1, 0], [1, 1, 1, 0], [0, 0, 1, 0])]
    [0.5, 0.75, 0.25]
    >>> board.best_score, board.best_index
    (0.25, 3)
    """

    name = "full-disclosure"

    def __init__(self, *, precision: float = 1e-5, n: int | None = None):
        self.precision = _positive("precision", precision)
        super().__init__(n=n)

    @property
    def best_score(self) -> float:
        return self._best

    def _reset_vars(self) -> None:
        self._best = math.inf

    def _get_vars(self) -> dict[str, Any]:
        return {"best": self._best}

    def _set_vars(self, data: dict[str, Any]) -> None:
        self._best = float(data["best"])

    def _step(self, x: np.ndarray, total: float, index: int) -> tuple[float, bool]:
        risk = total / x.shape[0]
        improved = risk < self._best
        if improved:
            self._best = risk
        return round_to(risk, self.precision), improved


class Ladder(Mechanism):
    """The Ladder with a fixed step ``eta`` (Blum & Hardt 2015, Fig. 1).

    ``R_0 = ∞``; if ``R_S(f_t) < R_{t-1} - eta`` release ``R_t = [R_S(f_t)]_eta``,
    otherwise release ``R_{t-1}`` again. The comparison is with the *rounded*
    previous release, and strict. Theory suggests ``eta ≈ (log(k n) / n)^(1/3)``
    (Thm 3.1); see :func:`ladderboard.analysis.ladder_step`.

    >>> board = Ladder(eta=0.1)
    >>> [board.submit(l).score for l in ([0.5] * 4, [0.45] * 4, [0.38] * 4, [0.27] * 4)]
    [0.5, 0.5, 0.4, 0.3]
    """

    name = "ladder"

    def __init__(self, *, eta: float, n: int | None = None):
        self.eta = _positive("eta", eta)
        super().__init__(n=n)

    @classmethod
    def _unit_test_params(cls, n: int, rng: np.random.Generator) -> dict[str, Any]:
        return {"n": n, "eta": 0.01}

    @property
    def best_score(self) -> float:
        return self._best

    def _reset_vars(self) -> None:
        self._released = math.inf
        self._best = math.inf

    def _get_vars(self) -> dict[str, Any]:
        return {"released": self._released, "best": self._best}

    def _set_vars(self, data: dict[str, Any]) -> None:
        self._released = float(data["released"])
        self._best = float(data["best"])

    def _step(self, x: np.ndarray, total: float, index: int) -> tuple[float, bool]:
        risk = total / x.shape[0]
        if risk < self._released - self.eta:
            self._released = round_to(risk, self.eta)
            self._best = risk
            return self._released, True
        return self._released, False


class _PairedTestLadder(Mechanism):
    """A ladder whose step is ``c · std(l_t - l_best) / √n`` (paired t-test).

    Shared by ParameterFreeLadder (``c = 1``) and SignificanceLadder
    (``c = c_α``). Releases are rounded to ``1/n`` and compared *rounded*.
    """

    @classmethod
    def _min_n(cls) -> int:
        return 2

    def _critical_value(self, n: int) -> float:
        raise NotImplementedError

    @property
    def best_score(self) -> float:
        return self._best

    def _reset_vars(self) -> None:
        self._released = math.inf
        self._best = math.inf
        self._best_losses: np.ndarray | None = None
        self._best_total = 0.0

    def _get_vars(self) -> dict[str, Any]:
        data: dict[str, Any] = {"released": self._released, "best": self._best}
        if self._best_losses is not None:
            data["best_losses"] = self._best_losses
        return data

    def _set_vars(self, data: dict[str, Any]) -> None:
        self._released = float(data["released"])
        self._best = float(data["best"])
        losses = data.get("best_losses")
        self._best_losses = None if losses is None else np.array(losses, dtype=np.float64)
        self._best_total = 0.0 if losses is None else float(self._best_losses.sum())

    def _step(self, x: np.ndarray, total: float, index: int) -> tuple[float, bool]:
        n = x.shape[0]
        risk = total / n
        # s >= 0, so a risk at or above the previous release can never pass:
        # skip the O(n) standard deviation on that (common) path.
        if not risk < self._released:
            return self._released, False
        if self._best_losses is not None:
            s = _difference_std(x, self._best_losses, (total - self._best_total) / n)
            if not risk < self._released - self._critical_value(n) * s / math.sqrt(n):
                return self._released, False
        self._released = round_to(risk, 1.0 / n)
        self._best = risk
        self._best_losses = np.array(x, dtype=np.float64, copy=True)
        self._best_total = total
        return self._released, True


def _difference_std(x: np.ndarray, best: np.ndarray, mean: float) -> float:
    """``std(x - best)`` with ``ddof=1``, given the mean of the difference.

    Centring by the known mean and summing squares with one BLAS dot keeps
    this to three passes over memory.
    """
    d = np.subtract(x, best)
    d -= mean
    return math.sqrt(float(np.dot(d, d)) / (d.shape[0] - 1))


class ParameterFreeLadder(_PairedTestLadder):
    """The parameter-free Ladder (Blum & Hardt 2015, Fig. 2).

    ``R_0 = ∞``, ``l_0 = 0``. With ``s = std(l_t - l_best)`` (``ddof=1``): if
    ``R_S(f_t) < R_{t-1} - s/√n`` release ``[R_S(f_t)]_{1/n}`` and make
    ``l_t`` the best loss vector; otherwise release ``R_{t-1}``. This is
    roughly a one-sided paired t-test at level 0.16. The comparison is with
    the rounded previous release; a submission whose losses equal the best's
    has ``s = 0`` and risk equal to it, and never passes.

    >>> board = ParameterFreeLadder()
    >>> first = board.submit([1, 0, 1, 0, 1, 0, 1, 0])     # always accepted
    >>> same = board.submit([0, 1, 0, 1, 0, 1, 0, 1])      # same risk: rejected
    >>> better = board.submit([0, 0, 0, 0, 1, 0, 1, 0])    # 0.25 < 0.5 - 0.46/√8
    >>> [(r.score, r.improved) for r in (first, same, better)]
    [(0.5, True), (0.5, False), (0.25, True)]
    """

    name = "parameter-free-ladder"

    def __init__(self, *, n: int | None = None):
        super().__init__(n=n)

    def _critical_value(self, n: int) -> float:
        return 1.0


class SignificanceLadder(_PairedTestLadder):
    """The Ladder at significance level ``alpha`` (Chaibub Neto et al. 2016, Alg. 3).

    As :class:`ParameterFreeLadder` with the step ``c_α · s/√n``, ``c_α`` the
    ``1 - α`` quantile of Student's t with ``n - 1`` degrees of freedom (the
    paper writes the ``α`` quantile, a negative number; its magnitude is
    meant). ``alpha=0.15`` gives ``c ≈ 1.04``, close to the parameter-free
    Ladder.

    >>> board = SignificanceLadder(alpha=0.01)
    >>> [board.submit(l).score for l in ([1, 0, 1, 0, 1, 0, 1, 0], [0, 0, 0, 0, 1, 0, 1, 0])]
    [0.5, 0.5]
    >>> round(board.critical_value(8), 3)
    2.998
    """

    name = "significance-ladder"

    def __init__(self, *, alpha: float = 0.15, n: int | None = None):
        alpha = _positive("alpha", alpha)
        if not alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
        self.alpha = alpha
        self._c_cache: tuple[int, float] | None = None
        super().__init__(n=n)

    def critical_value(self, n: int) -> float:
        """``c_α``: the ``1 - α`` quantile of Student's t with ``n - 1`` d.o.f."""
        return float(stats.t.ppf(1.0 - self.alpha, n - 1))

    def _critical_value(self, n: int) -> float:
        if self._c_cache is None or self._c_cache[0] != n:
            self._c_cache = (n, self.critical_value(n))
        return self._c_cache[1]
