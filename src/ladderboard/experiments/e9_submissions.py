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

Boards: the Ladder of the paper's Alg. 3
(:class:`~ladderboard.mechanisms.SignificanceLadder`) at
``α ∈ {0.01, 0.15, 0.5}``. Fig. S11 also shows LadderBoot (``b = 100``); its
bootstrap releases need the change-point attack and the mechanism's own
draws, and are measured with the other LadderBoot experiments (E7). Designs:
the simulated one at the AD data's size (``n = 628``, a pool of 1,000 AR(1)
features) and real gene expression (a pool of 499 genes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

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
from ladderboard.tasks.reports import markdown_table, new_figure, run_line, save_figure
from ladderboard.tasks.runner import Task

__all__ = ["E9", "EXPERIMENT", "SETTINGS", "e9_block", "e9_tasks", "planned_submissions"]

ALPHAS = (0.01, 0.15, 0.5)
FEATURES = (50, 100, 150, 200, 250, 300)
SETTINGS = tuple((m, max(1, round(0.02 * m))) for m in FEATURES)
"""``(features, iterations)``: iterations are 2 % of the features."""
POOL = {"simulated": 1000, "real": 499}
THRESHOLD = -0.05
PAPER_MAX_SAFE = {0.01: 1785, 0.15: 447, 0.5: 199}
"""Fig. S11 at the −0.05 threshold: "restrict the number of submissions to less
than 794 and 447" for α = 0.15 and 0.5; "fine to allow 1,785" for α = 0.01."""
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
    ``rep``, ``design``, ``board``, ``alpha``, ``features``, ``iterations``,
    ``submissions`` (the paper's planned count), ``n_submissions`` (made,
    the final model's included; fewer if the attack stopped early),
    ``n_selected``, ``public_mse``, ``final_mse`` and ``dmse``.

    >>> frame = e9_block(design_name="real", reps=(0,), rep_seeds=(3,), data_seed=1,
    ...                  settings=((100, 2),))
    >>> frame[["board", "submissions"]].values.tolist()[0]
    ['Ladder(alpha=0.01)', 199]
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
                for alpha in ALPHAS:
                    step = step_forward_path(data, alpha, iterations)[-1]
                    rows.append(
                        {
                            "rep": rep,
                            "design": design_name,
                            "board": board_label(alpha),
                            "alpha": alpha,
                            "features": features,
                            "iterations": iterations,
                            "submissions": planned_submissions(features, iterations),
                            "n_submissions": step.n_submissions,
                            "n_selected": step.n_selected,
                            "public_mse": step.model.public_mse,
                            "final_mse": step.model.final_mse,
                            "dmse": step.model.public_mse - step.model.final_mse,
                        }
                    )
    return pd.DataFrame(rows)


def e9_tasks(*, reps: int, quick: bool, seed: int) -> list[Task]:
    """Per design, blocks of up to 50 repetitions; seeds name the design and
    the repetition, not the block."""
    return block_tasks(
        e9_block, "e9", DESIGNS, part_key="design_name", reps=reps, block=BLOCK, seed=seed
    )


# --------------------------------------------------------------------- outputs
_COLOURS = {0.01: "tab:green", 0.15: "tab:blue", 0.5: "tab:purple"}


def e9_plot(frame: Any, stem: Path) -> list[Path]:
    """Fig. S11: ΔMSE against the number of submissions, per α and design."""
    figure, axes = new_figure(len(DESIGNS))
    for ax, name in zip(axes, DESIGNS, strict=True):
        part = frame[frame.design == name]
        for alpha, colour in _COLOURS.items():
            rows = part[part.alpha == alpha]
            stats = rows.groupby("submissions").dmse.quantile([0.25, 0.5, 0.75]).unstack()
            ax.plot(
                stats.index,
                stats[0.5],
                color=colour,
                marker="o",
                markersize=3,
                label=f"Ladder α = {alpha:g}",
            )
            ax.fill_between(
                stats.index, stats[0.25], stats[0.75], color=colour, alpha=0.15, linewidth=0
            )
        ax.axhline(THRESHOLD, color="tab:red", linewidth=0.8, linestyle="--", label="−0.05")
        ax.axhline(0.0, color="black", linewidth=0.8)
        ax.set_title(f"{name} design")
        ax.set_xlabel("submissions (step-forward attack, iterations = 2 % of features)")
        ax.set_ylabel("ΔMSE = MSE_public − MSE_final")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower left")
    figure.suptitle(
        "E9 (Chaibub Neto et al. 2016, Fig. S11): over-fitting against the number of "
        f"submissions, median and IQR over {frame.rep.nunique()} repetitions"
    )
    return save_figure(figure, stem)


def max_safe(part: Any, alpha: float) -> int | None:
    """The most submissions before the first setting whose median ΔMSE is
    below the threshold (all of them if none is); ``None`` if the first is."""
    medians = part[part.alpha == alpha].groupby("submissions").dmse.median().sort_index()
    safe = None
    for submissions, median in medians.items():
        if median < THRESHOLD:
            break
        safe = int(submissions)
    return safe


def e9_report(frame: Any, info: RunInfo) -> str:
    """Median ΔMSE per setting, and the most submissions under the threshold."""
    sections = [
        "# E9: how many submissions to allow (Chaibub Neto et al. 2016, S3, Fig. S11)",
        "Step-forward attack over m random features for 2 % of m iterations, permuted "
        "responses; ΔMSE = MSE_public − MSE_final, median [IQR] over "
        f"{frame.rep.nunique()} repetitions (the paper: 1,000, ADNI data, a subset of its "
        "2,150 features per repetition). Here: the simulated design at the AD data's size "
        f"(n = {AD_N}, a pool of 1,000 AR(1) features) and real gene expression (189 rows, "
        "a pool of 499 genes). The median is compared with the paper's threshold −0.05.",
    ]
    settings = sorted(set(zip(frame.features, frame.iterations, frame.submissions, strict=True)))
    for name in DESIGNS:
        part = frame[frame.design == name]
        if part.empty:
            continue
        rows = [
            [
                f"α = {alpha:g}",
                *(
                    summary_interval(part[(part.alpha == alpha) & (part.submissions == s)].dmse)
                    for _, _, s in settings
                ),
            ]
            for alpha in ALPHAS
        ]
        verdict = [
            [
                f"α = {alpha:g}",
                f"{PAPER_MAX_SAFE[alpha]}",
                "none" if max_safe(part, alpha) is None else str(max_safe(part, alpha)),
            ]
            for alpha in ALPHAS
        ]
        sections += [
            f"## {name.capitalize()} design",
            markdown_table(
                ["Ladder", *(f"{m} features, {i} it. ({s} subm.)" for m, i, s in settings)],
                rows,
            ),
            "Most submissions with median ΔMSE ≥ −0.05 (of the settings run):",
            markdown_table(["Ladder", "paper (Fig. S11, ADNI)", "measured"], verdict),
        ]
    sections.append(
        "The public set has 209 rows in the simulated design, as in the paper's ADNI data "
        "(628 / 3), and 63 in the real one: the smaller the holdout, the more each jump the "
        "Ladder releases says about it, and the fewer submissions stay under the threshold."
    )
    sections.append(
        'The paper: "if we adopt a threshold equal to −0.05 ..., we would need to restrict '
        "the number of submissions to less than 794 and 447, when adopting the Ladder "
        "mechanism with α equal to 0.15 and 0.5, respectively, while it would still be fine "
        'to allow 1,785 submissions when using the Ladder with α = 0.01".'
    )
    command = f"ladderboard experiment run e9 --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    sections.append(run_line(info, command))
    return "\n\n".join(sections) + "\n"


EXPERIMENT = E9 = Experiment(
    id="e9",
    aliases=("submission-budget", "how-many-submissions"),
    description=(
        "Neto S3 Fig. S11: ΔMSE of the step-forward attack over 50-300 features "
        "(iterations = 2 % of features) against the number of submissions, Ladder α levels"
    ),
    reps=1000,
    quick_reps=6,
    tasks=e9_tasks,
    plot=e9_plot,
    report=e9_report,
)
