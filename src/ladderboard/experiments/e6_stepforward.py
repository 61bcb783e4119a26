"""E6: the step-forward attack against the Ladder (Chaibub Neto et al. 2016,
Figs. 3-4).

The step-forward Freedman attack (:func:`~ladderboard.attacks.step_forward_attack`,
Alg. 7) adds, iteration by iteration, the feature whose submission made the
Ladder's last jump, so every selected feature is one the public holdout
favours by chance. Two parts:

* ``fig3``: the paper's simulated design of Fig. 1 (``n = 120``, ``p = 1000``,
  a new design and permutation per repetition), the Ladder at ``α = 0.15``,
  10 iterations: the public score the Ladder releases falls to "around 0.4"
  while the final MSE stays near 1.
* ``fig4``: ``ΔMSE = MSE_public − MSE_final`` after 1-10 iterations (the
  paper: 2-5, and 10 in Fig. 3) at ``α ∈ {0.01, 0.15, 0.5}``, permuted
  responses, 300 features; a design fixed per run and a new permutation per
  repetition (the paper: 100), on the simulated design at the AD data's size
  (``n = 628``) and on real gene expression (the stand-in for ADNI).

The Ladder is :class:`~ladderboard.mechanisms.SignificanceLadder` (the paper's
Alg. 3). The attack with ``i`` iterations makes the first ``i`` iterations of
a longer one, so one 10-iteration run per repetition and board gives every
``i`` (:func:`~ladderboard.experiments._significance_paths.step_forward_path`; the tests
check it against the attack through a :class:`~ladderboard.attacks.HoldoutOracle`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ladderboard._validation import check_int
from ladderboard.attacks import correlated_regression_data
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
)
from ladderboard.experiments.registry import Experiment, RunInfo
from ladderboard.tasks.reports import (
    load_template,
    markdown_table,
    new_figure,
    paragraphs,
    run_line,
    save_figure,
)
from ladderboard.tasks.runner import Task

__all__ = ["ALPHAS", "E6", "EXPERIMENT", "PARTS", "e6_block", "e6_tasks"]

ALPHAS = (0.01, 0.15, 0.5)
FIG3_ALPHA = 0.15
ITERATIONS = 10
P = 300
FIG3_N, FIG3_P = 120, 1000
PARTS = ("fig3", *DESIGNS)
BLOCK = 25
_TEXT = "ladderboard.experiments", "e6"
"""Where the report's words are: ``templates/e6.md`` of the package."""
PAPER_FIG3_PUBLIC = 0.4
PAPER_FIG3_FINAL = 1.0


def _rep_data(part: str, base: Any, seed: int) -> Any:
    if part == "fig3":
        return correlated_regression_data(n=FIG3_N, p=FIG3_P, random_state=seed)
    return permuted(base, repetition_generator(seed))


def e6_block(
    *,
    part: str,
    reps: tuple[int, ...],
    rep_seeds: tuple[int, ...],
    data_seed: int,
    n_iterations: int = ITERATIONS,
) -> Any:
    """Repetitions ``reps`` of one part (``"fig3"``, ``"simulated"`` or
    ``"real"``); repetition ``reps[i]`` draws from ``rep_seeds[i]`` (its
    design and permutation for ``fig3``, its permutation of the design drawn
    from ``data_seed`` otherwise).

    A tidy DataFrame with one row per repetition, board and number of
    iterations ``i``: ``rep``, ``part``, ``board``, ``alpha``, ``iteration``,
    ``n_selected`` (fewer than ``i`` if an iteration found no jump),
    ``n_submissions``, ``released`` (the Ladder's release after the ``i``-th
    iteration), ``public_mse`` and ``final_mse`` (exact, of the model on the
    selected features) and ``dmse``.

    >>> frame = e6_block(part="real", reps=(0,), rep_seeds=(1,), data_seed=2, n_iterations=3)
    >>> frame.groupby("alpha").n_submissions.max().tolist()  # α = 0.01: no jump in iteration 2
    [600, 898, 898]
    """
    import pandas as pd

    if part not in PARTS:
        raise ValueError(f"part must be one of {PARTS}, got {part!r}")
    if len(reps) != len(rep_seeds):
        raise ValueError(
            f"reps and rep_seeds must have one entry each, got {len(reps)} and {len(rep_seeds)}"
        )
    n_iterations = check_int("n_iterations", n_iterations, 1)
    alphas = (FIG3_ALPHA,) if part == "fig3" else ALPHAS
    rows = []
    with single_threaded():
        base = None if part == "fig3" else design(part, p=P, n=AD_N, random_state=data_seed)
        for rep, seed in zip(reps, rep_seeds, strict=True):
            data = _rep_data(part, base, seed)
            for alpha in alphas:
                for step in step_forward_path(data, alpha, n_iterations):
                    rows.append(
                        {
                            "rep": rep,
                            "part": part,
                            "board": board_label(alpha),
                            "alpha": alpha,
                            "iteration": step.iteration,
                            "n_selected": step.n_selected,
                            "n_submissions": step.n_submissions,
                            "released": step.best_released,
                            "public_mse": step.model.public_mse,
                            "final_mse": step.model.final_mse,
                            "dmse": step.model.public_mse - step.model.final_mse,
                        }
                    )
    return pd.DataFrame(rows)


def e6_tasks(*, reps: int, quick: bool, seed: int) -> list[Task]:
    """Per part, blocks of up to 25 repetitions; seeds name the part and the
    repetition, not the block."""
    return block_tasks(e6_block, "e6", PARTS, part_key="part", reps=reps, block=BLOCK, seed=seed)


# --------------------------------------------------------------------- outputs
_COLOURS = {0.01: "tab:green", 0.15: "tab:blue", 0.5: "tab:purple"}


def e6_plot(frame: Any, stem: Path) -> list[Path]:
    """Left: Fig. 3 (released public score and final MSE over iterations);
    then Fig. 4, ΔMSE over iterations per α, one panel per design."""
    figure, axes = new_figure(3)
    fig3 = frame[frame.part == "fig3"]
    for column, colour, label in (
        ("released", "tab:red", "Ladder's release (public)"),
        ("public_mse", "tab:orange", "exact public MSE"),
        ("final_mse", "tab:blue", "final MSE"),
    ):
        stats = fig3.groupby("iteration")[column].quantile([0.25, 0.5, 0.75]).unstack()
        axes[0].plot(stats.index, stats[0.5], color=colour, marker="o", markersize=3, label=label)
        axes[0].fill_between(
            stats.index, stats[0.25], stats[0.75], color=colour, alpha=0.15, linewidth=0
        )
    axes[0].set_title(f"Fig. 3: simulated n = {FIG3_N}, p = {FIG3_P}, α = {FIG3_ALPHA}")
    axes[0].set_ylabel("MSE")
    for ax, name in zip(axes[1:], DESIGNS, strict=True):
        part = frame[frame.part == name]
        for alpha, colour in _COLOURS.items():
            rows = part[part.alpha == alpha]
            stats = rows.groupby("iteration").dmse.quantile([0.25, 0.5, 0.75]).unstack()
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
        ax.axhline(0.0, color="black", linewidth=0.8)
        ax.set_title(f"Fig. 4: {name} design, {P} features")
        ax.set_ylabel("ΔMSE = MSE_public − MSE_final")
    for ax in axes:
        ax.set_xlabel("iterations of the step-forward attack")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower left")
    figure.suptitle(
        "E6 (Chaibub Neto et al. 2016, Figs. 3-4): step-forward attack on the Ladder, "
        f"median and IQR over {frame.rep.nunique()} repetitions"
    )
    return save_figure(figure, stem)


def _yes(held: bool) -> str:
    return "yes" if held else "no"


def _fig3_section(fig3: Any) -> str:
    text = load_template(*_TEXT)
    last = fig3[fig3.iteration == fig3.iteration.max()]
    i = int(last.iteration.iloc[0])
    rows = [
        [
            text.part("fig3_released", iterations=i),
            text.part("fig3_paper_released", paper=PAPER_FIG3_PUBLIC),
            summary_interval(last.released),
        ],
        [
            text.part("fig3_final"),
            text.part("fig3_paper_final", paper=f"{PAPER_FIG3_FINAL:g}"),
            summary_interval(last.final_mse),
        ],
        [text.part("fig3_public"), "—", summary_interval(last.public_mse)],
        [text.part("fig3_selected"), str(i), summary_interval(last.n_selected)],
    ]
    header = ["after the last iteration", "paper", "measured: median [IQR]"]
    return text.part(
        "fig3", n=FIG3_N, p=FIG3_P, alpha=FIG3_ALPHA, table=markdown_table(header, rows)
    )


def _fig4_section(part: Any, name: str) -> str:
    text = load_template(*_TEXT)
    iterations = [i for i in (1, 2, 3, 4, 5, 10) if i in set(part.iteration)]
    medians = part.groupby(["alpha", "iteration"]).dmse.median()
    rows = [
        [
            f"α = {alpha:g}",
            *(
                summary_interval(part[(part.alpha == alpha) & (part.iteration == i)].dmse)
                for i in iterations
            ),
        ]
        for alpha in ALPHAS
    ]
    grows = all(medians[a][2] >= medians[a][5] for a in ALPHAS) and all(
        medians[a][2] > medians[a][5] for a in ALPHAS[1:]
    )
    ordered = all(
        medians[0.01][i] > medians[0.15][i] > medians[0.5][i] for i in iterations if i >= 2
    )
    selected = part[part.iteration == 5].groupby("alpha").n_selected.median()
    claims = [
        [
            text.part("claim_grows"),
            text.part(
                "measured_grows",
                per_alpha=", ".join(
                    f"α {a:g}: {medians[a][2]:.3f} → {medians[a][5]:.3f}" for a in ALPHAS
                ),
                selected=", ".join(f"α {a:g}: {selected[a]:g}" for a in ALPHAS),
            ),
            _yes(grows) + (text.part("stops_early") if selected[0.01] < 5 else ""),
        ],
        [text.part("claim_ordered"), text.part("measured_ordered"), _yes(ordered)],
    ]
    return text.part(
        "fig4",
        design=name,
        p=P,
        permutations=int(part.rep.nunique()),
        table=markdown_table(["board", *(f"{i} iterations" for i in iterations)], rows),
        claims_table=markdown_table(["paper (Fig. 4 text)", "measured", "held"], claims),
    )


def e6_report(frame: Any, info: RunInfo) -> str:
    """Fig. 3's numbers and Fig. 4's claims beside the measured ones."""
    sections = []
    fig3 = frame[frame.part == "fig3"]
    if not fig3.empty:
        sections.append(_fig3_section(fig3))
    for name in DESIGNS:
        part = frame[frame.part == name]
        if not part.empty:
            sections.append(_fig4_section(part, name))
    command = f"ladderboard experiment run e6 --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    return load_template(*_TEXT).report(
        ad_n=AD_N, sections=paragraphs(*sections, run_line(info, command))
    )


EXPERIMENT = E6 = Experiment(
    id="e6",
    aliases=("step-forward", "stepforward-ladder"),
    description=(
        "Neto Figs. 3-4: step-forward attack on the Ladder, released vs final MSE over 10 "
        "iterations (n=120, p=1000) and ΔMSE after 1-10 iterations at α ∈ {0.01, 0.15, 0.5}"
    ),
    reps=100,
    quick_reps=6,
    tasks=e6_tasks,
    plot=e6_plot,
    report=e6_report,
)
