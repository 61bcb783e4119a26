"""Thresholdout, the reusable holdout (Dwork, Feldman, Hardt, Pitassi, Reingold
and Roth, *The reusable holdout: Preserving validity in adaptive data
analysis*, Science 349(6248), 2015; *Generalization in adaptive data analysis
and holdout reuse*, NIPS 2015; CACM 60(4), 2017, Fig. 1)."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ladderboard._validation import check_int, check_real
from ladderboard.mechanisms.base import Mechanism, Release
from ladderboard.mechanisms.card import Card
from ladderboard.random import RandomState

__all__ = ["BudgetExhaustedError", "GaussianThresholdout", "Thresholdout"]

DEFAULT_THRESHOLD_MULTIPLE = 4.0
"""The paper's experiments' threshold ``T``, in units of ``1/√n``."""
DEFAULT_NOISE_MULTIPLE = 0.25
"""The default noise scale ``σ``, in units of ``1/√n`` (:class:`Thresholdout`
says why)."""


EXPERIMENT_TOLERANCE_MULTIPLE = 1.0
"""The Science experiment's tolerance ``τ = 0.01`` at ``n = 10,000``, in units of ``1/√n``."""

THRESHOLDOUT_CARD = Card(
    title="Thresholdout",
    gist="A guarded validation set: each answer is your own estimate when it is close to the "
    "guarded score, and a blurred guarded score when it is not.",
    family=None,
    order=100,
)
"""Thresholdout's card: it runs in no competition (each submission carries a
training-set estimate), so it has no wording and no section of the how page."""
GAUSSIAN_THRESHOLDOUT_CARD = Card(
    title="Thresholdout with Gaussian noise",
    gist="The guarded validation set as the Science experiment's code ran it, with Gaussian "
    "blur on every answer.",
    family=None,
    order=110,
)
"""The card of Thresholdout as the Science experiment's code ran it."""


def _check_train_value(train_value: float | None) -> float | None:
    """``E_St[φ]``, a loss's mean on the training set: in ``[0, 1]``, or ``None``."""
    if train_value is None:
        return None
    return check_real("train_value", train_value, low=0, high=1, low_open=False, high_open=False)


class BudgetExhaustedError(RuntimeError):
    """Thresholdout's budget ``B`` is spent: it answers no more queries (the
    paper's ``⊥``)."""


class Thresholdout(Mechanism):
    """The reusable holdout: answer with the training estimate unless the
    holdout disagrees (Dwork et al. 2015, Science; the pseudo-code of CACM
    2017, Fig. 1).

    Each query is a per-sample loss vector ``φ`` on the holdout, in ``[0, 1]``,
    and the submitter's own estimate of the same loss on its training set,
    ``train_value`` (:meth:`submit`). With threshold ``T``, noise scale ``σ``
    and budget ``B``, where ``Lap(b)`` has density ``exp(-|x|/b)/(2b)``:

    1. draw ``γ ~ Lap(2σ)`` and set ``T̂ = T + γ``;
    2. for each query: if ``B < 1``, answer ``⊥`` (:class:`BudgetExhaustedError`);
       else draw ``η ~ Lap(4σ)``; if ``|E_Sh[φ] − E_St[φ]| > T̂ + η``, draw
       ``ξ ~ Lap(σ)`` and ``γ ~ Lap(2σ)``, set ``B ← B − 1`` and
       ``T̂ ← T + γ``, and answer ``E_Sh[φ] + ξ``; else answer ``E_St[φ]``.

    ``E_Sh[φ]`` is the mean of the loss vector, ``E_St[φ]`` is
    ``train_value``. The holdout is touched only through the noisy comparison
    and the noisy answers (the sparse vector technique), so the guarantee
    holds whatever the training estimates are: one made up by the submitter
    only spends budget sooner. A query given no training estimate is answered
    from the holdout, as one whose training estimate is too far off: it
    spends one unit of budget.

    Each answer is that query's own (a board shows a team's best answer); a
    submission counts as ``improved`` when its holdout loss is the lowest so
    far (organiser-side, never released).

    Parameters
    ----------
    budget : int
        ``B``, how many answers may come from the holdout (overfitting
        detected) before every further query is refused.
    threshold : float, optional
        ``T``, how far the training estimate may be from the holdout's before
        the holdout answers; ``4/√n`` if not given.
    noise_scale : float, optional
        ``σ``, the scale of the Laplace noise of the answers (twice it for the
        threshold, four times for each comparison); ``0.25/√n`` if not given.
    n : int, optional
        The holdout size; needed for the defaults, else taken from the first
        submission.
    random_state : int, key or None
        ``None`` draws a secret key; an int is for tests.

    The threshold is the Science experiment's, ``T = 0.04`` at ``n = 10,000``,
    written in units of the holdout's sampling error as its code does:
    ``4/√n``. The noise is not that experiment's ``τ = 1/√n``: there ``τ`` is
    the standard deviation of Gaussian noise drawn afresh for each query
    (:class:`GaussianThresholdout`), while here ``σ`` scales the pseudo-code's
    Laplace noise, ``Lap(2σ)`` on the threshold plus ``Lap(4σ)`` on each
    comparison, whose standard deviation is ``√40·σ ≈ 6.3σ``. At ``σ = 1/√n``
    that exceeds ``T`` itself, and a query that does not overfit (its
    training and holdout estimates differ by sampling error alone, a standard
    deviation of ``√2/√n`` for two independent means of unit-variance terms)
    is answered from the holdout several times as often as the experiment's
    code answers it, draining the budget for nothing; an overfit query may
    be answered with its training estimate. The default ``σ = 0.25/√n`` puts
    the comparison noise (about ``1.6/√n``) at the size of that sampling
    error: at the paper's size the pseudo-code then behaves as the
    experiment's code does, answering about as few of the queries that do not
    overfit from the holdout and letting about as few answers to overfit
    queries stray farther than ``T`` from fresh data. Smaller noise does
    better on both counts, down to the floor where sampling error alone
    crosses ``T``, but the noise is what the guarantee rests on: an answer
    from the holdout is ``1/(σn)``-differentially private and the budget
    counts such answers, so at ``σ = 0.1/√n`` each costs 2.5 times as much.
    The analysis' scale (CACM 2017, Thm 9: ``T = 3τ/4`` and
    ``σ = τ/(96 ln(4m/β))`` for accuracy ``τ`` over ``m`` queries with
    probability ``1 − β``), about ``0.004/√n`` at ``m = 10^4``, makes the
    comparisons nearly exact. ``ladderboard experiment run e12`` prints these
    scales side by side at ``n = d = 10,000`` (``docs/experiments/e12.md``): the share of
    the ``d`` correlation queries, none of which overfits, answered from the
    holdout, and how far the answers to overfit accuracy queries are from
    fresh data.

    An answer from the holdout is clipped to ``[0, 1]``, the loss's range.
    The noise of ``γ`` is drawn from the key at index 0, that of query ``t``
    at index ``t`` as ``(η, ξ, γ)``, whether used or not.

    >>> board = Thresholdout(budget=2, n=10_000, random_state=0)
    >>> board.threshold, board.noise_scale
    (0.04, 0.0025)
    >>> losses = np.r_[np.ones(3000), np.zeros(7000)]  # holdout loss 0.3
    >>> board.submit(losses, train_value=0.29).score   # close: the training estimate
    0.29
    >>> round(board.submit(losses, train_value=0.1).score, 4)  # far: the noisy holdout's
    0.3015
    >>> board.budget_left
    1
    """

    name = "thresholdout"
    card = THRESHOLDOUT_CARD
    stochastic = True
    loss_bounds = (0.0, 1.0)
    release_is_current_best = False
    takes_training_estimate = True

    def __init__(
        self,
        *,
        budget: int,
        threshold: float | None = None,
        noise_scale: float | None = None,
        n: int | None = None,
        random_state: RandomState = None,
    ):
        self.budget = check_int("budget", budget, 1)
        if threshold is not None:
            threshold = check_real("threshold", threshold, low=0, low_open=False)
        if noise_scale is not None:
            noise_scale = check_real("noise_scale", noise_scale, low=0)
        self.threshold = threshold
        self.noise_scale = noise_scale
        super().__init__(n=n, random_state=random_state)

    def _n_known(self, n: int) -> None:
        """The defaults depend on n: parameters left None settle once it is known."""
        if self.threshold is None:
            self._settle_param("threshold", DEFAULT_THRESHOLD_MULTIPLE / math.sqrt(n))
        if self.noise_scale is None:
            self._settle_param("noise_scale", DEFAULT_NOISE_MULTIPLE / math.sqrt(n))

    @classmethod
    def _unit_test_params(cls, n: int, rng: np.random.Generator) -> dict[str, Any]:
        return {"n": n, "budget": 50}

    # ----------------------------------------------------------------- public
    def submit(self, x: Any, *, train_value: float | None = None) -> Release:
        """Answer one query: ``x`` the per-sample losses on the holdout, in
        ``[0, 1]``, and ``train_value`` the mean of the same loss on the
        training set (``E_St[φ]``), or ``None`` to ask the holdout directly.

        Raises :class:`BudgetExhaustedError` once the budget is spent, and
        ``ValueError`` on invalid input; either way nothing changes.
        """
        train_value = _check_train_value(train_value)
        if self._budget_left < 1:
            raise BudgetExhaustedError(
                f"Thresholdout's budget of {self.budget} answers from the holdout is spent: "
                "it answers no more queries"
            )
        vector, total = self._validate(x)
        return self._advance(vector, total, functools.partial(self._answer, train_value))

    @property
    def budget_left(self) -> int:
        """``B`` now: how many more answers may come from the holdout."""
        return self._budget_left

    @property
    def best_score(self) -> float:
        """The holdout loss of the best submission so far (never released)."""
        return self._best

    @property
    def resolution(self) -> None:
        """``None``: an answer is the submitter's own number or carries raw
        Laplace noise, on no grid."""
        return None

    # ------------------------------------------------------------ for the base
    def _reset_vars(self) -> None:
        self._budget_left = self.budget
        self._noisy_threshold: float | None = None
        self._best = math.inf

    def _get_vars(self) -> dict[str, Any]:
        return {
            "budget_left": self._budget_left,
            "noisy_threshold": self._noisy_threshold,
            "best": self._best,
        }

    def _set_vars(self, data: dict[str, Any]) -> None:
        self._budget_left = int(data["budget_left"])
        value = data["noisy_threshold"]
        self._noisy_threshold = None if value is None else float(value)
        self._best = float(data["best"])

    def _step(self, x: np.ndarray, total: float, index: int) -> tuple[float, bool]:
        return self._answer(None, x, total, index)

    def _answer(
        self, train_value: float | None, x: np.ndarray, total: float, index: int
    ) -> tuple[float, bool]:
        sigma, threshold = self.noise_scale, self.threshold
        # Settled with n (_n_known), which is known before the first step.
        assert sigma is not None and threshold is not None
        if self._noisy_threshold is None:
            # Line 1: γ ~ Lap(2σ), T̂ = T + γ, drawn before the first query.
            gamma_0 = self._generator(0).laplace(0.0, 2.0 * sigma)
            self._noisy_threshold = threshold + float(gamma_0)
        eta, xi, gamma = self._generator(index).laplace(0.0, [4.0 * sigma, sigma, 2.0 * sigma])
        holdout = total / x.shape[0]
        improved = holdout < self._best
        if improved:
            self._best = holdout
        if train_value is not None and not (
            abs(holdout - train_value) > self._noisy_threshold + eta
        ):
            return train_value, improved
        self._budget_left -= 1
        self._noisy_threshold = threshold + float(gamma)
        # A loss lies in [0, 1]: so does the answer (noise that carries it
        # outside tells nothing the clipped value does not).
        return min(1.0, max(0.0, holdout + float(xi))), improved


class GaussianThresholdout(Mechanism):
    """Thresholdout as the Science paper's experiments ran it (Dwork et al.
    2015, Science, Figs. 1-2, with ``T = 0.04`` and ``τ = 0.01`` at
    ``n = 10,000``; the authors' supplementary code), to reproduce those
    figures.

    For each query, with threshold ``T`` and tolerance ``τ``: draw
    ``ζ ~ N(0, τ²)``; if ``|E_Sh[φ] − E_St[φ]| > T + ζ``, draw
    ``ξ ~ N(0, τ²)`` and answer ``E_Sh[φ] + ξ`` (clipped to ``[0, 1]``, the
    loss's range), else answer ``E_St[φ]``. Unlike :class:`Thresholdout`
    (the pseudo-code the papers analyse), the threshold's noise is drawn
    afresh for every query instead of after an overfit only, the noise is
    Gaussian, and there is no budget: the experiment reports how the
    answers behave, not a guarantee. The comparison noise is four to six
    times smaller than the pseudo-code's at ``σ = τ`` (``Lap(2σ) + Lap(4σ)``
    has sd ``6.3σ``), so far fewer queries that do not overfit are answered
    from the holdout.

    The training estimate, ``E_Sh[φ]`` and the queries are as for
    :class:`Thresholdout` (:meth:`submit`); a query given no training
    estimate is answered from the holdout.

    Parameters
    ----------
    threshold : float, optional
        ``T``, how far the training estimate may be from the holdout's before
        the holdout answers; ``4/√n`` if not given.
    tolerance : float, optional
        ``τ``, the standard deviation of the Gaussian noise of the comparison
        and of an answer from the holdout; ``1/√n`` if not given.
    n : int, optional
        The holdout size; needed for the defaults, else taken from the first
        submission.
    random_state : int, key or None
        ``None`` draws a secret key; an int is for tests.

    Query ``t``'s noise is drawn from the key at index ``t`` as ``(ζ, ξ)``,
    whether used or not.

    >>> board = GaussianThresholdout(n=10_000, random_state=0)
    >>> board.threshold, board.tolerance
    (0.04, 0.01)
    >>> losses = np.r_[np.ones(3000), np.zeros(7000)]  # holdout loss 0.3
    >>> board.submit(losses, train_value=0.29).score   # close: the training estimate
    0.29
    >>> round(board.submit(losses, train_value=0.1).score, 4)  # far: the noisy holdout's
    0.3079
    """

    name = "gaussian-thresholdout"
    card = GAUSSIAN_THRESHOLDOUT_CARD
    stochastic = True
    loss_bounds = (0.0, 1.0)
    release_is_current_best = False
    takes_training_estimate = True

    def __init__(
        self,
        *,
        threshold: float | None = None,
        tolerance: float | None = None,
        n: int | None = None,
        random_state: RandomState = None,
    ):
        if threshold is not None:
            threshold = check_real("threshold", threshold, low=0, low_open=False)
        if tolerance is not None:
            tolerance = check_real("tolerance", tolerance, low=0)
        self.threshold = threshold
        self.tolerance = tolerance
        super().__init__(n=n, random_state=random_state)

    def _n_known(self, n: int) -> None:
        """The defaults depend on n: parameters left None settle once it is known."""
        if self.threshold is None:
            self._settle_param("threshold", DEFAULT_THRESHOLD_MULTIPLE / math.sqrt(n))
        if self.tolerance is None:
            self._settle_param("tolerance", EXPERIMENT_TOLERANCE_MULTIPLE / math.sqrt(n))

    # ----------------------------------------------------------------- public
    def submit(self, x: Any, *, train_value: float | None = None) -> Release:
        """Answer one query: ``x`` the per-sample losses on the holdout, in
        ``[0, 1]``, and ``train_value`` the mean of the same loss on the
        training set, or ``None`` to ask the holdout directly.

        Raises ``ValueError`` on invalid input, and nothing changes.
        """
        train_value = _check_train_value(train_value)
        vector, total = self._validate(x)
        return self._advance(vector, total, functools.partial(self._answer, train_value))

    @property
    def best_score(self) -> float:
        """The holdout loss of the best submission so far (never released)."""
        return self._best

    @property
    def resolution(self) -> None:
        """``None``: an answer is the submitter's own number or carries raw
        Gaussian noise, on no grid."""
        return None

    # ------------------------------------------------------------ for the base
    def _reset_vars(self) -> None:
        self._best = math.inf

    def _get_vars(self) -> dict[str, Any]:
        return {"best": self._best}

    def _set_vars(self, data: dict[str, Any]) -> None:
        self._best = float(data["best"])

    def _step(self, x: np.ndarray, total: float, index: int) -> tuple[float, bool]:
        return self._answer(None, x, total, index)

    def _answer(
        self, train_value: float | None, x: np.ndarray, total: float, index: int
    ) -> tuple[float, bool]:
        tau, threshold = self.tolerance, self.threshold
        # Settled with n (_n_known), which is known before the first step.
        assert tau is not None and threshold is not None
        zeta, xi = tau * self._generator(index).standard_normal(2)
        holdout = total / x.shape[0]
        improved = holdout < self._best
        if improved:
            self._best = holdout
        if train_value is not None and not abs(holdout - train_value) > threshold + zeta:
            return train_value, improved
        return min(1.0, max(0.0, holdout + float(xi))), improved
