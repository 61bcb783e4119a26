"""E5: over-fitting by Freedman's attack, full disclosure vs the Ladder
(Chaibub Neto et al. 2016, Fig. 2)."""

import numpy as np
import pandas as pd
import pytest

from ladderboard.attacks import HoldoutOracle, freedman_attack
from ladderboard.experiments import get_experiment, run_experiment
from ladderboard.experiments._significance_paths import (
    AD_N,
    design,
    mechanism,
    permuted,
    repetition_generator,
)
from ladderboard.experiments.e5_freedman_dmse import e5_block, reference_k


@pytest.fixture(scope="module")
def quick():
    return run_experiment("e5", quick=True, seed=0).frame


def medians(frame, design_name):
    part = frame[frame.design == design_name]
    return part.groupby(["board", "k"]).dmse.median(), reference_k(part)


def test_full_disclosure_overfits_more_with_k(quick):
    """Quick runs, seeds 0-7, simulated design (n = 628): median ΔMSE from
    -0.036..-0.022 at k = 1 to -0.157..-0.093 at k = 30, decreasing through
    k = 5 every time; real design: -0.321..-0.253 at k = 9."""
    sim, _ = medians(quick, "simulated")
    fd = sim["FullDisclosure"]
    assert 0 > fd[1] > fd[5] > fd[30]
    assert fd[30] < -0.07
    real, k_ref = medians(quick, "real")
    assert k_ref == 9
    assert real["FullDisclosure"][9] < -0.18
    assert real["FullDisclosure"][9] < real["FullDisclosure"][1]


def test_the_ladder_keeps_dmse_near_zero(quick):
    """Seeds 0-7: on the simulated design the Ladder at α = 0.15 keeps every
    median ΔMSE (k = 1..30) within 0.042 of 0, α = 0.01 within 0.051; on the
    real design (k ≤ 9) α = 0.01 within 0.107, and α = 0.15 over-fits at
    k = 9 at least 0.13 less than full disclosure."""
    sim, _ = medians(quick, "simulated")
    for alpha, bound in ((0.15, 0.08), (0.01, 0.08)):
        assert sim[f"Ladder(alpha={alpha})"].abs().max() < bound
    real, k_ref = medians(quick, "real")
    strict = real["Ladder(alpha=0.01)"]
    assert strict[strict.index <= k_ref].abs().max() < 0.15
    assert real["FullDisclosure"][k_ref] < real["Ladder(alpha=0.15)"][k_ref] - 0.08


def test_the_table_is_tidy(quick):
    assert quick.groupby(["design", "board", "k"]).size().eq(10).all()
    np.testing.assert_allclose(quick.dmse, quick.public_mse - quick.final_mse)
    assert set(quick.n_train) == {AD_N - 2 * (AD_N // 3), 63}


def test_a_repetition_is_freedmans_attack_through_the_board():
    """The shared replay of the boards equals the attack played through a
    HoldoutOracle, for every board and k."""
    frame = e5_block(design_name="real", reps=(3,), rep_seeds=(17,), data_seed=5, ks=(1, 4, 12))
    data = permuted(design("real", p=300, random_state=5), repetition_generator(17))
    for alpha in (None, 0.01, 0.15, 0.5):
        for k in (1, 4, 12):
            oracle = HoldoutOracle(data.y_public, mechanism(alpha), loss="squared")
            result = freedman_attack(
                oracle,
                data.X_train,
                data.y_train,
                data.X_public,
                k=k,
                X_final=data.X_final,
                y_final=data.y_final,
            )
            label = "FullDisclosure" if alpha is None else f"Ladder(alpha={alpha})"
            (row,) = frame[(frame.board == label) & (frame.k == k)].itertuples()
            assert row.rep == 3
            assert row.released == result.score
            assert row.public_mse == pytest.approx(result.public_score, rel=1e-12)
            assert row.final_mse == pytest.approx(result.true_score, rel=1e-12)


def test_a_repetition_does_not_depend_on_its_block():
    tasks = get_experiment("e5").tasks(reps=3, quick=True, seed=4)
    assert [t.kwargs["design_name"] for t in tasks] == ["simulated", "real"]
    whole = tasks[0]()
    kwargs = dict(tasks[0].kwargs)
    kwargs.update(reps=(2,), rep_seeds=(kwargs["rep_seeds"][2],))
    alone = tasks[0].func(**kwargs)
    pd.testing.assert_frame_equal(
        whole[whole.rep == 2].reset_index(drop=True), alone.reset_index(drop=True)
    )


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="design_name"):
        e5_block(design_name="adni", reps=(0,), rep_seeds=(0,), data_seed=0)
    with pytest.raises(ValueError, match="reps and rep_seeds"):
        e5_block(design_name="real", reps=(0, 1), rep_seeds=(0,), data_seed=0)
    with pytest.raises(ValueError, match="p must be"):
        e5_block(design_name="real", reps=(0,), rep_seeds=(0,), data_seed=0, ks=(5,), p=3)
