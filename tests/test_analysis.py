"""Leaderboard error and the papers' bounds: hand-worked values and properties."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ladderboard.analysis import (
    kaggle_attack_error,
    ladder_error_bound,
    ladder_lower_bound,
    ladder_step,
    lberr,
    shaky_error_bound,
)

risks = st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=50)


# ----------------------------------------------------------------------- lberr
def test_lberr_three_steps_by_hand():
    # running min of the true risks: 0.52, 0.50, 0.44
    # |0.52 - 0.50| = 0.02, |0.50 - 0.45| = 0.05, |0.44 - 0.45| = 0.01
    assert lberr([0.50, 0.45, 0.45], [0.52, 0.50, 0.44]) == pytest.approx(0.05)


def test_lberr_uses_the_running_minimum_not_the_current_risk():
    # the second submission is worse (0.6) but the board should still show 0.3
    assert lberr([0.3, 0.3], [0.3, 0.6]) == 0.0
    assert lberr([0.3, 0.6], [0.3, 0.6]) == pytest.approx(0.3)


def test_lberr_of_a_boosting_style_overfit():
    # a board that keeps reporting lower scores while the truth stays at 1/2
    released = np.linspace(0.5, 0.43, 8)
    assert lberr(released, np.full(8, 0.5)) == pytest.approx(0.07)


@given(st.data(), risks)
def test_lberr_is_non_negative(data, true):
    released = data.draw(st.lists(st.floats(0, 1), min_size=len(true), max_size=len(true)))
    assert lberr(released, true) >= 0


@given(risks)
def test_lberr_of_the_running_minimum_is_zero(true):
    assert lberr(np.minimum.accumulate(true), true) == 0.0


@pytest.mark.parametrize(
    ("released", "true", "name"),
    [
        ([0.5, 0.4], [0.5], "same length"),
        ([], [], "released"),
        ([[0.5]], [[0.5]], "released"),
        ([0.5, math.nan], [0.5, 0.5], "released must be finite"),
        ([0.5, 0.5], [0.5, math.inf], "true_risks must be finite"),
        (["a"], [0.5], "released"),
    ],
)
def test_lberr_rejects_bad_input(released, true, name):
    with pytest.raises(ValueError, match=name):
        lberr(released, true)


# ---------------------------------------------------------------------- bounds
def test_ladder_error_bound_by_hand():
    # exponent = -2 (1/2)^2 100 + (1/1 + 2) log(4) + 1 = -49 + log(64)
    assert ladder_error_bound(100, 1, 0.5, 1.0) == pytest.approx(64 * math.exp(-49))


def test_ladder_error_bound_is_capped_and_does_not_overflow():
    assert ladder_error_bound(10, 10**6, 0.01, 1e-3) == 1.0
    assert ladder_error_bound(10, 10, 0.1, 1e-310) == 1.0  # 1/eta is inf
    assert ladder_error_bound(10**12, 10, 0.5, 0.1) == 0.0


@given(
    st.integers(1, 10**7),
    st.integers(1, 10**7),
    st.integers(1, 10**4),
    st.floats(0, 1),
    st.floats(1e-3, 1),
)
def test_ladder_error_bound_is_a_probability_falling_in_n(n, more, t, eps, eta):
    low_n, high_n = ladder_error_bound(n, t, eps, eta), ladder_error_bound(n + more, t, eps, eta)
    assert 0.0 <= high_n <= low_n <= 1.0


def test_rates_by_hand():
    assert ladder_step(1000, 1) == pytest.approx((math.log(1000) / 1000) ** (1 / 3))
    assert ladder_step(1000, 1) == pytest.approx(0.19045, abs=1e-5)
    assert ladder_lower_bound(4000, 1) == 0.0
    assert ladder_lower_bound(100, 10) == pytest.approx(math.sqrt(math.log(10)) / 10)
    assert kaggle_attack_error(400, 4) == pytest.approx(0.1)
    # log(k/beta) = log(kn/beta) = 1 at k = n = 1, beta = 1/e; 32^(2/5) = 4
    assert shaky_error_bound(1, 1, math.exp(-1)) == pytest.approx(1.0)
    assert shaky_error_bound(32, 1, math.exp(-1)) == pytest.approx(math.log(32 * math.e) ** 0.2 / 4)


@given(st.integers(1, 10**9), st.integers(1, 10**6))
def test_the_attack_rate_dominates_the_lower_bound(n, k):
    assert ladder_lower_bound(n, k) <= kaggle_attack_error(n, k)


@given(st.integers(1, 10**8), st.integers(1, 10**8), st.integers(1, 10**6), st.floats(1e-9, 0.5))
def test_rates_fall_in_n(n, more, k, beta):
    assert kaggle_attack_error(n + more, k) <= kaggle_attack_error(n, k)
    assert ladder_lower_bound(n + more, k) <= ladder_lower_bound(n, k)
    assert shaky_error_bound(n + more, k, beta) <= shaky_error_bound(n, k, beta)
    if k * n >= 3:  # (log(x)/x)^(1/3) falls for x >= e
        assert ladder_step(n + more, k) <= ladder_step(n, k) * (1 + 1e-12)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: ladder_error_bound(0, 1, 0.1, 0.1), "n"),
        (lambda: ladder_error_bound(10, 0, 0.1, 0.1), "t"),
        (lambda: ladder_error_bound(10, 1, -0.1, 0.1), "eps"),
        (lambda: ladder_error_bound(10, 1, 0.1, 0.0), "eta"),
        (lambda: ladder_error_bound(10, 1, 0.1, math.nan), "eta"),
        (lambda: ladder_step(0, 1), "n"),
        (lambda: ladder_step(10, 0), "k"),
        (lambda: ladder_lower_bound(10, 0), "k"),
        (lambda: kaggle_attack_error(-1, 1), "n"),
        (lambda: shaky_error_bound(10, 1, 1.0), "beta"),
        (lambda: shaky_error_bound(10, 1, 0.0), "beta"),
    ],
)
def test_bounds_reject_bad_values_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda: ladder_step(10.0, 1),
        lambda: kaggle_attack_error(10, True),
        lambda: shaky_error_bound(10, 1, "0.1"),
    ],
)
def test_bounds_reject_bad_types(call):
    with pytest.raises(TypeError):
        call()
