"""LadderBoot and the Bayesian-bootstrap ladders (Chaibub Neto et al. 2016,
*Reducing overfitting in challenge-based competitions*, Alg. 4–6)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ladderboard._validation import check_int, check_real
from ladderboard.bootstrap import (
    CHUNK_BYTES,
    bayesian_bootstrap,
    bayesian_bootstrap_test,
    bootstrap_mean_of_means,
    empirical_support,
    successes_needed,
)
from ladderboard.mechanisms.base import Mechanism, MetricMechanism, round_to
from ladderboard.mechanisms.boot_cards import (
    BAYES_BOOT_LADDER_BOOT_CARD,
    BAYES_BOOT_LADDER_CARD,
    LADDER_BOOT_CARD,
)
from ladderboard.mechanisms.ladder import (
    PAIRED_TEST_CAUTION,
    check_floor,
    paired_test_passes,
    t_critical_value,
)
from ladderboard.metrics import Metric
from ladderboard.random import RandomState

__all__ = ["BayesBootLadder", "BayesBootLadderBoot", "LadderBoot", "successes_needed"]


_BOOTSTRAP_CAUTION = (
    PAIRED_TEST_CAUTION + " Every file is answered with a fresh bootstrap draw and the board "
    "shows the latest, so a team can also keep submitting until a draw is lucky; no floor "
    "stops that."
)
"""What a ladder releasing bootstrap draws concedes (:attr:`Mechanism.caution`)."""


class LadderBoot(Mechanism):
    """The Ladder's paired t-test, releasing a bootstrap estimate (Chaibub Neto
    et al. 2016, Alg. 4).

    The test is :class:`SignificanceLadder`'s, ``R(ŷ_t) < R_best - c_α s/√n``,
    but against the *unrounded* risk of the best submission so far (as the
    algorithm is printed). Instead of the risk it releases the mean of ``b``
    bootstrap replicates of the mean of the best loss vector (the new one on
    acceptance, the old one otherwise): each release is a fresh draw, so a
    rejected submission does not simply repeat the last number. The printed
    algorithm would compare the first submission with the all-zero loss
    vector ``l_0`` and reject everything; the first submission is accepted,
    as in Alg. 1–3.

    The mean of ``b`` bootstrap means is one multinomial draw of ``b·n``
    counts (:func:`ladderboard.bootstrap.bootstrap_mean_of_means`), or of one
    count per distinct loss value when there are few, as for 0/1 losses. Releases
    are unrounded by default (``precision=None``), as in the paper: the noise
    is discrete resampling noise, not floating-point noise; pass
    ``precision`` to round them.

    Parameters
    ----------
    alpha : float
        The level of the one-sided paired t-test a submission must pass to
        become the best: the lower, the larger the improvement it takes.
    b : int
        The number of bootstrap replicates averaged into each release: the
        more, the closer each release is to the best submission's score.
    floor : float, optional
        The least a file's risk must be below the best's by, besides passing
        the test; ``None`` (the default) runs the paper's test alone. ``1/√n``
        asks what the fixed-step Ladder with ``η = 1/√n`` asks (Blum & Hardt
        2015, Fig. 1) and stops near-duplicate hill-climbing
        (:func:`~ladderboard.mechanisms.ladder.check_floor` says why).
    precision : float, optional
        The step releases are rounded to; unrounded, as in the paper, if not
        given.
    n : int, optional
        The holdout size; taken from the first submission if not given.
    random_state : int, key or None
        ``None`` draws a secret key (live competitions); an int is for tests.

    >>> board = LadderBoot(alpha=0.15, b=100, random_state=0)
    >>> rng = np.random.default_rng(1)
    >>> a, c = (rng.random(500) < 0.4) * 1.0, (rng.random(500) < 0.2) * 1.0
    >>> releases = [board.submit(v) for v in (a, a, c)]
    >>> [r.improved for r in releases]
    [True, False, True]
    >>> releases[0].score != releases[1].score       # a fresh draw each time
    True
    >>> bool(abs(releases[2].score - c.mean()) < 0.01)
    True
    """

    caution = _BOOTSTRAP_CAUTION

    name = "ladder-boot"
    card = LADDER_BOOT_CARD
    stochastic = True
    release_hides_decision = True
    unsaved_when_off = ("floor",)

    def __init__(
        self,
        *,
        alpha: float = 0.15,
        b: int = 100,
        floor: float | None = None,
        precision: float | None = None,
        n: int | None = None,
        random_state: RandomState = None,
    ):
        self.alpha = check_real("alpha", alpha, low=0, high=1)
        self.b = check_int("b", b, 1)
        self.floor = check_floor(floor)
        self.precision = None if precision is None else check_real("precision", precision, low=0)
        super().__init__(n=n, random_state=random_state)

    @classmethod
    def _min_n(cls) -> int:
        return 2

    def critical_value(self, n: int) -> float:
        """``c_α``: the ``1 - α`` quantile of Student's t with ``n - 1`` d.o.f."""
        return t_critical_value(self.alpha, n)

    @property
    def best_score(self) -> float:
        return self._best

    @property
    def resolution(self) -> float | None:
        """``precision`` if given; otherwise ``None``: a bootstrap mean of real
        losses lies on no grid (of 0/1 losses, on the ``1/(b n)`` one, far finer
        than its own spread)."""
        return self.precision

    def _reset_vars(self) -> None:
        self.__dict__.pop("_support", None)
        self._best = math.inf
        self._best_losses: np.ndarray | None = None
        self._best_total = 0.0
        self._best_sum_sq = 0.0

    def _get_vars(self) -> dict[str, Any]:
        data: dict[str, Any] = {"best": self._best}
        if self._best_losses is not None:
            data["best_losses"] = self._best_losses
        return data

    def _set_vars(self, data: dict[str, Any]) -> None:
        self.__dict__.pop("_support", None)
        self._best = float(data["best"])
        losses = data.get("best_losses")
        best = None if losses is None else np.array(losses, dtype=np.float64)
        self._best_losses = best
        self._best_total = 0.0 if best is None else float(best.sum())
        self._best_sum_sq = 0.0 if losses is None else float(np.dot(losses, losses))

    def _passes(self, x: np.ndarray, total: float) -> bool:
        if self._best_losses is None:
            return True
        if self.floor is not None and not self._best_total - total > self.floor * x.shape[0]:
            return False
        c = self.critical_value(x.shape[0])
        return paired_test_passes(
            x, total, self._best_losses, self._best_total, self._best_sum_sq, self._best_total, c
        )

    def _step(self, x: np.ndarray, total: float, index: int) -> tuple[float, bool]:
        improved = self._passes(x, total)
        if improved:
            self._best = total / x.shape[0]
            self._best_losses = np.array(x, dtype=np.float64, copy=True)
            self._best_total = total
            self._best_sum_sq = float(np.dot(x, x))
        # With no best yet, _passes is True: there is one now.
        assert self._best_losses is not None
        if improved or "_support" not in self.__dict__:
            # Cached per best vector (not state: it is derived from it).
            self._support = empirical_support(self._best_losses)
        value = bootstrap_mean_of_means(
            self._best_losses, self.b, self._generator(index), support=self._support
        )
        if self.precision is not None:
            value = round_to(value, self.precision)
        return value, improved


class BayesBootLadder(MetricMechanism):
    """A ladder for any moment-based metric, tested by the Bayesian bootstrap
    (Chaibub Neto et al. 2016, Alg. 5).

    It holds the labels and takes prediction vectors. For each submission it
    draws ``B`` Dirichlet(1, …, 1) weight vectors and, with the *same*
    weights, computes ``Δs = s(ŷ_t, y) - s(ŷ_best, y)``; ``P(H1|D)`` is the
    share of replicates in which the new submission is better (``Δs > 0``
    when greater is better, ``Δs < 0`` otherwise) and the posterior odds are
    ``PO = P/(1 - P)``. If ``PO ≥ po_threshold`` it accepts and releases
    ``[s(ŷ_t, y)]_{1/n}``, else ``[s(ŷ_best, y)]_{1/n}``.
    ``po_threshold = (1-α)/α``: 99, 5.67, 1 for α = 0.01, 0.15, 0.5.

    ``baseline`` is the algorithm's initial prediction ``ŷ_0`` (for example
    the training mean); with ``baseline=None`` the first submission is
    accepted, as the Ladder accepts its first. A baseline on which the metric
    is undefined (constant predictions under a correlation) is refused.

    Wherever the metric is undefined on a submission (constant predictions
    under a correlation), under every weighting, it counts as the metric's
    worst value (:meth:`~ladderboard.metrics.Metric.or_worst`): such a
    submission never passes the test, unless it is the first without a
    baseline; every submission that scores better than the worst value in
    enough replicates passes against it.

    The ``B`` replicates are chunked matrix products with bounded memory
    (:func:`ladderboard.bootstrap.bayesian_bootstrap`, 16 MiB of weights per
    chunk). The test stops drawing as soon as its answer is settled
    (:func:`ladderboard.bootstrap.bayesian_bootstrap_test`): at least
    :attr:`successes_needed` replicates favour the submission, or too few are
    left for that. It is the answer all ``B`` replicates give; only
    :meth:`posterior_probability` draws them all.

    Parameters
    ----------
    metric : str or Metric
        The metric of :mod:`ladderboard.metrics` that scores the predictions.
    y_true : array-like
        The labels of the holdout.
    B : int
        The number of Bayesian-bootstrap replicates in each test.
    po_threshold : float
        The posterior odds a submission must reach to become the best:
        ``(1-α)/α``, so 99, 5.67 and 1 for α = 0.01, 0.15 and 0.5.
    floor : float, optional
        The least a submission's score must beat the best's by, in the
        metric's units and direction, besides passing the test; ``None`` (the
        default) runs the paper's test alone. ``1/√n`` on a 0/1 score asks what
        the fixed-step Ladder with ``η = 1/√n`` asks (Blum & Hardt 2015,
        Fig. 1) and stops near-duplicate hill-climbing
        (:func:`~ladderboard.mechanisms.ladder.check_floor` says why).
    baseline : array-like, optional
        The initial prediction ``ŷ_0`` that the first submission must beat;
        if not given, the first submission is accepted.
    chunk_bytes : int
        The most memory the bootstrap weights take at once. It decides which
        random stream draws which replicate, so a replay must use the same.
    random_state : int, key or None
        ``None`` draws a secret key (live competitions); an int is for tests.

    >>> rng = np.random.default_rng(0)
    >>> y = rng.normal(size=300)
    >>> board = BayesBootLadder(metric="ccc", y_true=y, random_state=0)
    >>> weak, strong = y + rng.normal(scale=2, size=300), y + rng.normal(scale=0.5, size=300)
    >>> [(r.score * 300, r.improved) for r in map(board.submit, (weak, weak, strong))]
    [(111.0, True), (111.0, False), (272.0, True)]
    >>> round(board.best_score, 4)      # organiser-side: the unrounded CCC
    0.9079
    """

    caution = PAIRED_TEST_CAUTION

    name = "bayes-boot-ladder"
    card = BAYES_BOOT_LADDER_CARD
    stochastic = True
    unsaved_when_off = ("floor",)

    def __init__(
        self,
        *,
        metric: str | Metric,
        y_true: Any,
        B: int = 1000,
        po_threshold: float = 5.67,
        floor: float | None = None,
        baseline: ArrayLike | None = None,
        chunk_bytes: int = CHUNK_BYTES,
        random_state: RandomState = None,
    ):
        self._hold_labels(metric, y_true)
        y = self.y_true
        self.B = check_int("B", B, 1)
        self.po_threshold = check_real("po_threshold", po_threshold, low=0)
        self.floor = check_floor(floor)
        self.chunk_bytes = check_int("chunk_bytes", chunk_bytes, 1)
        if baseline is not None:
            baseline = np.array(baseline, dtype=np.float64)  # a read-only copy
            baseline.setflags(write=False)
            if baseline.shape != y.shape:
                raise ValueError(f"baseline must have shape {y.shape}, got {baseline.shape}")
            self.metric.check_predictions(baseline)
            if math.isnan(self.metric.score(y, baseline)):
                raise ValueError(
                    f"{self.metric.name} is undefined on the baseline (constant predictions?); "
                    "pass baseline=None to accept the first submission instead"
                )
        self.baseline = baseline
        super().__init__(n=y.shape[0], random_state=random_state)

    @classmethod
    def _unit_test_params(cls, n: int, rng: np.random.Generator) -> dict[str, Any]:
        return {"metric": "mse", "y_true": rng.normal(size=n), "B": 200}

    def _reset_vars(self) -> None:
        self._best_predictions = None if self.baseline is None else self.baseline.copy()
        if self.baseline is None:
            self._best = self.direction.worst
        else:
            self._best = float(self.metric.score(self.y_true, self.baseline))

    def _get_vars(self) -> dict[str, Any]:
        data: dict[str, Any] = {"best": self._best}
        if self._best_predictions is not None:
            data["best_predictions"] = self._best_predictions
        return data

    def _set_vars(self, data: dict[str, Any]) -> None:
        self._best = float(data["best"])
        best = data.get("best_predictions")
        self._best_predictions = None if best is None else np.array(best, dtype=np.float64)

    def _better(self, deltas: np.ndarray) -> np.ndarray:
        # nan (a metric undefined under a weighting) is never better
        return self.direction.better(deltas, 0.0)

    def _paired(self, predictions: np.ndarray) -> Any:
        metric, y, best = self.metric, self.y_true, self._best_predictions
        if not (math.isnan(metric.score(y, predictions)) or self._best == metric.worst):
            return metric.paired(y, predictions, best)
        # Undefined on one side: its replicates count as the worst value
        # (under positive weights, a score is undefined or at its worst bound
        # under every weighting when it is so unweighted).
        new, old = metric.weighted(y, predictions), metric.weighted(y, best)
        return lambda w: metric.or_worst(new(w)) - metric.or_worst(old(w))

    def _weights(self, index: int) -> Any:
        return lambda j: self._generator(index, j + 1)

    def posterior_probability(self, predictions: np.ndarray, index: int) -> float:
        """``P(H1|D)``: the share of replicates in which ``predictions`` beat the
        best, with the weights submission ``index`` draws. Organiser-side only."""
        deltas = bayesian_bootstrap(
            self._paired(predictions),
            self.y_true.shape[0],
            self.B,
            self._weights(index),
            chunk_bytes=self.chunk_bytes,
        )
        return float(np.count_nonzero(self._better(deltas))) / self.B

    @property
    def successes_needed(self) -> int:
        """The fewest of the ``B`` replicates that must favour a submission for
        ``PO = P/(1 - P) ≥ po_threshold``, with ``P`` = that count / ``B``."""
        return successes_needed(self.B, self.po_threshold)

    def _passes(self, predictions: np.ndarray, index: int) -> bool:
        if self._best_predictions is None:
            return True
        if self.floor is not None:
            score = self.metric.or_worst(float(self.metric.score(self.y_true, predictions)))
            up = self.floor if self.direction.greater_is_better else -self.floor
            if not self.direction.better(score, self._best + up):
                return False
        paired = self._paired(predictions)
        # Decided as soon as the replicates drawn settle it: the same answer as
        # counting every replicate (``count >= successes_needed``) from the same draws.
        return bayesian_bootstrap_test(
            lambda w: self._better(paired(w)),
            self.y_true.shape[0],
            self.B,
            self.successes_needed,
            self._weights(index),
            chunk_bytes=self.chunk_bytes,
        )

    @property
    def resolution(self) -> float | None:
        """``1/n``: every release is ``[s(ŷ_best, y)]_{1/n}``."""
        return 1.0 / self.y_true.shape[0]

    def _release(self, index: int) -> float:
        return round_to(self._best, 1.0 / self.y_true.shape[0])

    def _step(self, x: np.ndarray, total: float, index: int) -> tuple[float, bool]:
        improved = self._passes(x, index)
        if improved:
            self._best_predictions = np.array(x, dtype=np.float64, copy=True)
            self._best = self.metric.or_worst(float(self.metric.score(self.y_true, x)))
        return self._release(index), improved


class BayesBootLadderBoot(BayesBootLadder):
    """:class:`BayesBootLadder` releasing a bootstrap estimate (Chaibub Neto et al.
    2016, Alg. 6).

    The test is Alg. 5's, with the same draws for the same random stream; the
    release is the mean of ``b`` bootstrap replicates of the metric on the
    best predictions (:meth:`ladderboard.metrics.Metric.bootstrap_mean`: one
    multinomial for a plain mean, ``b`` rows of resampling counts otherwise),
    a fresh draw at every submission, unrounded as printed.

    Parameters
    ----------
    metric : str or Metric
        The metric of :mod:`ladderboard.metrics` that scores the predictions.
    y_true : array-like
        The labels of the holdout.
    B : int
        The number of Bayesian-bootstrap replicates in each test.
    b : int
        The number of bootstrap replicates averaged into each release: the
        more, the closer each release is to the best submission's score.
    po_threshold : float
        The posterior odds a submission must reach to become the best:
        ``(1-α)/α``, so 99, 5.67 and 1 for α = 0.01, 0.15 and 0.5.
    floor : float, optional
        The least a submission's score must beat the best's by, in the
        metric's units and direction, besides passing the test; ``None`` (the
        default) runs the paper's test alone. ``1/√n`` on a 0/1 score asks what
        the fixed-step Ladder with ``η = 1/√n`` asks (Blum & Hardt 2015,
        Fig. 1) and stops near-duplicate hill-climbing
        (:func:`~ladderboard.mechanisms.ladder.check_floor` says why).
    baseline : array-like, optional
        The initial prediction ``ŷ_0`` that the first submission must beat;
        if not given, the first submission is accepted.
    chunk_bytes : int
        The most memory the bootstrap weights take at once. It decides which
        random stream draws which replicate, so a replay must use the same.
    random_state : int, key or None
        ``None`` draws a secret key (live competitions); an int is for tests.

    >>> rng = np.random.default_rng(0)
    >>> y = rng.normal(size=300)
    >>> board = BayesBootLadderBoot(metric="pearson", y_true=y, b=50, random_state=0)
    >>> p = y + rng.normal(size=300)
    >>> first, again = board.submit(p), board.submit(p)
    >>> first.improved, again.improved, first.score != again.score
    (True, False, True)
    """

    caution = _BOOTSTRAP_CAUTION

    name = "bayes-boot-ladder-boot"
    card = BAYES_BOOT_LADDER_BOOT_CARD
    release_hides_decision = True

    def __init__(
        self,
        *,
        metric: str | Metric,
        y_true: Any,
        B: int = 1000,
        b: int = 100,
        po_threshold: float = 5.67,
        floor: float | None = None,
        baseline: ArrayLike | None = None,
        chunk_bytes: int = CHUNK_BYTES,
        random_state: RandomState = None,
    ):
        self.b = check_int("b", b, 1)
        super().__init__(
            metric=metric,
            y_true=y_true,
            B=B,
            po_threshold=po_threshold,
            floor=floor,
            baseline=baseline,
            chunk_bytes=chunk_bytes,
            random_state=random_state,
        )

    @classmethod
    def _unit_test_params(cls, n: int, rng: np.random.Generator) -> dict[str, Any]:
        return {"metric": "pearson", "y_true": rng.normal(size=n), "B": 200, "b": 20}

    @property
    def resolution(self) -> float | None:
        """``None``: the releases are bootstrap means, unrounded (Alg. 6)."""
        return None

    def _release(self, index: int) -> float:
        return self.metric.bootstrap_mean(
            self.y_true, self._best_predictions, self.b, self._generator(index, 0)
        )
