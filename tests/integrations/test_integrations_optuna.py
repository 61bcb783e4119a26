"""An Optuna study over a guarded objective is valued and decided by released
scores: real small TPE studies on scikit-learn's breast-cancer data."""

from __future__ import annotations

import numpy as np
import optuna
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from ladderboard.holdout import GuardedHoldout
from ladderboard.integrations.optuna import guarded_objective, study_direction
from ladderboard.losses import get_loss
from ladderboard.mechanisms import Thresholdout

optuna.logging.set_verbosity(optuna.logging.WARNING)
X, Y = load_breast_cancer(return_X_y=True)
X_TRAIN, X_VAL, Y_TRAIN, Y_VAL = train_test_split(X, Y, test_size=0.3, random_state=0, stratify=Y)


def fitted(trial):
    C = trial.suggest_float("C", 1e-4, 1e2, log=True)
    return make_pipeline(StandardScaler(), LogisticRegression(C=C)).fit(X_TRAIN, Y_TRAIN)


def probabilities(trial):
    return fitted(trial).predict_proba(X_VAL)[:, 1]


def study_of(guard, seed=0):
    return optuna.create_study(
        direction=study_direction(guard), sampler=optuna.samplers.TPESampler(seed=seed)
    )


def test_study_best_value_is_the_guards_released_best():
    guard = GuardedHoldout(Y_VAL, score="brier")
    study = study_of(guard)
    study.optimize(guarded_objective(guard, probabilities), n_trials=20)
    released = [answer.score for answer in guard.history]
    assert [trial.value for trial in study.trials] == released
    assert [trial.user_attrs["holdout_index"] for trial in study.trials] == list(range(1, 21))
    assert study.direction == optuna.study.StudyDirection.MINIMIZE
    assert study.best_value == guard.best.score == min(released)
    assert study.best_trial.number == guard.best.index - 1


def test_study_is_deterministic_for_a_seed():
    def values(seed):
        guard = GuardedHoldout(Y_VAL, score="zero_one", mechanism="shaky-ladder", random_state=1)
        study = study_of(guard, seed)
        study.optimize(
            guarded_objective(guard, lambda trial: fitted(trial).predict(X_VAL)), n_trials=8
        )
        return [(trial.params["C"], trial.value) for trial in study.trials]

    assert values(0) == values(0)


def test_a_metric_better_greater_is_maximised():
    guard = GuardedHoldout(Y_VAL, score="auc", mechanism="bayes-boot-ladder", random_state=0)
    assert study_direction(guard) == "maximize"
    study = study_of(guard)
    study.optimize(guarded_objective(guard, probabilities), n_trials=6)
    assert study.best_value == guard.best.score == max(a.score for a in guard.history)


def test_thresholdout_objective_takes_the_training_estimate_and_stops_when_spent():
    brier = get_loss("brier")

    def fit_predict(trial):
        model = fitted(trial)
        train = float(np.mean(brier(Y_TRAIN, model.predict_proba(X_TRAIN)[:, 1])))
        return model.predict_proba(X_VAL)[:, 1], train + 0.2

    # A threshold of 0.05 with little noise: 0.2 off is answered from the holdout.
    reusable = Thresholdout(budget=3, threshold=0.05, noise_scale=1e-3, random_state=0)
    guard = GuardedHoldout(Y_VAL, score="brier", mechanism=reusable)
    study = study_of(guard)
    with pytest.warns(UserWarning, match="pruned and the study stopped"):
        study.optimize(guarded_objective(guard, fit_predict), n_trials=10)
    states = [trial.state for trial in study.trials]
    assert states == [optuna.trial.TrialState.COMPLETE] * 3 + [optuna.trial.TrialState.PRUNED]
    assert [a.train_score is not None for a in guard.history] == [True] * 3
    assert study.best_value == guard.best.score


def test_objective_refuses_a_study_in_the_wrong_direction_or_a_bad_return():
    guard = GuardedHoldout(Y_VAL, score="zero_one")
    study = optuna.create_study(direction="maximize")
    with pytest.raises(ValueError, match="must have direction='minimize'"):
        study.optimize(guarded_objective(guard, probabilities), n_trials=1)
    assert guard.history == ()
    reusable = GuardedHoldout(Y_VAL, mechanism=Thresholdout(budget=3, random_state=0))
    with pytest.raises(TypeError, match=r"must return \(predictions, train_score\)"):
        study_of(reusable).optimize(guarded_objective(reusable, probabilities), n_trials=1)
    with pytest.raises(TypeError, match="holdout must be a GuardedHoldout, got ndarray"):
        guarded_objective(Y_VAL, probabilities)
