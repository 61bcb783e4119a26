"""Reproductions of the papers' experiments (SPEC E1-E10), each a tidy table,
a figure and a short report with the paper's numbers beside the measured ones.

=======  ============================================================
``e1``   the boosting attack, Kaggle vs the Ladder (Blum & Hardt 2015, Fig. 3)
``e3``   the majority attack against noisy answers (Hardt 2017, Figs. 3-4)
=======  ============================================================

:func:`run_experiment` runs one (repetitions in parallel with joblib, on loky
or a Dask cluster) and writes ``ID.csv``, ``ID.png``, ``ID.svg`` and ``ID.md``;
the command line is ``ladderboard experiment list`` and
``ladderboard experiment run ID``.
"""

from ladderboard.experiments.e1_boosting import E1
from ladderboard.experiments.e3_majority import E3
from ladderboard.experiments.registry import (
    EXPERIMENTS,
    Experiment,
    RunInfo,
    Task,
    get_experiment,
    register,
    task_seed,
)
from ladderboard.experiments.runner import BACKENDS, RunResult, run_experiment, run_tasks

register(E1)
register(E3)

__all__ = [
    "BACKENDS",
    "EXPERIMENTS",
    "Experiment",
    "RunInfo",
    "RunResult",
    "Task",
    "get_experiment",
    "register",
    "run_experiment",
    "run_tasks",
    "task_seed",
]
