"""Wall times of the full experiments E1 and E3, and E1's vectorisation against
playing the attack through a HoldoutOracle submission by submission.

E1 in full: 5 repetitions, 42 values of k up to 2000, three boards. E3 in full:
100 repetitions of 53 (k, noise) cells at n = 4000. Goals on a 2-core machine:
E1 under 60 s, E3 under 2 minutes. The baseline runs one repetition of E1 at
k = 2000 only, through the oracle (``boosting_attack`` on each board), against
``e1_repetition`` at the same single k; the full grid through the oracle would
repeat that for every k.

    python benchmarks/bench_experiments.py [--jobs 2]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from _timing import median_seconds
from ladderboard.attacks import HoldoutOracle, boosting_attack
from ladderboard.experiments import run_experiment
from ladderboard.experiments.e1_boosting import FULL_K, e1_repetition
from ladderboard.mechanisms import FullDisclosure, ParameterFreeLadder
from ladderboard.random import KeyedStream


def full_runs(jobs: int) -> None:
    for name, goal in (("e1", 60.0), ("e3", 120.0)):
        start = time.perf_counter()
        result = run_experiment(name, jobs=jobs)
        wall = time.perf_counter() - start
        print(
            f"{name} full: {result.info.reps} reps, {len(result.frame)} rows, "
            f"{wall:6.1f} s on {jobs} job(s) (goal {goal:.0f} s)"
        )


def e1_baseline(seed: int = 0, k: int = 2000) -> None:
    n_labels, n_public = 12000, 4000
    holdout = KeyedStream.from_random_state(seed).generator(1)
    labels = holdout.integers(0, 2, size=n_labels, dtype=np.int8)
    public = np.sort(holdout.permutation(n_labels)[:n_public])
    boards = (
        lambda: FullDisclosure(precision=1e-5),
        lambda: FullDisclosure(precision=1 / np.sqrt(n_public)),
        ParameterFreeLadder,
    )

    def through_the_oracle() -> None:
        for board in boards:
            oracle = HoldoutOracle(labels[public], board(), public_index=public, n_labels=n_labels)
            boosting_attack(oracle, n_labels=n_labels, k=k, random_state=seed)

    t_oracle = median_seconds(through_the_oracle, repeat=3)
    t_vector = median_seconds(lambda: e1_repetition(rep=0, random_state=seed, ks=(k,)), repeat=3)
    t_grid = median_seconds(lambda: e1_repetition(rep=0, random_state=seed, ks=FULL_K), repeat=3)
    grid_oracle = t_oracle * sum(FULL_K) / k
    print(
        f"E1, one repetition, k = {k}, three boards: oracle {t_oracle:.2f} s, "
        f"vectorised {t_vector:.2f} s (ratio {t_oracle / t_vector:.1f}); whole grid of "
        f"{len(FULL_K)} k: vectorised {t_grid:.2f} s, oracle ≈ {grid_oracle:.0f} s "
        f"(ratio ≈ {grid_oracle / t_grid:.0f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    e1_baseline()
    full_runs(args.jobs)


if __name__ == "__main__":
    main()
