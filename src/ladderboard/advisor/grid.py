"""The mechanisms and settings an organiser can choose from, and the scoring
rules (metrics) the advisor knows how to attack and simulate.

A :class:`Setting` is one mechanism with its parameters, labelled briefly
(``"Shaky σ=1 λ=2"``: noise ``1/√n``, step ``2/√n``). :func:`default_grid`
lists the settings the advisor compares at a holdout size ``n``;
:class:`ScoringRule` says how submissions are scored under a metric (the
per-sample loss a loss-based board sees, the metric a Bayesian-bootstrap board
computes) and how a released number is turned back into a loss, so that every
board's numbers are compared in the same units.
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
    "FAMILIES",
    "METRIC_NAMES",
    "ScoringRule",
    "Setting",
    "default_grid",
    "scoring_rule",
    "shaky_default_label",
    "shaky_setting",
]

FAMILIES = (
    "full-disclosure",
    "ladder",
    "parameter-free-ladder",
    "significance-ladder",
    "shaky-ladder",
    "ladder-boot",
    "bayes-boot",
)
"""The mechanism families of the grid, in the order they are listed."""


KAGGLE_LABEL = "Kaggle 1e-5"
"""Full disclosure with five decimals: the reference for honest-team utility."""

SHAKY_MULTIPLES = (
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

BAYES_B = 100
"""Bayesian-bootstrap replicates per test in the grid (the paper's default is 1000;
100 keeps the advisor's runs short; the test it feeds decides clear cases alike)."""


@dataclass(frozen=True, slots=True)
class ScoringRule:
    """How submissions are scored under one metric.

    Attributes
    ----------
    name : str
        ``"accuracy"`` (the 0/1 loss), ``"log_loss"`` or ``"mse"``.
    loss : Loss or None
        The per-sample loss a loss-based board sees (``None``: 0/1 loss on
        0/1 labels, as :class:`~ladderboard.attacks.HoldoutOracle` reads it).
    metric : str
        The metric of the Bayesian-bootstrap boards.
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

    if name == "accuracy":
        return ScoringRule("accuracy", None, "accuracy", (0.0, 1.0))
    if name == "log_loss":
        loss = get_loss("log_loss", clip=LADDER_CLIP)
        return ScoringRule("log_loss", loss, "log_loss", loss.bounds)
    return ScoringRule("mse", get_loss("squared"), "mse", (0.0, math.inf))


_ALIASES = {"error": "accuracy", "zero_one": "accuracy", "0/1": "accuracy", "logloss": "log_loss"}
METRIC_NAMES = ("accuracy", "log_loss", "mse")
"""The metrics the advisor accepts, named as in :mod:`ladderboard.losses` (and
a few aliases: ``log-loss``, ``logloss``, ``error``, ``zero_one``, ``0/1``)."""


def scoring_rule(metric: str) -> ScoringRule:
    """The :class:`ScoringRule` of ``metric`` (``accuracy``, ``log_loss``, ``mse``).

    >>> scoring_rule("log_loss").bounds == scoring_rule("log-loss").bounds
    True
    >>> scoring_rule("log_loss").bounds
    (0.0, 4.60517)
    >>> scoring_rule("f1")
    Traceback (most recent call last):
    ValueError: metric must be one of accuracy, log_loss, mse, got 'f1'
    """
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a string, got {type(metric).__name__}")
    key = metric.strip().lower().replace("-", "_")
    key = _ALIASES.get(key, key)
    if key not in METRIC_NAMES:
        raise ValueError(f"metric must be one of {', '.join(METRIC_NAMES)}, got {metric!r}")
    return _rule(key)


@dataclass(frozen=True, slots=True)
class Setting:
    """One mechanism with its parameters.

    Attributes
    ----------
    label : str
        Short and unique within a grid (``"Ladder η=1/√n"``).
    family : str
        One of :data:`FAMILIES`.
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
        if self.family == "bayes-boot" and rule.name == "accuracy":
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


def default_grid(rule: ScoringRule, *, families: Any = None) -> list[Setting]:
    """The settings the advisor compares under ``rule``.

    Full disclosure at ``1e-5`` and ``1/√n``; the Ladder with ``η`` of 1, 2
    and 4 × ``1/√n``; the parameter-free Ladder; the significance Ladder at
    α = 0.01, 0.15, 0.5; the Shaky Ladder at the ``(noise, step)`` multiples
    of ``1/√n`` in :data:`SHAKY_MULTIPLES` (bounded losses only, rescaled into
    ``[0, 1]``); LadderBoot with b = 10, 100, 1000; the Bayesian-bootstrap
    ladder and its bootstrap-release variant (B = :data:`BAYES_B`,
    ``PO_thr = 5.67``). ``families`` keeps only some of :data:`FAMILIES`.

    >>> [s.label for s in default_grid(scoring_rule("mse"), families=["shaky-ladder"])]
    []
    >>> len(default_grid(scoring_rule("accuracy"))), shaky_default_label() in {
    ...     s.label for s in default_grid(scoring_rule("accuracy"))}
    (22, True)
    """
    from ladderboard.mechanisms import FullDisclosure, ParameterFreeLadder

    if families is not None:
        families = tuple(families)
        unknown = sorted(set(families) - set(FAMILIES))
        if unknown:
            raise ValueError(f"families must be among {FAMILIES}, got {unknown}")
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
            for s, t in SHAKY_MULTIPLES
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
    'Shaky σ=0.5 λ=1'
    """
    from ladderboard.mechanisms.shaky import DEFAULT_NOISE_MULTIPLE, DEFAULT_STEP_MULTIPLE

    return f"Shaky σ={DEFAULT_NOISE_MULTIPLE:g} λ={DEFAULT_STEP_MULTIPLE:g}"


def shaky_setting(noise: float, step: float) -> Setting:
    """A Shaky Ladder setting with noise ``noise/√n`` and step ``step/√n``.

    >>> shaky_setting(10, 10).label
    'Shaky σ=10 λ=10'
    """
    return Setting(f"Shaky σ={noise:g} λ={step:g}", "shaky-ladder", _shaky(noise, step), True)
