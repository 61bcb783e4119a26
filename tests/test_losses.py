"""Per-sample losses: agreement with scikit-learn, declared bounds, validation.

The shared checks are parametrised over ``LOSSES``: a newly registered loss is
tested as soon as it has an input generator in ``_VALID_INPUT``.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn import metrics as skm

import ladderboard.losses
import ladderboard.metrics
from ladderboard._kernels import log_loss_of
from ladderboard.losses import (
    KAGGLE_CLIP,
    LADDER_CLIP,
    LOSSES,
    METRICS,
    Loss,
    Metric,
    get_loss,
    get_metric,
)

RNG = np.random.default_rng(20160101)


def _labels(rng, n):
    return rng.integers(0, 4, n).astype(float), rng.integers(0, 4, n).astype(float)


def _reals(rng, n):
    return rng.normal(size=n), rng.normal(size=n) * 3


def _binary_proba(rng, n):
    p = rng.random(n)
    p[:3] = [0.0, 1.0, 0.5]  # the clip's edges and a tie
    return rng.integers(0, 2, n).astype(float), p


def _multiclass(rng, n, k=4):
    P = rng.dirichlet(np.full(k, 0.3), size=n)
    P[0] = np.eye(k)[1]  # a confident row with exact zeros
    return rng.integers(0, k, n).astype(float), P


_VALID_INPUT = {
    "zero_one": _labels,
    "absolute": _reals,
    "squared": _reals,
    "log_loss": _binary_proba,
    "brier": _binary_proba,
    "multiclass_log_loss": _multiclass,
    "multiclass_brier": _multiclass,
}


def _perfect(name, y, pred):
    if pred.ndim == 2:
        return np.eye(pred.shape[1])[y.astype(int)]
    return y.copy()


def valid_input(name, n=50, seed=0):
    if name not in _VALID_INPUT:
        pytest.fail(f"loss {name!r} is registered but has no input generator in this test file")
    return _VALID_INPUT[name](np.random.default_rng(seed), n)


# --------------------------------------------------------------------------- registry checks
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_output_is_float64_vector_within_bounds(name):
    loss = LOSSES[name]
    assert loss.name == name
    for seed in range(5):
        y, pred = valid_input(name, seed=seed)
        values = loss(y, pred)
        assert values.dtype == np.float64
        assert values.shape == (50,)
        lo, hi = loss.bounds
        assert np.all((values >= lo) & (values <= hi))


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_of_checked_gives_the_checked_values_bit_for_bit(name):
    """The engine's path for parsed submissions skips the checks, never the values."""
    for loss in (LOSSES[name], get_loss(name, **dict(LOSSES[name].params))):
        for seed in range(5):
            y, pred = valid_input(name, n=200, seed=seed)
            y, pred = np.asarray(y, dtype=np.float64), np.asarray(pred, dtype=np.float64)
            assert np.array_equal(loss.of_checked(y, pred), loss(y, pred))
            if all(map(math.isfinite, loss.bounds)):
                scaled = loss.rescaled()
                assert np.array_equal(scaled.of_checked(y, pred), scaled(y, pred))


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_of_checked_into_out_writes_the_same_bytes_there(name):
    """A scoring scratch receives exactly what a new array would hold (signed
    zeros and the clip's edges included); losses without a checked kernel
    (the multiclass ones) return a new array and leave ``out`` alone."""
    for loss in (LOSSES[name], get_loss(name, **dict(LOSSES[name].params))):
        scaled = [loss.rescaled()] if all(map(math.isfinite, loss.bounds)) else []
        for each in [loss, *scaled]:
            for seed in range(5):
                y, pred = valid_input(name, n=200, seed=seed)
                y, pred = np.asarray(y, dtype=np.float64), np.asarray(pred, dtype=np.float64)
                out = np.full(y.shape[0], 7.0)
                values = each.of_checked(y, pred, out=out)
                assert values.tobytes() == each(y, pred).tobytes()
                if each.checked is None:
                    assert values is not out and (out == 7.0).all()
                else:
                    assert values is out


@pytest.mark.parametrize("clip", [KAGGLE_CLIP, LADDER_CLIP, (0.05, 0.9)])
def test_the_in_place_log_loss_is_the_formula_bit_for_bit(clip):
    """Each sample's one logarithm, taken in place, against both taken of
    whole arrays and one chosen by the label; strided input too."""
    rng = np.random.default_rng(3)
    p = rng.random(1001)
    p[:8] = [0.0, 1.0, 0.5, 1e-320, 1 - 1e-16, clip[0], clip[1], np.nextafter(clip[1], 1)]
    y = rng.integers(0, 2, p.size).astype(float)
    for yy, pp in ((y, p), (y[::2], p[::2])):
        c = np.clip(pp, *clip)
        formula = -np.where(yy == 1, np.log(c), np.log1p(-c))
        assert log_loss_of(yy, pp, clip=clip).tobytes() == formula.tobytes()
        out = np.empty(pp.size)
        assert log_loss_of(yy, pp, clip=clip, out=out) is out
        assert out.tobytes() == formula.tobytes()


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_perfect_prediction_has_the_smallest_loss(name):
    loss = LOSSES[name]
    y, pred = valid_input(name)
    best = loss(y, _perfect(name, y, pred))
    assert np.all(best <= loss(y, pred))
    assert np.all(best <= loss.bounds[0] + 1e-12)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_rescaled_maps_bounds_to_unit_interval_or_refuses(name):
    loss = LOSSES[name]
    y, pred = valid_input(name)
    lo, hi = loss.bounds
    if math.isinf(hi):
        with pytest.raises(ValueError, match=name):
            loss.rescaled()
        return
    scaled = loss.rescaled()
    assert scaled.bounds == (0.0, 1.0)
    values = scaled(y, pred)
    assert np.all((values >= 0) & (values <= 1))
    np.testing.assert_allclose(values * (hi - lo) + lo, loss(y, pred), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_invalid_input_names_the_parameter(name):
    loss = LOSSES[name]
    y, pred = valid_input(name)
    bad = pred.copy()
    bad.flat[3] = np.nan
    with pytest.raises(ValueError, match=r"y_pred must be finite, got nan"):
        loss(y, bad)
    y_bad = y.copy()
    y_bad[0] = np.inf
    with pytest.raises(ValueError, match="y_true must be finite"):
        loss(y_bad, pred)
    with pytest.raises(TypeError, match="y_pred must be a numeric array, got str"):
        loss(y, "0.5")
    with pytest.raises(TypeError, match="y_true must be a numeric array, got dtype <U1"):
        loss(["a"] * len(y), pred)
    with pytest.raises(ValueError, match=r"y_true \(49,\) and y_pred \(50,"):
        loss(y[:-1], pred)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_losses_pickle_and_compare_by_name_and_params(name):
    loss = LOSSES[name]
    assert pickle.loads(pickle.dumps(loss)) == loss
    assert get_loss(name) == loss
    y, pred = valid_input(name)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(loss))(y, pred), loss(y, pred))


# --------------------------------------------------------------------------- against scikit-learn
probabilities = st.floats(0.001, 0.999)


@st.composite
def binary_and_proba(draw):
    n = draw(st.integers(3, 200))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=float)
    p = np.array(draw(st.lists(probabilities, min_size=n, max_size=n)))
    return y, p


@st.composite
def multiclass_and_proba(draw):
    n = draw(st.integers(3, 200))
    k = draw(st.integers(2, 5))
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)), dtype=float)
    raw = draw(st.lists(st.floats(0.01, 1.0), min_size=n * k, max_size=n * k))
    P = np.reshape(raw, (n, k))
    return y, P / P.sum(axis=1, keepdims=True)


@pytest.mark.slow
@given(binary_and_proba())
def test_log_loss_matches_sklearn(data):
    y, p = data
    ours = get_loss("log_loss")(y, p).mean()
    assert math.isclose(ours, skm.log_loss(y, p, labels=[0, 1]), rel_tol=1e-9)


@pytest.mark.slow
@given(binary_and_proba())
def test_brier_matches_sklearn(data):
    y, p = data
    ours = get_loss("brier")(y, p).mean()
    assert math.isclose(
        ours, skm.brier_score_loss(y, p, labels=[0, 1]), rel_tol=1e-9, abs_tol=1e-15
    )


@pytest.mark.slow
@given(multiclass_and_proba())
def test_multiclass_log_loss_matches_sklearn(data):
    y, P = data
    ours = get_loss("multiclass_log_loss")(y, P).mean()
    ref = skm.log_loss(y, P, labels=list(range(P.shape[1])))
    assert math.isclose(ours, ref, rel_tol=1e-9)


@pytest.mark.slow
@given(multiclass_and_proba())
def test_multiclass_brier_matches_sklearn_and_accepts_one_hot(data):
    y, P = data
    loss = get_loss("multiclass_brier")
    ref = skm.brier_score_loss(y, P, labels=list(range(P.shape[1])), scale_by_half=False)
    assert math.isclose(loss(y, P).mean(), ref, rel_tol=1e-9, abs_tol=1e-15)
    one_hot = np.eye(P.shape[1])[y.astype(int)]
    np.testing.assert_allclose(loss(one_hot, P), loss(y, P), rtol=1e-15)


@given(st.lists(st.floats(-1e6, 1e6), min_size=3, max_size=200), st.integers(0, 2**32 - 1))
def test_absolute_squared_zero_one_match_sklearn(y, seed):
    y = np.array(y)
    p = y + np.random.default_rng(seed).normal(size=y.size)
    assert math.isclose(
        LOSSES["absolute"](y, p).mean(), skm.mean_absolute_error(y, p), rel_tol=1e-9
    )
    assert math.isclose(LOSSES["squared"](y, p).mean(), skm.mean_squared_error(y, p), rel_tol=1e-9)
    truth, labels = np.round(y) % 3, np.round(p) % 3
    assert math.isclose(
        1 - LOSSES["zero_one"](truth, labels).mean(), skm.accuracy_score(truth, labels)
    )


# --------------------------------------------------------------------------- log-loss clipping
@pytest.mark.parametrize("clip", [KAGGLE_CLIP, LADDER_CLIP, (0.05, 0.9)])
def test_log_loss_bound_is_attained_and_tight(clip):
    loss = get_loss("log_loss", clip=clip)
    lo, hi = clip
    assert loss.bounds == (0.0, -math.log(min(lo, 1 - hi)))
    worst = loss([1.0, 0.0], [0.0, 1.0])
    np.testing.assert_allclose(worst, [-math.log(lo), -math.log(1 - hi)], rtol=1e-12)
    assert worst.max() == pytest.approx(loss.bounds[1], rel=1e-12)


def test_ladder_clip_bounds_log_loss_by_log_100():
    assert get_loss("log_loss", clip=LADDER_CLIP).bounds[1] == pytest.approx(math.log(100))
    # in float64, 1 - (1 - 1e-15) = 9.992e-16 < 1e-15: the y = 0 side sets the bound
    assert get_loss("log_loss").bounds[1] == -math.log(1 - KAGGLE_CLIP[1]) > -math.log(1e-15)


def test_multiclass_log_loss_renormalises_after_clipping_and_respects_its_bound():
    loss = get_loss("multiclass_log_loss", clip=LADDER_CLIP)
    # Clipping [0.5, 0.5, 0] gives [0.5, 0.5, 0.01]; renormalised the last is 0.01 / 1.01,
    # whose loss is clipped to the bound -log(0.01).
    values = loss([0, 2], [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    np.testing.assert_allclose(values, [-math.log(0.5 / 1.01), -math.log(0.01)], rtol=1e-12)
    # rows need not sum to 1: they are renormalised (as Kaggle does)
    np.testing.assert_allclose(loss([1], [[0.2, 0.6, 0.2]]), loss([1], [[0.1, 0.3, 0.1]]))
    assert loss.bounds == (0.0, -math.log(0.01))


@pytest.mark.parametrize(
    ("clip", "error"),
    [
        ((0.0, 0.99), ValueError),
        ((0.5, 0.4), ValueError),
        ((0.01, 1.0), ValueError),
        (0.01, TypeError),
        ((0.01, "0.99"), TypeError),
        ((0.01, 0.5, 0.99), TypeError),
    ],
)
def test_invalid_clip_is_refused_naming_clip(clip, error):
    with pytest.raises(error, match="clip"):
        get_loss("log_loss", clip=clip)
    with pytest.raises(error, match="clip"):
        get_loss("multiclass_log_loss", clip=clip)


# --------------------------------------------------------------------------- domain checks
@pytest.mark.parametrize("name", ["log_loss", "brier"])
def test_binary_probability_losses_check_their_domain(name):
    loss = LOSSES[name]
    with pytest.raises(ValueError, match=r"y_pred must be probabilities in \[0, 1\], got 1.5"):
        loss([0, 1], [0.5, 1.5])
    with pytest.raises(ValueError, match=r"y_true must contain only 0 and 1, got 2\.0 at index 1"):
        loss([0, 2], [0.5, 0.5])
    with pytest.raises(ValueError, match=r"y_pred must be 1-D, got shape \(2, 2\)"):
        loss([0, 1], [[0.5, 0.5], [0.5, 0.5]])


@pytest.mark.parametrize("name", ["multiclass_log_loss", "multiclass_brier"])
def test_multiclass_losses_check_labels_and_shapes(name):
    loss = LOSSES[name]
    P = [[0.2, 0.8], [0.5, 0.5]]
    with pytest.raises(ValueError, match=r"class labels 0..1 .* got 2.0 at index 1"):
        loss([0, 2], P)
    with pytest.raises(ValueError, match=r"got 0\.5 at index 0"):
        loss([0.5, 1], P)
    with pytest.raises(ValueError, match=r"y_pred must be 2-D, got shape \(2,\)"):
        loss([0, 1], [0.2, 0.8])
    with pytest.raises(ValueError, match="one 1 per row"):
        loss([[1, 1], [0, 1]], P)
    with pytest.raises(ValueError, match=r"y_true \(3,\) and y_pred \(2, 2\)"):
        loss([0, 1, 1], P)


def test_losses_are_clipped_to_their_bounds():
    # a row summing to 1 + 1e-6 passes the check; its loss 2 + 1e-12 is clipped to 2
    assert LOSSES["multiclass_brier"]([0], [[0.0, 1.0, 1e-6]])[0] == 2.0


def test_multiclass_brier_requires_rows_summing_to_one():
    with pytest.raises(ValueError, match=r"row 1 summing to 0\.9"):
        LOSSES["multiclass_brier"]([0, 1], [[0.5, 0.5], [0.4, 0.5]])


def test_ragged_and_empty_input_are_value_errors():
    with pytest.raises(ValueError, match="y_pred must be a rectangular numeric array"):
        LOSSES["squared"]([1.0, 2.0], [[1.0], [1.0, 2.0]])
    with pytest.raises(ValueError, match="y_true must not be empty"):
        LOSSES["squared"]([], [])


# --------------------------------------------------------------------------- registry access
def test_get_loss_rejects_unknown_names_and_parameters():
    with pytest.raises(ValueError, match="unknown loss 'hinge'; known losses: absolute, brier"):
        get_loss("hinge")
    with pytest.raises(TypeError, match="name must be a str, got int 3"):
        get_loss(3)
    with pytest.raises(TypeError, match=r"unexpected parameter.* eps; log_loss accepts clip"):
        get_loss("log_loss", eps=1e-15)
    with pytest.raises(TypeError, match="squared accepts no parameters"):
        get_loss("squared", clip=(0.1, 0.9))


def test_get_loss_with_parameters_does_not_change_the_registry():
    custom = get_loss("log_loss", clip=LADDER_CLIP)
    assert custom.params == (("clip", LADDER_CLIP),)
    assert custom != LOSSES["log_loss"]
    assert LOSSES["log_loss"].params == (("clip", KAGGLE_CLIP),)
    assert isinstance(custom, Loss)


def test_metrics_are_re_exported_from_losses():
    assert METRICS is ladderboard.metrics.METRICS
    assert get_metric is ladderboard.metrics.get_metric
    assert Metric is ladderboard.metrics.Metric


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_a_loss_states_whether_it_requires_probabilities(name):
    """Callers ask the loss (``get_loss(name).requires_probabilities``) rather
    than keep a list of names; a rescaled loss keeps the answer."""
    loss = LOSSES[name]
    expected = name in {"log_loss", "brier", "multiclass_log_loss", "multiclass_brier"}
    assert loss.requires_probabilities is expected
    assert get_loss(name).requires_probabilities is expected
    if all(math.isfinite(b) for b in loss.bounds):
        assert loss.rescaled().requires_probabilities is expected
