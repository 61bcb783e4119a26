"""E1: the vectorised boosting experiment against the attack itself, and the
paper's qualitative claim (Blum & Hardt 2015, Fig. 3) with margins."""

import numpy as np
import pandas as pd
import pytest

from ladderboard.attacks import HoldoutOracle, boosting_attack
from ladderboard.experiments import run_experiment
from ladderboard.experiments.e1_boosting import (
    BOARDS,
    KAGGLE_2DP,
    KAGGLE_COARSE,
    KAGGLE_FINE,
    LADDER,
    e1_repetition,
)
from ladderboard.mechanisms import FullDisclosure, ParameterFreeLadder, round_to
from ladderboard.random import KeyedStream

N_LABELS, N_PUBLIC = 3000, 1000
MECHANISMS = {
    KAGGLE_FINE: lambda: FullDisclosure(precision=1e-5),
    KAGGLE_2DP: lambda: FullDisclosure(precision=0.01),
    KAGGLE_COARSE: lambda: FullDisclosure(precision=1 / np.sqrt(N_PUBLIC)),
    LADDER: ParameterFreeLadder,
}


@pytest.mark.parametrize("seed", [3, 7])
def test_each_row_is_the_boosting_attack_through_an_oracle(seed):
    ks = (10, 50, 200, 300)
    frame = e1_repetition(
        rep=0, random_state=seed, ks=ks, n_labels=N_LABELS, n_public=N_PUBLIC
    ).set_index(["k", "board"])
    holdout = KeyedStream.from_random_state(seed).generator(1)
    labels = holdout.integers(0, 2, size=N_LABELS, dtype=np.int8)
    public = np.sort(holdout.permutation(N_LABELS)[:N_PUBLIC])
    fresh = np.setdiff1d(np.arange(N_LABELS), public)
    for k in ks:
        for board in BOARDS:
            oracle = HoldoutOracle(
                labels[public], MECHANISMS[board](), public_index=public, n_labels=N_LABELS
            )
            attack = boosting_attack(
                oracle,
                n_labels=N_LABELS,
                k=k,
                random_state=seed,
                fresh_index=fresh,
                fresh_labels=labels[fresh],
            )
            row = frame.loc[(k, board)]
            assert attack.n_kept == row.n_kept > 0
            assert attack.score == row.released, (k, board)
            assert attack.true_score == row.fresh_loss, (k, board)
            assert oracle.holdout_score(attack.prediction) == row.public_loss


def test_the_ladder_resists_and_the_kaggle_board_does_not():
    """At n = 4000, k = 400, means over 5 repetitions. Over 12 seeds the means
    ranged 0.425-0.435 (Kaggle 1e-5), 0.421-0.427 (1/√n), 0.479-0.482
    (Ladder) and 0.495-0.507 (fresh)."""
    frame = run_experiment("e1", quick=True, reps=5, seed=0).frame
    at = frame[frame.k == 400].groupby("board")
    released, fresh = at.released.mean(), at.fresh_loss.mean()
    assert released[KAGGLE_FINE] < 0.45
    assert released[KAGGLE_COARSE] < 0.45
    assert at.public_loss.mean()[KAGGLE_2DP] < 0.47
    assert released[LADDER] > 0.47
    assert (abs(fresh - 0.5) < 0.02).all(), fresh
    assert sorted(frame.rep.unique()) == list(range(5))


def test_each_kaggle_board_keeps_the_losses_its_grid_releases_at_most_half():
    """On n = 4000 the keep rule "released ≤ 1/2" is a threshold on the number
    of wrong labels t: five decimals keep t ≤ 2000 (exact), two decimals keep
    loss < 0.505 (0.505 itself is released as 0.51), the nearest multiple of
    1/√n keeps loss < 31.5/√n ≈ 0.498."""
    steps = {KAGGLE_FINE: 1e-5, KAGGLE_2DP: 0.01, KAGGLE_COARSE: 1 / np.sqrt(N_PUBLIC_PAPER)}
    last_kept = {KAGGLE_FINE: 2000, KAGGLE_2DP: 2019, KAGGLE_COARSE: 1992}
    for board, step in steps.items():
        kept = [t for t in range(1900, 2100) if round_to(t / N_PUBLIC_PAPER, step) <= 0.5]
        assert kept == list(range(1900, last_kept[board] + 1)), board


# The authors' results, copied from the mrtzh/Ladder.jl repository: the Kaggle
# rows of csvs/kaggleboosting-4000-400-5-highacc.csv (their five-decimal run,
# Fig. 3 right) and csvs/kaggleboosting-4000-400-5-lowacc.csv (their
# two-decimal run, Fig. 3 left) at k = 100, 200, 400: the exact public loss of
# the final vector, each a mean over their 5 repetitions. Reference data, not
# outputs of this library.
AUTHORS_HIGHACC_KAGGLE = {100: 0.46695, 200: 0.45225, 400: 0.42745}
AUTHORS_LOWACC_KAGGLE = {100: 0.4753, 200: 0.46675, 400: 0.45065}
N_PUBLIC_PAPER = 4000


@pytest.mark.slow
def test_the_authors_boards_reproduce_their_csv():
    """100 repetitions (standard error about 0.0007 on our side; the authors'
    5 repetitions carry about 0.003). With 400 repetitions, seed 0, the
    differences were -0.0024, -0.0020, +0.0021 (five decimals) and +0.0010,
    -0.0008, +0.0019 (two decimals), while the nearest multiple of 1/√n sat
    0.014-0.027 below the low-accuracy file."""
    frame = run_experiment("e1", quick=True, reps=100, seed=0).frame
    means = frame.groupby(["board", "k"]).public_loss.mean()
    for board, authors in (
        (KAGGLE_FINE, AUTHORS_HIGHACC_KAGGLE),
        (KAGGLE_2DP, AUTHORS_LOWACC_KAGGLE),
    ):
        for k, value in authors.items():
            assert abs(means[(board, k)] - value) < 0.01, (board, k, means[(board, k)])
    assert AUTHORS_LOWACC_KAGGLE[400] - means[(KAGGLE_COARSE, 400)] > 0.015


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="n_public"):
        e1_repetition(rep=0, random_state=0, ks=(10,), n_labels=100, n_public=100)
    with pytest.raises(TypeError, match="k"):
        e1_repetition(rep=0, random_state=0, ks=(1.5,), n_labels=100, n_public=50)


def test_the_report_says_whose_standard_error_it_is(tmp_path):
    """The paper's Fig. 3 and the authors' CSV give means only: the column
    that estimates the noise of their 5-run mean is ours (our sd over √5),
    and the report names the largest difference from their CSV row by row."""
    result = run_experiment("e1", quick=True, reps=3, seed=0, out=tmp_path)
    report = (tmp_path / "e1.md").read_text()
    assert "5-run SE (ours)" in report and "authors' SE" not in report
    assert "our sample sd over √5" in report
    at = result.frame[(result.frame.board == KAGGLE_FINE) & (result.frame.k.isin([100, 200, 400]))]
    differences = at.groupby("k").public_loss.mean() - pd.Series(AUTHORS_HIGHACC_KAGGLE)
    largest = differences.abs().max()
    k = int(differences.abs().idxmax())
    assert f"high-accuracy run) {largest:.4f} (k = {k})" in report
