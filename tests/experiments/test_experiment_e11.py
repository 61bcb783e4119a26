"""E11: the shifted majority attack over k against real boards (Hardt 2017,
Sec. 4, Fig. 2)."""

import math

import pytest
from scipy import stats

from ladderboard.experiments import get_experiment, run_experiment
from ladderboard.experiments.e11_shifted import BOARDS, e11_cell


@pytest.fixture(scope="module")
def quick():
    return run_experiment("e11", quick=True, seed=0).frame


def test_the_bias_on_the_noiseless_ladder_grows_with_k(quick):
    """Seed 0 of the quick run (n = 1000, 4 repetitions): hard-set bias 0.045,
    0.073, 0.122 on Ladder η=1/√n at k = 30, 100, 300; the same climb on the
    parameter-free Ladder (0.066, 0.089, 0.158)."""
    for board in ("Ladder η=1/√n", "PF Ladder"):
        bias = quick[quick.board == board].groupby("k").bias.mean()
        assert bias.is_monotonic_increasing, bias
        assert bias.iloc[-1] > 0.08
        gap = quick[quick.board == board].groupby("k").gap.mean()
        assert gap.iloc[-1] > 0.5 / math.sqrt(1000)


def test_the_answers_follow_the_inverse_step(quick):
    """Hardt 2017, Sec. 4: a ladder answers about (m/n)/step shifted queries;
    with η = 1/√n the easy set is spent by k = 300 (0.5·√1000 ≈ 16 answers)."""
    answered = quick.groupby(["board", "k"]).answered.mean()
    assert 13 <= answered[("Ladder η=1/√n", 300)] <= 19
    assert answered[("Ladder η=0.1/√n", 300)] > answered[("Ladder η=1/√n", 300)]


def test_the_theory_shaky_ladder_releases_nothing_at_this_size(quick):
    """Eq. 2's step at n = 1000 exceeds what any submission can beat: the
    attack and the baseline both see the initial release 1."""
    theory = quick[quick.board == "Shaky theory"]
    assert (theory.excess == 0).all() and (theory.answered <= 1).all()


def test_boards_at_one_k_share_their_seed():
    tasks = get_experiment("e11").tasks(reps=1, quick=True, seed=0)
    seeds = {}
    for task in tasks:
        seeds.setdefault(task.kwargs["k"], set()).add(task.kwargs["random_state"])
    assert all(len(s) == 1 for s in seeds.values())
    assert {t.kwargs["board"] for t in tasks} == set(BOARDS)


def test_a_cell_rejects_an_unknown_board():
    with pytest.raises(ValueError, match="unknown board"):
        e11_cell(n=100, k=10, board="Kaggle", reps=1, random_state=0)


@pytest.mark.slow
def test_the_outputs(tmp_path):
    run_experiment("e11", quick=True, reps=1, seed=1, out=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "e11.csv",
        "e11.md",
        "e11.png",
        "e11.svg",
    ]
    report = (tmp_path / "e11.md").read_text()
    assert "inverse of the step size" in report and "Excess" in report


@pytest.mark.slow
def test_the_report_gives_student_t_intervals(tmp_path):
    """Each cell is the mean ± the half-width of its 95 % Student-t interval
    (3 degrees of freedom at 4 repetitions), and the report says so."""
    frame = run_experiment("e11", quick=True, reps=4, seed=0, out=tmp_path).frame
    report = (tmp_path / "e11.md").read_text()
    assert "95 % Student-t interval (3 degrees of freedom)" in report
    gaps = frame[(frame.board == "PF Ladder") & (frame.k == 300)].gap
    half = stats.t.ppf(0.975, 3) * gaps.std(ddof=1) / math.sqrt(4)
    assert f"{gaps.mean():.3f} ± {half:.3f} |" in report
    assert "Blind gap" in report
