"""E12's figure and report (Dwork et al. 2015, Science, Figs. 1-2): what a run of
:mod:`ladderboard.experiments.e12_reusable_holdout` shows, apart from what it
computes. The report's words are in ``templates/e12.md``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ladderboard.experiments._e12_measure import (
    ARM_TITLES,
    ARMS,
    SCIENCE_SWEEP_ARM,
    SIGNAL_ATTRIBUTES,
    SIGNAL_MULTIPLE,
    THRESHOLD_ARMS,
    THRESHOLD_MULTIPLE,
)
from ladderboard.experiments.registry import RunInfo
from ladderboard.mechanisms.thresholdout import DEFAULT_NOISE_MULTIPLE
from ladderboard.tasks.reports import (
    load_template,
    markdown_table,
    paragraphs,
    run_line,
    save_figure,
)

_TEXT = "ladderboard.experiments", "e12"
"""Where the report's words are: ``templates/e12.md`` of the package."""


def _oracle_accuracy(n: int) -> float:
    """Fig. 2's best classifier, the sum of the 20 signal attributes:
    ``Φ(bias·√20)`` with ``bias = 6/√n``."""
    z = SIGNAL_MULTIPLE / math.sqrt(n) * math.sqrt(SIGNAL_ATTRIBUTES)
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def e12_plot(frame: Any, stem: Path) -> list[Path]:
    """Rows: Figs. 1 and 2; columns: the standard holdout, Thresholdout, the
    ladders (their answer solid, fresh dashed)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(20.8, 7.6), layout="constrained")
    axes = figure.subplots(2, 4, squeeze=False)
    columns = ["train", "holdout", "fresh", "answered_fresh"]
    stats = frame.groupby(["figure", "arm", "k"])[columns].agg(["mean", "std"])
    for row, fig in enumerate((1, 2)):
        for col, arm in enumerate(THRESHOLD_ARMS):
            ax = axes[row][col]
            part = stats.loc[(fig, arm)]
            for column in ("train", "holdout", "fresh"):
                ax.errorbar(
                    part.index,
                    part[(column, "mean")],
                    yerr=part[(column, "std")].fillna(0.0),
                    capsize=2,
                    marker="o",
                    markersize=3,
                    label=column,
                )
            ax.set_title(f"Fig. {fig}{'ABB'[col]}: {ARM_TITLES[arm]}")
        ax = axes[row][3]
        for arm in ("PF Ladder", "Shaky Ladder", "PF Ladder, plain check"):
            part = stats.loc[(fig, arm)]
            line = ax.plot(part.index, part[("holdout", "mean")], marker="o", ms=3, label=arm)
            ax.plot(
                part.index, part[("answered_fresh", "mean")], ls="--", color=line[0].get_color()
            )
        ax.set_title(f"Fig. {fig} data: ladders (solid: release, dashed: its fresh)")
        for ax in axes[row]:
            ax.axhline(0.5, color="grey", lw=0.8)
            if fig == 2:
                ax.axhline(_oracle_accuracy(int(frame.n.iloc[0])), color="grey", lw=0.8, ls=":")
            ax.set_xlabel("number of variables k")
            ax.set_ylabel("accuracy")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
    n, d = int(frame.n.iloc[0]), int(frame.d.iloc[0])
    figure.suptitle(
        f"E12 (Dwork et al. 2015): n = {n}, d = {d}, mean ± sd over "
        f"{frame.rep.nunique()} repetitions (dotted: the 20 signal attributes' accuracy)"
    )
    return save_figure(figure, stem)


def _t_interval(values: Any) -> str:
    """Mean and the half-width of its 95 % Student-t interval over repetitions."""
    from scipy import stats

    values = np.asarray(values, dtype=np.float64)
    mean = float(values.mean())
    if values.size < 2:
        return f"{mean:.3f}"
    half = stats.t.ppf(0.975, values.size - 1) * values.std(ddof=1) / math.sqrt(values.size)
    return f"{mean:.3f} ± {half:.3f}"


def _sweep_section(frame: Any, n: int) -> str:
    """The noise scales compared (the repetitions run with ``sweep``): how
    much budget the correlation queries spend, none of which overfits, and
    how far the answers to overfit accuracy queries are from fresh data."""
    swept = frame[frame.arm.str.startswith("σ = ") | (frame.arm == SCIENCE_SWEEP_ARM)]
    if swept.empty:
        return ""
    threshold = THRESHOLD_MULTIPLE / math.sqrt(n)
    d = int(frame.d.iloc[0])
    arms = sorted(
        set(swept.arm) - {SCIENCE_SWEEP_ARM}, key=lambda arm: -float(arm[4:].split("/")[0])
    )
    arms.append(SCIENCE_SWEEP_ARM)
    science_row = load_template(*_TEXT).part("science_sweep_row")
    rows = []
    for fig in (1, 2):
        for arm in arms:
            part = frame[(frame.figure == fig) & (frame.arm == arm)]
            if part.empty:
                continue
            per_rep = part.groupby("rep")
            error = (part.holdout - part.fresh).abs()
            rows.append(
                [
                    fig,
                    arm[4:] if arm != SCIENCE_SWEEP_ARM else science_row,
                    _t_interval(per_rep.correlation_answers.first() / d),
                    _t_interval(per_rep.from_holdout.mean()),
                    _t_interval(error.groupby(part.rep).mean()),
                    _t_interval(error.groupby(part.rep).max()),
                    _t_interval((error > threshold).groupby(part.rep).mean()),
                ]
            )
    header = [
        "figure",
        "σ",
        "correlation queries from the holdout",
        "accuracy queries from the holdout",
        "mean distance to fresh",
        "largest distance to fresh",
        "answers farther than T from fresh",
    ]
    return load_template(*_TEXT).part(
        "sweep",
        reps=swept.rep.nunique(),
        threshold_multiple=f"{THRESHOLD_MULTIPLE:g}",
        d=d,
        queries=d + len(frame.k.unique()),
        table=markdown_table(header, rows),
    )


def _cell(part: Any, column: str) -> str:
    values = part[column]
    sd = values.std()
    return f"{values.mean():.3f} ± {0.0 if not math.isfinite(sd) else sd:.3f}"


def e12_report(frame: Any, info: RunInfo) -> str:
    """Train / answered / fresh accuracy per arm at a few k, beside the paper's."""
    n, d = int(frame.n.iloc[0]), int(frame.d.iloc[0])
    ks = sorted(int(k) for k in frame.k.unique())
    shown = sorted({ks[0], ks[len(ks) // 2], ks[-1]})
    text = load_template(*_TEXT)
    sections = []
    for fig in (1, 2):
        rows = []
        for arm in ARMS:
            for k in shown:
                part = frame[(frame.figure == fig) & (frame.arm == arm) & (frame.k == k)]
                if part.empty:
                    continue
                rows.append(
                    [
                        arm,
                        k,
                        f"{part.selected.mean():.0f}",
                        _cell(part, "train"),
                        _cell(part, "holdout"),
                        _cell(part, "holdout_exact"),
                        _cell(part, "fresh"),
                        _cell(part, "answered_fresh"),
                    ]
                )
        title = (
            text.part("fig1_title")
            if fig == 1
            else text.part("fig2_title", oracle_accuracy=f"{_oracle_accuracy(n):.3f}")
        )
        header = ["arm", "k", "used", "train", "answered", "exact holdout", "fresh", "its fresh"]
        sections.append(text.part("figure_table", title=title, table=markdown_table(header, rows)))
    kmax = ks[-1]

    def at(fig: int, arm: str, column: str) -> str:
        part = frame[(frame.figure == fig) & (frame.arm == arm) & (frame.k == kmax)]
        return f"{float(part[column].mean()):.3f}"

    last = frame[(frame.arm == "thresholdout") & (frame.k == kmax)]
    spent = (last.correlation_answers + last.holdout_answers).mean()
    command = f"ladderboard experiment run e12 --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    return text.report(
        n=n,
        d=d,
        inverse_root_n=f"{1 / math.sqrt(n):.4f}",
        noise_multiple=f"{DEFAULT_NOISE_MULTIPLE:g}",
        arms=len(ARMS),
        reps=frame.rep.nunique(),
        figure_tables=paragraphs(*sections),
        kmax=kmax,
        fig1_holdout_answered=at(1, "holdout", "holdout"),
        fig1_holdout_train=at(1, "holdout", "train"),
        fig1_holdout_fresh=at(1, "holdout", "fresh"),
        fig1_thresholdout_answered=at(1, "thresholdout", "holdout"),
        fig1_thresholdout_fresh=at(1, "thresholdout", "fresh"),
        spent=f"{spent:.0f}",
        queries=d + len(ks),
        fig1_gaussian_answered=at(1, "Gaussian Thresholdout", "holdout"),
        fig1_gaussian_fresh=at(1, "Gaussian Thresholdout", "fresh"),
        fig1_ladder_answered=at(1, "PF Ladder", "holdout"),
        fig1_checked_answered=at(1, "PF Ladder, plain check", "holdout"),
        fig1_checked_fresh=at(1, "PF Ladder, plain check", "fresh"),
        fig2_holdout_answered=at(2, "holdout", "holdout"),
        fig2_holdout_fresh=at(2, "holdout", "fresh"),
        fig2_thresholdout_answered=at(2, "thresholdout", "holdout"),
        fig2_thresholdout_fresh=at(2, "thresholdout", "fresh"),
        fig2_gaussian_answered=at(2, "Gaussian Thresholdout", "holdout"),
        fig2_gaussian_fresh=at(2, "Gaussian Thresholdout", "fresh"),
        tail=paragraphs(_sweep_section(frame, n), run_line(info, command)),
    )
