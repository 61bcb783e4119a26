"""BayesBootLadder with Pearson at B = 1000, n = 1e5: seconds per submission,
against the floor of one pass of the same size (B·n Dirichlet weights drawn
and summed), with the memory of one chunk of weights.

    python benchmarks/bench_bayesboot.py
"""

from __future__ import annotations

import numpy as np

from _timing import median_seconds
from ladderboard.bootstrap import CHUNK_BYTES, chunk_rows
from ladderboard.mechanisms import BayesBootLadder
from ladderboard.random import KeyedStream


def main() -> None:
    n, B = 10**5, 1000
    rng = np.random.default_rng(0)
    y = rng.normal(size=n)
    best = y + rng.normal(scale=1.0, size=n)
    candidates = [y + rng.normal(scale=1.0, size=n) for _ in range(8)]
    board = BayesBootLadder(metric="pearson", y_true=y, B=B, random_state=0)
    board.submit(best)
    it = iter(candidates * 10)
    submit = median_seconds(lambda: board.submit(next(it)), repeat=7)

    rows = chunk_rows(n, B)
    stream = KeyedStream.from_random_state(1)

    def floor() -> None:
        for j in range(0, B, rows):
            stream.generator(1, j).standard_exponential((min(rows, B - j), n)).sum()

    weights_only = median_seconds(floor, repeat=5)
    print(f"n = {n}, B = {B}, metric = pearson")
    print(
        f"chunk: {rows} rows x {n} = {rows * n * 8 / 2**20:.1f} MiB of weights "
        f"(target {CHUNK_BYTES / 2**20:.0f} MiB), one per thread"
    )
    print(f"floor: draw and sum B·n weights, one thread   {weights_only:7.3f} s")
    print(
        f"BayesBootLadder.submit                       {submit:7.3f} s   "
        f"{submit / weights_only:5.2f}x the floor   (goal <= 0.5 s)"
    )


if __name__ == "__main__":
    main()
