"""Run tasks in parallel: each task is a module-level function and its keyword
arguments, so that it can be pickled and run in another process.

Tasks run through joblib: the ``loky`` backend (worker processes on this
machine) by default; ``dask``, which sends them to the Dask cluster of the
current ``distributed.Client`` (a :class:`distributed.LocalCluster` of ``jobs``
worker processes is started, and closed afterwards, when there is none); or
``ray``, on the Ray cluster already joined or named by ``RAY_ADDRESS`` (else a
local one of ``jobs`` CPUs).
Every task carries its own seed, derived from the run's seed and the task's
identity (:func:`task_seed`), never from the order in which tasks run, so
results are the same whatever ``jobs`` and ``backend`` are.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ladderboard._validation import check_int

__all__ = ["BACKENDS", "Backend", "Task", "run_tasks", "task_seed"]

BACKENDS = ("loky", "dask", "ray")
Backend = Literal["loky", "dask", "ray"]


def task_seed(seed: int, *identity: object) -> int:
    """A 63-bit seed for the task named by ``identity`` in the run seeded ``seed``.

    SHA-256 of the run seed and the identity, so two tasks never share a seed
    by accident and a task's seed does not depend on which worker runs it.

    >>> task_seed(0, "e1", 3) == task_seed(0, "e1", 3) != task_seed(0, "e1", 4)
    True
    """
    import hashlib  # here, not at module level: the command line imports this module

    text = "/".join(["ladderboard/experiment", str(int(seed)), *map(str, identity)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


@dataclass(frozen=True, slots=True)
class Task:
    """One unit of work: ``func(**kwargs)``, typically a tidy DataFrame.

    >>> Task(pow, {"base": 7, "exp": 2})()
    49
    """

    func: Callable[..., Any]
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def __call__(self) -> Any:
        return self.func(**self.kwargs)


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
    progress: Callable[[int, int], None] | None = None,
) -> list[Any]:
    """``[task() for task in tasks]``, in that order, on ``jobs`` worker processes.

    ``progress(done, total)``, when given, is called as each task's result
    comes back (the caller draws it: see :func:`ladderboard.terminal.progress`).

    >>> run_tasks([Task(pow, {"base": 2, "exp": e}) for e in range(4)])
    [1, 2, 4, 8]
    >>> seen = []
    >>> run_tasks([Task(pow, {"base": 3, "exp": 2})], progress=lambda d, t: seen.append((d, t)))
    [9]
    >>> seen
    [(0, 1), (1, 1)]
    """
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
        if progress is not None:
            progress(0, len(tasks))
        collected = []
        for result in parallel(delayed(_call)(task) for task in tasks):
            collected.append(result)
            if progress is not None:
                progress(len(collected), len(tasks))
        return collected
