"""E4: the released scores of Freedman's attack, feature by feature
(Chaibub Neto et al. 2016, Fig. 1)."""

import numpy as np
import pytest

from ladderboard.attacks import HoldoutOracle, correlated_regression_data, freedman_attack
from ladderboard.experiments import get_experiment, run_experiment
from ladderboard.experiments.e4_freedman_scores import LADDER, K, _per_board, e4_repetition
from ladderboard.mechanisms import FullDisclosure, SignificanceLadder


@pytest.fixture(scope="module")
def quick():
    return run_experiment("e4", quick=True, seed=0).frame


def test_the_ladder_clusters_the_selection_full_disclosure_spreads_it(quick):
    """Quick runs, seeds 0-5 (3 repetitions × 2 designs each): the Ladder's 30
    selected features were always the last jump's and the 29 after it; full
    disclosure's spanned at least 558 of 1,000 simulated and 425 of 499 real
    features."""
    per = _per_board(quick)
    ladder = per[per.board == LADDER]
    assert ladder.consecutive.all()
    assert (ladder.span == K - 1).all()
    fd = per[per.board == "FullDisclosure"]
    assert (fd[fd.design == "simulated"].span > 300).all()
    assert (fd[fd.design == "real"].span > 200).all()


def test_full_disclosure_selects_only_chance_associations(quick):
    """Seeds 0-5: all 30 of full disclosure's selected features beat the
    intercept-only model on the public set; of the Ladder's at most 25
    (simulated, AR(1) neighbours of the jump) and 19 (real); 63-74 % of the
    univariate models score worse than the intercept-only model."""
    per = _per_board(quick)
    assert (per[per.board == "FullDisclosure"].associated == K).all()
    assert (per[per.board == LADDER].associated <= 27).all()
    full = quick[quick.board == "FullDisclosure"]
    assert 0.55 < (full.released > full.baseline).mean() < 0.85


def test_releases_are_the_boards(quick):
    ladder = quick[quick.board == LADDER]
    for _, group in ladder.groupby(["rep", "design"]):
        released = group.released.to_numpy()
        assert (np.diff(released) <= 0).all()  # a ladder never gets worse
        assert np.unique(released).size == group.n_jumps.iloc[0]
    full = quick[quick.board == "FullDisclosure"]
    np.testing.assert_array_equal(full.released, full.exact)


def test_a_repetition_is_freedmans_attack_through_the_board():
    frame = e4_repetition(rep=0, design_name="simulated", random_state=21)
    data = correlated_regression_data(n=120, p=1000, random_state=21)
    for board, label in ((FullDisclosure(), "FullDisclosure"), (SignificanceLadder(), LADDER)):
        oracle = HoldoutOracle(data.y_public, board, loss="squared")
        result = freedman_attack(oracle, data.X_train, data.y_train, data.X_public, k=K)
        part = frame[frame.board == label]
        np.testing.assert_array_equal(part.released, result.released)
        np.testing.assert_array_equal(np.sort(part[part.top].feature), np.sort(result.selected))


def test_tasks_have_their_own_seeds_and_bad_designs_are_refused():
    tasks = get_experiment("freedman-scores").tasks(reps=2, quick=True, seed=0)
    assert len({t.kwargs["random_state"] for t in tasks}) == len(tasks) == 4
    with pytest.raises(ValueError, match="design_name"):
        e4_repetition(rep=0, design_name="adni", random_state=0)
