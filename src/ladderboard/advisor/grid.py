"""The mechanisms and settings an organiser can choose from, and the scores
the advisor knows how to attack and simulate.

A :class:`Setting` is one mechanism with its parameters, labelled briefly
(``"Shaky σ=1 λ=2"``: noise ``1/√n``, step ``2/√n``). :func:`default_grid`
lists the settings the advisor compares at a holdout size ``n``;
:class:`ScoringRule` says how submissions are scored under a score, named as
:mod:`ladderboard.losses` registers the per-row loss (the loss a loss-based
board sees, and the metric a Bayesian-bootstrap board computes from it), and
how a released number is turned back into a loss, so that every board's
numbers are compared in the same units.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ladderboard.losses import Loss
    from ladderboard.mechanisms import Mechanism
    from ladderboard.random import RandomState


__all__ = [
    "SCORE_NAMES",
    "ScoringRule",
    "Setting",
    "default_grid",
    "scoring_rule",
    "shaky_default_label",
    "shaky_setting",
    "theory_ratio",
    "wide_shaky_multiples",
]

KAGGLE_LABEL = "Kaggle 1e-5"
"""Full disclosure with five decimals: the reference for honest-team utility."""

SHAKY_MULTIPLES = (
    (0.25, 0.25),
    (0.25, 0.5),
    (0.5, 1.0),
    (1.0, 1.0),
    (1.0, 2.0),
    (2.0, 2.0),
    (2.0, 4.0),
    (3.0, 3.0),
    (3.0, 6.0),
)
"""``(noise, step)`` of the Shaky settings, in units of ``1/√n``."""

WIDE_NOISES = (0.25, 0.5, 1.0, 2.0, 3.0)
"""Noise multiples of ``1/√n`` in the wide Shaky grid (:func:`wide_shaky_multiples`)."""

THEORY_BETA = 0.05
"""The failure probability ``β`` at which :func:`theory_ratio` is read."""


def theory_ratio(k: int, beta: float = THEORY_BETA) -> float:
    """The step-to-noise ratio ``λ/σ = 4 log(4k/β)`` of the Shaky Ladder's
    analysis (Hardt 2017, eq. 2; Thm. 2.4 holds with it). It depends on ``k``
    only: at ``k = 1000`` it is about 45, where the practical settings use 1-2.

    >>> round(theory_ratio(1000), 1), round(theory_ratio(10_000), 1)
    (45.2, 54.4)
    """
    if k < 1 or not 0 < beta < 1:
        raise ValueError(f"need k >= 1 and beta in (0, 1), got k={k!r}, beta={beta!r}")
    return 4.0 * math.log(4.0 * k / beta)


def wide_shaky_multiples(k: int) -> tuple[tuple[float, float], ...]:
    """``(noise, step)`` multiples of ``1/√n`` for a budget of ``k``: every
    noise of :data:`WIDE_NOISES` with step-to-noise ratios 1, 2, 4, … below
    :func:`theory_ratio` and that ratio itself (rounded to one decimal), so
    that the grid reaches the analysis's setting (Hardt 2017, eq. 2).

    >>> multiples = wide_shaky_multiples(1000)
    >>> len(multiples), multiples[:3], multiples[-1]
    (35, ((0.25, 0.25), (0.25, 0.5), (0.25, 1.0)), (3.0, 135.6))
    """
    top = round(theory_ratio(k), 1)
    ratios = [2.0**i for i in range(int(math.log2(top)) + 1) if 2.0**i < top] + [top]
    return tuple((s, round(s * r, 4)) for s in WIDE_NOISES for r in ratios)


BAYES_B = 100
"""Bayesian-bootstrap replicates per test in the grid (the paper's default is 1000;
100 keeps the advisor's runs short; the test it feeds decides clear cases alike)."""


@dataclass(frozen=True, slots=True)
class ScoringRule:
    """How submissions are scored under one score.

    Attributes
    ----------
    name : str
        The registered loss: ``"zero_one"``, ``"log_loss"`` or ``"squared"``.
    loss : Loss or None
        The per-sample loss a loss-based board sees (``None``: 0/1 loss on
        0/1 labels, as :class:`~ladderboard.attacks.HoldoutOracle` reads it).
    metric : str
        The registered metric of the Bayesian-bootstrap boards (``accuracy``,
        ``log_loss``, ``mse``: the loss's mean, or one minus it).
    bounds : tuple of float
        The loss's range; bounded losses are rescaled into ``[0, 1]`` for the
        Shaky Ladder, which is not offered for an unbounded one.
    """

    name: str
    loss: Loss | None
    metric: str
    bounds: tuple[float, float]

    @property
    def bounded(self) -> bool:
        return all(math.isfinite(b) for b in self.bounds)

    @property
    def unit_loss(self) -> Loss | None:
        """The loss a board needing ``[0, 1]`` sees (the Shaky Ladder)."""
        if self.loss is None or self.bounds == (0.0, 1.0):
            return self.loss
        return self.loss.rescaled()


def _rule(name: str) -> ScoringRule:
    from ladderboard.losses import LADDER_CLIP, get_loss

    if name == "zero_one":
        return ScoringRule("zero_one", None, "accuracy", (0.0, 1.0))
    if name == "log_loss":
        loss = get_loss("log_loss", clip=LADDER_CLIP)
        return ScoringRule("log_loss", loss, "log_loss", loss.bounds)
    return ScoringRule("squared", get_loss("squared"), "mse", (0.0, math.inf))


SCORE_NAMES = ("zero_one", "log_loss", "squared")
"""The scores the advisor can attack and simulate: per-row losses, named as
:data:`ladderboard.losses.LOSSES` registers them (``ladderboard scores``)."""


def scoring_rule(score: str) -> ScoringRule:
    """The :class:`ScoringRule` of the registered loss ``score``
    (one of :data:`SCORE_NAMES`); other spellings are refused, so that a
    score has one name everywhere.

    >>> scoring_rule("log_loss").bounds
    (0.0, 4.60517)
    >>> scoring_rule("zero_one").metric
    'accuracy'
    >>> scoring_rule("accuracy")
    Traceback (most recent call last):
    ValueError: score must be one of zero_one, log_loss, squared, got 'accuracy'
    """
    if not isinstance(score, str):
        raise TypeError(f"score must be a string, got {type(score).__name__}")
    if score not in SCORE_NAMES:
        raise ValueError(f"score must be one of {', '.join(SCORE_NAMES)}, got {score!r}")
    return _rule(score)


@dataclass(frozen=True, slots=True)
class Setting:
    """One mechanism with its parameters.

    Attributes
    ----------
    label : str
        Short and unique within a grid (``"Ladder η=1/√n"``).
    family : str
        The mechanism's family, from its card
        (:func:`ladderboard.mechanisms.traits.families`).
    build : callable
        ``build(n, rule, labels_public, random_state)`` returns a fresh
        mechanism for a holdout of ``n`` public labels (``labels_public`` is
        used only by the metric-based Bayesian-bootstrap boards, which hold
        the labels).
    unit_losses : bool
        Whether the board needs losses in ``[0, 1]`` (the bounded loss is then
        rescaled, and releases are mapped back).
    bootstrap : bool
        Whether each release is a fresh bootstrap draw (the averaging attack
        applies).
    """

    label: str
    family: str
    build: Callable[[int, ScoringRule, Any, RandomState], Mechanism]
    unit_losses: bool = False
    bootstrap: bool = False

    def board_loss(self, rule: ScoringRule) -> Loss | None:
        """The per-sample loss this board is fed."""
        return rule.unit_loss if self.unit_losses else rule.loss

    def to_loss(self, rule: ScoringRule, released: Any) -> Any:
        """A released number in the units of ``rule``'s loss (lower is better)."""
        import numpy as np

        value = np.asarray(released, dtype=np.float64)
        if self.family == "bayes-boot" and rule.name == "zero_one":
            value = 1.0 - value
        elif self.unit_losses and rule.bounds != (0.0, 1.0):
            lo, hi = rule.bounds
            value = lo + value * (hi - lo)
        return value if value.ndim else float(value)


def _loss_board(factory: Callable[[int, RandomState], Mechanism]) -> Callable[..., Mechanism]:
    def build(
        n: int, rule: ScoringRule, labels_public: Any, random_state: RandomState
    ) -> Mechanism:
        return factory(n, random_state)

    return build


def _bayes(with_boot: bool, b: int = 100) -> Callable[..., Mechanism]:
    from ladderboard.mechanisms import BayesBootLadder, BayesBootLadderBoot

    def build(n: int, rule: ScoringRule, labels_public: Any, random_state: RandomState):
        if with_boot:
            return BayesBootLadderBoot(
                metric=rule.metric, y_true=labels_public, B=BAYES_B, b=b, random_state=random_state
            )
        return BayesBootLadder(
            metric=rule.metric, y_true=labels_public, B=BAYES_B, random_state=random_state
        )

    return build


def _shaky(noise: float, step: float) -> Callable[..., Mechanism]:
    from ladderboard.mechanisms import ShakyLadder

    def factory(n: int, random_state: RandomState) -> Mechanism:
        root = math.sqrt(n)
        return ShakyLadder(
            noise_scale=noise / root, step=step / root, n=n, random_state=random_state
        )

    return _loss_board(factory)


def _ladder(multiple: float) -> Callable[..., Mechanism]:
    from ladderboard.mechanisms import Ladder

    return _loss_board(lambda n, rs: Ladder(eta=multiple / math.sqrt(n), n=n))


def _significance(alpha: float) -> Callable[..., Mechanism]:
    from ladderboard.mechanisms import SignificanceLadder

    return _loss_board(lambda n, rs: SignificanceLadder(alpha=alpha, n=n))


def _ladder_boot(b: int) -> Callable[..., Mechanism]:
    from ladderboard.mechanisms import LadderBoot

    return _loss_board(lambda n, rs: LadderBoot(b=b, n=n, random_state=rs))


def default_grid(
    rule: ScoringRule, *, families: Any = None, wide_k: int | None = None
) -> list[Setting]:
    """The settings the advisor compares under ``rule``.

    Full disclosure at ``1e-5`` and ``1/√n``; the Ladder with ``η`` of 1, 2
    and 4 × ``1/√n``; the parameter-free Ladder; the significance Ladder at
    α = 0.01, 0.15, 0.5; the Shaky Ladder at the ``(noise, step)`` multiples
    of ``1/√n`` in :data:`SHAKY_MULTIPLES` (bounded losses only, rescaled into
    ``[0, 1]``); LadderBoot with b = 10, 100, 1000; the Bayesian-bootstrap
    ladder and its bootstrap-release variant (B = :data:`BAYES_B`,
    ``PO_thr = 5.67``). ``families`` keeps only some of the mechanism
    families (:func:`ladderboard.mechanisms.traits.families`).
    ``wide_k`` replaces the Shaky settings by the wide grid for a budget of
    ``wide_k`` (:func:`wide_shaky_multiples`: noise 0.25-3 × ``1/√n``, step
    up to the analysis's ratio to the noise).

    >>> [s.label for s in default_grid(scoring_rule("squared"), families=["shaky-ladder"])]
    []
    >>> len(default_grid(scoring_rule("zero_one"))), shaky_default_label() in {
    ...     s.label for s in default_grid(scoring_rule("zero_one"))}
    (23, True)
    """
    from ladderboard.mechanisms import FullDisclosure, ParameterFreeLadder
    from ladderboard.mechanisms.traits import families as known_families

    if families is not None:
        families = tuple(families)
        known = known_families()
        unknown = sorted(set(families) - set(known))
        if unknown:
            raise ValueError(f"families must be among {known}, got {unknown}")
    grid = [
        Setting(KAGGLE_LABEL, "full-disclosure", _loss_board(lambda n, rs: FullDisclosure(n=n))),
        Setting(
            "Kaggle 1/√n",
            "full-disclosure",
            _loss_board(lambda n, rs: FullDisclosure(precision=1 / math.sqrt(n), n=n)),
        ),
        *(Setting(f"Ladder η={m:g}/√n", "ladder", _ladder(m)) for m in (1.0, 2.0, 4.0)),
        Setting(
            "PF Ladder",
            "parameter-free-ladder",
            _loss_board(lambda n, rs: ParameterFreeLadder(n=n)),
        ),
        *(
            Setting(
                f"Sig-Ladder α={a:g}",
                "significance-ladder",
                _significance(a),
            )
            for a in (0.01, 0.15, 0.5)
        ),
    ]
    if rule.bounded:
        grid += [
            Setting(f"Shaky σ={s:g} λ={t:g}", "shaky-ladder", _shaky(s, t), unit_losses=True)
            for s, t in (SHAKY_MULTIPLES if wide_k is None else wide_shaky_multiples(wide_k))
        ]
    grid += [
        Setting(
            f"LadderBoot b={b}",
            "ladder-boot",
            _ladder_boot(b),
            bootstrap=True,
        )
        for b in (10, 100, 1000)
    ]
    grid += [
        Setting("BayesBoot", "bayes-boot", _bayes(False)),
        Setting("BayesBootBoot b=100", "bayes-boot", _bayes(True), bootstrap=True),
    ]
    if families is not None:
        grid = [s for s in grid if s.family in families]
    return grid


def shaky_default_label() -> str:
    """The label of the Shaky Ladder's practical default: ``ShakyLadder()``'s
    noise and step, in units of ``1/√n``.

    >>> shaky_default_label()
    'Shaky σ=0.25 λ=0.25'
    """
    from ladderboard.mechanisms.shaky import DEFAULT_NOISE_MULTIPLE, DEFAULT_STEP_MULTIPLE

    return f"Shaky σ={DEFAULT_NOISE_MULTIPLE:g} λ={DEFAULT_STEP_MULTIPLE:g}"


def shaky_setting(noise: float, step: float) -> Setting:
    """A Shaky Ladder setting with noise ``noise/√n`` and step ``step/√n``.

    >>> shaky_setting(10, 10).label
    'Shaky σ=10 λ=10'
    """
    return Setting(f"Shaky σ={noise:g} λ={step:g}", "shaky-ladder", _shaky(noise, step), True)
