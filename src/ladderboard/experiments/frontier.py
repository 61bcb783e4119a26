"""The protection-utility frontier: what each mechanism and setting concedes to
the binding attack (its raw gain over a fixed blind reference) against what it
costs honest teams.

For every setting of :func:`ladderboard.advisor.grid.default_grid` (full
disclosure, the Ladder, the parameter-free and significance ladders, the
Shaky Ladder at several noise and step multiples of ``1/√n``, LadderBoot and
the Bayesian-bootstrap ladders), on ``n = 4000`` public labels with ``k = 400``
submissions and the 0/1 loss (the set-up of Blum & Hardt 2015, Sec. 5.1):

* *protection*: each applicable attack of the suite (boosting, generalised
  boosting, majority, shifted majority, near-duplicate hill-climbing, and
  the averaging attack through near-duplicates on bootstrap boards) plays
  the board; its raw gain is the true loss of what it would select minus
  what the board displays at the end
  (:func:`ladderboard.advisor.protection.attack_measures`; Blum & Hardt
  2015, Def. 2.1). The binding attack is the one with the largest mean raw
  gain; its excess gain is that raw gain minus the best of ``k`` blind files
  on the noiseless full-disclosure board of the same labels
  (:func:`ladderboard.advisor.summarise`), reported with its 95 % interval
  over repetitions, beside the raw gain and the leaderboard error (lberr) of
  the attacks' sequences.
* *utility*: 20 honest teams of 40 submissions each
  (:mod:`ladderboard.advisor.honest`): Kendall's tau between the released and
  the private board, the share of true improvements released at once, and the
  median number of submissions until an improvement shows.

Each repetition is one task, drawing the hidden data once for all settings.
The chart puts protection (the binding excess gain) against utility (tau, and the share
released), a labelled point per setting; the report holds the table behind it
and the advisor's recommendation (:func:`ladderboard.advisor.recommend`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, TypedDict

from ladderboard.advisor.advice import eligible, grid_tasks, recommend, summarise
from ladderboard.advisor.grid import shaky_default_label
from ladderboard.advisor.honest import HonestTeams
from ladderboard.experiments.registry import Experiment, RunInfo
from ladderboard.mechanisms.traits import families
from ladderboard.tasks.reports import (
    load_template,
    markdown_table,
    new_figure,
    run_line,
    save_figure,
)
from ladderboard.tasks.runner import Task

__all__ = ["EXPERIMENT", "FRONTIER", "FULL", "QUICK", "frontier_tasks"]


class _Size(TypedDict):
    """A run's holdout size, attack budget and honest teams."""

    n: int
    k: int
    model: HonestTeams


FULL: _Size = {"n": 4000, "k": 400, "model": HonestTeams(teams=20, submissions=40)}
QUICK: _Size = {"n": 200, "k": 30, "model": HonestTeams(teams=8, submissions=15)}
SCORE = "zero_one"

_PALETTE = (
    "tab:red",
    "tab:orange",
    "tab:blue",
    "tab:cyan",
    "tab:purple",
    "tab:green",
    "tab:olive",
    "tab:brown",
    "tab:pink",
)
"""The colours of the mechanism families, given in the cards' order
(:func:`~ladderboard.mechanisms.traits.families`)."""


def _colours() -> dict[str, str]:
    """Each mechanism family's colour: a new family gets the next one."""
    return {family: _PALETTE[i % len(_PALETTE)] for i, family in enumerate(families())}


def frontier_tasks(*, reps: int, quick: bool, seed: int) -> list[Task]:
    """One task per repetition (every setting), each with its own seed.

    >>> len(frontier_tasks(reps=2, quick=True, seed=0))
    2
    """
    size = QUICK if quick else FULL
    return grid_tasks(
        reps=reps,
        seed=seed,
        score=SCORE,
        n=size["n"],
        k=size["k"],
        model=size["model"],
        name="frontier",
    )


def frontier_plot(frame: Any, stem: Path) -> list[Path]:
    """Protection (the binding attack's excess gain, with its 95 % interval)
    against tau and the share of true improvements released, a labelled
    point per setting."""
    summary = summarise(frame)
    figure, axes = new_figure(2, width=6.4, height=5.2)
    panels = (
        ("tau", "Kendall's tau, released vs private board"),
        ("share_released", "share of true improvements released at once"),
    )
    for ax, (column, ylabel) in zip(axes, panels, strict=True):
        for family, colour in _colours().items():
            rows = summary[summary.family == family]
            if rows.empty:
                continue
            ax.errorbar(
                rows.excess_gain,
                rows[column],
                xerr=[
                    (rows.excess_gain - rows.excess_low).fillna(0.0),
                    (rows.excess_high - rows.excess_gain).fillna(0.0),
                ],
                fmt="o",
                color=colour,
                markersize=5,
                capsize=2,
                label=family,
            )
        for label, row in summary.iterrows():
            if math.isfinite(row.excess_gain) and math.isfinite(row[column]):
                ax.annotate(
                    label,
                    (row.excess_gain, row[column]),
                    fontsize=6,
                    xytext=(3, 2),
                    textcoords="offset points",
                )
        ax.axvline(0.0, color="grey", linewidth=0.8)
        ax.set_xlabel("binding excess gain (raw gain − the blind reference, 0/1 loss)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    axes[0].legend(loc="lower left", fontsize=7)
    figure.suptitle(
        f"Protection vs utility: mean and 95 % interval over {frame.rep.nunique()} "
        "repetitions (left and up is better)"
    )
    return save_figure(figure, stem)


def _fmt(value: float, spec: str) -> str:
    if math.isnan(value):
        return "—"
    if math.isinf(value):
        return "never"
    return format(value, spec)


def frontier_report(frame: Any, info: RunInfo) -> str:
    """The table behind the chart, the recommendation and the command."""
    size = QUICK if info.quick else FULL
    summary = summarise(frame)
    best = recommend(summary)
    shaky = [s for s in summary.index if summary.loc[s, "family"] == "shaky-ladder"]
    best_shaky = recommend(summary, among=shaky) if shaky else None
    rows = [
        [
            label,
            row.binding_attack,
            _fmt(row.excess_gain, "+.4f"),
            f"[{_fmt(row.excess_low, '+.4f')}, {_fmt(row.excess_high, '+.4f')}]",
            _fmt(row.gain, "+.4f"),
            _fmt(row.lberr, ".4f"),
            _fmt(row.tau, ".3f"),
            _fmt(row.share_released, ".2f"),
            _fmt(row.median_delay, ".1f"),
        ]
        for label, row in summary.iterrows()
    ]
    attack_columns = [c for c in summary.columns if c.startswith("gap: ")]
    gap_rows = [
        [label, *(_fmt(row[c], "+.4f") for c in attack_columns)]
        for label, row in summary.iterrows()
    ]
    excess_columns = [c for c in summary.columns if c.startswith("excess: ")]
    excess_rows = [
        [label, *(_fmt(row[c], "+.4f") for c in excess_columns)]
        for label, row in summary.iterrows()
    ]
    command = f"ladderboard experiment run frontier --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    model = size["model"]
    text = load_template("ladderboard.experiments", "frontier")
    shaky_sentence = ""
    if best_shaky:
        within = best_shaky in eligible(summary)
        shaky_sentence = text.part(
            "shaky",
            best_shaky=best_shaky,
            why=text.part("shaky_eligible" if within else "shaky_none_eligible"),
            shaky_default=shaky_default_label(),
        )
    header = [
        "setting",
        "binding attack",
        "excess gain",
        "95 % interval",
        "gain",
        "lberr",
        "tau",
        "share released",
        "delay",
    ]
    return text.report(
        n=size["n"],
        n_private=2 * size["n"],
        k=size["k"],
        teams=model.teams,
        submissions=model.submissions,
        table=markdown_table(header, rows),
        best=best,
        shaky=shaky_sentence,
        gap_table=markdown_table(["setting", *(c[5:] for c in attack_columns)], gap_rows),
        excess_table=markdown_table(["setting", *(c[8:] for c in excess_columns)], excess_rows),
        run_line=run_line(info, command),
    )


EXPERIMENT = FRONTIER = Experiment(
    id="frontier",
    aliases=("protection-utility", "advisor-frontier"),
    description=(
        "Protection vs utility for every mechanism and setting: the binding attack's "
        "excess gain against honest teams' tau and share of improvements released, n=4000, k=400"
    ),
    reps=5,
    quick_reps=2,
    tasks=frontier_tasks,
    plot=frontier_plot,
    report=frontier_report,
)
