"""E9: how many submissions an organiser can allow (Chaibub Neto et al. 2016,
Supplementary Text S3, Fig. S11).

The step-forward attack (:func:`~ladderboard.attacks.step_forward_attack`)
run over a random subset of ``m ∈ {50, 100, …, 300}`` features for ``2 %`` of
``m`` iterations (1 to 6) makes 50, 199, 447, 794, 1240 and 1785
submissions. Its over-fitting, ``ΔMSE = MSE_public − MSE_final`` on permuted
responses, against the number of submissions tells an organiser how many
submissions keep the median ΔMSE above a threshold (the paper: −0.05). Each
repetition permutes the response and draws a new feature subset for every
setting (the paper: 1,000 repetitions, subsets of the 2,150 ADNI features).

Boards, as in Fig. S11: the Ladder of the paper's Alg. 3
(:class:`~ladderboard.mechanisms.SignificanceLadder`) and LadderBoot (Alg. 4,
:class:`~ladderboard.mechanisms.LadderBoot`, ``b = 100``), each at
``α ∈ {0.01, 0.15, 0.5}``. On LadderBoot the attack locates jumps by binary
segmentation told the true number of jumps, as the paper did (Fig. 5e-h), and
the board's draws come from the repetition's seed. Designs:
the simulated one at the AD data's size (``n = 628``, a pool of 1,000 AR(1)
features) and real gene expression (a pool of 499 genes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ladderboard.attacks import HoldoutOracle, step_forward_attack
from ladderboard.experiments._significance_paths import (
    AD_N,
    DESIGNS,
    block_tasks,
    board_label,
    design,
    permuted,
    repetition_generator,
    single_threaded,
    step_forward_path,
    summary_interval,
    with_features,
)
from ladderboard.experiments.registry import Experiment, RunInfo
from ladderboard.mechanisms import LadderBoot
from ladderboard.random import KeyedStream
from ladderboard.tasks.reports import (
    load_template,
    markdown_table,
    new_figure,
    paragraphs,
    run_line,
    save_figure,
)
from ladderboard.tasks.runner import Task

__all__ = ["E9", "EXPERIMENT", "SETTINGS", "e9_block", "e9_tasks", "planned_submissions"]

ALPHAS = (0.01, 0.15, 0.5)
FEATURES = (50, 100, 150, 200, 250, 300)
SETTINGS = tuple((m, max(1, round(0.02 * m))) for m in FEATURES)
"""``(features, iterations)``: iterations are 2 % of the features."""
POOL = {"simulated": 1000, "real": 499}
THRESHOLD = -0.05
LADDER = "Ladder"
BOOT = "LadderBoot"
MECHANISMS = (LADDER, BOOT)
BOOT_B = 100
"""Fig. S11: "In all cases we adopted b=100 for the LadderBoot"."""
PAPER_MAX_SAFE = {
    LADDER: {0.01: 1785, 0.15: 447, 0.5: 199},
    BOOT: {0.01: 1785, 0.15: 1785, 0.5: 1785},
}
"""Fig. S11 at the −0.05 threshold: "restrict the number of submissions to less
than 794 and 447" on the Ladder at α = 0.15 and 0.5; "fine to allow 1,785" on
the Ladder at α = 0.01 "or the LadderBoot irrespective of the adopted α"."""
BLOCK = 50


def planned_submissions(features: int, iterations: int) -> int:
    """``m + (m − 1) + … + (m − i + 1)``: the paper's count (S3).

    >>> [planned_submissions(m, i) for m, i in SETTINGS]
    [50, 199, 447, 794, 1240, 1785]
    """
    return sum(features - i for i in range(iterations))


def e9_block(
    *,
    design_name: str,
    reps: tuple[int, ...],
    rep_seeds: tuple[int, ...],
    data_seed: int,
    settings: tuple[tuple[int, int], ...] = SETTINGS,
) -> Any:
    """Repetitions ``reps`` of Fig. S11 on one design: each permutes the
    response (from ``rep_seeds[i]``) and draws a feature subset per setting.

    A tidy DataFrame with one row per repetition, setting and board:
    ``rep``, ``design``, ``mechanism`` (``"Ladder"`` or ``"LadderBoot"``),
    ``board``, ``alpha``, ``features``, ``iterations``,
    ``submissions`` (the paper's planned count), ``n_submissions`` (made,
    the final model's included; fewer if the attack stopped early),
    ``n_selected``, ``public_mse``, ``final_mse`` and ``dmse``.

    >>> frame = e9_block(design_name="real", reps=(0,), rep_seeds=(3,), data_seed=1,
    ...                  settings=((100, 2),))
    >>> frame[["board", "submissions"]].values.tolist()[:2]
    [['Ladder(alpha=0.01)', 199], ['LadderBoot(alpha=0.01, b=100)', 199]]
    """
    import pandas as pd

    if design_name not in DESIGNS:
        raise ValueError(f"design_name must be one of {DESIGNS}, got {design_name!r}")
    if len(reps) != len(rep_seeds):
        raise ValueError(
            f"reps and rep_seeds must have one entry each, got {len(reps)} and {len(rep_seeds)}"
        )
    pool = POOL[design_name]
    for features, iterations in settings:
        if not 1 <= iterations <= features <= pool:
            raise ValueError(
                f"settings must hold (features, iterations) with 1 <= iterations <= features "
                f"<= {pool}, got {(features, iterations)}"
            )
    rows = []
    with single_threaded():
        base = design(design_name, p=pool, n=AD_N, random_state=data_seed)
        for rep, seed in zip(reps, rep_seeds, strict=True):
            rng = repetition_generator(seed)
            everything = permuted(base, rng)
            for features, iterations in settings:
                subset = np.sort(rng.choice(pool, size=features, replace=False))
                data = with_features(everything, subset)
                setting = {
                    "rep": rep,
                    "design": design_name,
                    "features": features,
                    "iterations": iterations,
                    "submissions": planned_submissions(features, iterations),
                }
                for alpha in ALPHAS:
                    step = step_forward_path(data, alpha, iterations)[-1]
                    rows.append(
                        _row(
                            setting,
                            LADDER,
                            board_label(alpha),
                            alpha,
                            step.n_submissions,
                            step.n_selected,
                            step.model.public_mse,
                            step.model.final_mse,
                        )
                    )
                    boot = _ladderboot_attack(data, alpha, iterations, seed, features)
                    assert boot.public_score is not None and boot.true_score is not None
                    rows.append(
                        _row(
                            setting,
                            BOOT,
                            f"LadderBoot(alpha={alpha:g}, b={BOOT_B})",
                            alpha,
                            boot.n_submissions,
                            int(boot.selected.size),
                            boot.public_score,
                            boot.true_score,
                        )
                    )
    return pd.DataFrame(rows)


def _row(
    setting: dict[str, Any],
    mechanism: str,
    board: str,
    alpha: float,
    n_submissions: int,
    n_selected: int,
    public_mse: float,
    final_mse: float,
) -> dict[str, Any]:
    return {
        "rep": setting["rep"],
        "design": setting["design"],
        "mechanism": mechanism,
        "board": board,
        "alpha": alpha,
        "features": setting["features"],
        "iterations": setting["iterations"],
        "submissions": setting["submissions"],
        "n_submissions": n_submissions,
        "n_selected": n_selected,
        "public_mse": public_mse,
        "final_mse": final_mse,
        "dmse": public_mse - final_mse,
    }


def _ladderboot_attack(data: Any, alpha: float, iterations: int, seed: int, features: int) -> Any:
    """The step-forward attack against a fresh LadderBoot (``b = 100``) whose
    draws are keyed by the repetition's seed, the setting and ``α``."""
    stream = KeyedStream.from_random_state(seed).derive(f"ladderboot/{features}/{alpha!r}")
    oracle = HoldoutOracle(
        data.y_public, LadderBoot(alpha=alpha, b=BOOT_B, random_state=stream), loss="squared"
    )
    return step_forward_attack(
        oracle,
        data.X_train,
        data.y_train,
        data.X_public,
        n_iterations=iterations,
        X_final=data.X_final,
        y_final=data.y_final,
    )


def e9_tasks(*, reps: int, quick: bool, seed: int) -> list[Task]:
    """Per design, blocks of up to 50 repetitions; seeds name the design and
    the repetition, not the block."""
    return block_tasks(
        e9_block, "e9", DESIGNS, part_key="design_name", reps=reps, block=BLOCK, seed=seed
    )


# --------------------------------------------------------------------- outputs
_COLOURS = {0.01: "tab:green", 0.15: "tab:blue", 0.5: "tab:purple"}


def e9_plot(frame: Any, stem: Path) -> list[Path]:
    """Fig. S11: ΔMSE against the number of submissions, per board, α and design
    (the Ladder solid, LadderBoot dashed)."""
    figure, axes = new_figure(len(DESIGNS))
    for ax, name in zip(axes, DESIGNS, strict=True):
        part = frame[frame.design == name]
        for mechanism, style in zip(MECHANISMS, ("-", "--"), strict=True):
            for alpha, colour in _COLOURS.items():
                rows = part[(part.mechanism == mechanism) & (part.alpha == alpha)]
                if rows.empty:
                    continue
                stats = rows.groupby("submissions").dmse.quantile([0.25, 0.5, 0.75]).unstack()
                ax.plot(
                    stats.index,
                    stats[0.5],
                    color=colour,
                    linestyle=style,
                    marker="o",
                    markersize=3,
                    label=f"{mechanism} α = {alpha:g}",
                )
                ax.fill_between(
                    stats.index, stats[0.25], stats[0.75], color=colour, alpha=0.1, linewidth=0
                )
        ax.axhline(THRESHOLD, color="tab:red", linewidth=0.8, linestyle="--", label="−0.05")
        ax.axhline(0.0, color="black", linewidth=0.8)
        ax.set_title(f"{name} design")
        ax.set_xlabel("submissions (step-forward attack, iterations = 2 % of features)")
        ax.set_ylabel("ΔMSE = MSE_public − MSE_final")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower left", fontsize=7)
    figure.suptitle(
        "E9 (Chaibub Neto et al. 2016, Fig. S11): over-fitting against the number of "
        f"submissions, median and IQR over {frame.rep.nunique()} repetitions"
    )
    return save_figure(figure, stem)


def max_safe(part: Any, alpha: float, mechanism: str = LADDER) -> int | None:
    """On ``mechanism`` at ``alpha``: the most submissions before the first
    setting whose median ΔMSE is below the threshold (all of them if none
    is); ``None`` if the first is."""
    rows = part[(part.mechanism == mechanism) & (part.alpha == alpha)]
    medians = rows.groupby("submissions").dmse.median().sort_index()
    safe = None
    for submissions, median in medians.items():
        if median < THRESHOLD:
            break
        safe = int(submissions)
    return safe


def _measured(part: Any, alpha: float, mechanism: str) -> str:
    safe = max_safe(part, alpha, mechanism)
    return "none" if safe is None else str(safe)


def e9_report(frame: Any, info: RunInfo) -> str:
    """Median ΔMSE per setting, and the most submissions under the threshold."""
    text = load_template("ladderboard.experiments", "e9")
    designs = []
    settings = sorted(set(zip(frame.features, frame.iterations, frame.submissions, strict=True)))
    for name in DESIGNS:
        part = frame[frame.design == name]
        if part.empty:
            continue
        rows = [
            [
                f"{mechanism} α = {alpha:g}",
                *(
                    summary_interval(
                        part[
                            (part.mechanism == mechanism)
                            & (part.alpha == alpha)
                            & (part.submissions == s)
                        ].dmse
                    )
                    for _, _, s in settings
                ),
            ]
            for mechanism in MECHANISMS
            for alpha in ALPHAS
        ]

        verdict = [
            [
                f"α = {alpha:g}",
                *(
                    value
                    for mechanism in MECHANISMS
                    for value in (
                        f"{PAPER_MAX_SAFE[mechanism][alpha]}",
                        _measured(part, alpha, mechanism),
                    )
                ),
            ]
            for alpha in ALPHAS
        ]
        verdict_header = [
            "α",
            "Ladder: paper",
            "Ladder: measured",
            f"LadderBoot b={BOOT_B}: paper",
            f"LadderBoot b={BOOT_B}: measured",
        ]
        designs.append(
            text.part(
                "design",
                design=name.capitalize(),
                table=markdown_table(
                    ["board", *(f"{m} features, {i} it. ({s} subm.)" for m, i, s in settings)],
                    rows,
                ),
                verdict_table=markdown_table(verdict_header, verdict),
            )
        )
    command = f"ladderboard experiment run e9 --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    return text.report(
        reps=frame.rep.nunique(),
        ad_n=AD_N,
        designs=paragraphs(*designs),
        run_line=run_line(info, command),
    )


EXPERIMENT = E9 = Experiment(
    id="e9",
    aliases=("submission-budget", "how-many-submissions"),
    description=(
        "Neto S3 Fig. S11: ΔMSE of the step-forward attack over 50-300 features "
        "(iterations = 2 % of features) against the number of submissions, Ladder and "
        "LadderBoot (b = 100) α levels"
    ),
    reps=1000,
    quick_reps=6,
    tasks=e9_tasks,
    plot=e9_plot,
    report=e9_report,
)
