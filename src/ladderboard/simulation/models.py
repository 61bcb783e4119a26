"""What a simulated team submits: recipes, and the model zoo that turns them into predictions.

A :class:`Recipe` says how a submission's probabilities were made: a constant
(the training base rate), a scikit-learn model (:class:`Model`: family,
hyperparameters, feature subset, scaling), a weighted :class:`Blend` of two
recipes, or a :class:`Calibrated` one (its logits divided by a temperature).
Recipes are hashable, so the :class:`Zoo` fits each model once, predicts the
whole test set once, and serves every later use (another team's identical
model, a blend, a recalibration) from its cache.

Every family has a grid of hyperparameters: a team explores it one step at a
time (:func:`neighbour`), as people do when they tune by hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ladderboard.simulation.datasets import Split

__all__ = [
    "CLIP",
    "FAMILIES",
    "Blend",
    "Calibrated",
    "Constant",
    "Model",
    "Recipe",
    "Zoo",
    "default_model",
    "import_estimators",
    "neighbour",
]

CLIP = 1e-6
"""Every submitted probability lies in ``[CLIP, 1 - CLIP]``."""

FAMILIES: dict[str, dict[str, tuple[Any, ...]]] = {
    "logistic": {
        "C": (0.001, 0.01, 0.03, 0.1, 0.3, 1.0, 10.0),
        "class_weight": (None, "balanced"),
    },
    "naive_bayes": {"var_smoothing": (1e-9, 1e-4, 0.01, 0.1, 0.3, 1.0, 3.0)},
    "knn": {"n_neighbors": (10, 25, 50, 100, 200), "weights": ("uniform", "distance")},
    "random_forest": {
        "n_estimators": (10, 25),
        "max_depth": (3, 5, 8),
        "min_samples_leaf": (5, 20, 50),
    },
    "extra_trees": {
        "n_estimators": (10, 25),
        "max_depth": (3, 5, 8),
        "min_samples_leaf": (5, 20, 50),
    },
    "gradient_boosting": {
        "max_iter": (20, 40, 80),
        "max_depth": (2, 3),
        "learning_rate": (0.05, 0.1, 0.2),
        "l2_regularization": (0.0, 1.0),
    },
}
"""Each model family's hyperparameter grid, each list in a meaningful order."""

_DEFAULTS: dict[str, dict[str, Any]] = {
    "logistic": {"C": 1.0, "class_weight": None},
    "naive_bayes": {"var_smoothing": 1e-9},
    "knn": {"n_neighbors": 25, "weights": "uniform"},
    "random_forest": {"n_estimators": 10, "max_depth": 5, "min_samples_leaf": 5},
    "extra_trees": {"n_estimators": 10, "max_depth": 5, "min_samples_leaf": 5},
    "gradient_boosting": {
        "max_iter": 40,
        "max_depth": 3,
        "learning_rate": 0.1,
        "l2_regularization": 0.0,
    },
}
SCALED = ("logistic", "naive_bayes", "knn")
"""Families whose inputs a team may scale (trees ignore scaling)."""
SCALINGS = ("standard", "none")
SEEDED = ("random_forest", "extra_trees")
"""Families whose fit depends on a seed: each team seeds them its own way."""


@dataclass(frozen=True, slots=True)
class Constant:
    """The training base rate for every row (the sample submission, filled in)."""

    def describe(self) -> str:
        return "constant base rate"


@dataclass(frozen=True, slots=True)
class Model:
    """One scikit-learn model: ``params`` is a sorted tuple of ``(name, value)``."""

    family: str
    params: tuple[tuple[str, Any], ...]
    features: str | tuple[int, ...] = "all"
    scaling: str = "none"

    def describe(self) -> str:
        values = " ".join(f"{k}={v}" for k, v in self.params)
        features = self.features
        if not isinstance(features, str):
            features = "columns " + "+".join(map(str, features))
        return f"{self.family}[{values}] features={features} scaling={self.scaling}"

    def with_param(self, name: str, value: Any) -> Model:
        params = dict(self.params)
        params[name] = value
        return Model(self.family, tuple(sorted(params.items())), self.features, self.scaling)


@dataclass(frozen=True, slots=True)
class Blend:
    """``weight * a + (1 - weight) * b``, on the probability scale."""

    a: Recipe
    b: Recipe
    weight: float

    def describe(self) -> str:
        return f"blend({self.weight:g} * ({self.a.describe()}) + ({self.b.describe()}))"


@dataclass(frozen=True, slots=True)
class Calibrated:
    """``base``'s logits divided by ``temperature`` (above 1 softens, below 1 sharpens)."""

    base: Recipe
    temperature: float

    def describe(self) -> str:
        return f"calibrated(T={self.temperature:g}, {self.base.describe()})"


Recipe = Constant | Model | Blend | Calibrated


def default_model(
    family: str,
    features: str | tuple[int, ...] = "all",
    scaling: str = "none",
    seed: int | None = None,
) -> Model:
    """The family's default hyperparameters (what a team tries first); a random
    forest or extra trees get the team's own ``random_state`` when ``seed`` is given."""
    if family not in SCALED:
        scaling = "none"
    params = dict(_DEFAULTS[family])
    if seed is not None and family in SEEDED:
        params["random_state"] = seed
    return Model(family, tuple(sorted(params.items())), features, scaling)


def neighbour(model: Model, rng: np.random.Generator) -> Model:
    """``model`` with one hyperparameter moved one step along its grid."""
    grid = FAMILIES[model.family]
    name = sorted(grid)[int(rng.integers(len(grid)))]
    values = grid[name]
    here = values.index(dict(model.params)[name])
    steps = [i for i in (here - 1, here + 1) if 0 <= i < len(values)]
    return model.with_param(name, values[steps[int(rng.integers(len(steps)))]])


def _logit(p: np.ndarray) -> np.ndarray:
    return np.log(p) - np.log1p(-p)


class Zoo:
    """Fits models on the training rows and predicts the test rows, once per recipe.

    ``estimator_seed`` seeds every estimator that draws (forests, boosting),
    so a model is the same whichever team asks for it first. Scikit-learn and
    its thread pools run single-threaded here (the simulation calls
    :func:`threadpoolctl.threadpool_limits`), which keeps fits reproducible
    and cheap.
    """

    def __init__(self, split: Split, *, estimator_seed: int):
        self.split = split
        self.estimator_seed = int(estimator_seed)
        self._X_train = split.X_train
        self._y_train = split.y_train
        self._X_test = split.X_test
        self._base_rate = float(np.mean(self._y_train))
        self._cache: dict[Recipe, np.ndarray] = {}
        self._neighbours: dict[tuple[Any, str], tuple[np.ndarray, np.ndarray]] = {}
        self._ensembles: dict[tuple[Any, ...], Any] = {}
        self.n_fits = 0

    @property
    def base_rate(self) -> float:
        return self._base_rate

    def predict(self, recipe: Recipe) -> np.ndarray:
        """The recipe's test-set probabilities, clipped to ``[CLIP, 1 - CLIP]`` (read-only)."""
        cached = self._cache.get(recipe)
        if cached is not None:
            return cached
        if isinstance(recipe, Constant):
            p = np.full(len(self.split.test), self._base_rate)
        elif isinstance(recipe, Model):
            p = self._fit_predict(recipe)
        elif isinstance(recipe, Blend):
            p = recipe.weight * self.predict(recipe.a) + (1 - recipe.weight) * self.predict(
                recipe.b
            )
        elif isinstance(recipe, Calibrated):
            z = _logit(self.predict(recipe.base)) / recipe.temperature
            p = 1.0 / (1.0 + np.exp(-z))
        else:
            raise TypeError(f"recipe must be a Recipe, got {type(recipe).__name__}")
        p = np.clip(p, CLIP, 1 - CLIP)
        p.setflags(write=False)
        self._cache[recipe] = p
        return p

    def _inputs(self, model: Model) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(model.features, str):
            columns = self.split.feature_sets[model.features]
        else:
            columns = np.asarray(model.features, dtype=np.intp)
        X_train, X_test = self._X_train[:, columns], self._X_test[:, columns]
        if model.scaling != "none":
            X_train, X_test = _scale(model.scaling, X_train, X_test)
        return X_train, X_test

    def _fit_predict(self, model: Model) -> np.ndarray:
        if model.family == "knn":
            return self._knn(model)
        if model.family in _GROWN:
            return self._grown(model)
        X_train, X_test = self._inputs(model)
        estimator = self._estimator(model)
        estimator.fit(X_train, self._y_train)
        self.n_fits += 1
        return estimator.predict_proba(X_test)[:, 1]

    def _grown(self, model: Model) -> np.ndarray:
        """A forest's first ``n_estimators`` trees, or a boosting model's first
        ``max_iter`` stages, from one ensemble per other setting, grown with
        ``warm_start`` when a larger one is asked for (the same model as a fit
        from scratch: the seeds of the trees come in the same order)."""
        size_name = _GROWN[model.family]
        params = dict(model.params)
        size = params.pop(size_name)
        key = (model.family, tuple(sorted(params.items())), model.features, model.scaling)
        estimator = self._ensembles.get(key)
        X_test = self._inputs(model)[1]
        if estimator is None or _size(estimator) < size:
            if estimator is None:
                estimator = self._estimator(model)
                estimator.set_params(warm_start=True)
                self._ensembles[key] = estimator
            estimator.set_params(**{size_name: size})
            estimator.fit(self._inputs(model)[0], self._y_train)
            self.n_fits += 1
        if _size(estimator) == size:
            return estimator.predict_proba(X_test)[:, 1]
        if model.family == "gradient_boosting":
            for stage, proba in enumerate(estimator.staged_predict_proba(X_test), start=1):
                if stage == size:
                    return proba[:, 1]
        total = np.zeros(len(X_test))
        for tree in estimator.estimators_[:size]:
            total += tree.predict_proba(X_test)[:, 1]
        return total / size

    def _knn(self, model: Model) -> np.ndarray:
        """The k-nearest-neighbour vote (uniform or inverse-distance weights), from
        one neighbour search per feature subset and scaling, shared by every k."""
        key = (model.features, model.scaling)
        if key not in self._neighbours:
            from sklearn.neighbors import NearestNeighbors

            X_train, X_test = self._inputs(model)
            k_max = min(max(FAMILIES["knn"]["n_neighbors"]), len(self._y_train))
            search = NearestNeighbors(n_neighbors=k_max).fit(X_train)
            self._neighbours[key] = search.kneighbors(X_test)
            self.n_fits += 1
        distances, indices = self._neighbours[key]
        params = dict(model.params)
        k = min(params["n_neighbors"], indices.shape[1])
        votes = self._y_train[indices[:, :k]].astype(np.float64)
        if params["weights"] == "uniform":
            return votes.mean(axis=1)
        d = distances[:, :k]
        exact = d == 0
        with np.errstate(divide="ignore"):
            weights = np.where(exact.any(axis=1, keepdims=True), exact, 1.0 / d)
        return (weights * votes).sum(axis=1) / weights.sum(axis=1)

    def _estimator(self, model: Model) -> Any:
        params = dict(model.params)
        seed = self.estimator_seed
        if model.family == "logistic":
            from sklearn.linear_model import LogisticRegression

            return LogisticRegression(**params, max_iter=100)
        if model.family == "naive_bayes":
            from sklearn.naive_bayes import GaussianNB

            return GaussianNB(**params)
        if model.family == "random_forest":
            from sklearn.ensemble import RandomForestClassifier

            params.setdefault("random_state", seed)
            return RandomForestClassifier(**params, max_features="sqrt")
        if model.family == "extra_trees":
            from sklearn.ensemble import ExtraTreesClassifier

            params.setdefault("random_state", seed)
            return ExtraTreesClassifier(**params, max_features="sqrt")
        from sklearn.ensemble import HistGradientBoostingClassifier

        return HistGradientBoostingClassifier(**params, early_stopping=False, random_state=seed)


_GROWN = {
    "random_forest": "n_estimators",
    "extra_trees": "n_estimators",
    "gradient_boosting": "max_iter",
}


def _size(estimator: Any) -> int:
    """How many trees or boosting stages a fitted ensemble holds."""
    if hasattr(estimator, "estimators_"):
        return len(estimator.estimators_)
    return int(estimator.n_iter_)


def import_estimators() -> None:
    """Load scikit-learn's estimators (and their OpenMP and BLAS thread pools)."""
    import sklearn.ensemble
    import sklearn.linear_model
    import sklearn.naive_bayes
    import sklearn.neighbors  # noqa: F401


def _scale(kind: str, X_train: np.ndarray, X_test: np.ndarray):
    if kind != "standard":
        raise ValueError(f"unknown scaling {kind!r}")
    centre, spread = X_train.mean(axis=0), X_train.std(axis=0)
    spread = np.where(spread > 0, spread, 1.0)
    return (X_train - centre) / spread, (X_test - centre) / spread


def temperature_step(temperature: float, rng: np.random.Generator) -> float:
    """A new temperature a factor ``1.25`` away on the log scale, rounded to 3 digits."""
    factor = 1.25 if rng.random() < 0.5 else 0.8
    return float(f"{temperature * factor:.3g}") if math.isfinite(temperature) else 1.0
