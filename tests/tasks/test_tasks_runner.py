"""The task runner: per-task seeds, results in order and independent of jobs
and backend (loky, Dask, Ray)."""

import functools

import pytest

from ladderboard.tasks import Task, run_tasks, task_seed


def test_task_seeds_depend_on_the_identity_only():
    seeds = {task_seed(0, "e1", r) for r in range(1000)}
    assert len(seeds) == 1000 and all(0 <= s < 2**63 for s in seeds)
    assert task_seed(1, "e1", 0) != task_seed(0, "e1", 0)


def test_task_seeds_are_stable():
    """The seeds every experiment's table is drawn from: changing them changes
    every recorded result."""
    assert task_seed(0, "e1", 3) == 6673650758938342198


def _power(*, base, exponent):
    return base**exponent


def _seeded_tasks():
    """Tasks of a library function (Ray's workers cannot import this module)."""
    return [Task(functools.partial(task_seed, 5, "draws", r)) for r in range(4)]


def test_tasks_come_back_in_order():
    tasks = [Task(_power, {"base": a, "exponent": 3}) for a in range(7)]
    assert run_tasks(tasks, jobs=2) == [a**3 for a in range(7)]
    seen = []
    assert run_tasks(tasks, progress=lambda *a: seen.append(a)) == [a**3 for a in range(7)]
    assert seen == [(done, 7) for done in range(8)]
    with pytest.raises(ValueError, match="backend"):
        run_tasks(tasks, backend="spark")
    with pytest.raises(ValueError, match="jobs"):
        run_tasks(tasks, jobs=0)


def test_results_do_not_depend_on_the_number_of_jobs():
    assert run_tasks(_seeded_tasks(), jobs=2) == run_tasks(_seeded_tasks(), jobs=1)


def test_the_dask_backend_on_a_local_cluster():
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        on_dask = run_tasks(_seeded_tasks(), jobs=2, backend="dask")
    assert on_dask == run_tasks(_seeded_tasks(), jobs=1)


@pytest.mark.slow
def test_the_ray_backend_on_a_local_cluster():
    """Ray is in the ``test`` extra that CI installs: missing, this fails."""
    on_ray = run_tasks(_seeded_tasks(), jobs=2, backend="ray")
    assert on_ray == run_tasks(_seeded_tasks(), jobs=1)
