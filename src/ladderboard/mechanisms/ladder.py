"""The Kaggle mechanism and the deterministic ladders.

Blum & Hardt, *The Ladder: A Reliable Leaderboard for Machine Learning
Competitions*, ICML 2015 (Fig. 1, Fig. 2, App. A), and the significance-level
generalisation of Chaibub Neto et al. 2016 (Alg. 3).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from ladderboard._validation import check_real
from ladderboard.mechanisms.base import Mechanism, MetricMechanism, round_to
from ladderboard.mechanisms.ladder_cards import (
    FULL_DISCLOSURE_CARD,
    LADDER_CARD,
    METRIC_FULL_DISCLOSURE_CARD,
    PARAMETER_FREE_LADDER_CARD,
    SIGNIFICANCE_LADDER_CARD,
)

__all__ = [
    "FullDisclosure",
    "Ladder",
    "MetricFullDisclosure",
    "ParameterFreeLadder",
    "SignificanceLadder",
    "check_floor",
    "paired_test_passes",
    "t_critical_value",
]


FULL_DISCLOSURE_CAUTION = (
    "Every file's own public score is shown, so a team can climb the public board by "
    "fitting its rows instead of the task, with random guesses alone (Blum & Hardt "
    "2015, Sec. 5): this board protects nothing; it is here for comparison."
)
"""What full disclosure concedes (:attr:`Mechanism.caution`)."""
PAIRED_TEST_CAUTION = (
    "A file that changes a few rows of the best passes when those rows fix a few more "
    "than they break, since the test weighs the difference against the spread "
    "of the two files' differences only: near-duplicate hill-climbing walks this "
    "board below the truth (Hardt 2017, Sec. 3-4; docs/defaults.md measures how far). "
    "Set floor to 1/√n, the public rows' sampling error, to demand a real step as "
    "well."
)
"""What a paired-test ladder concedes (:attr:`Mechanism.caution`)."""


class FullDisclosure(Mechanism):
    """The Kaggle mechanism: release every submission's risk, rounded.

    Blum & Hardt 2015, App. A: release ``[R_S(f_t)]_precision``. Kaggle shows
    five decimals (``precision=1e-5``); the boosting attack of Section 5 climbs
    it with random guesses.

    Parameters
    ----------
    precision : float
        The step every released score is rounded to.
    n : int, optional
        The holdout size; taken from the first submission if not given.

    >>> board = FullDisclosure(precision=0.01)
    >>> [board.submit(l).score for l in ([0, 1, 1, 0], [1, 1, 1, 0], [0, 0, 1, 0])]
    [0.5, 0.75, 0.25]
    >>> board.best_score, board.best_index
    (0.25, 3)
    """

    caution = FULL_DISCLOSURE_CAUTION

    name = "full-disclosure"
    card = FULL_DISCLOSURE_CARD
    release_is_current_best = False

    def __init__(self, *, precision: float = 1e-5, n: int | None = None):
        self.precision = check_real("precision", precision, low=0)
        super().__init__(n=n)

    @property
    def best_score(self) -> float:
        return self._best

    @property
    def resolution(self) -> float:
        """``precision``: every release is rounded to it."""
        return self.precision

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


class MetricFullDisclosure(MetricMechanism):
    """The Kaggle mechanism for a metric: release every submission's score, rounded.

    :class:`FullDisclosure` for the metrics of :mod:`ladderboard.metrics`
    (AUC, Pearson, Lin's CCC, ...), which are not means of per-sample losses:
    like the Bayesian-bootstrap ladders it holds the public labels and takes
    predictions, and releases ``[s(ŷ_t, y)]_precision`` in the metric's own
    direction. The baseline those ladders are compared against in Chaibub
    Neto et al. 2016 (S2), and what a Kaggle board with such a metric shows.
    A score the metric leaves undefined (a correlation of constant
    predictions) is released as the metric's worst value
    (:meth:`~ladderboard.metrics.Metric.or_worst`).

    Parameters
    ----------
    metric : str or Metric
        The metric of :mod:`ladderboard.metrics` that scores the predictions.
    y_true : array-like
        The labels of the holdout.
    precision : float
        The step every released score is rounded to.

    >>> board = MetricFullDisclosure(metric="auc", y_true=[0, 0, 1, 1], precision=0.01)
    >>> [board.submit(p).score for p in ([0.1, 0.4, 0.35, 0.8], [0.9, 0.4, 0.2, 0.5])]
    [0.75, 0.25]
    >>> board.best_score, board.best_index
    (0.75, 1)
    """

    caution = FULL_DISCLOSURE_CAUTION

    name = "metric-full-disclosure"
    card = METRIC_FULL_DISCLOSURE_CARD
    release_is_current_best = False

    def __init__(self, *, metric: Any, y_true: Any, precision: float = 1e-5):
        self._hold_labels(metric, y_true)
        self.precision = check_real("precision", precision, low=0)
        super().__init__(n=self.y_true.shape[0])

    @property
    def resolution(self) -> float:
        """``precision``: every release is rounded to it."""
        return self.precision

    @classmethod
    def _unit_test_params(cls, n: int, rng: np.random.Generator) -> dict[str, Any]:
        return {"metric": "mse", "y_true": rng.normal(size=n)}

    def _reset_vars(self) -> None:
        self._best = self.direction.worst

    def _get_vars(self) -> dict[str, Any]:
        return {"best": self._best}

    def _set_vars(self, data: dict[str, Any]) -> None:
        self._best = float(data["best"])

    def _step(self, x: np.ndarray, total: float, index: int) -> tuple[float, bool]:
        # Undefined (a correlation of constant predictions) is the metric's worst.
        score = self.metric.or_worst(float(self.metric.score(self.y_true, x)))
        better = bool(self.direction.better(score, self._best))
        if better:
            self._best = score
        return round_to(score, self.precision), better


class Ladder(Mechanism):
    """The Ladder with a fixed step ``eta`` (Blum & Hardt 2015, Fig. 1).

    ``R_0 = ∞``; if ``R_S(f_t) < R_{t-1} - eta`` release ``R_t = [R_S(f_t)]_eta``,
    otherwise release ``R_{t-1}`` again. The comparison is with the *rounded*
    previous release, and strict. Theory suggests ``eta ≈ (log(k n) / n)^(1/3)``
    (Thm 3.1); see :func:`ladderboard.analysis.ladder_step`.

    The decision and the rounding are done in exact rational arithmetic,
    ``eta`` being read as the decimal it was written as (``0.1`` is 1/10), so
    that ties (``R_S(f_t) = R_{t-1} - eta``) are decided as the paper states
    and not by floating-point error.

    Parameters
    ----------
    eta : float
        The step: a submission must beat the last release by more than it to
        be released, and releases are rounded to its multiples.
    n : int, optional
        The holdout size; taken from the first submission if not given.

    >>> board = Ladder(eta=0.1)
    >>> [board.submit(l).score for l in ([0.5] * 4, [0.45] * 4, [0.38] * 4, [0.27] * 4)]
    [0.5, 0.5, 0.4, 0.3]
    """

    name = "ladder"
    card = LADDER_CARD

    def __init__(self, *, eta: float, n: int | None = None):
        self.eta = check_real("eta", eta, low=0)
        # eta as the decimal it was written as: 0.1 is exactly 1/10.
        self._eta_q = Fraction(repr(self.eta))
        super().__init__(n=n)

    @classmethod
    def _unit_test_params(cls, n: int, rng: np.random.Generator) -> dict[str, Any]:
        return {"n": n, "eta": 0.01}

    @property
    def best_score(self) -> float:
        return self._best

    @property
    def resolution(self) -> float:
        """``eta``: every release is ``[R]_eta``, a multiple of it."""
        return self.eta

    def _reset_vars(self) -> None:
        self._multiple: int | None = None  # R_{t-1} = multiple · eta; None is ∞
        self._best = math.inf

    def _get_vars(self) -> dict[str, Any]:
        return {"multiple": self._multiple, "best": self._best}

    def _set_vars(self, data: dict[str, Any]) -> None:
        self._multiple = None if data["multiple"] is None else int(data["multiple"])
        self._best = float(data["best"])

    def _released(self) -> float:
        return math.inf if self._multiple is None else float(self._multiple * self._eta_q)

    def _step(self, x: np.ndarray, total: float, index: int) -> tuple[float, bool]:
        risk = Fraction(total) / x.shape[0]
        eta = self._eta_q
        if self._multiple is None or risk < (self._multiple - 1) * eta:
            self._multiple = round(risk / eta)
            self._best = total / x.shape[0]
            return self._released(), True
        return self._released(), False


def check_floor(floor: float | None) -> float | None:
    """``floor`` validated: ``None`` (no floor) or a finite number ``> 0``.

    The floor of a paired-test ladder: a file must beat the best by more than
    it, besides passing the test. The papers' tests (Blum & Hardt 2015,
    Fig. 2; Chaibub Neto et al. 2016, Alg. 3-5) scale with
    ``s = std(l_t − l_best)``, and a file that changes ``m`` rows of the best
    has ``s/√n ≈ √m/n``: a file that fixes a few more rows than it breaks
    passes, and near-duplicate hill-climbing
    (:func:`ladderboard.attacks.near_duplicate_attack`) talks the board down
    by many times ``1/√n`` (the "faithful" mechanisms of Hardt 2017, Sec. 3-4).
    A floor of ``1/√n`` asks every step what the fixed-step Ladder with
    ``η = 1/√n`` asks (Blum & Hardt 2015, Fig. 1), whose steps do not shrink
    with ``m``. It is off by default so that the papers' mechanisms stay
    exact; a competition sets it.

    ``python benchmarks/bench_defences.py`` measures why this defence and not
    the other the issue proposed, a guard in the engine refusing a file within
    ``d`` rows of one of the team's earlier files: an attacker who knows ``d``
    flips ``d + 1`` rows instead, and the test's threshold, ``c·√(d+1)/n``,
    still shrinks against ``1/√n``, so even a guard of 5 % of the rows leaves
    the parameter-free Ladder several times ``1/√n`` below the truth, while it
    refuses many of an honest team's files (successive models whose
    predictions differ in a few rows, as a hyperparameter moved one step
    gives). The floor brings the exact paired-test ladders' gain to the
    fixed-step Ladder's; on LadderBoot with few resamples (``b = 10``) the
    attacker keeps what fishing for a low bootstrap draw gives, which no
    threshold touches. Honest teams pay for it as under the fixed-step
    Ladder: an improvement smaller than the floor waits until later ones add
    to it, and in the script's honest-team model their Kendall tau between
    the released and the private board falls below full disclosure's by at
    least as much as under that Ladder. So a floored paired-test ladder does
    not beat the fixed-step Ladder on either count; the floor is for a
    competition that keeps a paired-test ladder, not a reason to choose one.

    >>> check_floor(None), check_floor(0.0158)
    (None, 0.0158)
    >>> check_floor(-1)
    Traceback (most recent call last):
    ValueError: floor must be a finite number in (0, inf), got -1
    """
    return None if floor is None else check_real("floor", floor, low=0)


class _PairedTestLadder(Mechanism):
    """A ladder whose step is ``c · std(l_t - l_best) / √n`` (paired t-test).

    Shared by ParameterFreeLadder (``c = 1``) and SignificanceLadder
    (``c = c_α``). Releases are ``[R]_{1/n} = round(n R)/n``, kept as the
    integer ``round(n R)``, and the next submission is compared with them.
    With a ``floor`` a submission must also beat that release by more than
    ``floor`` (not in the papers; off by default).
    """

    caution = PAIRED_TEST_CAUTION

    floor: float | None
    unsaved_when_off = ("floor",)

    @classmethod
    def _min_n(cls) -> int:
        return 2

    def _critical_value(self, n: int) -> float:
        raise NotImplementedError

    @property
    def best_score(self) -> float:
        return self._best

    @property
    def resolution(self) -> float | None:
        """``1/n``: every release is ``[R]_{1/n}``; ``None`` until ``n`` is known."""
        return None if self.n is None else 1.0 / self.n

    def _reset_vars(self) -> None:
        self._multiple: int | None = None  # R_{t-1} = multiple / n; None is ∞
        self._best = math.inf
        self._best_losses: np.ndarray | None = None
        self._best_total = 0.0
        self._best_sum_sq = 0.0

    def _get_vars(self) -> dict[str, Any]:
        data: dict[str, Any] = {"multiple": self._multiple, "best": self._best}
        if self._best_losses is not None:
            data["best_losses"] = self._best_losses
        return data

    def _set_vars(self, data: dict[str, Any]) -> None:
        self._multiple = None if data["multiple"] is None else int(data["multiple"])
        self._best = float(data["best"])
        losses = data.get("best_losses")
        best = None if losses is None else np.array(losses, dtype=np.float64)
        self._best_losses = best
        self._best_total = 0.0 if best is None else float(best.sum())
        self._best_sum_sq = 0.0 if losses is None else float(np.dot(losses, losses))

    def _step(self, x: np.ndarray, total: float, index: int) -> tuple[float, bool]:
        n = x.shape[0]
        if self._multiple is not None:
            # The multiple and the best's losses are set together (below), and
            # saved together.
            assert self._best_losses is not None
            if self.floor is not None and not float(self._multiple) - total > self.floor * n:
                return self._multiple / n, False
            passes, x_sq = _paired_test(
                x,
                total,
                self._best_losses,
                self._best_total,
                self._best_sum_sq,
                float(self._multiple),
                self._critical_value(n),
            )
            if not passes:
                return self._multiple / n, False
        else:
            x_sq = None
        self._multiple = round(total)
        self._best = total / n
        self._best_losses = _keep(x, self._best_losses)
        self._best_total = total
        # A passing test has read x·x already: the same product, not a second pass.
        self._best_sum_sq = float(np.dot(x, x)) if x_sq is None else x_sq
        return self._multiple / n, True


def _keep(x: np.ndarray, buffer: np.ndarray | None) -> np.ndarray:
    """A private copy of ``x``, written into ``buffer`` when it fits."""
    if buffer is None or buffer.shape != x.shape:
        return np.array(x, dtype=np.float64, copy=True)
    np.copyto(buffer, x)
    return buffer


@functools.lru_cache(maxsize=256)
def t_critical_value(alpha: float, n: int) -> float:
    """``c_α``, the ``1 - α`` quantile of Student's t with ``n - 1`` degrees of
    freedom (Neto's ``F⁻¹_{n-1}(α)`` in magnitude); cached, as every
    submission of a paired-test ladder needs it.

    >>> round(t_critical_value(0.15, 4000), 3)
    1.036
    """
    from scipy import stats  # here: scipy.stats takes a second to import

    return float(stats.t.ppf(1.0 - alpha, n - 1))


_BLOCK = 1 << 15  # 256 KiB of float64: a block of differences stays in cache
_CANCELLATION = 1e-6


def paired_test_passes(
    x: np.ndarray,
    total: float,
    best: np.ndarray,
    best_total: float,
    best_sum_sq: float,
    reference_total: float,
    c: float,
) -> bool:
    """Whether ``R(x) < R_ref - c · std(x - best) / √n`` (``ddof=1``).

    Risks are given as sums (``total = Σ x``, ``reference_total = n R_ref``;
    ``best_total = Σ best``, ``best_sum_sq = Σ best²``). With
    ``A = reference_total - total`` and ``Q = n Σd² - (Σd)²`` for
    ``d = x - best``, the condition is ``A > c √(Q/(n-1))``.

    ``Σd²`` is ``x·x - 2 x·best + best·best``: two BLAS dot products that
    only read memory. That is exact for integer losses and accurate unless
    ``x`` and ``best`` nearly coincide, in which case ``Σd²`` is summed
    directly from the differences, in cache-sized blocks. When every sum is
    an integer (0/1 and other integer losses) and ``c = 1`` the test is
    decided exactly, in integers, as ``A > 0 and A²(n-1) > Q``: such ties are
    common (``[1,1,1]`` then ``[0,1,1]`` lies exactly on the threshold). No
    O(n) work is done when ``A ≤ 0`` and ``c ≥ 0``, which cannot pass.

    >>> best = np.array([1.0, 1.0, 1.0])
    >>> paired_test_passes(np.array([0.0, 1.0, 1.0]), 2.0, best, 3.0, 3.0, 3.0, 1.0)
    False
    >>> paired_test_passes(np.array([0.0, 0.0, 1.0]), 1.0, best, 3.0, 3.0, 3.0, 1.0)
    True
    """
    return _paired_test(x, total, best, best_total, best_sum_sq, reference_total, c)[0]


def _paired_test(
    x: np.ndarray,
    total: float,
    best: np.ndarray,
    best_total: float,
    best_sum_sq: float,
    reference_total: float,
    c: float,
) -> tuple[bool, float | None]:
    """:func:`paired_test_passes`, and ``x·x`` when the test computed it
    (``None`` when it was decided without O(n) work): the sum of squares an
    accepted ``x`` keeps as the next best's."""
    n = x.shape[0]
    margin = reference_total - total
    if c >= 0 and not margin > 0:
        return False, None
    x_sq = float(np.dot(x, x))
    sum_sq = x_sq - 2.0 * float(np.dot(x, best)) + best_sum_sq
    if not sum_sq > _CANCELLATION * (x_sq + best_sum_sq):
        sum_sq = _sum_sq_difference(x, best)
    sum_d = total - best_total
    if c == 1.0 and margin.is_integer() and sum_d.is_integer() and sum_sq.is_integer():
        a, s1, s2 = int(margin), int(sum_d), int(sum_sq)
        return a * a * (n - 1) > n * s2 - s1 * s1, x_sq
    q = max(0.0, n * sum_sq - sum_d * sum_d)
    return margin > c * math.sqrt(q / (n - 1)), x_sq


def _sum_sq_difference(x: np.ndarray, best: np.ndarray) -> float:
    """``Σ (x - best)²`` from the differences themselves, block by block."""
    n = x.shape[0]
    d = np.empty(min(n, _BLOCK))
    total = 0.0
    for start in range(0, n, _BLOCK):
        block = d[: min(_BLOCK, n - start)]
        np.subtract(x[start : start + _BLOCK], best[start : start + _BLOCK], out=block)
        total += float(np.dot(block, block))
    return total


class ParameterFreeLadder(_PairedTestLadder):
    """The parameter-free Ladder (Blum & Hardt 2015, Fig. 2).

    ``R_0 = ∞``, ``l_0 = 0``. With ``s = std(l_t - l_best)`` (``ddof=1``): if
    ``R_S(f_t) < R_{t-1} - s/√n`` release ``[R_S(f_t)]_{1/n}`` and make
    ``l_t`` the best loss vector; otherwise release ``R_{t-1}``. This is
    roughly a one-sided paired t-test at level 0.16. The comparison is with
    the rounded previous release; a submission whose losses equal the best's
    has ``s = 0`` and risk equal to it, and never passes.

    Parameters
    ----------
    floor : float, optional
        The least a file must beat the best's release by, besides passing the
        test; ``None`` (the default) runs the paper's test alone. ``1/√n``
        asks what the fixed-step Ladder with ``η = 1/√n`` asks (Blum & Hardt
        2015, Fig. 1) and stops near-duplicate hill-climbing
        (:func:`check_floor` says why).
    n : int, optional
        The holdout size; taken from the first submission if not given.

    >>> board = ParameterFreeLadder()
    >>> first = board.submit([1, 0, 1, 0, 1, 0, 1, 0])     # always accepted
    >>> same = board.submit([0, 1, 0, 1, 0, 1, 0, 1])      # same risk: rejected
    >>> better = board.submit([0, 0, 0, 0, 1, 0, 1, 0])    # 0.25 < 0.5 - 0.46/√8
    >>> [(r.score, r.improved) for r in (first, same, better)]
    [(0.5, True), (0.5, False), (0.25, True)]
    """

    name = "parameter-free-ladder"
    card = PARAMETER_FREE_LADDER_CARD

    def __init__(self, *, floor: float | None = None, n: int | None = None):
        self.floor = check_floor(floor)
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

    Parameters
    ----------
    alpha : float
        The level of the one-sided paired t-test a submission must pass to be
        released: the lower, the larger the improvement it takes.
    floor : float, optional
        The least a file must beat the best's release by, besides passing the
        test; ``None`` (the default) runs the paper's test alone. ``1/√n``
        asks what the fixed-step Ladder with ``η = 1/√n`` asks (Blum & Hardt
        2015, Fig. 1) and stops near-duplicate hill-climbing
        (:func:`check_floor` says why).
    n : int, optional
        The holdout size; taken from the first submission if not given.

    >>> board = SignificanceLadder(alpha=0.01)
    >>> [board.submit(l).score for l in ([1, 0, 1, 0, 1, 0, 1, 0], [0, 0, 0, 0, 1, 0, 1, 0])]
    [0.5, 0.5]
    >>> round(board.critical_value(8), 3)
    2.998
    """

    name = "significance-ladder"
    card = SIGNIFICANCE_LADDER_CARD

    def __init__(self, *, alpha: float = 0.15, floor: float | None = None, n: int | None = None):
        self.alpha = check_real("alpha", alpha, low=0, high=1)
        self.floor = check_floor(floor)
        super().__init__(n=n)

    def critical_value(self, n: int) -> float:
        """``c_α``: the ``1 - α`` quantile of Student's t with ``n - 1`` d.o.f."""
        return t_critical_value(self.alpha, n)

    def _critical_value(self, n: int) -> float:
        return t_critical_value(self.alpha, n)
