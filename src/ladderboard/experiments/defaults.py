"""The evidence behind the project's defaults: every mechanism and setting at
``n = 4000`` public labels, attacked with budgets of 100, 1000 and 10 000
submissions.

A default has to hold for competitions whose budget nobody knows in advance.
The rule (:mod:`ladderboard.advisor.defaults`): at every budget, every
attack's excess gain (its gain beyond as many submissions chosen without
reading a score on the same board) at most ``1/√n``, and honest teams'
Kendall tau between the released and the private board within 0.02 of full
disclosure's. The run compares the advisor's grid with the wide Shaky grid of
the largest budget (noise 0.25-3 × ``1/√n``, step up to the ratio of the
Shaky Ladder's analysis, Hardt 2017, eq. 2), under the 0/1 loss, with 20
honest teams of 40 submissions each. Boosting, majority and shifted majority
play every budget in full; generalised boosting and the averaging variants
on bootstrap boards play at most :data:`~ladderboard.advisor.protection.
SLOW_ATTACK_CAP` (1000) submissions.

The report names the recommended default mechanism (the one the organiser's
page and ``ladderboard advise`` fall back on) and the Shaky Ladder's default
parameters, each chosen by the rule; when no setting meets it, the closest,
by how much, and the attack that binds. The chart shows each family's best
setting's binding excess gain over the budget against the ``1/√n`` line, and
every setting's worst excess gain against its tau.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, TypedDict

from ladderboard.advisor.advice import grid_tasks
from ladderboard.advisor.defaults import (
    DEFAULT_BUDGETS,
    DEFAULT_N,
    DEFAULT_TAU_TOLERANCE,
    DefaultChoice,
    across_budgets,
    default_choice,
)
from ladderboard.advisor.grid import KAGGLE_LABEL, shaky_default_label
from ladderboard.advisor.honest import HonestTeams
from ladderboard.advisor.protection import SLOW_ATTACK_CAP
from ladderboard.experiments.registry import Experiment, RunInfo
from ladderboard.tasks.reports import markdown_table, new_figure, run_line, save_figure
from ladderboard.tasks.runner import Task

__all__ = ["DEFAULTS", "EXPERIMENT", "FULL", "QUICK", "defaults_tasks"]


class _Size(TypedDict):
    n: int
    budgets: tuple[int, ...]
    model: HonestTeams
    wide: bool


FULL: _Size = {
    "n": DEFAULT_N,
    "budgets": DEFAULT_BUDGETS,
    "model": HonestTeams(teams=20, submissions=40),
    "wide": True,
}
QUICK: _Size = {
    "n": 200,
    "budgets": (10, 30),
    "model": HonestTeams(teams=8, submissions=15),
    "wide": False,
}
SCORE = "zero_one"
NAME = "defaults"


def defaults_tasks(*, reps: int, quick: bool, seed: int, first_rep: int = 0) -> list[Task]:
    """One task per budget and repetition (repetitions ``first_rep``, …), each
    with its own seed: a run split into chunks of repetitions gives the same
    table as one run.

    >>> len(defaults_tasks(reps=2, quick=True, seed=0))
    4
    """
    size = QUICK if quick else FULL
    tasks: list[Task] = []
    for r in range(first_rep, first_rep + reps):
        for k in size["budgets"]:
            tasks += grid_tasks(
                reps=1,
                first_rep=r,
                seed=seed,
                score=SCORE,
                n=size["n"],
                k=k,
                model=size["model"],
                name=NAME,
                wide=size["wide"],
                wide_k=max(size["budgets"]),
            )
    return tasks


def _n_of(frame: Any) -> int:
    return int(frame.n.iloc[0])


def _family_best(table: Any, n: int) -> dict[str, str]:
    """The rule's choice within each family."""
    best = {}
    for family in dict.fromkeys(table.family):
        labels = [s for s in table.index if table.loc[s, "family"] == family]
        best[family] = default_choice(table, n=n, among=labels).label
    return best


def defaults_plot(frame: Any, stem: Path) -> list[Path]:
    """Left: each family's best setting's binding excess gain (95 % interval)
    over the budget, with the ``1/√n`` bound. Right: every setting's worst
    excess gain against its tau, with the rule's region."""
    n = _n_of(frame)
    table = across_budgets(frame)
    budgets = sorted(int(k) for k in frame.k.unique())
    per_k = {k: across_budgets(frame[frame.k == k]) for k in budgets}
    bound = 1 / math.sqrt(n)
    figure, (left, right) = new_figure(2, width=6.4, height=5.0)
    for label in _family_best(table, n).values():
        means = [per_k[k].loc[label, "excess_gain"] for k in budgets]
        lows = [per_k[k].loc[label, "excess_low"] for k in budgets]
        highs = [per_k[k].loc[label, "excess_high"] for k in budgets]
        left.errorbar(
            budgets,
            means,
            yerr=[
                [m - lo if math.isfinite(lo) else 0.0 for m, lo in zip(means, lows, strict=True)],
                [hi - m if math.isfinite(hi) else 0.0 for m, hi in zip(means, highs, strict=True)],
            ],
            marker="o",
            capsize=2,
            label=label,
        )
    left.axhline(bound, color="grey", linestyle="--", linewidth=0.8, label="1/√n")
    left.set_xscale("log")
    left.set_xlabel("budget k (submissions per attacker)")
    left.set_ylabel("binding excess gain (0/1 loss)")
    left.legend(fontsize=7)
    left.grid(alpha=0.3)
    reference = table.loc[KAGGLE_LABEL, "tau"]
    right.axvline(bound, color="grey", linestyle="--", linewidth=0.8)
    right.axhline(reference - DEFAULT_TAU_TOLERANCE, color="grey", linestyle=":", linewidth=0.8)
    right.scatter(table.excess_gain, table.tau, s=14)
    for label, row in table.iterrows():
        if math.isfinite(row.excess_gain) and math.isfinite(row.tau):
            right.annotate(
                label,
                (row.excess_gain, row.tau),
                fontsize=5,
                xytext=(2, 2),
                textcoords="offset points",
            )
    right.set_xscale("symlog", linthresh=bound)
    right.set_xlabel("worst binding excess gain over the budgets")
    right.set_ylabel("honest teams' Kendall tau")
    right.grid(alpha=0.3)
    figure.suptitle(
        f"The defaults' rule at n = {n}: excess gain at most 1/√n at every budget, "
        f"tau within {DEFAULT_TAU_TOLERANCE} of full disclosure's"
    )
    return save_figure(figure, stem)


def _fmt(value: Any, spec: str) -> str:
    if not isinstance(value, (int, float)) or math.isnan(value):
        return "—"
    return format(value, spec)


def _tau_words(gap: float) -> str:
    return f"{abs(gap):.3f} {'below' if gap > 0 else 'above'} full disclosure's"


def _sentence(choice: DefaultChoice, what: str) -> str:
    where = f"{choice.binding_attack} at k = {choice.worst_k}"
    gain = (
        f"{choice.excess_gain:+.4f} (the 95 % intervals over the budgets reach "
        f"{choice.excess_high:+.4f})"
    )
    if choice.meets:
        return (
            f"{what}: **{choice.label}**. It meets the rule: its worst excess gain is {gain}, "
            f"from {where}, against the bound 1/√n = {choice.bound:.4f}; its tau is "
            f"{_tau_words(choice.tau_gap)}."
        )
    return (
        f"{what}: no setting meets the rule; the closest is **{choice.label}**, whose worst "
        f"excess gain {gain}, from {where}, exceeds 1/√n = {choice.bound:.4f} by "
        f"{choice.over_bound:.4f}; its tau is {_tau_words(choice.tau_gap)}."
    )


def defaults_report(frame: Any, info: RunInfo) -> str:
    """The rule's two choices, the table behind them and the command."""
    size = QUICK if info.quick else FULL
    n = _n_of(frame)
    table = across_budgets(frame)
    budgets = sorted(int(k) for k in frame.k.unique())
    overall = default_choice(table, n=n)
    shaky = [s for s in table.index if table.loc[s, "family"] == "shaky-ladder"]
    shaky_choice = default_choice(table, n=n, among=shaky) if shaky else None
    floor = table.loc[KAGGLE_LABEL, "tau"] - DEFAULT_TAU_TOLERANCE
    rows = [
        [
            label,
            _fmt(row.worst_k, ".0f"),
            row.binding_attack or "—",
            _fmt(row.excess_gain, "+.4f"),
            f"[{_fmt(row.excess_low, '+.4f')}, {_fmt(row.worst_high, '+.4f')}]",
            _fmt(row.excess_high, "+.4f"),
            *(_fmt(row[f"excess k={k}"], "+.4f") for k in budgets),
            _fmt(row.tau, ".3f"),
            "yes"
            if row.excess_gain <= 1 / math.sqrt(n) and row.tau >= floor
            else ("tau" if row.excess_gain <= 1 / math.sqrt(n) else "gain"),
        ]
        for label, row in table.iterrows()
    ]
    command = f"ladderboard experiment run defaults --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    model = size["model"]
    sections = [
        "# The defaults and the measurements behind them",
        f"n = {n} public labels (and {2 * n} private), 0/1 loss, attack budgets k = "
        f"{', '.join(str(k) for k in budgets)}; {model.teams} honest teams of "
        f"{model.submissions} submissions each. The rule: at every budget, every attack's "
        f"excess gain (its gain, true minus released loss of its final submission, less that "
        f"of as many submissions chosen without reading a score on the same board) at most "
        f"1/√n = {1 / math.sqrt(n):.4f}, and honest teams' Kendall tau between the released "
        f"and the private board at least full disclosure's minus {DEFAULT_TAU_TOLERANCE} "
        f"(here {floor:.3f}). Boosting, majority and shifted majority play every budget in "
        f"full; generalised boosting and the averaging variants at most {SLOW_ATTACK_CAP} "
        f"submissions. Among the settings that meet it, the one whose protection "
        "is best established is chosen: the lowest top of the 95 % interval on its worst "
        "excess gain.",
        _sentence(overall, "The recommended default mechanism"),
        (
            _sentence(shaky_choice, "The Shaky Ladder's default")
            + f" The shipped default (`ShakyLadder()`) is {shaky_default_label()}."
            if shaky_choice is not None
            else ""
        ),
        markdown_table(
            [
                "setting",
                "worst k",
                "binding attack",
                "excess gain",
                "95 % interval",
                "top over k",
                *(f"k={k}" for k in budgets),
                "tau",
                "meets",
            ],
            rows,
        ),
        "The excess gain and its interval are the binding attack's at the worst budget; top "
        "over k is the highest top of the binding attack's interval at any budget (what the "
        "rule ranks by); the k columns are the binding excess gain at each budget; meets says "
        "yes, or which half of the rule fails (gain or tau). Intervals are Student's t over "
        "repetitions.",
        run_line(info, command),
    ]
    return "\n\n".join(s for s in sections if s) + "\n"


EXPERIMENT = DEFAULTS = Experiment(
    id="defaults",
    aliases=("default-mechanism",),
    description=(
        "The defaults' rule: every setting at n=4000 against every attack at k=100, 1000, "
        "10000 (excess gain <= 1/sqrt(n)) and honest teams (tau within 0.02 of Kaggle's)"
    ),
    reps=20,
    quick_reps=2,
    tasks=defaults_tasks,
    plot=defaults_plot,
    report=defaults_report,
)
