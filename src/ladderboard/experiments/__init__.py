"""Reproductions of the papers' experiments (E1, E3-E10), each a tidy table,
a figure and a short report with the paper's numbers beside the measured ones.

============  ===============================================================
``e1``        the boosting attack, Kaggle vs the Ladder (Blum & Hardt 2015,
              Fig. 3)
``e3``        the majority attack against noisy answers (Hardt 2017,
              Figs. 3-4)
``e4``        Freedman's attack: released scores per feature (Chaibub Neto et
              al. 2016, Fig. 1)
``e5``        Freedman's attack: public minus final MSE over k (Fig. 2)
``e6``        the step-forward attack on the Ladder (Figs. 3-4)
``e7``        the Ladder vs LadderBoot at b = 10, 100, 1000 (Figs. 5-6)
``e8``        the Bayesian-bootstrap ladders with Lin's CCC (supplement S2)
``e9``        how many submissions an organiser can allow (supplement S3)
``e10``       the spread of LadderBoot's releases (supplement S4)
``e12``       variable selection checked on a standard holdout, Thresholdout
              and ladders (Dwork et al. 2015, Science, Figs. 1-2)
``e13``       a randomized search on a small validation set, plain against
              guarded: optimism and test accuracy
``defaults``  the rule behind the defaults: every setting at n = 4000 against
              budgets of 100, 1000 and 10 000 submissions
``frontier``  protection against utility for every mechanism and setting
============  ===============================================================

The replay of a whole competition (E2; Blum & Hardt 2015, Sec. 6) is ``ladderboard replay``
(:mod:`ladderboard.replay`).

:func:`run_experiment` runs one (repetitions in parallel with joblib, on
loky, a Dask cluster or a Ray cluster) and writes ``ID.csv``, ``ID.png``,
``ID.svg`` and ``ID.md``; the command line is ``ladderboard experiment list``
and ``ladderboard experiment run ID``.

A report's words are a template shipped with the package,
``templates/ID.md`` (:func:`ladderboard.tasks.reports.load_template`), filled
from the measured numbers; the code that measures holds no prose. Numbers the
authors published as files (E1's ``csvs/`` of Ladder.jl) are data files in
``data/``, read when an experiment runs. The longest experiments keep what
they measure (``_ID_measure``) apart from what they show (``_ID_outputs``);
their public module holds the description and the registry record.

The package imports only its registry and runner; an experiment's module
(and numpy, pandas and the attacks it needs) is imported when the registry is
first read.
"""

from __future__ import annotations

from ladderboard.experiments.registry import (
    EXPERIMENTS,
    Experiment,
    RunInfo,
    get_experiment,
    load_builtin,
    register,
)
from ladderboard.experiments.runner import RunResult, run_experiment, write_outputs
from ladderboard.tasks.runner import BACKENDS, Task, run_tasks, task_seed

__all__ = [
    "BACKENDS",
    "EXPERIMENTS",
    "Experiment",
    "RunInfo",
    "RunResult",
    "Task",
    "get_experiment",
    "load_builtin",
    "register",
    "run_experiment",
    "run_tasks",
    "task_seed",
    "write_outputs",
]
