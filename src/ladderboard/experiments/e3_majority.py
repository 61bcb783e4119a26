"""E3: the majority attack against noisy answers (Hardt 2017, Sec. 4, Figs. 3-4).

The analyst of App. B's listing asks ``k`` random ±1 queries about ``n``
hidden ±1 labels, is answered ``q·y/n`` plus Gaussian noise of standard
deviation ``σ``, and takes the majority of the queries signed by their
answers (:func:`~ladderboard.attacks.majority_attack`). Its bias
``final·y/n`` is ``1 - 2 ×`` its error on the hidden labels; on fresh labels it
would be 0. Fig. 3 varies ``k`` for ``σ ∈ {0, 1/√n, 3/√n}``; Fig. 4 varies
``σ`` for several ``k``. Each ``(k, σ)`` cell is one task, vectorised over the
repetitions (``draws="keyed"``, repetition ``r`` on sub-stream ``r``), and the
cells with the same ``k`` share their seed: every noise level sees the same
hidden vectors and queries, so the comparison between levels is paired.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ladderboard._validation import check_int, check_real
from ladderboard.attacks import majority_attack
from ladderboard.experiments.registry import Experiment, RunInfo
from ladderboard.random import RandomState
from ladderboard.tasks.reports import (
    load_template,
    markdown_table,
    new_figure,
    run_line,
    save_figure,
)
from ladderboard.tasks.runner import Task, task_seed

__all__ = ["E3", "EXPERIMENT", "e3_cell", "e3_tasks"]

N = 4000
FIG3_K = (50, 100, 200, 400, 700, 1000, 1500, 2000, 3000, 4000)
FIG3_NOISE = (0.0, 1.0, 3.0)
FIG4_K = (500, 1000, 2000, 4000)
FIG4_NOISE = (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0)
QUICK_FIG3_K = (100, 400, 1000)
QUICK_FIG4_K = (400, 1000)
QUICK_FIG4_NOISE = (0.0, 1.0, 2.0, 3.0)


def e3_cell(*, n: int, k: int, noise: float, reps: int, random_state: RandomState) -> Any:
    """``reps`` runs of the majority attack with ``k`` queries and noise
    ``σ = noise / √n``; a tidy DataFrame with one row per repetition.

    >>> frame = e3_cell(n=1000, k=200, noise=0.0, reps=3, random_state=0)
    >>> list(frame.columns)
    ['rep', 'n', 'k', 'noise', 'sigma', 'bias', 'error']
    >>> bool((frame.bias > 0).all())
    True
    """
    import pandas as pd

    n = check_int("n", n, 1)
    k = check_int("k", k, 1)
    reps = check_int("reps", reps, 1)
    noise = check_real("noise", noise, low=0, low_open=False)
    sigma = noise / math.sqrt(n)
    result = majority_attack(
        n=n, k=k, sigma=sigma, repetitions=reps, random_state=random_state, draws="keyed"
    )
    return pd.DataFrame(
        {
            "rep": np.arange(reps),
            "n": n,
            "k": k,
            "noise": noise,
            "sigma": sigma,
            "bias": np.asarray(result.bias, dtype=np.float64),
            "error": np.asarray(result.error, dtype=np.float64),
        }
    )


def _cells(quick: bool) -> list[tuple[int, float]]:
    fig3 = [(k, s) for k in (QUICK_FIG3_K if quick else FIG3_K) for s in FIG3_NOISE]
    fig4 = [
        (k, s)
        for k in (QUICK_FIG4_K if quick else FIG4_K)
        for s in (QUICK_FIG4_NOISE if quick else FIG4_NOISE)
    ]
    return sorted(set(fig3) | set(fig4))


def e3_tasks(*, reps: int, quick: bool, seed: int) -> list[Task]:
    """One task per ``(k, noise)`` cell; the seed depends on ``k`` only."""
    return [
        Task(
            e3_cell,
            {
                "n": N,
                "k": k,
                "noise": noise,
                "reps": reps,
                "random_state": task_seed(seed, "e3", N, k),
            },
        )
        for k, noise in _cells(quick)
    ]


# --------------------------------------------------------------------- outputs
def _summary(frame: Any) -> Any:
    return frame.groupby(["k", "noise"]).bias.agg(["mean", "std"]).fillna(0.0)


def e3_plot(frame: Any, stem: Path) -> list[Path]:
    """Left: bias over k per noise level (Fig. 3); right: over noise per k (Fig. 4)."""
    stats = _summary(frame)
    figure, (left, right) = new_figure(2)
    for noise in FIG3_NOISE:
        rows = stats.xs(noise, level="noise")
        label = "no noise" if noise == 0 else f"σ = {noise:g}/√n"
        left.errorbar(
            rows.index,
            rows["mean"],
            yerr=rows["std"],
            capsize=3,
            marker="o",
            markersize=3,
            label=label,
        )
    left.set_xlabel("k (queries)")
    left.set_title("Varying the number of queries (Fig. 3)")
    fig4_k = [k for k in sorted(frame.k.unique()) if frame[frame.k == k].noise.nunique() > 3]
    for k in fig4_k:
        rows = stats.xs(k, level="k")
        right.errorbar(
            rows.index,
            rows["mean"],
            yerr=rows["std"],
            capsize=3,
            marker="o",
            markersize=3,
            label=f"k = {k}",
        )
    right.set_xlabel("noise σ, in multiples of 1/√n")
    right.set_title("Varying the noise level (Fig. 4)")
    for ax in (left, right):
        ax.set_ylabel("bias final·y/n")
        ax.grid(alpha=0.3)
        ax.legend()
    n = int(frame.n.iloc[0])
    figure.suptitle(
        f"E3 (Hardt 2017): majority attack, n = {n}, "
        f"mean ± sd over {frame.rep.nunique()} repetitions"
    )
    return save_figure(figure, stem)


def e3_report(frame: Any, info: RunInfo) -> str:
    """Bias per k and noise level, and how much 3/√n cuts it."""
    stats = _summary(frame)
    n = int(frame.n.iloc[0])
    ks = sorted(k for k in frame.k.unique() if set(FIG3_NOISE) <= set(frame[frame.k == k].noise))
    rows = []
    ratios = []
    for k in ks:
        cells = [stats.loc[(k, s)] for s in FIG3_NOISE]
        ratio = cells[2]["mean"] / cells[0]["mean"] if cells[0]["mean"] > 0 else float("nan")
        ratios.append(ratio)
        rows.append(
            [
                k,
                f"{math.sqrt(k / n):.3f}",
                *(f"{c['mean']:.3f} ± {c['std']:.3f}" for c in cells),
                f"{ratio:.2f}",
            ]
        )
    command = f"ladderboard experiment run e3 --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    header = ["k", "√(k/n)", "no noise", "σ = 1/√n", "σ = 3/√n", "3/√n ÷ none"]
    return load_template("ladderboard.experiments", "e3").report(
        n=n,
        bias_table=markdown_table(header, rows),
        held="yes" if all(r <= 0.5 for r in ratios) else "no",
        largest_share=f"{max(ratios):.2f}",
        run_line=run_line(info, command),
    )


EXPERIMENT = E3 = Experiment(
    id="e3",
    aliases=("shaky-majority", "majority"),
    description=(
        "Shaky Ladder Figs. 3-4: majority attack bias over k for noise 0, 1/√n, 3/√n, "
        "and over the noise level for several k, n=4000"
    ),
    reps=100,
    quick_reps=20,
    tasks=e3_tasks,
    plot=e3_plot,
    report=e3_report,
)
