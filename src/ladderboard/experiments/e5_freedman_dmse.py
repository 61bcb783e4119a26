"""E5: over-fitting by Freedman's attack, full disclosure vs the Ladder
(Chaibub Neto et al. 2016, Fig. 2).

Freedman's attack (:func:`~ladderboard.attacks.freedman_attack`) submits the
``p = 300`` univariate regressions, then refits on the ``k`` best-scored
features, ``k = 1, …, 30``. With the response permuted within each set no
feature carries signal, so ``ΔMSE = MSE_public − MSE_final`` (the final
model's exact public MSE minus its MSE on the final set) measures over-fitting
to the public holdout: negative is over-fitting. The boards are
:class:`~ladderboard.mechanisms.FullDisclosure` and the Ladder of the paper's
Alg. 3 (:class:`~ladderboard.mechanisms.SignificanceLadder`) at
``α ∈ {0.01, 0.15, 0.5}``.

As in the paper, a design is fixed for the run (the split and the features)
and each repetition permutes the response anew (the paper: 1,000
permutations): the simulated design at the size of the paper's AD data
(``n = 628``, 300 AR(1) features; at the ``n = 120`` of its Fig. 1 a
30-feature fit on 40 training rows is mostly variance) and the
real one (300 random genes of the tissue gene-expression data, 189 rows, for
the paper's ADNI features). The ``p`` univariate submissions do not depend on
``k``, so one run of the board serves every ``k``
(:func:`~ladderboard.experiments._significance_paths.freedman_path`; the tests check it
against the attack itself). A task is a block of repetitions of one design;
each repetition draws its permutation from its own seed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ladderboard._validation import check_int
from ladderboard.experiments._significance_paths import (
    AD_N,
    DESIGNS,
    FULL_DISCLOSURE,
    block_tasks,
    board_label,
    design,
    freedman_path,
    permuted,
    repetition_generator,
    single_threaded,
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

__all__ = ["ALPHAS", "E5", "EXPERIMENT", "e5_block", "e5_tasks"]

ALPHAS = (0.01, 0.15, 0.5)
BOARDS = (None, *ALPHAS)
P = 300
FULL_K = tuple(range(1, 31))
QUICK_K = (1, 3, 5, 9, 15, 30)
_TEXT = "ladderboard.experiments", "e5"
"""Where the report's words are: ``templates/e5.md`` of the package."""
PAPER_RATIO = 30 / 209
"""The paper's largest ``k`` over its training rows (a third of 628)."""
BLOCK = 50


def e5_block(
    *,
    design_name: str,
    reps: tuple[int, ...],
    rep_seeds: tuple[int, ...],
    data_seed: int,
    ks: tuple[int, ...] = FULL_K,
    p: int = P,
) -> Any:
    """Repetitions ``reps`` of Fig. 2 on one design (drawn from ``data_seed``);
    repetition ``reps[i]`` permutes the responses with ``rep_seeds[i]``.

    A tidy DataFrame with one row per repetition, board and ``k``: ``rep``,
    ``design``, ``board``, ``alpha`` (NaN for full disclosure), ``k``,
    ``n_train`` (training rows), ``public_mse`` (the final model's exact public MSE), ``final_mse``,
    ``dmse`` and ``released`` (the board's release for the final model).

    >>> frame = e5_block(design_name="simulated", reps=(0,), rep_seeds=(1,), data_seed=2,
    ...                  ks=(10,))
    >>> frame[["board", "k"]].values.tolist()[:2]
    [['FullDisclosure', 10], ['Ladder(alpha=0.01)', 10]]
    >>> bool((frame.dmse == frame.public_mse - frame.final_mse).all())
    True
    """
    import pandas as pd

    if design_name not in DESIGNS:
        raise ValueError(f"design_name must be one of {DESIGNS}, got {design_name!r}")
    if len(reps) != len(rep_seeds):
        raise ValueError(
            f"reps and rep_seeds must have one entry each, got {len(reps)} and {len(rep_seeds)}"
        )
    ks = tuple(sorted({check_int("k", k, 1) for k in ks}))
    p = check_int("p", p, max(ks))
    rows = []
    with single_threaded():
        base = design(design_name, p=p, n=AD_N, random_state=data_seed)
        for rep, seed in zip(reps, rep_seeds, strict=True):
            data = permuted(base, repetition_generator(seed))
            for alpha in BOARDS:
                _, models = freedman_path(data, alpha, ks)
                for k, model in models.items():
                    rows.append(
                        {
                            "rep": rep,
                            "design": design_name,
                            "board": board_label(alpha),
                            "alpha": np.nan if alpha is None else alpha,
                            "k": k,
                            "n_train": data.y_train.size,
                            "public_mse": model.public_mse,
                            "final_mse": model.final_mse,
                            "dmse": model.public_mse - model.final_mse,
                            "released": model.released,
                        }
                    )
    return pd.DataFrame(rows)


def e5_tasks(*, reps: int, quick: bool, seed: int) -> list[Task]:
    """Per design, blocks of up to 50 repetitions; the seeds name the design
    and the repetition, not the block."""
    ks = QUICK_K if quick else FULL_K
    return block_tasks(
        e5_block, "e5", DESIGNS, part_key="design_name", reps=reps, block=BLOCK, seed=seed, ks=ks
    )


# --------------------------------------------------------------------- outputs
_COLOURS = {
    FULL_DISCLOSURE: "tab:red",
    board_label(0.01): "tab:green",
    board_label(0.15): "tab:blue",
    board_label(0.5): "tab:purple",
}


def e5_plot(frame: Any, stem: Path) -> list[Path]:
    """ΔMSE over k per board (median and interquartile band), one panel per design."""
    figure, axes = new_figure(len(DESIGNS))
    for ax, name in zip(axes, DESIGNS, strict=True):
        part = frame[frame.design == name]
        for board, colour in _COLOURS.items():
            stats = part[part.board == board].groupby("k").dmse.quantile([0.25, 0.5, 0.75])
            stats = stats.unstack()
            ax.plot(stats.index, stats[0.5], color=colour, marker="o", markersize=3, label=board)
            ax.fill_between(
                stats.index, stats[0.25], stats[0.75], color=colour, alpha=0.15, linewidth=0
            )
        ax.axhline(0.0, color="black", linewidth=0.8)
        ax.set_title(f"{name} design")
        ax.set_xlabel("k (features in the final model)")
        ax.set_ylabel("ΔMSE = MSE_public − MSE_final")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower left")
    figure.suptitle(
        f"E5 (Chaibub Neto et al. 2016, Fig. 2): Freedman's attack, {P} features, permuted "
        f"responses\nmedian and IQR over {frame.rep.nunique()} permutations"
    )
    return save_figure(figure, stem)


def _median(frame: Any, board: str, k: int, column: str = "dmse") -> float:
    at = frame[(frame.board == board) & (frame.k == k)]
    return float(at[column].median())


def _claims(part: Any) -> list[list[str]]:
    """The paper's qualitative claims about Fig. 2, checked on one design, up
    to :func:`reference_k`."""
    k_lo, k_hi = int(part.k.min()), reference_k(part)
    fd = {
        column: [_median(part, FULL_DISCLOSURE, k, column) for k in (k_lo, k_hi)]
        for column in ("public_mse", "final_mse", "dmse")
    }
    strict = [abs(_median(part, board_label(0.01), k)) for k in sorted(set(part.k)) if k <= k_hi]
    at_hi = [_median(part, board_label(a), k_hi) for a in ALPHAS]
    small = all(abs(v) < abs(fd["dmse"][1]) / 2 for v in at_hi)
    increasing = at_hi[0] >= at_hi[1] >= at_hi[2]
    text = load_template(*_TEXT)
    return [
        [
            text.part("claim_public"),
            text.part(
                "measured_public",
                low=f"{fd['public_mse'][0]:.3f}",
                high=f"{fd['public_mse'][1]:.3f}",
                k_low=k_lo,
                k_high=k_hi,
            ),
            _yes(fd["public_mse"][1] < fd["public_mse"][0]),
        ],
        [
            text.part("claim_final"),
            text.part(
                "measured_final", low=f"{fd['final_mse'][0]:.3f}", high=f"{fd['final_mse'][1]:.3f}"
            ),
            _yes(fd["final_mse"][1] > fd["final_mse"][0]),
        ],
        [
            text.part("claim_overfits"),
            text.part("measured_overfits", low=f"{fd['dmse'][0]:.3f}", high=f"{fd['dmse'][1]:.3f}"),
            _yes(fd["dmse"][1] < fd["dmse"][0] < 0),
        ],
        [
            text.part("claim_strict"),
            text.part("measured_strict", largest=f"{max(strict):.3f}"),
            _yes(max(strict) < 0.1),
        ],
        [
            text.part("claim_alpha"),
            text.part(
                "measured_alpha",
                k_high=k_hi,
                per_alpha=", ".join(
                    f"α {a:g}: {v:.3f}" for a, v in zip(ALPHAS, at_hi, strict=True)
                ),
                full=f"{fd['dmse'][1]:.3f}",
            ),
            text.part("held_alpha", small=_yes(small), increasing=_yes(increasing)),
        ],
    ]


def reference_k(part: Any) -> int:
    """The largest ``k`` run with ``k / n_train`` at most the paper's 30/209.

    Beyond it a least-squares fit on the few training rows of the real design
    (63) is mostly variance, which the paper's 209 rows did not face.
    """
    limit = PAPER_RATIO * int(part.n_train.iloc[0]) + 1e-9
    ks = sorted(k for k in set(part.k) if k <= limit)
    return int(ks[-1] if ks else min(part.k))


def _yes(held: bool) -> str:
    return "yes" if held else "no"


def e5_report(frame: Any, info: RunInfo) -> str:
    """Median [IQR] of ΔMSE per board at a few k, and the paper's claims checked."""
    text = load_template(*_TEXT)
    ks = [k for k in (1, 5, 9, 15, 20, 30) if k in set(frame.k)]
    designs = []
    for name in DESIGNS:
        part = frame[frame.design == name]
        if part.empty:
            continue
        rows = [
            [
                board,
                *(summary_interval(part[(part.board == board) & (part.k == k)].dmse) for k in ks),
            ]
            for board in _COLOURS
        ]
        designs.append(
            text.part(
                "design",
                design=name.capitalize(),
                table=markdown_table(["board", *(f"k = {k}" for k in ks)], rows),
                reference_k=reference_k(part),
                n_train=int(part.n_train.iloc[0]),
                claims_table=markdown_table(
                    ["paper (Fig. 2 text)", "measured", "held"], _claims(part)
                ),
            )
        )
    command = f"ladderboard experiment run e5 --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    return text.report(
        p=P,
        reps=frame.rep.nunique(),
        ad_n=AD_N,
        designs=paragraphs(*designs),
        run_line=run_line(info, command),
    )


EXPERIMENT = E5 = Experiment(
    id="e5",
    aliases=("freedman-dmse", "freedman-overfitting"),
    description=(
        "Neto Fig. 2: ΔMSE = public − final MSE of Freedman's attack for k = 1..30, full "
        "disclosure vs Ladder α ∈ {0.01, 0.15, 0.5}, permuted responses, 300 features"
    ),
    reps=1000,
    quick_reps=10,
    tasks=e5_tasks,
    plot=e5_plot,
    report=e5_report,
)
