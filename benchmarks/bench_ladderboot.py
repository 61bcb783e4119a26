"""LadderBoot's release kernel at b = 1000, n = 1e5: the mean of b bootstrap
means as one multinomial draw, against b naive resamples.

    python benchmarks/bench_ladderboot.py
"""

from __future__ import annotations

import numpy as np

from _timing import median_seconds
from ladderboard.bootstrap import (
    bootstrap_mean_of_means,
    empirical_support,
    naive_bootstrap_mean_of_means,
)
from ladderboard.mechanisms import LadderBoot


def main() -> None:
    n, b = 10**5, 1000
    rng = np.random.default_rng(0)
    zero_one = (rng.random(n) < 0.3).astype(float)
    continuous = rng.random(n)
    naive = median_seconds(lambda: naive_bootstrap_mean_of_means(zero_one, b, rng), repeat=3)
    full = median_seconds(lambda: bootstrap_mean_of_means(continuous, b, rng), repeat=9)
    support = empirical_support(zero_one)
    grouped = median_seconds(
        lambda: bootstrap_mean_of_means(zero_one, b, rng, support=support), repeat=9, number=20
    )
    board = LadderBoot(b=b, random_state=0)
    board.submit(zero_one)
    worse = np.ones(n)
    submit = median_seconds(lambda: board.submit(worse), repeat=9, number=20)
    print(f"n = {n}, b = {b}")
    print(f"naive: b resamples                    {naive * 1e3:9.3f} ms")
    print(
        f"fast, any losses: one multinomial     {full * 1e3:9.3f} ms  {naive / full:8.1f}x faster"
    )
    print(
        f"fast, 0/1 losses: per distinct value  {grouped * 1e3:9.3f} ms  "
        f"{naive / grouped:8.1f}x faster"
    )
    print(
        f"LadderBoot.submit, 0/1 losses, rejected {submit * 1e3:7.3f} ms  "
        "(validation, test, AES-CTR draw)"
    )


if __name__ == "__main__":
    main()
