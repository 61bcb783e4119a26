"""Run an experiment's tasks in parallel and write its table, figure and report.

Tasks run through joblib: the ``loky`` backend (worker processes on this
machine) by default; ``dask``, which sends them to the Dask cluster of the
current ``distributed.Client`` (a :class:`distributed.LocalCluster` of ``jobs``
worker processes is started, and closed afterwards, when there is none); or
``ray``, on the Ray cluster already joined or named by ``RAY_ADDRESS`` (else a
local one of ``jobs`` CPUs).
Each task has its own seed, so the table is the same whatever ``jobs`` and
``backend`` are.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ladderboard._validation import check_int
from ladderboard.experiments.registry import Experiment, RunInfo, Task, get_experiment

__all__ = ["BACKENDS", "RunResult", "run_experiment", "run_tasks", "write_outputs"]

BACKENDS = ("loky", "dask", "ray")
Backend = Literal["loky", "dask", "ray"]


@dataclass(frozen=True, slots=True)
class RunResult:
    """A finished run: the tidy table, how it was made, and the files written."""

    experiment: Experiment
    frame: Any  # pandas.DataFrame
    info: RunInfo
    paths: tuple[Path, ...] = ()


def _call(task: Task) -> Any:
    return task()


@contextlib.contextmanager
def _dask_client(jobs: int) -> Iterator[Any]:
    """The current Dask client, or a local cluster of ``jobs`` processes for the run."""
    from distributed import Client, LocalCluster
    from distributed.client import default_client

    try:
        yield default_client()
        return
    except ValueError:  # no client yet
        pass
    with (
        LocalCluster(n_workers=jobs, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        yield client


@contextlib.contextmanager
def _ray_cluster(jobs: int) -> Iterator[None]:
    """The Ray cluster already joined, the one ``RAY_ADDRESS`` names, or a
    local one of ``jobs`` CPUs for the run (shut down afterwards)."""
    import os

    import ray
    from ray.util.joblib import register_ray

    register_ray()
    if ray.is_initialized():
        yield
        return
    if os.environ.get("RAY_ADDRESS"):
        ray.init(log_to_driver=False)
    else:
        ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def run_tasks(
    tasks: list[Task],
    *,
    jobs: int = 1,
    backend: Backend = "loky",
    progress: bool = False,
    description: str = "running",
) -> list[Any]:
    """``[task() for task in tasks]``, in that order, on ``jobs`` workers."""
    from joblib import Parallel, delayed, parallel_config

    jobs = check_int("jobs", jobs, 1)
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    with contextlib.ExitStack() as stack:
        if backend == "dask":
            stack.enter_context(_dask_client(jobs))
            stack.enter_context(parallel_config(backend="dask"))
            parallel = Parallel(n_jobs=-1, return_as="generator")
        elif backend == "ray":
            stack.enter_context(_ray_cluster(jobs))
            stack.enter_context(parallel_config(backend="ray"))
            parallel = Parallel(n_jobs=jobs)  # Ray's joblib backend returns lists only
        else:
            parallel = Parallel(n_jobs=jobs, backend="loky", return_as="generator")
        results = parallel(delayed(_call)(task) for task in tasks)
        if not progress:
            return list(results)
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        bar = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        collected = []
        with bar:
            handle = bar.add_task(description, total=len(tasks))
            for result in results:
                collected.append(result)
                bar.advance(handle)
        return collected


def run_experiment(
    experiment: Experiment | str,
    *,
    reps: int | None = None,
    quick: bool = False,
    seed: int = 0,
    jobs: int = 1,
    backend: Backend = "loky",
    out: str | Path | None = None,
    progress: bool = False,
) -> RunResult:
    """Run ``experiment`` and, with ``out``, write ``ID.csv``, ``ID.png``,
    ``ID.svg`` and ``ID.md`` into that directory.

    ``reps`` defaults to the paper's count (``experiment.reps``), or
    ``experiment.quick_reps`` with ``quick``.

    Shaky Ladder Fig. 3 in miniature (two repetitions per cell): noise of
    ``3/√n`` on the answers cuts the majority attack's bias.

    >>> result = run_experiment("e3", quick=True, reps=2, seed=0)
    >>> bias = result.frame.groupby("noise").bias.mean()
    >>> bool(bias[3.0] < bias[0.0] / 2), result.info.reps, result.paths
    (True, 2, ())
    """
    import pandas as pd

    if isinstance(experiment, str):
        experiment = get_experiment(experiment)
    reps = (experiment.quick_reps if quick else experiment.reps) if reps is None else reps
    reps = check_int("reps", reps, 1)
    seed = check_int("seed", seed, 0)
    tasks = experiment.tasks(reps=reps, quick=bool(quick), seed=seed)
    start = time.perf_counter()
    frames = run_tasks(
        tasks,
        jobs=jobs,
        backend=backend,
        progress=progress,
        description=f"{experiment.id}: {len(tasks)} tasks",
    )
    frame = pd.concat(frames, ignore_index=True)
    info = RunInfo(
        reps=reps,
        quick=bool(quick),
        seed=seed,
        jobs=jobs,
        backend=backend,
        seconds=time.perf_counter() - start,
    )
    result = RunResult(experiment=experiment, frame=frame, info=info)
    if out is not None:
        result = write_outputs(result, out)
    return result


def write_outputs(result: RunResult, out: str | Path) -> RunResult:
    """Write the run's table, figure (PNG and SVG) and report into ``out``."""
    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    stem = directory / result.experiment.id
    csv = stem.with_suffix(".csv")
    result.frame.to_csv(csv, index=False)
    figures = result.experiment.plot(result.frame, stem)
    report = stem.with_suffix(".md")
    report.write_text(result.experiment.report(result.frame, result.info), encoding="utf-8")
    return RunResult(
        experiment=result.experiment,
        frame=result.frame,
        info=result.info,
        paths=(csv, *figures, report),
    )
