"""The scikit-learn searches choose on released scores only, in a fixed order:
real small searches on scikit-learn's bundled breast-cancer data."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from joblib import parallel_backend
from scipy.stats import loguniform
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from ladderboard.integrations.sklearn import GuardedGridSearch, GuardedRandomizedSearch
from ladderboard.mechanisms import ParameterFreeLadder, Thresholdout

X, Y = load_breast_cancer(return_X_y=True)
MODEL = make_pipeline(StandardScaler(), LogisticRegression())
GRID = {"logisticregression__C": list(np.logspace(-3, 2, 8))}
SPACE = {"logisticregression__C": loguniform(1e-3, 1e2)}


def test_grid_search_best_is_the_guards_released_best():
    search = GuardedGridSearch(MODEL, GRID, random_state=0).fit(X, Y)
    guard = search.holdout_
    released = [answer.score for answer in guard.history]
    assert len(released) == len(GRID["logisticregression__C"]) == search.n_candidates_
    assert search.cv_results_["mean_validation_score"].tolist() == released
    assert search.best_score_ == guard.best.score == min(released)
    assert search.best_index_ == guard.best.index - 1
    assert search.best_params_ == search.cv_results_["params"][search.best_index_]
    # best_estimator_ is the very model whose predictions were released.
    assert (
        search.best_estimator_.get_params()["logisticregression__C"]
        == (search.best_params_["logisticregression__C"])
    )
    assert search.predict(X[:5]).shape == (5,)
    assert search.predict_proba(X[:5]).shape == (5, 2)
    assert list(search.classes_) == [0, 1]


def test_grid_search_cv_results_have_the_expected_keys_and_shapes():
    search = GuardedGridSearch(MODEL, GRID, random_state=0).fit(X, Y)
    results = search.cv_results_
    n = len(GRID["logisticregression__C"])
    assert set(results) == {
        "mean_fit_time",
        "std_fit_time",
        "mean_score_time",
        "std_score_time",
        "param_logisticregression__C",
        "params",
        "mean_validation_score",
        "rank_validation_score",
    }
    assert all(len(column) == n for column in results.values())
    assert isinstance(results["param_logisticregression__C"], np.ma.MaskedArray)
    assert sorted(results["rank_validation_score"]) == list(range(1, n + 1))
    assert (results["mean_fit_time"] > 0).all()
    assert (results["std_fit_time"] == 0).all()
    # Ranks follow the released scores, ties broken by candidate order.
    order = np.lexsort((np.arange(n), results["mean_validation_score"]))
    assert results["rank_validation_score"][order].tolist() == list(range(1, n + 1))


def test_randomized_search_is_deterministic_for_a_seed():
    def run(seed):
        search = GuardedRandomizedSearch(
            MODEL, SPACE, n_iter=6, mechanism="shaky-ladder", random_state=seed
        )
        return search.fit(X, Y).cv_results_

    first, again, other = run(3), run(3), run(4)
    assert first["params"] == again["params"]
    np.testing.assert_array_equal(first["mean_validation_score"], again["mean_validation_score"])
    assert first["params"] != other["params"]


def test_the_releases_do_not_depend_on_n_jobs():
    def run(n_jobs):
        search = GuardedRandomizedSearch(MODEL, SPACE, n_iter=6, n_jobs=n_jobs, random_state=1)
        return search.fit(X, Y)

    with parallel_backend("threading"):  # two workers without process start-up
        parallel = run(2)
    serial = run(1)
    assert parallel.cv_results_["params"] == serial.cv_results_["params"]
    assert [a.digest for a in parallel.holdout_.history] == [
        a.digest for a in serial.holdout_.history
    ]
    np.testing.assert_array_equal(
        parallel.cv_results_["mean_validation_score"], serial.cv_results_["mean_validation_score"]
    )


def test_thresholdout_search_gets_each_candidates_training_estimate():
    search = GuardedGridSearch(
        MODEL,
        GRID,
        score="zero_one",
        mechanism="thresholdout",
        mechanism_params={"budget": 20},
        random_state=0,
    ).fit(X, Y)
    guard = search.holdout_
    assert isinstance(guard.mechanism, Thresholdout)
    train = search.cv_results_["mean_train_score"]
    assert train.tolist() == [answer.train_score for answer in guard.history]
    # The training estimate is each candidate's own zero-one loss on the training part.
    assert all(0 <= value <= 0.5 for value in train) and len(set(train)) > 1
    assert search.best_score_ == guard.best.score
    assert search.best_index_ == guard.best.index - 1


def test_thresholdout_search_stops_when_its_budget_is_spent():
    # Training estimates far from the holdout (a training loss of 0 for 1-NN)
    # spend a budget of 2 within a few candidates.
    search = GuardedGridSearch(
        KNeighborsClassifier(),
        {"n_neighbors": [1, 1, 1, 1, 1, 1]},
        mechanism=Thresholdout(budget=2, threshold=0.0, noise_scale=1e-6, random_state=0),
        random_state=0,
    )
    with pytest.warns(UserWarning, match="budget is spent after 2 of 6"):
        search.fit(X, Y)
    scores = search.cv_results_["mean_validation_score"]
    assert np.isfinite(scores[:2]).all() and np.isnan(scores[2:]).all()
    assert search.cv_results_["rank_validation_score"][2:].tolist() == [3, 4, 5, 6]
    assert search.best_score_ == search.holdout_.best.score


def test_a_metric_better_greater_is_maximised():
    search = GuardedGridSearch(
        MODEL, GRID, score="auc", mechanism="bayes-boot-ladder", random_state=0
    ).fit(X, Y)
    released = search.cv_results_["mean_validation_score"]
    assert search.holdout_.direction.greater_is_better
    assert search.best_score_ == released.max() == search.holdout_.best.score


def test_validation_data_and_refit_with_validation():
    X_train, y_train, X_val, y_val = X[:400], Y[:400], X[400:], Y[400:]
    grid = {"n_neighbors": [3, 9, 15]}
    kept = GuardedGridSearch(
        KNeighborsClassifier(), grid, validation_data=(X_val, y_val), random_state=0
    ).fit(X_train, y_train)
    assert kept.holdout_.n == len(y_val)
    assert kept.best_estimator_.n_samples_fit_ == 400
    refit = GuardedGridSearch(
        KNeighborsClassifier(),
        grid,
        validation_data=(X_val, y_val),
        refit_with_validation=True,
        random_state=0,
    ).fit(X_train, y_train)
    assert refit.best_params_ == kept.best_params_
    assert refit.best_estimator_.n_samples_fit_ == len(Y)
    split = GuardedGridSearch(
        KNeighborsClassifier(), grid, refit_with_validation=True, random_state=0
    ).fit(X, Y)
    assert split.holdout_.n == 143  # a quarter of 569, rounded up
    assert split.best_estimator_.n_samples_fit_ == len(Y)


def test_search_follows_scikit_learn_estimator_conventions():
    search = GuardedGridSearch(MODEL, GRID, random_state=0)
    assert clone(search).get_params()["param_grid"] == GRID
    assert not hasattr(search, "best_score_")
    # A mechanism instance is copied per fit: the search can fit twice.
    twice = GuardedGridSearch(MODEL, GRID, mechanism=ParameterFreeLadder(), random_state=0)
    assert twice.fit(X, Y).best_score_ == twice.fit(X, Y).best_score_
    assert twice.mechanism.n_submissions == 0
    without = twice.set_params(refit=False).fit(X, Y)  # forgets the earlier fit's model
    assert not hasattr(without, "best_estimator_")
    assert not hasattr(without, "predict")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"validation_fraction": 1.5}, ValueError, r"validation_fraction must be in \(0, 1\)"),
        ({"validation_fraction": "a"}, TypeError, "validation_fraction must be a float"),
        ({"validation_data": [X, Y]}, TypeError, r"validation_data must be a tuple"),
        ({"refit": "train"}, TypeError, "refit must be a bool"),
        ({"score": "auc"}, ValueError, "score 'auc' is not a loss"),
    ],
)
def test_search_refuses_bad_parameters(kwargs, error, match):
    with pytest.raises(error, match=match), warnings.catch_warnings():
        GuardedGridSearch(MODEL, GRID, **kwargs).fit(X, Y)


def test_randomized_search_refuses_a_bad_n_iter():
    with pytest.raises(ValueError, match="n_iter must be at least 1, got 0"):
        GuardedRandomizedSearch(MODEL, SPACE, n_iter=0).fit(X, Y)
