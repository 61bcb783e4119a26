"""Every leaderboard mechanism of the papers, behind one ``submit`` interface.

=========================  ====================================================
``FullDisclosure``         the Kaggle mechanism (Blum & Hardt 2015, App. A)
``MetricFullDisclosure``   the same for a metric (AUC, Pearson, CCC, ...)
``Ladder``                 fixed step ``eta`` (Blum & Hardt 2015, Fig. 1)
``ParameterFreeLadder``    paired-test step (Blum & Hardt 2015, Fig. 2)
``SignificanceLadder``     step at level ``alpha`` (Chaibub Neto et al. 2016, Alg. 3)
``ShakyLadder``            noisy comparisons and releases (Hardt 2017, Fig. 1)
``LadderBoot``             bootstrap releases (Chaibub Neto et al. 2016, Alg. 4)
``BayesBootLadder``        Bayesian-bootstrap test, any metric (Alg. 5)
``BayesBootLadderBoot``    the same with bootstrap releases (Alg. 6)
``Thresholdout``           the reusable holdout (Dwork et al. 2015, Science)
``GaussianThresholdout``   the same as the Science experiment's code ran it
=========================  ====================================================

Loss-based mechanisms take per-sample loss vectors; the metric-based ones
(``MetricFullDisclosure`` and the two Bayesian-bootstrap ladders) hold the
labels and take predictions. Every registered mechanism is in
:data:`MECHANISMS` and can be built by name with :func:`make_mechanism`;
:func:`parameters_of` lists what an organiser may set on it. The two
Thresholdouts also take the submitter's training-set estimate with each
submission, which a leaderboard submission does not carry: they serve a
guarded validation set (:mod:`ladderboard.holdout`), and competitions run the
others, :data:`COMPETITION_MECHANISMS`.

Each mechanism declares a card beside its class (:mod:`~.card`: its words to
participants, its how-page section, its family), the shared checks every
mechanism must pass are public (:func:`~.checks.check_mechanism`), and
:mod:`~.traits` selects mechanisms by what they declare. The recipe for a new
mechanism is in :mod:`~.card`.
"""

from ladderboard.mechanisms.base import (
    COMPETITION_MECHANISMS,
    MECHANISMS,
    Mechanism,
    MetricMechanism,
    Release,
    make_mechanism,
    round_to,
)
from ladderboard.mechanisms.boot import BayesBootLadder, BayesBootLadderBoot, LadderBoot
from ladderboard.mechanisms.ladder import (
    FullDisclosure,
    Ladder,
    MetricFullDisclosure,
    ParameterFreeLadder,
    SignificanceLadder,
)
from ladderboard.mechanisms.parameters import (
    REQUIRED,
    ParameterInfo,
    coerce_params,
    parameters_of,
)
from ladderboard.mechanisms.shaky import ShakyLadder
from ladderboard.mechanisms.thresholdout import (
    BudgetExhaustedError,
    GaussianThresholdout,
    Thresholdout,
)

__all__ = [
    "COMPETITION_MECHANISMS",
    "MECHANISMS",
    "REQUIRED",
    "BayesBootLadder",
    "BayesBootLadderBoot",
    "BudgetExhaustedError",
    "FullDisclosure",
    "GaussianThresholdout",
    "Ladder",
    "LadderBoot",
    "Mechanism",
    "MetricFullDisclosure",
    "MetricMechanism",
    "ParameterFreeLadder",
    "ParameterInfo",
    "Release",
    "ShakyLadder",
    "SignificanceLadder",
    "Thresholdout",
    "coerce_params",
    "make_mechanism",
    "parameters_of",
    "round_to",
]
