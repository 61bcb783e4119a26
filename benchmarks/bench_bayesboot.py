"""BayesBootLadder with Pearson at B = 1000, n = 1e5: seconds per submission,
against the floor of one pass of the same size (B·n Dirichlet weights drawn
and summed), with the memory of one chunk of weights.

Then the early stop on a clearly worse submission at n = 1e4 and 1e6: the rows
of weights it draws (goal: no more at 1e6 than at 1e4; B - needed + 1 = 150
failing replicates settle it) and its seconds beside those of drawing that
many rows.

    python benchmarks/bench_bayesboot.py
"""

from __future__ import annotations

import numpy as np

from _timing import alternating_medians, median_seconds
from ladderboard._blas import single_blas_thread
from ladderboard.bootstrap import CHUNK_BYTES, chunk_rows
from ladderboard.mechanisms import BayesBootLadder
from ladderboard.metrics import get_metric
from ladderboard.random import KeyedStream


class CountingGenerator:
    """A generator that counts the rows of weights drawn from it."""

    def __init__(self, generator: np.random.Generator, drawn: list[int]):
        self.generator, self.drawn = generator, drawn

    def standard_exponential(self, *, out: np.ndarray) -> np.ndarray:
        self.drawn.append(out.shape[0])
        return self.generator.standard_exponential(out=out)


def early_stop(n: int, B: int = 1000) -> None:
    """Rows drawn and seconds to reject a clearly worse submission."""
    rng = np.random.default_rng(1)
    y = rng.normal(size=n)
    board = BayesBootLadder(metric="pearson", y_true=y, B=B, random_state=0)
    board.submit(y + rng.normal(scale=0.5, size=n))
    worse = [y + rng.normal(scale=2.0, size=n) for _ in range(2)]
    drawn: list[int] = []
    keyed = board._generator
    board._generator = lambda i, s=0: CountingGenerator(keyed(i, s), drawn)  # type: ignore[method-assign]
    it = iter(worse * 10)
    stream = KeyedStream.from_random_state(2)
    rows: list[int] = []

    def submit() -> None:
        drawn.clear()
        assert not board.submit(next(it)).improved
        rows.append(sum(drawn))

    def floor() -> None:
        stream.generator(1).standard_exponential((max(rows), n)).sum()

    # Alternated, each side three times.
    times = [median_seconds(side, repeat=1) for _ in range(3) for side in (submit, floor)]
    seconds, floor_seconds = sorted(times[0::2])[1], sorted(times[1::2])[1]
    settle = B - board.successes_needed + 1
    print(
        f"early stop, n = {n:>7}: {max(rows):4d} rows drawn (settled by {settle}; goal: as many "
        f"at 1e6 as at 1e4)   {seconds:6.3f} s   {seconds / floor_seconds:5.2f}x drawing "
        "those rows"
    )


def auc_statistic(n: int = 10**6) -> None:
    """Seconds per row of the paired AUC, against a product of the same weights."""
    rng = np.random.default_rng(3)
    y = (rng.random(n) < 0.4).astype(float)
    weights = rng.standard_exponential((1, n))
    moments = np.column_stack([np.ones(n), y, rng.random(n), rng.random(n), rng.random(n)])
    for ties, digits in (("distinct scores", None), ("3-decimal scores", 3)):
        a, b = rng.random(n) + 0.3 * y, rng.random(n) + 0.2 * y
        if digits is not None:
            a, b = a.round(digits), b.round(digits)
        paired = get_metric("auc").paired(y, a, b)
        with single_blas_thread():
            product, auc = alternating_medians(
                [lambda: weights @ moments, lambda paired=paired: paired(weights)], repeat=9
            )
        print(
            f"paired AUC, n = {n}, {ties:>16}: {auc * 1e3:6.2f} ms a row, product "
            f"{product * 1e3:5.2f} ms   {auc / product:5.2f}x   (goal <= 5x)"
        )


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
    for n_stop in (10**4, 10**6):
        early_stop(n_stop)
    auc_statistic()


if __name__ == "__main__":
    main()
