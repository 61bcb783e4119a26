"""The defaults' figure and report (docs/defaults.md): what a run of
:mod:`ladderboard.experiments.defaults` shows, apart from what it computes.
The report's words are in ``templates/defaults.md``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ladderboard.advisor.defaults import (
    DEFAULT_TAU_TOLERANCE,
    ETA_LADDER_LABEL,
    DefaultChoice,
    Goal,
    across_budgets,
    default_choice,
    goal,
)
from ladderboard.advisor.grid import KAGGLE_LABEL, shaky_default_label
from ladderboard.advisor.protection import AVERAGING_T, SLOW_ATTACK_CAP
from ladderboard.experiments._defaults_measure import (
    FULL,
    QUICK,
)
from ladderboard.experiments.registry import RunInfo
from ladderboard.tasks.reports import (
    load_template,
    markdown_table,
    new_figure,
    paragraphs,
    run_line,
    save_figure,
)

HIGHLIGHT = (
    "PF Ladder",
    "Sig-Ladder α=0.15",
    "LadderBoot b=10",
    "BayesBoot",
    ETA_LADDER_LABEL,
)
_TEXT = "ladderboard.experiments", "defaults"
"""Where the report's words are: ``templates/defaults.md`` of the package."""
GOAL = load_template(*_TEXT).part("goal_statement")
"""The issue's goal, printed beside the measurements."""


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
