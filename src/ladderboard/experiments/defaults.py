"""The evidence behind the project's defaults: every setting of the advisor's
grid at ``n = 4000`` public labels, attacked with budgets of 100, 1000 and
10 000 submissions.

A default has to hold for competitions whose budget nobody knows in advance.
The rule (:mod:`ladderboard.advisor.defaults`) reads the papers' yardstick:
the *raw gain* of the suite's binding attack (the true loss of what it would
select minus what the board displays at the end; Blum & Hardt 2015, Def.
2.1), against a reference no board's noise moves (the best of ``k`` blind
files on the noiseless full-disclosure board of the same labels, and the
floor ``√(log k / n)`` of Blum & Hardt 2015, Thm 3.3). A setting meets the
rule when its excess over that reference is at most ``1/√n`` at every budget
and honest teams' Kendall tau is within 0.01 of full disclosure's.

The suite (:func:`~ladderboard.advisor.protection.attacks_for`, 0/1 loss)
includes near-duplicate hill-climbing on every board (acceptance read from
the releases only, fishing at the end on boards that show their latest noisy
release; Hardt 2017, Sec. 3-4) and, on bootstrap boards, the averaging attack
through near-duplicates; both play every budget in full, as do boosting,
majority and shifted majority; generalised boosting plays at most
:data:`~ladderboard.advisor.protection.SLOW_ATTACK_CAP` submissions. Honest
teams (20 of 40 submissions each) do not depend on the attackers' budget and
are simulated at the smallest budget only. The settings are those of
:data:`SETTINGS`; the largest budget runs :func:`top_reps` of the
repetitions, as each of its repetitions costs ten times the others'.

The report prints the issue's goal beside the measurements: the default's
binding raw gain no larger than that of the fixed-step Ladder with
``η = 1/√n`` at every budget (a paired difference with its interval), with
honest teams' tau within 0.01 of full disclosure's.
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
    ETA_LADDER_LABEL,
    DefaultChoice,
    Goal,
    across_budgets,
    default_choice,
    goal,
)
from ladderboard.advisor.grid import KAGGLE_LABEL, shaky_default_label
from ladderboard.advisor.honest import HonestTeams
from ladderboard.advisor.protection import AVERAGING_T, SLOW_ATTACK_CAP
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

__all__ = [
    "DEFAULTS",
    "EXPERIMENT",
    "FULL",
    "GOAL",
    "QUICK",
    "SETTINGS",
    "defaults_tasks",
    "top_reps",
]


SETTINGS = (
    KAGGLE_LABEL,
    "Kaggle 1/√n",
    ETA_LADDER_LABEL,
    "Ladder η=2/√n",
    "Ladder η=4/√n",
    "PF Ladder",
    "Sig-Ladder α=0.01",
    "Sig-Ladder α=0.15",
    "Sig-Ladder α=0.5",
    shaky_default_label(),
    "Shaky σ=0.25 λ=0.5",
    "LadderBoot b=10",
    "LadderBoot b=100",
    "LadderBoot b=1000",
    "BayesBoot",
)
"""The settings compared: the advisor's grid (:func:`~ladderboard.advisor.grid.
default_grid`) with two Shaky settings, the shipped default and twice its
step (the Shaky settings with more noise fall further below full
disclosure's honest-team tau than the rule allows: ``ladderboard advise
--n 4000 --budget 100`` shows it), and without BayesBootBoot, whose every
submission costs a bootstrap of bootstraps; so the full run fits in an hour
on two busy cores."""


class _Size(TypedDict):
    n: int
    budgets: tuple[int, ...]
    model: HonestTeams


FULL: _Size = {
    "n": DEFAULT_N,
    "budgets": DEFAULT_BUDGETS,
    "model": HonestTeams(teams=20, submissions=40),
}
QUICK: _Size = {
    "n": 200,
    "budgets": (10, 30),
    "model": HonestTeams(teams=8, submissions=15),
}
SCORE = "zero_one"
NAME = "defaults"
_TEXT = "ladderboard.experiments", "defaults"
"""Where the report's words are: ``templates/defaults.md`` of the package."""
GOAL = load_template(*_TEXT).part("goal_statement")
"""The issue's goal, printed beside the measurements."""


def top_reps(reps: int, quick: bool) -> int:
    """Repetitions at the largest budget: a third of ``reps`` (at least 2) in
    a full run, all of them in a quick one.

    >>> top_reps(10, False), top_reps(20, False), top_reps(3, False), top_reps(2, True)
    (3, 6, 2, 2)
    """
    return reps if quick else min(reps, max(2, reps // 3))


def defaults_tasks(*, reps: int, quick: bool, seed: int, first_rep: int = 0) -> list[Task]:
    """One task per budget and repetition (repetitions ``first_rep``, …; the
    largest budget only for repetitions below :func:`top_reps`), each with its
    own seed: a run split into chunks of repetitions gives the same table as
    one run. The largest budget's tasks come first, so that the longest
    tasks start early.

    >>> len(defaults_tasks(reps=2, quick=True, seed=0))
    4
    >>> [t.kwargs["k"] for t in defaults_tasks(reps=4, quick=False, seed=0)]
    [10000, 10000, 1000, 1000, 1000, 1000, 100, 100, 100, 100]
    >>> defaults_tasks(reps=1, quick=False, seed=0)[0].kwargs["labels"] == SETTINGS
    True
    """
    size = QUICK if quick else FULL
    budgets = size["budgets"]
    top = top_reps(first_rep + reps, quick)
    tasks: list[Task] = []
    for k in sorted(budgets, reverse=True):
        for r in range(first_rep, first_rep + reps):
            if k == max(budgets) and r >= top:
                continue
            tasks += grid_tasks(
                reps=1,
                first_rep=r,
                seed=seed,
                score=SCORE,
                n=size["n"],
                k=k,
                model=size["model"],
                name=NAME,
                labels=SETTINGS,
                baselines=False,
                honest=k == min(budgets),
            )
    return tasks


def _n_of(frame: Any) -> int:
    return int(frame.n.iloc[0])


def _budgets(frame: Any) -> list[int]:
    return sorted(int(k) for k in frame.k.unique())


def _pm(mean: Any, half: Any, spec: str = ".3f") -> str:
    """``mean ± half``, or what is known of it."""
    if not isinstance(mean, (int, float)) or not math.isfinite(mean):
        return "—"
    if not isinstance(half, (int, float)) or not math.isfinite(half):
        return format(mean, spec)
    return f"{format(mean, spec)} ± {format(half, spec.lstrip('+'))}"


def _fmt(value: Any, spec: str) -> str:
    if not isinstance(value, (int, float)) or math.isnan(value):
        return "—"
    return format(value, spec)


HIGHLIGHT = (
    "PF Ladder",
    "Sig-Ladder α=0.15",
    "LadderBoot b=10",
    "BayesBoot",
    ETA_LADDER_LABEL,
)


def defaults_plot(frame: Any, stem: Path) -> list[Path]:
    """Left: the binding raw gain (Student-t 95 % interval) over the budget
    for the rule's choice and a few boards, with the fixed references. Right:
    every setting's worst excess over the reference against its tau, with the
    rule's region."""
    n = _n_of(frame)
    table = across_budgets(frame)
    budgets = _budgets(frame)
    choice = default_choice(table, n=n).label
    bound = 1 / math.sqrt(n)
    figure, (left, right) = new_figure(2, width=6.4, height=5.0)
    shown = list(dict.fromkeys([choice, *(s for s in HIGHLIGHT if s in table.index)]))
    for label in shown:
        means = [float(table.loc[label, f"gain k={k}"]) for k in budgets]
        halves = [float(table.loc[label, f"gain± k={k}"]) for k in budgets]
        left.errorbar(
            budgets,
            means,
            yerr=[h if math.isfinite(h) else 0.0 for h in halves],
            marker="o",
            capsize=2,
            label=f"{label} (the rule's choice)" if label == choice else label,
        )
    blind = [float(table[f"blind k={k}"].iloc[0]) for k in budgets]
    floor = [float(table[f"floor k={k}"].iloc[0]) for k in budgets]
    left.plot(budgets, blind, color="black", linestyle="--", linewidth=0.8, label="blind reference")
    left.plot(budgets, floor, color="grey", linestyle=":", linewidth=0.8, label="√(log k / n)")
    left.set_xscale("log")
    left.set_yscale("symlog", linthresh=bound)
    left.set_xlabel("budget k (submissions per attacker)")
    left.set_ylabel("binding raw gain (0/1 loss)")
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
    right.set_xlabel("worst excess over the blind reference, over the budgets")
    right.set_ylabel("honest teams' Kendall tau")
    right.grid(alpha=0.3)
    figure.suptitle(
        f"The defaults' rule at n = {n}: raw gain over the fixed reference at most 1/√n "
        f"at every budget, tau within {DEFAULT_TAU_TOLERANCE} of full disclosure's"
    )
    return save_figure(figure, stem)


def _tau_words(gap: float) -> str:
    side = "tau_below" if gap > 0 else "tau_above"
    return load_template(*_TEXT).part(side, gap=f"{abs(gap):.3f}")


def _sentence(choice: DefaultChoice, what: str) -> str:
    text = load_template(*_TEXT)
    bound = f"{choice.bound:.4f}"
    common = {
        "what": text.part(what),
        "label": choice.label,
        "gain": text.part(
            "gain",
            excess=f"{choice.excess_gain:+.4f}",
            raw_gain=f"{choice.raw_gain:.4f}",
            excess_high=f"{choice.excess_high:+.4f}",
        ),
        "binding_attack": choice.binding_attack,
        "worst_k": choice.worst_k,
        "tau_words": _tau_words(choice.tau_gap),
    }
    if choice.meets:
        return text.part("choice_meets", bound=bound, **common)
    if choice.over_bound > 0:
        fails = text.part("over_bound", bound=bound, over_bound=f"{choice.over_bound:.4f}")
    else:
        fails = text.part("tau_too_low", bound=bound)
    return text.part("choice_closest", fails=fails, **common)


def _goal_sentence(result: Goal, budgets: list[int], who: str = "rules_choice") -> str:
    text = load_template(*_TEXT)
    per_budget = [
        text.part(
            "goal_budget",
            k=k,
            gain=result.gain[k],
            eta_gain=result.eta_gain[k],
            difference=_pm(result.versus[k].mean, result.versus[k].half_width, "+.3f"),
        )
        for k in budgets
    ]
    reasons = []
    if not result.protected:
        reasons.append(text.part("not_protected"))
    if not result.useful:
        reasons.append(text.part("not_useful", tau_gap=f"{result.tau_gap:.3f}"))
    return text.part(
        "goal",
        who=text.part(who),
        label=result.label,
        eta_ladder=ETA_LADDER_LABEL,
        per_budget="; ".join(per_budget),
        tau_words=_tau_words(result.tau_gap),
        verdict=text.part("goal_met" if result.met else "goal_not_met"),
        because=text.part("goal_because", reasons="; ".join(reasons)) if reasons else "",
    )


def _beats_eta(table: Any, budgets: list[int]) -> list[str]:
    """Settings whose binding raw gain is below the η-Ladder's at every
    budget beyond the interval, at tau within the tolerance."""
    floor = table.loc[KAGGLE_LABEL, "tau"] - DEFAULT_TAU_TOLERANCE
    out = []
    for label, row in table.iterrows():
        if label == ETA_LADDER_LABEL or not row.tau >= floor:
            continue
        highs = [row[f"vs eta k={k}"] + row[f"vs eta± k={k}"] for k in budgets]
        if all(math.isfinite(h) and h < 0 for h in highs):
            out.append(str(label))
    return out


def defaults_report(frame: Any, info: RunInfo) -> str:
    """The goal, the rule's choices and the tables behind them, and the command."""
    size = QUICK if info.quick else FULL
    n = _n_of(frame)
    table = across_budgets(frame)
    budgets = _budgets(frame)
    reps_at = {k: int(frame[frame.k == k].rep.nunique()) for k in budgets}
    overall = default_choice(table, n=n)
    shaky = [s for s in table.index if table.loc[s, "family"] == "shaky-ladder"]
    shaky_choice = default_choice(table, n=n, among=shaky) if shaky else None
    floor = table.loc[KAGGLE_LABEL, "tau"] - DEFAULT_TAU_TOLERANCE
    bound = 1 / math.sqrt(n)
    has_eta = ETA_LADDER_LABEL in table.index
    result = goal(table, overall.label) if has_eta else None
    k_head = [f"k = {k}" for k in budgets]

    references = markdown_table(
        ["reference", *k_head],
        [
            [
                "best of k blind files, noiseless full-disclosure board (same labels)",
                *(
                    _pm(table[f"blind k={k}"].iloc[0], table[f"blind± k={k}"].iloc[0])
                    for k in budgets
                ),
            ],
            [
                "√(log k / n) (Blum & Hardt 2015, Thm 3.3)",
                *(f"{math.sqrt(math.log(k) / n):.3f}" for k in budgets),
            ],
            ["1/√n (the rule's bound on the excess)", *(f"{bound:.4f}" for _ in budgets)],
        ],
    )
    hill = markdown_table(
        ["setting", *k_head],
        [
            [label, *(_pm(row[f"hill k={k}"], row[f"hill± k={k}"]) for k in budgets)]
            for label, row in table.iterrows()
        ],
    )
    worst = markdown_table(
        ["setting", *k_head],
        [
            [
                label,
                *(
                    _pm(row[f"gain k={k}"], row[f"gain± k={k}"])
                    + f" ({row[f'attack k={k}'] or '—'})"
                    for k in budgets
                ),
            ]
            for label, row in table.iterrows()
        ],
    )
    rule_rows = []
    for label, row in table.iterrows():
        gain_ok = all(
            math.isfinite(row[f"excess k={k}"]) and row[f"excess k={k}"] <= bound for k in budgets
        )
        tau_ok = row.tau >= floor
        meets = "yes" if gain_ok and tau_ok else ("tau" if gain_ok else "gain")
        rule_rows.append(
            [
                label,
                *(_pm(row[f"excess k={k}"], row[f"excess± k={k}"], "+.3f") for k in budgets),
                _fmt(row.excess_high, "+.3f"),
                *(_fmt(row[f"lberr k={k}"], ".3f") for k in budgets),
                _fmt(row.tau, ".3f"),
                _fmt(table.loc[KAGGLE_LABEL, "tau"] - row.tau, "+.3f"),
                meets,
            ]
        )
    rule_table = markdown_table(
        [
            "setting",
            *(f"excess k = {k}" for k in budgets),
            "top over k",
            *(f"lberr k = {k}" for k in budgets),
            "tau",
            "tau below full disclosure",
            "meets",
        ],
        rule_rows,
    )
    eta_table = (
        markdown_table(
            ["setting", *(f"− {ETA_LADDER_LABEL}, k = {k}" for k in budgets)],
            [
                [
                    label,
                    *(_pm(row[f"vs eta k={k}"], row[f"vs eta± k={k}"], "+.3f") for k in budgets),
                ]
                for label, row in table.iterrows()
            ],
        )
        if has_eta
        else ""
    )
    text = load_template(*_TEXT)
    beats = _beats_eta(table, budgets) if has_eta else []
    if beats:
        news = text.part("beats_eta", settings=", ".join(beats))
    else:
        news = text.part("beats_eta_none", eta_ladder=ETA_LADDER_LABEL) if has_eta else ""
    eta_itself = ""
    if has_eta and overall.label == ETA_LADDER_LABEL:
        others = "eta_itself_with_others" if len(overall.passing) > 1 else "eta_itself_alone"
        eta_itself = text.part(others, eta_ladder=ETA_LADDER_LABEL)
    shaky_sentence = (
        text.part(
            "shaky_default",
            sentence=_sentence(shaky_choice, "shaky_what"),
            shaky_default=shaky_default_label(),
        )
        if shaky_choice is not None
        else ""
    )
    verdicts = paragraphs(
        _goal_sentence(result, budgets) if result is not None else "",
        eta_itself,
        *(
            _goal_sentence(goal(table, label), budgets, "also_meets")
            for label in overall.passing
            if has_eta and label not in (overall.label, ETA_LADDER_LABEL)
        ),
        news,
        _sentence(overall, "default_what"),
        shaky_sentence,
    )
    eta_section = (
        text.part("eta_section", eta_ladder=ETA_LADDER_LABEL, eta_table=eta_table)
        if eta_table
        else ""
    )
    command = f"ladderboard experiment run defaults --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    model = size["model"]
    return text.report(
        n=n,
        n_private=2 * n,
        budgets=", ".join(str(k) for k in budgets),
        reps_words=", ".join(f"{reps_at[k]} at k = {k}" for k in budgets),
        teams=model.teams,
        submissions=model.submissions,
        slow_attack_cap=SLOW_ATTACK_CAP,
        averaging_t=AVERAGING_T,
        bound=f"{bound:.4f}",
        tau_tolerance=DEFAULT_TAU_TOLERANCE,
        tau_floor=f"{floor:.3f}",
        goal=GOAL,
        verdicts=verdicts,
        references_table=references,
        hill_table=hill,
        worst_table=worst,
        rule_table=rule_table,
        tail=paragraphs(eta_section, run_line(info, command)),
    )


EXPERIMENT = DEFAULTS = Experiment(
    id="defaults",
    aliases=("default-mechanism",),
    description=(
        "The defaults' rule: every setting at n=4000 against the whole suite at k=100, 1000, "
        "10000 (raw gain over a fixed blind reference <= 1/sqrt(n)) and honest teams (tau "
        "within 0.01 of Kaggle's)"
    ),
    reps=20,
    quick_reps=2,
    tasks=defaults_tasks,
    plot=defaults_plot,
    report=defaults_report,
)
