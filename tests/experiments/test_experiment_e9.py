"""E9: how many submissions an organiser can allow (Chaibub Neto et al. 2016,
S3, Fig. S11)."""

import numpy as np
import pandas as pd
import pytest

from ladderboard.attacks import HoldoutOracle, step_forward_attack
from ladderboard.experiments import get_experiment, run_experiment
from ladderboard.experiments._significance_paths import (
    AD_N,
    design,
    permuted,
    repetition_generator,
    with_features,
)
from ladderboard.experiments.e9_submissions import (
    SETTINGS,
    THRESHOLD,
    e9_block,
    max_safe,
    planned_submissions,
)
from ladderboard.mechanisms import LadderBoot, SignificanceLadder
from ladderboard.random import KeyedStream


@pytest.fixture(scope="module")
def quick():
    return run_experiment("e9", quick=True, seed=0).frame


def test_the_settings_are_the_papers():
    assert SETTINGS == ((50, 1), (100, 2), (150, 3), (200, 4), (250, 5), (300, 6))
    assert planned_submissions(41, 3) == 120  # S3: "41 + 40 + 39 = 120"
    assert planned_submissions(15, 15) == 120


@pytest.mark.slow
def test_a_stricter_ladder_allows_more_submissions(quick):
    """Paper (ADNI, threshold -0.05): fewer than 794 submissions at α = 0.15,
    fewer than 447 at α = 0.5, 1,785 fine at α = 0.01. Quick runs (6
    repetitions), simulated design, seeds 0-5: α 0.01 allowed 1785 every
    time, α 0.15 447 or 199, α 0.5 447 or 199 and never more than α 0.15;
    the median ΔMSE at 1,785 submissions was -0.020..-0.003 (α 0.01),
    -0.101..-0.072 (α 0.15), -0.153..-0.111 (α 0.5)."""
    sim = quick[quick.design == "simulated"]
    safe = {alpha: max_safe(sim, alpha) for alpha in (0.01, 0.15, 0.5)}  # the Ladder's
    assert safe[0.01] == 1785
    assert safe[0.15] is not None and safe[0.15] < 1785
    assert safe[0.5] is None or safe[0.5] <= safe[0.15]
    medians = sim[sim.mechanism == "Ladder"].groupby(["alpha", "submissions"]).dmse.median()
    assert medians[0.01][1785] > medians[0.15][1785] + 0.03
    assert medians[0.5][1785] < medians[0.15][1785] < THRESHOLD


@pytest.mark.slow
def test_overfitting_grows_with_the_number_of_submissions(quick):
    """Seeds 0-5: on both designs the medians are ordered α 0.01 > 0.15 > 0.5
    at every setting from 447 submissions (at 199 α 0.15 and 0.5 tied once,
    real design, seed 4), and for α 0.15 and 0.5 the median at 1,785
    submissions is at least 0.05 below the one at 50."""
    for name in ("simulated", "real"):
        part = quick[(quick.design == name) & (quick.mechanism == "Ladder")]
        medians = part.groupby(["alpha", "submissions"]).dmse.median()
        for submissions in (447, 794, 1240, 1785):
            assert medians[0.01][submissions] > medians[0.15][submissions]
            assert medians[0.15][submissions] > medians[0.5][submissions]
        for alpha in (0.15, 0.5):
            assert medians[alpha][1785] < medians[alpha][50] - 0.03


def test_rows_are_the_attack_through_the_board():
    frame = e9_block(
        design_name="real", reps=(2,), rep_seeds=(5,), data_seed=8, settings=((60, 2),)
    )
    rng = repetition_generator(5)
    everything = permuted(design("real", p=499, n=AD_N, random_state=8), rng)
    data = with_features(everything, np.sort(rng.choice(499, size=60, replace=False)))
    for alpha in (0.01, 0.15, 0.5):
        oracle = HoldoutOracle(data.y_public, SignificanceLadder(alpha=alpha), loss="squared")
        result = step_forward_attack(
            oracle,
            data.X_train,
            data.y_train,
            data.X_public,
            n_iterations=2,
            X_final=data.X_final,
            y_final=data.y_final,
        )
        (row,) = frame[(frame.mechanism == "Ladder") & (frame.alpha == alpha)].itertuples()
        assert (row.rep, row.submissions) == (2, 119)
        assert row.n_submissions == result.n_submissions
        assert row.dmse == pytest.approx(result.public_score - result.true_score, abs=1e-12)


def test_a_repetition_does_not_depend_on_its_block():
    tasks = get_experiment("submission-budget").tasks(reps=2, quick=True, seed=1)
    assert [t.kwargs["design_name"] for t in tasks] == ["simulated", "real"]
    kwargs = dict(tasks[0].kwargs, settings=((50, 1), (100, 2)))
    whole = e9_block(**kwargs)
    alone = e9_block(**dict(kwargs, reps=(1,), rep_seeds=(kwargs["rep_seeds"][1],)))
    pd.testing.assert_frame_equal(
        whole[whole.rep == 1].reset_index(drop=True), alone.reset_index(drop=True)
    )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"design_name": "adni"}, "design_name"),
        ({"rep_seeds": ()}, "reps and rep_seeds"),
        ({"settings": ((600, 12),)}, "settings must hold"),
        ({"settings": ((50, 0),)}, "settings must hold"),
    ],
)
def test_bad_arguments_are_refused(kwargs, match):
    arguments = {"design_name": "real", "reps": (0,), "rep_seeds": (0,), "data_seed": 0}
    with pytest.raises(ValueError, match=match):
        e9_block(**dict(arguments, **kwargs))


@pytest.mark.slow
def test_ladderboot_allows_more_submissions_than_the_ladder(quick):
    """Fig. S11: "fine to allow 1,785 submissions when using ... the LadderBoot
    irrespective of the adopted α value", "a larger number of submissions in
    all settings tested". Quick run, seed 0, simulated design: LadderBoot
    (b = 100) allowed 1785 at every α; its median ΔMSE at 1,785 submissions
    was -0.004 (α 0.01), +0.001 (0.15) and +0.001 (0.5), against the Ladder's
    -0.003, -0.072 and -0.130."""
    sim = quick[quick.design == "simulated"]
    assert set(quick.mechanism) == {"Ladder", "LadderBoot"}
    for alpha in (0.01, 0.15, 0.5):
        assert max_safe(sim, alpha, "LadderBoot") == 1785
    medians = sim.groupby(["mechanism", "alpha"]).apply(
        lambda rows: rows[rows.submissions == 1785].dmse.median(), include_groups=False
    )
    for alpha in (0.15, 0.5):
        assert medians["LadderBoot"][alpha] > medians["Ladder"][alpha] + 0.04


def test_ladderboot_rows_are_the_attack_through_a_ladderboot():
    frame = e9_block(
        design_name="real", reps=(1,), rep_seeds=(4,), data_seed=2, settings=((50, 1),)
    )
    rng = repetition_generator(4)
    everything = permuted(design("real", p=499, n=AD_N, random_state=2), rng)
    data = with_features(everything, np.sort(rng.choice(499, size=50, replace=False)))
    for alpha in (0.01, 0.15, 0.5):
        stream = KeyedStream.from_random_state(4).derive(f"ladderboot/50/{alpha!r}")
        board = LadderBoot(alpha=alpha, b=100, random_state=stream)
        result = step_forward_attack(
            HoldoutOracle(data.y_public, board, loss="squared"),
            data.X_train,
            data.y_train,
            data.X_public,
            n_iterations=1,
            X_final=data.X_final,
            y_final=data.y_final,
        )
        (row,) = frame[(frame.mechanism == "LadderBoot") & (frame.alpha == alpha)].itertuples()
        assert row.board == f"LadderBoot(alpha={alpha:g}, b=100)"
        assert (row.n_submissions, row.n_selected) == (51, result.selected.size)
        assert row.dmse == pytest.approx(result.public_score - result.true_score, abs=1e-12)
