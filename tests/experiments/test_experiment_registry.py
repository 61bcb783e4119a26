"""The registry of experiments, and their runs: the same table whatever the
number of jobs and the backend."""

import pandas as pd
import pytest

from ladderboard.experiments import EXPERIMENTS, get_experiment, run_experiment


def test_every_experiment_is_registered_under_its_names():
    assert list(EXPERIMENTS) == [
        "e1",
        "e3",
        "e4",
        "e5",
        "e6",
        "e7",
        "e8",
        "e9",
        "e10",
        "e11",
        "e12",
        "e13",
        "defaults",
        "frontier",
    ]
    for experiment in EXPERIMENTS.values():
        for name in experiment.names:
            assert get_experiment(name.upper()) is experiment
        assert "\n" not in experiment.description


def test_unknown_names_are_refused():
    with pytest.raises(ValueError, match="unknown experiment 'e99'"):
        get_experiment("e99")
    with pytest.raises(TypeError, match="name must be a string"):
        get_experiment(1)


@pytest.mark.parametrize("name", [pytest.param("e1", marks=pytest.mark.slow), "e3"])
def test_results_do_not_depend_on_the_number_of_jobs(name):
    one = run_experiment(name, quick=True, reps=3, seed=5, jobs=1).frame
    seen = []
    two = run_experiment(
        name, quick=True, reps=3, seed=5, jobs=2, progress=lambda *a: seen.append(a)
    ).frame
    pd.testing.assert_frame_equal(one, two)
    assert seen[0][0] == 0 and seen[-1][0] == seen[-1][1] == len(seen) - 1
    other = run_experiment(name, quick=True, reps=3, seed=6, jobs=1).frame
    assert not one.equals(other)


def test_the_dask_backend_on_a_local_cluster():
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        on_dask = run_experiment("e3", quick=True, reps=3, seed=5, jobs=2, backend="dask")
    on_loky = run_experiment("e3", quick=True, reps=3, seed=5, jobs=1)
    assert on_dask.info.backend == "dask"
    pd.testing.assert_frame_equal(on_dask.frame, on_loky.frame)
