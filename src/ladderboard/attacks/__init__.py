"""Adversaries that see only released scores.

An attacker never holds the labels: it talks to a :class:`HoldoutOracle`,
which scores a prediction on the hidden public labels, hands the loss vector
(or, for a metric-based board, the prediction) to a mechanism, and returns the
released score and nothing else.

===============================  ==================================================
``boosting_attack``              A1: random guesses combined by majority (Blum &
                                 Hardt 2015, Sec. 5)
``generalized_boosting_attack``  A2: climbing above two candidates (Hardt's 2015
                                 blog post)
===============================  ==================================================

Every attack returns a frozen result with the final submission, its released
score, its true score on fresh data when the caller provides them, and the
number of submissions made.
"""

from ladderboard.attacks.boosting import (
    BoostingResult,
    GeneralizedBoostingResult,
    boosting_attack,
    generalized_boosting_attack,
)
from ladderboard.attacks.oracle import HoldoutOracle

__all__ = [
    "BoostingResult",
    "GeneralizedBoostingResult",
    "HoldoutOracle",
    "boosting_attack",
    "generalized_boosting_attack",
]
