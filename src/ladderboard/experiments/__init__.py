"""Reproductions of the papers' experiments (SPEC E1-E10), each a tidy table,
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
``frontier``  protection against utility for every mechanism and setting
============  ===============================================================

The replay of a whole competition (SPEC E2) is ``ladderboard replay``
(:mod:`ladderboard.replay`).

:func:`run_experiment` runs one (repetitions in parallel with joblib, on
loky, a Dask cluster or a Ray cluster) and writes ``ID.csv``, ``ID.png``,
``ID.svg`` and ``ID.md``; the command line is ``ladderboard experiment list``
and ``ladderboard experiment run ID``.

Names are loaded on first use, so that ``ladderboard --help`` does not pay
for numpy, pandas and the attacks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ladderboard._lazy import lazy_exports

if TYPE_CHECKING:
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

_EXPORTS = {
    "BACKENDS": "runner",
    "EXPERIMENTS": "registry",
    "Experiment": "registry",
    "RunInfo": "registry",
    "RunResult": "runner",
    "Task": "registry",
    "get_experiment": "registry",
    "register": "registry",
    "run_experiment": "runner",
    "run_tasks": "runner",
    "task_seed": "registry",
}

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


_exported = lazy_exports(__name__, _EXPORTS)


def __getattr__(name: str) -> Any:
    value = _exported(name)
    if name == "EXPERIMENTS":
        from ladderboard.experiments.registry import load_builtin

        load_builtin()
    return value
