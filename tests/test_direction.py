"""One Direction for "better": from every metric and loss, and consistent
between its comparison, its sort key, its ordering and its best."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ladderboard.direction import GREATER_IS_BETTER, LOWER_IS_BETTER, Direction
from ladderboard.losses import LOSSES
from ladderboard.metrics import METRICS

DIRECTIONS = [LOWER_IS_BETTER, GREATER_IS_BETTER]
scores = st.lists(
    st.one_of(st.floats(-1e6, 1e6), st.just(math.nan), st.just(math.inf)), min_size=1, max_size=12
)


Y = np.array([0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0])


@pytest.mark.parametrize("name", sorted(METRICS))
def test_every_metrics_direction_prefers_the_perfect_prediction(name):
    """The direction a metric states agrees with its scores: predicting the
    labels themselves beats predicting their opposite."""
    metric = METRICS[name]
    perfect, opposite = metric.score(Y, Y), metric.score(Y, 1 - Y)
    assert metric.direction.better(perfect, opposite)
    assert not metric.direction.better(opposite, perfect)


@pytest.mark.parametrize("name", sorted(n for n in LOSSES if not n.startswith("multiclass")))
def test_every_losss_direction_prefers_the_perfect_prediction(name):
    loss = LOSSES[name]
    perfect, opposite = float(np.mean(loss(Y, Y))), float(np.mean(loss(Y, 1 - Y)))
    assert loss.direction.better(perfect, opposite)


@pytest.mark.parametrize("direction", DIRECTIONS)
@given(values=scores)
def test_key_order_best_and_better_agree(direction, values):
    ranked = sorted(values, key=direction.key)
    order = [values[i] for i in direction.order(values)]
    assert [direction.key(v) for v in ranked] == [direction.key(v) for v in order]
    for a, b in itertools.pairwise(ranked):
        assert not direction.better(b, a)
    finite = [v for v in values if not math.isnan(v)]
    if finite:
        best = direction.best(values)
        assert best == ranked[0]
        assert values[direction.argbest(values)] == best
        assert not any(direction.better(v, best) for v in finite)
    else:
        assert math.isnan(direction.best(values))
        with pytest.raises(ValueError, match="not nan"):
            direction.argbest(values)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_nan_is_never_better_and_sorts_last(direction):
    assert not direction.better(math.nan, 0.0) and not direction.better(0.0, math.nan)
    assert sorted([math.nan, 1.0, direction.worst], key=direction.key)[-1] is math.nan
    assert direction.better(0.0, direction.worst)


def test_running_best_is_the_best_so_far():
    values = np.array([0.5, 0.7, 0.2, 0.9])
    assert LOWER_IS_BETTER.running_best(values).tolist() == [0.5, 0.5, 0.2, 0.2]
    assert GREATER_IS_BETTER.running_best(values).tolist() == [0.5, 0.7, 0.7, 0.9]


def test_directions_are_frozen_values():
    with pytest.raises(AttributeError):
        LOWER_IS_BETTER.greater_is_better = True
    assert {Direction(True), Direction(True), Direction(False)} == set(DIRECTIONS)
