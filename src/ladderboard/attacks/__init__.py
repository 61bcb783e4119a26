"""Adversaries that see only released scores.

An attacker never holds the labels: it talks to a :class:`HoldoutOracle`,
which scores a prediction on the hidden public labels, hands the loss vector
to a mechanism, and returns the released score and nothing else.

=====================  ====================================================
``boosting_attack``    random guesses combined by majority (Blum & Hardt
                       2015, Sec. 5; SPEC A1)
=====================  ====================================================
"""

from ladderboard.attacks.boosting import BoostingResult, HoldoutOracle, boosting_attack

__all__ = ["BoostingResult", "HoldoutOracle", "boosting_attack"]
