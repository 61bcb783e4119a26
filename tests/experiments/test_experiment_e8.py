"""E8: the Bayesian-bootstrap ladders with Lin's CCC under Freedman's attack
(Chaibub Neto et al. 2016, S2, Figs. S8-S9): full disclosure overfits, the
ladders at PO_thr = 99 much less; the sweep is the attack itself."""

import numpy as np
import pandas as pd
import pytest

from ladderboard.attacks import HoldoutOracle, correlated_regression_data, freedman_attack
from ladderboard.experiments import get_experiment
from ladderboard.experiments._bootstrap_sweeps import DisclosedToAll, freedman_sweep
from ladderboard.experiments.e8_bayesboot_ccc import E8, e8_cell
from ladderboard.experiments.registry import RunInfo
from ladderboard.losses import get_metric
from ladderboard.mechanisms import BayesBootLadderBoot
from ladderboard.tasks import task_seed


@pytest.fixture(scope="module")
def cells():
    """Six repetitions per design at PO_thr = 99, p = 40, B = 200, b = 10, k = 10."""
    frames = [
        e8_cell(
            rep=r,
            design=design,
            po_threshold=99.0,
            bs=(10,),
            B=200,
            p=40,
            ks=(10,),
            random_state=task_seed(0, "test-e8", design, r),  # seed 0 of the docstrings' 0-9
        )
        for design in ("simulated", "real")
        for r in range(6)
    ]
    return pd.concat(frames, ignore_index=True)


def test_full_disclosure_overfits_and_the_ladders_much_less(cells):
    """S8: full disclosure shows "strong over-fitting" on permuted responses;
    S9: the Bayesian-bootstrap ladders' scores "track well" with the private
    ones. Mean ΔCCC (exact) at k = 10 over both designs, over seeds 0-9 of this
    fixture: full disclosure 0.043-0.223, the PO_thr = 99 ladders -0.060-0.070,
    full disclosure's excess 0.039-0.216."""
    full = cells[cells.board == "FullDisclosure"].delta_exact.mean()
    ladders = cells[cells.board != "FullDisclosure"].delta_exact.mean()
    assert full > 0.03
    assert ladders < full - 0.02


def test_releases_are_the_boards_own(cells):
    full = cells[cells.board == "FullDisclosure"]
    np.testing.assert_allclose(full.public_released, full.public_exact, atol=5e-6)
    for design, n in (("simulated", 120 // 3), ("real", 189 // 3)):  # public rows
        ladder = cells[(cells.board == "BayesBootLadder") & (cells.design == design)]
        grid = ladder.public_released * n
        np.testing.assert_allclose(grid, np.round(grid), atol=1e-9)  # [s]_{1/n}
    assert set(cells.po_threshold) == {0.0, 99.0}
    assert (cells[cells.board == "BayesBootLadderBoot"].b == 10).all()


def test_the_sweep_is_freedmans_attack_on_a_metric_board():
    data = correlated_regression_data(p=30, random_state=5)
    baseline = np.zeros(data.y_public.shape[0])

    def board():
        return BayesBootLadderBoot(
            metric="ccc", y_true=data.y_public, B=100, b=10, baseline=baseline, random_state=3
        )

    design = (data.X_train, data.y_train, data.X_public)
    for row in freedman_sweep(HoldoutOracle(None, board()), data, (2, 7)):
        run = freedman_attack(
            HoldoutOracle(None, board()),
            *design,
            k=row["k"],
            X_final=data.X_final,
            y_final=data.y_final,
        )
        assert (run.score, run.public_score, run.true_score) == (
            row["public_released"],
            row["public_exact"],
            row["final"],
        )


def test_full_disclosure_of_a_metric_releases_every_score_and_accepts_each():
    metric = get_metric("ccc")
    y = np.array([0.0, 1.0, 2.0, 3.0])
    board = DisclosedToAll(metric=metric, y_true=y)
    worse, better = np.array([3.0, 2.0, 1.0, 0.0]), y + 0.1
    releases = [board.submit(v) for v in (better, worse)]
    assert [r.score for r in releases] == [
        round(metric.score(y, better), 5),
        round(metric.score(y, worse), 5),
    ]
    assert [r.index for r in releases] == [1, 2]
    assert [r.improved for r in releases] == [True, True]  # E8: every score is released
    with pytest.raises(TypeError, match="metric"):
        DisclosedToAll(metric=3, y_true=y)


def test_tasks_run_full_disclosure_once_per_repetition():
    tasks = get_experiment("bayesboot-ccc").tasks(reps=2, quick=False, seed=0)
    assert len(tasks) == 2 * 3 * 2
    assert sum(t.kwargs["full_disclosure"] for t in tasks) == 2 * 2
    seeds = {(t.kwargs["design"], t.kwargs["rep"]): set() for t in tasks}
    for t in tasks:
        seeds[(t.kwargs["design"], t.kwargs["rep"])].add(t.kwargs["random_state"])
    assert all(len(s) == 1 for s in seeds.values())


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="po_threshold"):
        e8_cell(rep=0, design="simulated", po_threshold=-1.0, random_state=0)
    with pytest.raises(ValueError, match="design"):
        e8_cell(rep=0, design="adni", po_threshold=99.0, random_state=0)
    with pytest.raises(TypeError, match="full_disclosure"):
        e8_cell(rep=0, design="simulated", po_threshold=99.0, full_disclosure=1, random_state=0)


def test_the_figure_and_the_report(cells, tmp_path):
    info = RunInfo(reps=6, quick=True, seed=0, jobs=1, backend="loky", seconds=1.0)
    paths = E8.plot(cells, tmp_path / "e8")
    assert paths[1].read_bytes().find(b"<svg") >= 0
    report = E8.report(cells, info)
    assert report.startswith("# E8: ")
    assert "strong over-fitting" in report and "PO_thr = 1" in report
    assert "| real | BBL, PO=99 |" in report
