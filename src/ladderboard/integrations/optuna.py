"""Optuna studies whose trials are valued by a guarded validation set.

An Optuna study proposes hyper-parameters from the values of earlier trials and
reports the trial with the best value: on a plain validation set, both the
proposals and the final choice adapt to that set, and the best value is
optimistic (Blum & Hardt 2015; Dwork et al. 2015, Science).
:func:`guarded_objective` turns a function that fits a model and predicts the
validation set into an objective whose value is what a
:class:`~ladderboard.holdout.GuardedHoldout` releases, so that the sampler and
``study.best_trial`` see released scores only.

Under the default fixed-step Ladder (Blum & Hardt 2015, Fig. 1; step
``1/√n``), a trial that does not beat the board by a step is valued at the
board's score: the sampler learns which regions improve on the best so far
by that much, nothing finer. Thresholdout values each trial on its own (its
training estimate, or the noisy holdout's when they disagree), at the cost of
a budget of holdout answers.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import Any

import optuna

from ladderboard.holdout import GuardedHoldout
from ladderboard.mechanisms import BudgetExhaustedError

__all__ = ["guarded_objective", "study_direction"]


def study_direction(holdout: GuardedHoldout) -> str:
    """The Optuna direction that suits ``holdout``'s score: ``"minimize"``
    for a loss, ``"maximize"`` for a metric that is better greater.

    >>> import numpy as np
    >>> study_direction(GuardedHoldout(np.array([0, 1, 1, 0]), score="zero_one"))
    'minimize'
    """
    if not isinstance(holdout, GuardedHoldout):
        raise TypeError(f"holdout must be a GuardedHoldout, got {type(holdout).__name__}")
    return "maximize" if holdout.direction.greater_is_better else "minimize"


def guarded_objective(
    holdout: GuardedHoldout, fit_predict: Callable[[optuna.Trial], Any]
) -> Callable[[optuna.Trial], float]:
    """An Optuna objective: ``fit_predict(trial)``'s predictions, scored by ``holdout``.

    ``fit_predict`` suggests parameters with ``trial``, fits a model on the
    training data and returns its predictions on the validation set whose
    labels ``holdout`` holds (probabilities for a score that needs them). For
    a mechanism that takes a training estimate (Thresholdout) it returns
    ``(predictions, train_score)``, the same loss measured on the training
    data. The trial's value is the released score; the trial's user
    attribute ``"holdout_index"`` is the guard's query number.

    The study must have one objective in :func:`study_direction`'s direction
    (a ``ValueError`` says so otherwise). Under ``study.optimize(n_jobs=1)``
    trials reach the guard in trial order and a seeded sampler gives the same
    releases each run; with more jobs the guard answers one trial at a time,
    in the order they finish. Once Thresholdout's budget is spent, the trial
    is pruned and the study is stopped, with a warning.

    >>> import numpy as np
    >>> optuna.logging.set_verbosity(optuna.logging.WARNING)
    >>> rng = np.random.default_rng(0)
    >>> y_val = rng.integers(0, 2, 500)
    >>> guard = GuardedHoldout(y_val)     # the fixed-step Ladder (Blum & Hardt 2015, Fig. 1)
    >>> def fit_predict(trial):           # a model wrong on a chosen share of the labels
    ...     rate = trial.suggest_float("error_rate", 0.1, 0.5)
    ...     return np.where(rng.random(500) < rate, 1 - y_val, y_val)
    >>> study = optuna.create_study(
    ...     direction=study_direction(guard), sampler=optuna.samplers.TPESampler(seed=0)
    ... )
    >>> study.optimize(guarded_objective(guard, fit_predict), n_trials=10)
    >>> study.best_value == guard.best.score, len(guard.history)
    (True, 10)
    """
    if not isinstance(holdout, GuardedHoldout):
        raise TypeError(f"holdout must be a GuardedHoldout, got {type(holdout).__name__}")
    if not callable(fit_predict):
        raise TypeError(f"fit_predict must be callable, got {type(fit_predict).__name__}")
    direction = study_direction(holdout)
    takes_train = holdout.mechanism.takes_training_estimate
    lock = threading.Lock()

    def objective(trial: optuna.Trial) -> float:
        directions = [d.name.lower() for d in trial.study.directions]
        if directions != [direction]:
            raise ValueError(
                f"the guard's score is better {'greater' if direction == 'maximize' else 'lower'}: "
                f"the study must have direction={direction!r}, it has {directions}"
            )
        out = fit_predict(trial)
        train_score = None
        if takes_train:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise TypeError(
                    f"{type(holdout.mechanism).__name__} takes a training estimate: "
                    "fit_predict must return (predictions, train_score)"
                )
            out, train_score = out
        with lock:
            try:
                value = holdout.score(out, train_score=train_score, label=f"trial {trial.number}")
            except BudgetExhaustedError as exc:
                warnings.warn(
                    f"{exc}; trial {trial.number} is pruned and the study stopped",
                    UserWarning,
                    stacklevel=2,
                )
                trial.study.stop()
                raise optuna.TrialPruned(str(exc)) from exc
            trial.set_user_attr("holdout_index", holdout.history[-1].index)
        return value

    return objective
