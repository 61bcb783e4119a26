"""E6: the step-forward attack against the Ladder (Chaibub Neto et al. 2016,
Figs. 3-4)."""

import pandas as pd
import pytest

from ladderboard.attacks import HoldoutOracle, step_forward_attack
from ladderboard.experiments import get_experiment, run_experiment
from ladderboard.experiments._significance_paths import AD_N, design, permuted, repetition_generator
from ladderboard.experiments.e6_stepforward import e6_block
from ladderboard.mechanisms import SignificanceLadder


@pytest.fixture(scope="module")
def quick():
    return run_experiment("e6", quick=True, seed=0).frame


def test_fig3_the_ladder_releases_about_0_4_while_the_final_mse_stays_high(quick):
    """Paper: "a MSE around 0.4 in the Ladder's public leaderboard, whereas
    the score on the final scoring set is expected to be close to 1". Quick
    runs, seeds 0-5 (6 repetitions): median release after 10 iterations
    0.33-0.40, largest single one 0.50; median final MSE 1.30-1.42, smallest
    single one 1.04."""
    last = quick[(quick.part == "fig3") & (quick.iteration == 10)]
    assert 0.3 < last.released.median() < 0.5
    assert last.final_mse.median() > 0.9
    assert (last.released < last.final_mse - 0.3).all()
    assert (last.n_selected == 10).all()


def test_fig4_overfitting_grows_with_iterations_and_with_alpha(quick):
    """Seeds 0-5: median ΔMSE at 2 → 5 iterations, simulated design, α 0.15
    from -0.047..-0.018 to -0.083..-0.061, α 0.5 from -0.079..-0.037 to
    -0.136..-0.072; real design α 0.15 to -0.288..-0.172, α 0.5 to
    -0.507..-0.290; α 0.01 above α 0.15 above α 0.5 at every count from 2 to
    10 in all six."""
    for part in ("simulated", "real"):
        medians = quick[quick.part == part].groupby(["alpha", "iteration"]).dmse.median()
        for alpha in (0.15, 0.5):
            assert 0 > medians[alpha][2] > medians[alpha][5] > medians[alpha][10]
        assert medians[0.01][2] >= medians[0.01][5]
        for i in (5, 10):
            assert medians[0.01][i] > medians[0.15][i] > medians[0.5][i]
        assert medians[0.5][5] < -0.05


def test_rows_are_the_attack_through_the_board():
    frame = e6_block(part="simulated", reps=(0,), rep_seeds=(9,), data_seed=4, n_iterations=4)
    data = permuted(design("simulated", p=300, n=AD_N, random_state=4), repetition_generator(9))
    for alpha in (0.01, 0.5):
        for i in (1, 4):
            oracle = HoldoutOracle(data.y_public, SignificanceLadder(alpha=alpha), loss="squared")
            result = step_forward_attack(
                oracle,
                data.X_train,
                data.y_train,
                data.X_public,
                n_iterations=i,
                X_final=data.X_final,
                y_final=data.y_final,
            )
            (row,) = frame[(frame.alpha == alpha) & (frame.iteration == i)].itertuples()
            assert row.n_submissions == result.n_submissions
            assert row.n_selected == result.selected.size
            assert row.released == result.released[-1]
            assert row.public_mse == pytest.approx(result.public_score, rel=1e-12)
            assert row.final_mse == pytest.approx(result.true_score, rel=1e-12)


def test_a_repetition_does_not_depend_on_its_block():
    tasks = get_experiment("step-forward").tasks(reps=2, quick=True, seed=3)
    assert [t.kwargs["part"] for t in tasks] == ["fig3", "simulated", "real"]
    task = tasks[2]
    kwargs = dict(task.kwargs, n_iterations=2)
    whole = task.func(**kwargs)
    alone = task.func(**dict(kwargs, reps=(1,), rep_seeds=(kwargs["rep_seeds"][1],)))
    pd.testing.assert_frame_equal(
        whole[whole.rep == 1].reset_index(drop=True), alone.reset_index(drop=True)
    )


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="part must be"):
        e6_block(part="fig5", reps=(0,), rep_seeds=(0,), data_seed=0)
    with pytest.raises(ValueError, match="reps and rep_seeds"):
        e6_block(part="real", reps=(0,), rep_seeds=(), data_seed=0)
    with pytest.raises(ValueError, match="n_iterations"):
        e6_block(part="real", reps=(0,), rep_seeds=(0,), data_seed=0, n_iterations=0)
