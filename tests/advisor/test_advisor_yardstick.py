"""The raw-gain yardstick: Student-t intervals, pairing by repetition, and a
reference no board's noise moves."""

import math

import numpy as np
import pytest
from scipy import stats

from ladderboard.advisor.grid import default_grid, scoring_rule
from ladderboard.advisor.yardstick import (
    blind_reference,
    lower_bound_reference,
    measure_gains,
    paired_difference,
    random_labels,
    raw_gains,
    t_interval,
)


def grid():
    return {s.label: s for s in default_grid(scoring_rule("zero_one"))}


def test_the_interval_is_students_t():
    values = [0.1, 0.2, 0.15, 0.3, 0.25]
    interval = t_interval(values)
    se = np.std(values, ddof=1) / math.sqrt(5)
    assert interval.mean == pytest.approx(0.2)
    assert interval.half_width == pytest.approx(stats.t.ppf(0.975, 4) * se)
    assert interval.low < 0.2 < interval.high and interval.n == 5
    assert math.isnan(t_interval([0.3]).half_width)
    with pytest.raises(ValueError):
        t_interval([])


def test_pairing_removes_what_two_boards_share():
    shared = np.array([0.0, 0.1, 0.2, 0.3])
    difference = paired_difference(shared + 0.05, shared)
    assert difference.mean == pytest.approx(0.05) and difference.half_width == pytest.approx(0)
    with pytest.raises(ValueError):
        paired_difference([1, 2], [1, 2, 3])


def test_every_board_sees_the_same_labels_in_a_repetition():
    assert (random_labels(50, 3, 0) == random_labels(50, 3, 0)).all()
    assert (random_labels(50, 3, 0) != random_labels(50, 4, 0)).any()


def test_the_reference_is_blind_play_on_the_noiseless_board():
    """Best of k random files under full disclosure gains about the expected
    maximum of k normals times 1/(2√n), a bit below √(log k / n)."""
    n, k = 2000, 200
    blind = blind_reference(n, k, repetitions=6, random_state=1)
    expected = math.sqrt(2 * math.log(k)) / (2 * math.sqrt(n))
    assert blind.mean == pytest.approx(expected, rel=0.3)
    assert blind.mean < lower_bound_reference(n, k)


def test_raw_gains_rank_the_parameter_free_ladder_above_the_fixed_step_one():
    settings = grid()
    rows = measure_gains(
        [settings["PF Ladder"], settings["Ladder η=1/√n"]],
        n=2000,
        ks=[300],
        repetitions=3,
        random_state=0,
    )
    pf, fixed = rows
    assert pf.interval.mean > 3 / math.sqrt(2000) > fixed.interval.mean
    assert paired_difference(pf.gains, fixed.gains).low > 0
    # Same seeds, same gains: the measurement is replayable.
    again = raw_gains(settings["PF Ladder"], n=2000, k=300, repetitions=3, random_state=0)
    assert (again == pf.gains).all()
