"""Adversaries that see only released scores.

An attacker never holds the labels: it talks to a :class:`HoldoutOracle`,
which scores a prediction on the hidden public labels, hands the loss vector
(or, for a metric-based board, the prediction) to a mechanism, and returns the
released score and nothing else. Besides that, each attack uses only the public
information its paper grants (an easy set of known labels in the shifted majority
attack).

===============================  ==================================================
``boosting_attack``              A1: random guesses combined by majority (Blum &
                                 Hardt 2015, Sec. 5)
``generalized_boosting_attack``  A2: climbing above two candidates (Hardt's 2015
                                 blog post)
``majority_attack``              A3: the majority attack against noisy full
                                 disclosure, App. B's listing (Hardt 2017)
``oracle_majority_attack``       A3 played through a board
``shifted_majority_attack``      A4: queries offset by an easy set so that a
                                 ladder keeps answering (Hardt 2017, Fig. 2)
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
from ladderboard.attacks.majority import (
    MajorityResult,
    OracleMajorityResult,
    majority_attack,
    majority_vote,
    oracle_majority_attack,
)
from ladderboard.attacks.oracle import HoldoutOracle
from ladderboard.attacks.shifted import ShiftedMajorityResult, shifted_majority_attack

__all__ = [
    "BoostingResult",
    "GeneralizedBoostingResult",
    "HoldoutOracle",
    "MajorityResult",
    "OracleMajorityResult",
    "ShiftedMajorityResult",
    "boosting_attack",
    "generalized_boosting_attack",
    "majority_attack",
    "majority_vote",
    "oracle_majority_attack",
    "shifted_majority_attack",
]
