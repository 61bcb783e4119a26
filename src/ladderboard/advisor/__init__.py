"""The organiser's advisor: which leaderboard mechanism, with which parameters,
for a holdout of ``n`` labels and a budget of ``k`` submissions.

It generalises Chaibub Neto et al. (2016, S3, "how many submissions can an
organiser allow"): for every mechanism and setting of a grid it runs the
attack suite at the organiser's ``n`` and ``k`` and measures what the
binding attack gains beyond as many blind submissions on the same board
(its excess gain), simulates honest teams to measure what they lose,
and recommends the setting that protects best among those that cost honest
teams little against full disclosure.

==========================  ===================================================
:mod:`~.grid`               the settings (mechanism, parameters, short label)
                            and the scores (how boards score submissions)
:mod:`~.protection`         the attack suite against one setting: the gap
                            between true and released loss, its excess over
                            blind submissions, lberr, per attack
:mod:`~.honest`             honest teams: Kendall's tau, the share of true
                            improvements released, the delay until one shows
:mod:`~.advice`             the grid over repetitions, the summary, the rule
:mod:`~.yardstick`          an attack's raw gain (Blum & Hardt 2015, Def. 2.1)
                            with Student-t intervals, paired between boards,
                            against a reference no board's noise moves
:mod:`~.cli`                ``ladderboard advise --n N --budget K``
==========================  ===================================================

The rule (:func:`recommend`): among the settings whose Kendall's tau is at
most 0.05 below full disclosure's (``Kaggle 1e-5``) and that release at once
at least half as many of the true improvements as it does, the one whose
binding attack's excess gain is smallest.

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
