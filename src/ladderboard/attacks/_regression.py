"""The former name of :mod:`ladderboard.attacks.regression`, kept until
:mod:`~ladderboard.attacks.freedman` and :mod:`~ladderboard.attacks.stepforward`
import the public module."""

from __future__ import annotations

from ladderboard.attacks.regression import candidate_predictions, check_design, fit_predict

__all__ = ["candidate_predictions", "check_design", "fit_predict"]
