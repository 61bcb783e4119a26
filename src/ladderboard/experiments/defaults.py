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

from ladderboard.experiments._defaults_measure import (
    FULL,
    QUICK,
    SETTINGS,
    defaults_tasks,
    top_reps,
)
from ladderboard.experiments._defaults_outputs import GOAL, defaults_plot, defaults_report
from ladderboard.experiments.registry import Experiment

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
