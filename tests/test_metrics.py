"""Moment-based metrics: agreement with scikit-learn/scipy, weights, registry checks.

Every check parametrised over ``METRICS`` runs for a new metric as soon as it
is registered and given a data kind in ``KIND``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats
from sklearn import metrics as skm

from ladderboard import _kernels as kernels
from ladderboard.losses import METRICS, get_metric
from reference import mann_whitney_by_blocks

KIND = {
    "mse": "real",
    "rmse": "real",
    "mae": "real",
    "r2": "real",
    "pearson": "real",
    "spearman": "real",
    "ccc": "real",
    "accuracy": "labels",
    "auc": "scores",
    "log_loss": "proba",
    "brier": "proba",
}
CORRELATIONS = {"r2", "pearson", "spearman", "ccc"}


def kind(name):
    if name not in KIND:
        pytest.fail(f"metric {name!r} is registered but has no data kind in this test file")
    return KIND[name]


def close(a, b, rel=1e-9, abs_=1e-9):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def well_conditioned(v):
    return np.std(v) > 1e-2 * (1 + np.max(np.abs(v)))


# --------------------------------------------------------------------------- strategies
# Plain float and sampled_from elements keep generation fast; hypothesis's array
# "fill" repeats values, so ties (for ranks and AUC) are common.
wide = st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False)
grid = st.sampled_from(np.arange(-800, 801) / 8)  # exact values with many ties
ELEMENTS = {
    "real": ([wide, grid], [wide, grid]),
    "labels": ([st.sampled_from([0.0, 1.0, 2.0, 3.0])], [st.sampled_from([0.0, 1.0, 2.0, 3.0])]),
    "scores": ([st.sampled_from([0.0, 1.0])], [grid, wide]),
    "proba": ([st.sampled_from([0.0, 1.0])], [st.floats(0.001, 0.999)]),
}


@st.composite
def samples(draw, name, weights=None, two=False):
    """(y, p) or (y, a, b), plus weights when a weight strategy is given; n in [3, 200]."""
    y_els, p_els = ELEMENTS[kind(name)]
    n = draw(st.integers(3, 200))
    y = draw(hnp.arrays(np.float64, n, elements=draw(st.sampled_from(y_els))))
    p_el = draw(st.sampled_from(p_els))
    preds = [draw(hnp.arrays(np.float64, n, elements=p_el)) for _ in range(1 + two)]
    if kind(name) == "scores":
        assume(0 < y.sum() < n)
    if name in CORRELATIONS:
        assume(well_conditioned(y) and all(well_conditioned(p) for p in preds))
    out = [y, *preds]
    if weights is not None:
        out.append(draw(hnp.arrays(np.float64, n, elements=weights)))
    return out


positive_weights = st.floats(0.0, 10.0).map(lambda w: w if w >= 0.01 else 0.0)


# --------------------------------------------------------------------------- references
def ccc_reference(y, p, w=None):
    w = np.ones_like(y) if w is None else w
    my, mp = np.average(y, weights=w), np.average(p, weights=w)
    vy, vp = np.average((y - my) ** 2, weights=w), np.average((p - mp) ** 2, weights=w)
    cov = np.average((y - my) * (p - mp), weights=w)
    return 2 * cov / (vy + vp + (my - mp) ** 2)


def weighted_pearson(y, p, w):
    c = np.cov(y, p, aweights=w)
    return c[0, 1] / math.sqrt(c[0, 0] * c[1, 1])


def reference(name, y, p, w=None):
    """The value scikit-learn/scipy (or the direct formula) gives."""
    sw = {"sample_weight": w}
    return {
        "mse": lambda: skm.mean_squared_error(y, p, **sw),
        "rmse": lambda: skm.root_mean_squared_error(y, p, **sw),
        "mae": lambda: skm.mean_absolute_error(y, p, **sw),
        "accuracy": lambda: skm.accuracy_score(y, p, **sw),
        "r2": lambda: skm.r2_score(y, p, **sw),
        "auc": lambda: skm.roc_auc_score(y, p, **sw),
        "log_loss": lambda: skm.log_loss(y, p, labels=[0, 1], **sw),
        "brier": lambda: skm.brier_score_loss(y, p, labels=[0, 1], **sw),
        "ccc": lambda: ccc_reference(y, p, w),
        "pearson": lambda: stats.pearsonr(y, p)[0] if w is None else weighted_pearson(y, p, w),
        "spearman": lambda: (
            stats.spearmanr(y, p)[0]
            if w is None
            else weighted_pearson(stats.rankdata(y), stats.rankdata(p), w)
        ),
    }[name]()


@pytest.mark.parametrize("name", sorted(METRICS))
@given(data=st.data())
def test_unweighted_score_matches_reference(name, data):
    y, p = data.draw(samples(name))
    assert close(get_metric(name).score(y, p), float(reference(name, y, p)))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(METRICS))
@given(data=st.data())
def test_weighted_score_matches_reference(name, data):
    y, p, w = data.draw(samples(name, weights=positive_weights))
    assume(w.sum() > 0)
    if name == "auc":
        assume(w[y == 1].sum() > 0 and w[y == 0].sum() > 0)
    if name in CORRELATIONS:
        keep = w > 0
        assume(well_conditioned(y[keep]) and well_conditioned(p[keep]))
    assert close(get_metric(name).score(y, p, sample_weight=w), float(reference(name, y, p, w)))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(METRICS) - {"spearman"}))
@given(data=st.data())
def test_integer_weights_equal_replicated_rows(name, data):
    """Bootstrap counts as weights give the metric of the resampled data."""
    y, p, counts = data.draw(samples(name, weights=st.sampled_from([0.0, 1.0, 2.0, 3.0])))
    y_rep, p_rep = np.repeat(y, counts.astype(int)), np.repeat(p, counts.astype(int))
    assume(y_rep.size > 0)
    if name == "auc":
        assume(0 < y_rep.sum() < y_rep.size)
    if name in CORRELATIONS:
        assume(well_conditioned(y_rep) and well_conditioned(p_rep))
    metric = get_metric(name)
    assert close(metric.score(y, p, sample_weight=counts), metric.score(y_rep, p_rep))


def test_spearman_ranks_once_so_counts_differ_from_replication():
    """Documented exemption: weights act on the unweighted ranks (Neto's 'Spearman on ranks')."""
    y, p, w = np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 3.0, 2.0, 4.0]), np.array([3, 1, 1, 1])
    spearman = get_metric("spearman")
    ranked = spearman.score(y, p, sample_weight=w)
    assert ranked == pytest.approx(weighted_pearson(stats.rankdata(y), stats.rankdata(p), w))
    replicated = spearman.score(np.repeat(y, w), np.repeat(p, w))
    assert replicated == pytest.approx(stats.spearmanr(np.repeat(y, w), np.repeat(p, w))[0])
    assert ranked != pytest.approx(replicated)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(METRICS))
@given(data=st.data())
def test_weight_matrix_equals_rows_and_paired_equals_difference(name, data):
    y, a, b = data.draw(samples(name, two=True))
    seed = data.draw(st.integers(0, 2**32 - 1))
    W = np.random.default_rng(seed).dirichlet(np.ones(y.size), size=5)
    W[1] *= 7.5  # unnormalised rows
    metric = get_metric(name)
    matrix = metric.score(y, a, sample_weight=W)
    assert matrix.shape == (5,) and matrix.dtype == np.float64
    rows = [metric.score(y, a, sample_weight=w) for w in W]
    assert all(close(m, r) for m, r in zip(matrix, rows, strict=True))
    np.testing.assert_array_equal(metric.weighted(y, a)(W), matrix)
    diff = metric.paired(y, a, b)(W)
    matrix_b = metric.score(y, b, sample_weight=W)
    expected = matrix - matrix_b
    # A difference carries the rounding of the scores it subtracts: the
    # tolerance scales with them (an r2 of -94508 on a near-constant y).
    scale = 1 + np.maximum(np.abs(matrix), np.abs(matrix_b))
    assert all(close(d, e, abs_=1e-12 * s) for d, e, s in zip(diff, expected, scale, strict=True))


def test_auc_with_many_ties_matches_sklearn_per_row():
    rng = np.random.default_rng(7)
    y = (rng.random(3000) < 0.3).astype(float)
    a = np.round(y + rng.normal(size=y.size), 1)  # ~80 tie groups, nearly all mixed
    b = rng.normal(size=y.size)  # no ties
    W = rng.dirichlet(np.ones(y.size), size=7)  # 7 rows: not a multiple of the block size
    auc = get_metric("auc")
    np.testing.assert_allclose(
        auc.paired(y, a, b)(W),
        [
            skm.roc_auc_score(y, a, sample_weight=w) - skm.roc_auc_score(y, b, sample_weight=w)
            for w in W
        ],
        rtol=0,
        atol=1e-12,
    )


@pytest.mark.parametrize("name", ["pearson", "ccc", "r2"])
def test_centring_keeps_moments_accurate_far_from_zero(name):
    rng = np.random.default_rng(3)
    y = 1e6 + rng.normal(size=2000)
    p = y + rng.normal(size=y.size)
    w = rng.exponential(size=y.size)
    metric = get_metric(name)
    assert metric.score(y, p) == pytest.approx(reference(name, y, p), rel=1e-8)
    assert metric.score(y, p, sample_weight=w) == pytest.approx(reference(name, y, p, w), rel=1e-8)


# --------------------------------------------------------------------------- shared registry checks
def valid(name, n=40, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n).astype(float)
    y[:2] = [0, 1]
    p = {
        "real": y + rng.normal(size=n),
        "labels": rng.integers(0, 2, n).astype(float),
        "scores": rng.normal(size=n),
        "proba": rng.random(n),
    }[kind(name)]
    return y, p


@pytest.mark.parametrize("name", sorted(METRICS))
def test_types_shapes_and_direction(name):
    metric = METRICS[name]
    assert metric.name == name
    assert isinstance(metric.greater_is_better, bool)
    y, p = valid(name)
    assert type(metric.score(y, p)) is float
    assert type(metric.score(y, p, sample_weight=np.ones(y.size))) is float
    perfect = metric.score(y, y)
    for seed in range(5):
        other = metric.score(y, valid(name, seed=seed)[1])
        assert perfect >= other if metric.greater_is_better else perfect <= other


@pytest.mark.parametrize("name", sorted(METRICS))
def test_invalid_input_names_the_parameter(name):
    metric = METRICS[name]
    y, p = valid(name)
    bad = p.copy()
    bad[5] = np.nan
    with pytest.raises(ValueError, match="y_pred must be finite, got nan at index 5"):
        metric.score(y, bad)
    with pytest.raises(ValueError, match="y_pred must be finite"):
        metric.check_predictions(bad)
    with pytest.raises(TypeError, match="y_pred must be a numeric array, got str"):
        metric.score(y, "p")
    with pytest.raises(TypeError, match="y_true must be a numeric array"):
        metric.score(["a"] * y.size, p)
    with pytest.raises(ValueError, match=r"y_true \(40,\) and y_b \(39,\)"):
        metric.paired(y, p, p[:-1])
    with pytest.raises(ValueError, match=r"sample_weight must be nonnegative, got -1\.0"):
        metric.score(y, p, sample_weight=np.r_[-1.0, np.ones(y.size - 1)])
    with pytest.raises(ValueError, match="sample_weight row 1 sums to 0"):
        metric.score(y, p, sample_weight=np.vstack([np.ones(y.size), np.zeros(y.size)]))
    with pytest.raises(ValueError, match=r"sample_weight must have shape \(40,\) or \(B, 40\)"):
        metric.score(y, p, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match=r"W must have shape \(c, 40\), got \(40,\)"):
        metric.weighted(y, p)(np.ones(y.size))
    if metric.requires_probabilities:
        with pytest.raises(ValueError, match=r"y_pred must be probabilities in \[0, 1\], got 1\.5"):
            metric.check_predictions(np.r_[p[:-1], 1.5])
    else:
        metric.check_predictions(p * 10)  # any finite value is fine


@pytest.mark.parametrize("name", sorted(METRICS))
def test_check_predictions_has_no_side_effects(name):
    metric = METRICS[name]
    _, p = valid(name)
    before = p.copy()
    assert metric.check_predictions(p) is None
    np.testing.assert_array_equal(p, before)


# --------------------------------------------------------------------------- degenerate cases
def test_degenerate_cases_are_nan():
    y, p = np.array([1.0, 2.0, 3.0]), np.array([3.0, 1.0, 2.0])
    const = np.full(3, 0.1)
    for name in ["pearson", "spearman", "r2"]:
        assert math.isnan(get_metric(name).score(const, p))
    for name in ["pearson", "spearman"]:
        assert math.isnan(get_metric(name).score(y, const))
    assert math.isnan(get_metric("ccc").score(const, const))
    assert get_metric("ccc").score(y, const) == 0.0
    auc = get_metric("auc").weighted([0, 1, 1], [0.1, 0.2, 0.3])
    np.testing.assert_array_equal(auc(np.array([[0.0, 1, 1], [1, 1, 1]])), [np.nan, 1.0])
    assert np.isnan(get_metric("mse").weighted(y, p)(np.zeros((1, 3))))[0]


@pytest.mark.parametrize("name", ["pearson", "spearman", "r2", "ccc"])
def test_weights_on_tied_targets_are_degenerate_not_rounding_noise(name):
    """Weighted moments of equal values leave rounding noise in E[y^2] - E[y]^2: it must be 0."""
    rng = np.random.default_rng(11)
    for _ in range(50):
        y = np.r_[np.full(4, rng.normal()), 7 * rng.normal(size=3)]
        w = np.r_[rng.random(4), 0.0, 0.0, 0.0]
        p = np.full(7, 0.5) if name == "ccc" else rng.normal(size=7)
        value = get_metric(name).score(y, p, sample_weight=w)
        # ccc: var_y = cov = 0 and var_p = 0, so 2 cov / (y - p)^2 = 0 exactly
        assert value == 0.0 if name == "ccc" else math.isnan(value)


@pytest.mark.parametrize("seed", range(40))
def test_auc_kernel_matches_the_block_form_within_summation_order(seed):
    """The AUC kernel (one cumulative sum per row, tie groups read off it)
    against the straightforward block form (tests/reference.py), on random labels,
    weights and scores with and without ties, rows with one class weightless
    included: equal to 1e-12, the two differing only in summation order."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    y = (rng.random(n) < rng.uniform(0.05, 0.95)).astype(float)
    levels = int(rng.integers(1, 12))
    p = np.floor(rng.random(n) * levels) / levels if seed % 2 else rng.random(n)
    W = rng.standard_exponential((int(rng.integers(1, 10)), n))
    W[0, y == 1] = 0.0  # no positive weight: nan in both
    got = kernels.mann_whitney(y, p)(W)
    want = mann_whitney_by_blocks(y, p, W)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.isnan(got[0])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("n_negative", [0, 1, 31, 1023, 1024, 5000])
def test_auc_kernel_prefix_block_edges(n_negative):
    """The prefix sums run over a (depth, width) block with padding: negatives
    filling it exactly, one past it, none at all, and many positives tied with
    them, against the block form."""
    rng = np.random.default_rng(n_negative)
    y = np.r_[np.zeros(n_negative), np.ones(700)]
    p = np.floor(rng.random(y.size) * 50) / 50
    W = rng.standard_exponential((3, y.size))
    got = kernels.mann_whitney(y, p)(W)
    want = mann_whitney_by_blocks(y, p, W)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.isnan(got).all() == (n_negative == 0)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_auc_kernel_threads_do_not_share_buffers():
    """One kernel called from several threads at once (as BayesBootLadder's
    chunks are) gives each thread its own rows' answers."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(5)
    n = 20_000
    y = (rng.random(n) < 0.3).astype(float)
    p = rng.random(n).round(2) + 0.2 * y
    f = kernels.mann_whitney(y, p)
    blocks = [rng.standard_exponential((int(rng.integers(1, 40)), n)) for _ in range(16)]
    want = [mann_whitney_by_blocks(y, p, W) for W in blocks]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(f, blocks * 3))
    for g, w in zip(got, want * 3, strict=True):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-12)


def test_auc_needs_both_classes_and_binary_labels():
    auc = get_metric("auc")
    with pytest.raises(
        ValueError, match=r"y_true must contain both classes 0 and 1, got only 1\.0"
    ):
        auc.score([1, 1, 1], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match=r"y_true must contain only 0 and 1, got 2\.0"):
        auc.check_targets([0, 1, 2])


def test_get_metric_rejects_unknown_names():
    with pytest.raises(ValueError, match="unknown metric 'f1'; known metrics: accuracy, auc"):
        get_metric("f1")
    with pytest.raises(TypeError, match="name must be a str, got NoneType None"):
        get_metric(None)
