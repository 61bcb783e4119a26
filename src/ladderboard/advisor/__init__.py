"""The organiser's advisor: which leaderboard mechanism, with which parameters,
for a holdout of ``n`` labels and a budget of ``k`` submissions.

It generalises Chaibub Neto et al. (2016, S3, "how many submissions can an
organiser allow"): for every mechanism and setting of a grid it runs the
attack suite at the organiser's ``n`` and ``k`` and measures the binding
attack's raw gain (Blum & Hardt 2015, Def. 2.1) over a reference no board's
noise moves, simulates honest teams to measure what they lose, and
recommends the protected setting that protects best among those that cost
honest teams little against full disclosure.

==========================  ===================================================
:mod:`~.grid`               the settings (mechanism, parameters, short label)
                            and the scores (how boards score submissions)
:mod:`~.protection`         the attack suite against one setting: the raw
                            gain (true loss of the selection − what the board
                            displays), lberr, per attack
:mod:`~.honest`             honest teams: Kendall's tau, the share of true
                            improvements released, the delay until one shows
:mod:`~.advice`             the grid over repetitions, the summary, the rule
:mod:`~.yardstick`          an attack's raw gain (Blum & Hardt 2015, Def. 2.1)
                            with Student-t intervals, paired between boards,
                            against a reference no board's noise moves
:mod:`~.cli`                ``ladderboard advise --n N --budget K``
==========================  ===================================================

The rule (:func:`recommend`): among the protected settings (never full
disclosure) whose Kendall's tau is at most 0.05 below full disclosure's
(``Kaggle 1e-5``) and that release at once at least half as many of the true
improvements as it does, the one whose binding attack's raw gain over the
fixed reference is smallest. The defaults' rule
(:mod:`~.defaults`) reads the same yardstick at several budgets.

The modules import numpy, scipy, the mechanisms and the attacks inside the
functions that run the grid, so that importing the package (and the command
line) stays light.
"""

from __future__ import annotations

from ladderboard.advisor.advice import Advice, advise, evaluate_grid, recommend, summarise
from ladderboard.advisor.grid import Setting, default_grid, scoring_rule
from ladderboard.advisor.honest import HonestTeams

__all__ = [
    "Advice",
    "HonestTeams",
    "Setting",
    "advise",
    "default_grid",
    "evaluate_grid",
    "recommend",
    "scoring_rule",
    "summarise",
]
