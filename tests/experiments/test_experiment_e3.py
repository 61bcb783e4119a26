"""E3: the majority attack over k and noise (Hardt 2017, Figs. 3-4)."""

import numpy as np
import pytest

from ladderboard.attacks import majority_attack
from ladderboard.experiments import get_experiment, run_experiment
from ladderboard.experiments.e3_majority import N, e3_cell


@pytest.fixture(scope="module")
def quick():
    return run_experiment("e3", quick=True, seed=0).frame


def test_noise_of_three_over_root_n_cuts_the_bias_by_half(quick):
    """Over seeds 0-9 of the quick run, the largest share of the bias left at
    3/√n was 0.36 and the smallest noiseless mean bias 0.097."""
    fig3 = quick[quick.noise.isin([0.0, 3.0])]
    means = fig3.groupby(["k", "noise"]).bias.mean().unstack("noise")
    assert (means[0.0] > 0.08).all()
    assert (means[3.0] <= 0.5 * means[0.0]).all(), means


def test_the_bias_grows_with_k_and_shrinks_with_noise(quick):
    means = quick.groupby(["k", "noise"]).bias.mean().unstack("noise")
    assert means[0.0].is_monotonic_increasing
    assert means.loc[1000, [0.0, 1.0, 2.0, 3.0]].is_monotonic_decreasing


def test_a_cell_is_the_attack_vectorised_over_repetitions():
    frame = e3_cell(n=N, k=300, noise=3.0, reps=4, random_state=11)
    direct = majority_attack(
        n=N, k=300, sigma=3 / np.sqrt(N), repetitions=4, random_state=11, draws="keyed"
    )
    np.testing.assert_array_equal(frame.bias, direct.bias)
    np.testing.assert_array_equal(frame.error, direct.error)
    np.testing.assert_allclose(frame.bias, 1 - 2 * frame.error)


def test_cells_with_the_same_k_share_their_seed():
    tasks = get_experiment("e3").tasks(reps=2, quick=True, seed=0)
    seeds = {}
    for task in tasks:
        seeds.setdefault(task.kwargs["k"], set()).add(task.kwargs["random_state"])
    assert all(len(s) == 1 for s in seeds.values())
    assert len({next(iter(s)) for s in seeds.values()}) == len(seeds)
