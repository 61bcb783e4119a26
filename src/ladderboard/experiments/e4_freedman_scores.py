"""E4: the released scores of Freedman's attack, feature by feature
(Chaibub Neto et al. 2016, Fig. 1).

Freedman's attack (:func:`~ladderboard.attacks.freedman_attack`) submits one
univariate least-squares model per feature; Fig. 1 plots the public MSE each
board releases for them, on the paper's simulated design (``n = 120``,
``p = 1000`` AR(1) features with ``rho = 0.9``, response permuted within each
set), under full disclosure (a) and under the Ladder at ``α = 0.15`` (b),
with the ``k = 30`` best-scored features in red.

The Ladder here is :class:`~ladderboard.mechanisms.SignificanceLadder`, the
paper's Alg. 3: the paper names its Ladder so ("we ... evaluate the Ladder
mechanism (Algorithm 3 in Methods)", and Fig. 1's caption gives its
``α = 0.15``), not the parameter-free Ladder of Alg. 2 (whose ``c = 1`` is
close to ``c_0.15 ≈ 1.05`` at ``n = 40``). The same is run on the real design
(:func:`~ladderboard.attacks.real_regression_data`, tissue gene expression,
499 genes, 189 rows). Each repetition draws a new design and permutation (the
paper shows one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ladderboard.attacks import correlated_regression_data, real_regression_data
from ladderboard.attacks.freedman import rank_features
from ladderboard.experiments._significance_paths import (
    DESIGNS,
    FULL_DISCLOSURE,
    board_label,
    freedman_path,
    single_threaded,
)
from ladderboard.experiments.registry import Experiment, RunInfo
from ladderboard.random import RandomState
from ladderboard.tasks.reports import (
    load_template,
    markdown_table,
    new_figure,
    paragraphs,
    run_line,
    save_figure,
)
from ladderboard.tasks.runner import Task, task_seed

__all__ = ["E4", "EXPERIMENT", "LADDER", "K", "e4_repetition", "e4_tasks"]

ALPHA = 0.15
LADDER = board_label(ALPHA)
K = 30
N = 120
P = 1000
PAPER_LAST_JUMP = 249


def _data(design_name: str, random_state: RandomState) -> Any:
    if design_name == "simulated":
        return correlated_regression_data(n=N, p=P, random_state=random_state)
    if design_name == "real":
        return real_regression_data(random_state=random_state)
    raise ValueError(f"design_name must be one of {DESIGNS}, got {design_name!r}")


def e4_repetition(*, rep: int, design_name: str, random_state: RandomState) -> Any:
    """One repetition of Fig. 1 on one design: a new design and permutation
    from ``random_state``, Freedman's univariate submissions to both boards.

    A tidy DataFrame with one row per board and feature: ``rep``, ``design``,
    ``board``, ``feature``, ``released`` (Fig. 1's dots), ``exact`` (the
    feature's public MSE to 5 decimals, as full disclosure releases it),
    ``baseline`` (the public MSE of the intercept-only model, the training
    mean; the paper's "1" after scaling), ``rank`` (0 = best, ties in index
    order, the paper's convention), ``top`` (among the ``k = 30`` selected),
    and per board ``last_jump`` (the feature of the last new best) and
    ``n_jumps``.

    >>> frame = e4_repetition(rep=0, design_name="simulated", random_state=3)
    >>> ladder = frame[frame.board == "Ladder(alpha=0.15)"]
    >>> first = int(ladder.last_jump.iloc[0])
    >>> ladder[ladder.top].feature.tolist() == list(range(first, first + 30))
    True
    """
    import pandas as pd

    with single_threaded():
        data = _data(design_name, random_state)
        results = {alpha: freedman_path(data, alpha, ())[0] for alpha in (None, ALPHA)}
    exact = results[None]
    baseline = float(np.mean((data.y_public - data.y_train.mean()) ** 2))
    frames = []
    for alpha, released in results.items():
        p = released.size
        order = rank_features(released)
        rank = np.empty(p, dtype=np.int64)
        rank[order] = np.arange(p)
        running = np.minimum.accumulate(released)
        jumps = np.flatnonzero(np.concatenate(([True], running[1:] < running[:-1])))
        frames.append(
            pd.DataFrame(
                {
                    "rep": rep,
                    "design": design_name,
                    "board": board_label(alpha),
                    "feature": np.arange(p),
                    "released": released,
                    "exact": exact,
                    "baseline": baseline,
                    "rank": rank,
                    "top": rank < K,
                    "last_jump": int(jumps[-1]),
                    "n_jumps": jumps.size,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def e4_tasks(*, reps: int, quick: bool, seed: int) -> list[Task]:
    """One task per repetition and design, each with its own seed."""
    return [
        Task(
            e4_repetition,
            {"rep": r, "design_name": name, "random_state": task_seed(seed, "e4", name, r)},
        )
        for name in DESIGNS
        for r in range(reps)
    ]


# --------------------------------------------------------------------- outputs
def e4_plot(frame: Any, stem: Path) -> list[Path]:
    """Fig. 1 for the first repetition of each design: released MSE per
    feature, the k = 30 selected in red, the Ladder's last jump as a line."""
    figure, axes = new_figure(4, width=4.2)
    rep = int(frame.rep.min())
    panels = [(d, b) for d in DESIGNS for b in (FULL_DISCLOSURE, LADDER)]
    for ax, (name, board) in zip(axes, panels, strict=True):
        part = frame[(frame.rep == rep) & (frame.design == name) & (frame.board == board)]
        rest, top = part[~part.top], part[part.top]
        ax.scatter(rest.feature, rest.released, s=3, color="black", label="released MSE")
        ax.scatter(top.feature, top.released, s=6, color="tab:red", label=f"{K} best")
        if board == LADDER and not part.empty:
            ax.axvline(int(part.last_jump.iloc[0]), color="tab:red", linewidth=0.8)
        ax.axhline(1.0, color="grey", linewidth=0.6, linestyle=":")
        ax.set_title(f"{name}: {board}")
        ax.set_xlabel("feature")
        ax.set_ylabel("public MSE released")
        ax.grid(alpha=0.3)
    axes[0].legend(loc="upper right")
    figure.suptitle(
        "E4 (Chaibub Neto et al. 2016, Fig. 1): Freedman's attack, permuted response, "
        f"full disclosure vs Ladder α = {ALPHA} (repetition {rep})"
    )
    return save_figure(figure, stem)


def _per_board(frame: Any) -> Any:
    """One row per repetition, design and board, with the selection's shape."""
    top = frame[frame.top].assign(associated=lambda f: f.exact < f.baseline)
    grouped = top.groupby(["rep", "design", "board"])
    summary = grouped.agg(
        span=("feature", lambda f: int(f.max() - f.min())),
        first=("feature", "min"),
        associated=("associated", "sum"),
        last_jump=("last_jump", "first"),
        n_jumps=("n_jumps", "first"),
    )
    summary["consecutive"] = (summary.span == K - 1) & (summary["first"] == summary.last_jump)
    return summary.reset_index()


def _range(values: Any, digits: int = 0) -> str:
    values = np.asarray(values, dtype=np.float64)
    fmt = f"{{:.{digits}f}}"
    middle = fmt.format(np.median(values))
    return f"{middle} ({fmt.format(values.min())}–{fmt.format(values.max())})"


def _yes(held: bool) -> str:
    return "yes" if held else "no"


def e4_report(frame: Any, info: RunInfo) -> str:
    """Fig. 1's claims, measured over repetitions (median and range)."""
    text = load_template("ladderboard.experiments", "e4")
    per = _per_board(frame)
    designs = []
    for name in DESIGNS:
        part = per[per.design == name]
        if part.empty:
            continue
        fd, ladder = part[part.board == FULL_DISCLOSURE], part[part.board == LADDER]
        full = frame[(frame.design == name) & (frame.board == FULL_DISCLOSURE)]
        excess = full.released - full.baseline
        above = float((excess > 0).mean())
        associated = _yes(bool((fd.associated == K).all() and (ladder.associated < K).all()))
        if name == "simulated":
            associated += text.part("associated_neighbours")
        rows = [
            [
                text.part("claim_above_one"),
                text.part(
                    "measured_above_one",
                    median=f"{excess.median():+.3f}",
                    above=f"{above:.0%}",
                    low=f"{excess.min():+.2f}",
                    high=f"{excess.max():+.2f}",
                ),
                _yes(above > 0.5),
            ],
            [
                text.part("claim_clustered", k=K),
                text.part("measured_clustered", full=_range(fd.span), ladder=_range(ladder.span)),
                _yes(bool((ladder.span == K - 1).all() and (fd.span > 10 * K).all())),
            ],
            [
                text.part("claim_consecutive", following=K - 1),
                text.part(
                    "measured_consecutive",
                    following=K - 1,
                    consecutive=int(ladder.consecutive.sum()),
                    reps=len(ladder),
                    last_jump=_range(ladder.last_jump),
                    paper_last_jump=PAPER_LAST_JUMP,
                ),
                _yes(bool(ladder.consecutive.all())),
            ],
            [
                text.part("claim_jumps"),
                text.part("measured_jumps", jumps=_range(ladder.n_jumps)),
                "—",
            ],
            [
                text.part("claim_associated", k=K),
                text.part(
                    "measured_associated",
                    full=_range(fd.associated),
                    ladder=_range(ladder.associated),
                ),
                associated,
            ],
        ]
        header = ["paper (Fig. 1 and its text)", "measured", "held"]
        designs.append(
            text.part("design", design=name.capitalize(), table=markdown_table(header, rows))
        )
    command = f"ladderboard experiment run e4 --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    return text.report(
        alpha=ALPHA,
        k=K,
        reps=frame.rep.nunique(),
        n=N,
        p=P,
        sections=paragraphs(*designs, run_line(info, command)),
    )


EXPERIMENT = E4 = Experiment(
    id="e4",
    aliases=("freedman-scores", "freedman-releases"),
    description=(
        "Neto Fig. 1: released public MSE per feature under Freedman's attack, full "
        "disclosure vs Ladder α = 0.15, simulated n=120 p=1000 and real data, permuted response"
    ),
    reps=20,
    quick_reps=3,
    tasks=e4_tasks,
    plot=e4_plot,
    report=e4_report,
)
