"""What the defaults' experiment runs: every setting of :data:`SETTINGS` against
the attack suite at each budget, and honest teams
(:mod:`ladderboard.experiments.defaults`).
"""

from __future__ import annotations

from typing import TypedDict

from ladderboard.advisor.advice import grid_tasks
from ladderboard.advisor.defaults import (
    DEFAULT_BUDGETS,
    DEFAULT_N,
    ETA_LADDER_LABEL,
)
from ladderboard.advisor.grid import KAGGLE_LABEL, shaky_default_label
from ladderboard.advisor.honest import HonestTeams
from ladderboard.tasks.runner import Task

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
