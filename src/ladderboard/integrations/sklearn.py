"""scikit-learn hyper-parameter searches that choose on a guarded validation set.

A grid or randomized search scores every candidate on one validation split and
keeps the best: the more candidates, the more the best score says about the
split rather than the model (Blum & Hardt 2015; Dwork et al. 2015, Science).
:class:`GuardedGridSearch` and :class:`GuardedRandomizedSearch` fit each
candidate on the training part and score it through a
:class:`~ladderboard.holdout.GuardedHoldout` that holds the validation labels:
the search sees, ranks and chooses on released scores only.

They are estimators in scikit-learn's sense (parameters stored by ``__init__``,
work done by ``fit``, learned attributes ending in ``_``), not subclasses of
``BaseSearchCV``: that class scores each candidate inside its parallel
workers, with the validation labels, and in no fixed order, while a mechanism's
answers depend on the order of its queries and the labels must stay in the
guard.

Parallelism: ``n_jobs`` fits candidates in parallel (joblib, through
scikit-learn's ``Parallel``); the workers see the training data and the
validation features, never the validation labels, and the fitted candidates
are scored by the guard one at a time in the candidate order, so that the
releases are the same for any ``n_jobs``.
"""

from __future__ import annotations

import copy
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.model_selection import ParameterGrid, ParameterSampler, train_test_split
from sklearn.utils.metaestimators import available_if
from sklearn.utils.parallel import Parallel, delayed

from ladderboard.holdout import DEFAULT_MECHANISM, GuardedHoldout
from ladderboard.mechanisms import BudgetExhaustedError, Mechanism
from ladderboard.random import KeyedStream, RandomState

__all__ = ["GuardedGridSearch", "GuardedRandomizedSearch"]


def _fit_one(estimator: Any, params: Mapping[str, Any], X: Any, y: Any) -> tuple[Any, float]:
    """A clone of ``estimator`` with ``params``, fitted, and its fit time."""
    model = clone(estimator).set_params(**params)
    start = time.perf_counter()
    model.fit(X, y)
    return model, time.perf_counter() - start


def _stack(a: Any, b: Any) -> Any:
    """Rows of ``a`` then rows of ``b``: numpy, scipy sparse or pandas."""
    if hasattr(a, "iloc"):
        import pandas as pd

        return pd.concat([a, b])
    if hasattr(a, "tocsr"):
        import scipy.sparse as sp

        return sp.vstack([a, b], format="csr")
    return np.concatenate([np.asarray(a), np.asarray(b)])


def _delegates(name: str) -> Any:
    def check(search: _GuardedSearch) -> bool:
        if hasattr(search, "best_estimator_"):
            return hasattr(search.best_estimator_, name)
        # Before fit, what the chosen model will have; after a fit without refit, nothing.
        return not hasattr(search, "holdout_") and hasattr(search.estimator, name)

    return check


class _GuardedSearch(MetaEstimatorMixin, BaseEstimator):  # type: ignore[misc]
    """What both searches share: the split, the guard, the fits, the results.

    A subclass says which candidates to try (:meth:`_candidates`), in a fixed
    order that depends only on its parameters and ``random_state``.
    """

    def __init__(
        self,
        estimator: Any,
        *,
        score: str = "zero_one",
        mechanism: str | Mechanism = DEFAULT_MECHANISM,
        mechanism_params: Mapping[str, Any] | None = None,
        validation_data: tuple[Any, Any] | None = None,
        validation_fraction: float = 0.25,
        refit: bool = True,
        refit_with_validation: bool = False,
        n_jobs: int | None = None,
        random_state: RandomState = None,
    ):
        self.estimator = estimator
        self.score = score
        self.mechanism = mechanism
        self.mechanism_params = mechanism_params
        self.validation_data = validation_data
        self.validation_fraction = validation_fraction
        self.refit = refit
        self.refit_with_validation = refit_with_validation
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _candidates(self, stream: KeyedStream) -> list[dict[str, Any]]:
        raise NotImplementedError

    # ------------------------------------------------------------------- fit
    def fit(self, X: Any, y: Any) -> _GuardedSearch:
        """Fit every candidate on the training part, score each through the
        guard in candidate order, and keep the one with the best released score.

        ``X`` and ``y`` are the training data when ``validation_data`` is
        given; otherwise ``validation_fraction`` of them (stratified for a
        classifier) is held out as the validation set.
        """
        self._check_params()
        self._reset()
        stream = KeyedStream.from_random_state(self.random_state)
        X_train, y_train, X_val, y_val = self._split(X, y, stream)
        mechanism = self.mechanism
        if isinstance(mechanism, Mechanism):
            # fit may run again (and clone copies parameters): each fit gets
            # its own fresh copy of the mechanism given.
            mechanism = copy.deepcopy(mechanism)
        guard = GuardedHoldout(
            y_val,
            score=self.score,
            mechanism=mechanism,
            mechanism_params=self.mechanism_params,
            # An instance brings its own randomness; a name is seeded from the search's.
            random_state=None if isinstance(mechanism, Mechanism) else stream.derive("guard"),
        )
        candidates = self._candidates(stream.derive("candidates"))
        if not candidates:
            raise ValueError(f"{type(self).__name__} has no candidate to try")
        training_estimate = guard.mechanism.takes_training_estimate

        fits = Parallel(n_jobs=self.n_jobs, return_as="generator")(
            delayed(_fit_one)(self.estimator, params, X_train, y_train) for params in candidates
        )
        n = len(candidates)
        released = np.full(n, np.nan)
        train_scores = np.full(n, np.nan)
        fit_times = np.full(n, np.nan)
        score_times = np.full(n, np.nan)
        best_model, best_index = None, -1
        for i, (model, fit_time) in enumerate(fits):
            start = time.perf_counter()
            extra = {"X_train": X_train, "y_train": y_train} if training_estimate else {}
            try:
                released[i] = guard.score_estimator(model, X_val, label=f"candidate {i}", **extra)
            except BudgetExhaustedError:
                warnings.warn(
                    f"the guard's budget is spent after {i} of {n} candidates: "
                    "the rest are left unscored (their validation score is nan)",
                    UserWarning,
                    stacklevel=2,
                )
                break
            score_times[i] = time.perf_counter() - start
            fit_times[i] = fit_time
            if training_estimate:
                train_scores[i] = guard.history[-1].train_score
            if guard.best is guard.history[-1]:  # the guard now holds this candidate best
                best_model, best_index = model, i

        self.holdout_ = guard
        self.n_candidates_ = n
        best = guard.best
        if best is None or best_index < 0:
            raise RuntimeError("the guard answered no candidate")
        self.cv_results_ = self._results(
            candidates,
            released,
            train_scores if training_estimate else None,
            fit_times,
            score_times,
            best_index,
        )
        self.best_index_ = best_index
        self.best_params_ = candidates[self.best_index_]
        self.best_score_ = best.score
        if self.refit:
            start = time.perf_counter()
            if self.refit_with_validation:
                X_all = X if self.validation_data is None else _stack(X_train, X_val)
                y_all = y if self.validation_data is None else _stack(y_train, y_val)
                self.best_estimator_, _ = _fit_one(self.estimator, self.best_params_, X_all, y_all)
            else:
                self.best_estimator_ = best_model
            self.refit_time_ = time.perf_counter() - start
        return self

    def _reset(self) -> None:
        """Forget what an earlier fit learned (the attributes ending in ``_``)."""
        for name in [n for n in vars(self) if n.endswith("_") and not n.startswith("_")]:
            delattr(self, name)

    def _check_params(self) -> None:
        if not isinstance(self.refit, bool):
            raise TypeError(f"refit must be a bool, got {type(self.refit).__name__}")
        if not isinstance(self.refit_with_validation, bool):
            kind = type(self.refit_with_validation).__name__
            raise TypeError(f"refit_with_validation must be a bool, got {kind}")
        if self.validation_data is None:
            fraction = self.validation_fraction
            if isinstance(fraction, bool) or not isinstance(fraction, int | float):
                raise TypeError(
                    f"validation_fraction must be a float, got {type(fraction).__name__}"
                )
            if not 0 < fraction < 1:
                raise ValueError(f"validation_fraction must be in (0, 1), got {fraction!r}")
        elif not (isinstance(self.validation_data, tuple) and len(self.validation_data) == 2):
            raise TypeError("validation_data must be a tuple (X_val, y_val)")

    def _split(self, X: Any, y: Any, stream: KeyedStream) -> tuple[Any, Any, Any, Any]:
        if self.validation_data is not None:
            X_val, y_val = self.validation_data
            return X, y, X_val, y_val
        seed = int(stream.derive("split").generator(0).integers(2**32))
        X_train, X_val, y_train, y_val = train_test_split(
            X,
            y,
            test_size=self.validation_fraction,
            random_state=seed,
            stratify=y if is_classifier(self.estimator) else None,
        )
        return X_train, y_train, X_val, y_val

    def _results(
        self,
        candidates: Sequence[Mapping[str, Any]],
        released: np.ndarray,
        train_scores: np.ndarray | None,
        fit_times: np.ndarray,
        score_times: np.ndarray,
        best_index: int,
    ) -> dict[str, Any]:
        """``cv_results_``: one entry per candidate, in candidate order.

        Rank 1 is the candidate the guard's
        :attr:`~ladderboard.holdout.GuardedHoldout.best` names (``best_index``);
        the others follow by released score, ties (a Ladder's candidate that
        did not beat the board is released the board's score) by candidate
        order. On a ladder a release is the best's score, not the
        candidate's, so only rank 1 says what the guard decided.
        """
        n = len(candidates)
        order = self.holdout_.direction.order(released)
        order = np.concatenate(([best_index], order[order != best_index]))
        rank = np.empty(n, dtype=np.int32)
        rank[order] = np.arange(1, n + 1)
        results: dict[str, Any] = {
            "mean_fit_time": fit_times,
            "std_fit_time": np.where(np.isnan(fit_times), np.nan, 0.0),
            "mean_score_time": score_times,
            "std_score_time": np.where(np.isnan(score_times), np.nan, 0.0),
        }
        names = sorted({name for params in candidates for name in params})
        for name in names:
            column = np.ma.MaskedArray(np.empty(n, dtype=object), mask=True)
            for i, params in enumerate(candidates):
                if name in params:
                    column[i] = params[name]
            results[f"param_{name}"] = column
        results["params"] = [dict(params) for params in candidates]
        results["mean_validation_score"] = released
        results["rank_validation_score"] = rank
        if train_scores is not None:
            results["mean_train_score"] = train_scores
        return results

    # ----------------------------------------------------- the chosen model
    @available_if(_delegates("predict"))
    def predict(self, X: Any) -> Any:
        """``best_estimator_.predict(X)``."""
        return self.best_estimator_.predict(X)

    @available_if(_delegates("predict_proba"))
    def predict_proba(self, X: Any) -> Any:
        """``best_estimator_.predict_proba(X)``."""
        return self.best_estimator_.predict_proba(X)

    @available_if(_delegates("decision_function"))
    def decision_function(self, X: Any) -> Any:
        """``best_estimator_.decision_function(X)``."""
        return self.best_estimator_.decision_function(X)

    @property
    def classes_(self) -> Any:
        """The chosen classifier's classes."""
        return self.best_estimator_.classes_


_SHARED_PARAMETERS = """
    estimator : estimator
        Cloned for each candidate; anything with ``fit`` and ``predict`` (or
        ``predict_proba``, for a score of probabilities).
    score : str
        A loss of :data:`ladderboard.losses.LOSSES` or, for a metric
        mechanism, a metric of :data:`ladderboard.losses.METRICS`. Scores are
        in its own units and direction: a loss is better lower (not negated
        as scikit-learn's scorers are), and the search keeps the lowest.
    mechanism, mechanism_params
        The guard's mechanism (:class:`~ladderboard.holdout.GuardedHoldout`):
        the fixed-step Ladder with the step ``1/√n`` by default (a release
        changes only for a candidate better by a step); ``"thresholdout"`` (with
        ``mechanism_params={"budget": B}``) gets each candidate's training
        loss as its training estimate and stops the search, with a warning,
        once its budget is spent.
    validation_data : tuple (X_val, y_val), optional
        A fixed validation set; ``fit``'s data is then the training set.
    validation_fraction : float
        Without ``validation_data``: the share of ``fit``'s data held out for
        validation, once per fit (stratified for a classifier).
    refit : bool
        Keep the chosen model as ``best_estimator_`` (and delegate
        ``predict``, ``predict_proba``, ``decision_function`` to it).
    refit_with_validation : bool
        Refit the chosen parameters on the training and validation data
        together: more data, but then ``best_score_`` describes the model
        fitted on the training part, not this one. By default
        ``best_estimator_`` is the very model whose score was released.
    n_jobs : int or None
        Candidates fitted in parallel (joblib); they are scored in candidate
        order whatever the value, so the releases do not depend on it.
    random_state : int, key or None
        The one source of randomness: the split, the sampled candidates and a
        stochastic mechanism's noise each get a stream derived from it.
        ``None`` draws a secret key.

    Attributes
    ----------
    cv_results_ : dict of arrays
        One entry per candidate in candidate order (``pandas.DataFrame``
        reads it): ``params``, ``param_<name>`` (masked arrays),
        ``mean_validation_score`` (the released score), ``rank_validation_score``,
        ``mean_fit_time``, ``mean_score_time`` and their ``std_`` (zero: one
        fit each), and ``mean_train_score`` when the mechanism takes a
        training estimate. A candidate left unscored has ``nan`` scores.
    best_index_, best_params_ : int, dict
        The candidate with rank 1: the first with the best released score.
    best_score_ : float
        Its released score, ``holdout_.best.score``.
    best_estimator_ : estimator
        The chosen model (when ``refit``).
    holdout_ : GuardedHoldout
        The guard, with the history of every query it answered.
    n_candidates_ : int
        How many candidates the search had.
"""


class GuardedGridSearch(_GuardedSearch):
    __doc__ = (
        """Every combination of a parameter grid, chosen on a guarded validation set.

    The candidates are scikit-learn's ``ParameterGrid(param_grid)`` in its
    order; each is fitted on the training part and scored by a
    :class:`~ladderboard.holdout.GuardedHoldout` (the fixed-step Ladder of
    Blum & Hardt 2015, Fig. 1, by default), and the search keeps the first
    with the best released score. Below, half of the data is held out for
    validation: 285 rows, whose step ``1/√285 ≈ 0.059`` every release is a
    multiple of.

    Parameters
    ----------
    param_grid : dict or list of dicts
        As for scikit-learn's ``GridSearchCV``."""
        + _SHARED_PARAMETERS
        + """
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = make_pipeline(StandardScaler(), LogisticRegression())
    >>> grid = {"logisticregression__C": [0.001, 0.01, 0.1, 1.0]}
    >>> search = GuardedGridSearch(model, grid, validation_fraction=0.5, random_state=0)
    >>> search = search.fit(X, y)
    >>> search.cv_results_["mean_validation_score"].round(3).tolist()
    [0.118, 0.059, 0.059, 0.059]
    >>> search.cv_results_["rank_validation_score"].tolist()
    [4, 1, 2, 3]
    >>> search.best_params_, search.best_score_ == search.holdout_.best.score
    ({'logisticregression__C': 0.01}, True)
    """
    )

    def __init__(
        self,
        estimator: Any,
        param_grid: Mapping[str, Iterable[Any]] | Sequence[Mapping[str, Iterable[Any]]],
        *,
        score: str = "zero_one",
        mechanism: str | Mechanism = DEFAULT_MECHANISM,
        mechanism_params: Mapping[str, Any] | None = None,
        validation_data: tuple[Any, Any] | None = None,
        validation_fraction: float = 0.25,
        refit: bool = True,
        refit_with_validation: bool = False,
        n_jobs: int | None = None,
        random_state: RandomState = None,
    ):
        super().__init__(
            estimator,
            score=score,
            mechanism=mechanism,
            mechanism_params=mechanism_params,
            validation_data=validation_data,
            validation_fraction=validation_fraction,
            refit=refit,
            refit_with_validation=refit_with_validation,
            n_jobs=n_jobs,
            random_state=random_state,
        )
        self.param_grid = param_grid

    def _candidates(self, stream: KeyedStream) -> list[dict[str, Any]]:
        return list(ParameterGrid(self.param_grid))


class GuardedRandomizedSearch(_GuardedSearch):
    __doc__ = (
        """Candidates sampled from parameter distributions, chosen on a guarded
    validation set.

    The candidates are scikit-learn's ``ParameterSampler(param_distributions,
    n_iter)`` draws, seeded from ``random_state``, in the order drawn; each is
    fitted on the training part and scored by a
    :class:`~ladderboard.holdout.GuardedHoldout`, and the search keeps the
    first with the best released score.

    Parameters
    ----------
    param_distributions : dict or list of dicts
        As for scikit-learn's ``RandomizedSearchCV``: lists are sampled
        uniformly, distributions through their ``rvs``.
    n_iter : int
        How many candidates to draw."""
        + _SHARED_PARAMETERS
        + """
    >>> from scipy.stats import loguniform
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = make_pipeline(StandardScaler(), LogisticRegression())
    >>> space = {"logisticregression__C": loguniform(1e-3, 1e2)}
    >>> search = GuardedRandomizedSearch(model, space, n_iter=5, random_state=0).fit(X, y)
    >>> len(search.cv_results_["params"]), search.best_score_ == search.holdout_.best.score
    (5, True)
    """
    )

    def __init__(
        self,
        estimator: Any,
        param_distributions: Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        n_iter: int = 10,
        score: str = "zero_one",
        mechanism: str | Mechanism = DEFAULT_MECHANISM,
        mechanism_params: Mapping[str, Any] | None = None,
        validation_data: tuple[Any, Any] | None = None,
        validation_fraction: float = 0.25,
        refit: bool = True,
        refit_with_validation: bool = False,
        n_jobs: int | None = None,
        random_state: RandomState = None,
    ):
        super().__init__(
            estimator,
            score=score,
            mechanism=mechanism,
            mechanism_params=mechanism_params,
            validation_data=validation_data,
            validation_fraction=validation_fraction,
            refit=refit,
            refit_with_validation=refit_with_validation,
            n_jobs=n_jobs,
            random_state=random_state,
        )
        self.param_distributions = param_distributions
        self.n_iter = n_iter

    def _candidates(self, stream: KeyedStream) -> list[dict[str, Any]]:
        if isinstance(self.n_iter, bool) or not isinstance(self.n_iter, int | np.integer):
            raise TypeError(f"n_iter must be an int, got {type(self.n_iter).__name__}")
        if self.n_iter < 1:
            raise ValueError(f"n_iter must be at least 1, got {self.n_iter!r}")
        seed = int(stream.generator(0).integers(2**32))
        return list(ParameterSampler(self.param_distributions, self.n_iter, random_state=seed))
