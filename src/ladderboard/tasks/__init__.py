"""The task runner and report writer that the experiments, the advisor and
the replays share.

=====================  ===========================================================
:mod:`~.runner`        :class:`Task`, :func:`task_seed` and :func:`run_tasks`:
                       seeded tasks run in parallel on loky, Dask or Ray
:mod:`~.reports`       figures (PNG and SVG, no pyplot) and Markdown tables
=====================  ===========================================================

Both import only the core at module level; joblib, matplotlib and the cluster
clients are imported when a run or a figure needs them.
"""

from __future__ import annotations

from ladderboard.tasks.reports import markdown_table, new_figure, run_line, save_figure
from ladderboard.tasks.runner import BACKENDS, Backend, Task, run_tasks, task_seed

__all__ = [
    "BACKENDS",
    "Backend",
    "Task",
    "markdown_table",
    "new_figure",
    "run_line",
    "run_tasks",
    "save_figure",
    "task_seed",
]
