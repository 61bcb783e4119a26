"""ParameterFreeLadder.submit against the floor: one ``losses.sum()``.

Three paths: a submission no better than the release (rejected after the sum),
one that is tested and rejected (the paired test's O(n) work), and one that is
accepted (the test plus keeping a copy of the new best loss vector). Each is
timed alternately with the floor, the sum of the very vector submitted, as
warm in cache as it is. BLAS runs on one thread: a dot product spread over the
cores of a busy machine waits for them. Goal: the accepted path within 5x the
floor at n = 1e6.

    python benchmarks/bench_ladder.py
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from _timing import alternating_medians
from ladderboard._blas import single_blas_thread
from ladderboard.mechanisms import ParameterFreeLadder

GOAL = 5.0


def bench(n: int, rng: np.random.Generator) -> None:
    best = (rng.random(n) < 0.30).astype(float)
    worse = (rng.random(n) < 0.40).astype(float)
    near = rng.permutation(best)  # one error fewer: lower risk, not significant
    near[np.flatnonzero(near)[0]] = 0.0
    # A run of significant improvements, each accepted in turn: every one
    # corrects 1 % of the points the previous one got wrong.
    improvements, current = [], best.copy()
    for _ in range(25):
        current = current.copy()
        current[np.flatnonzero(current)[: n // 100]] = 0.0
        improvements.append(current)

    board = ParameterFreeLadder(n=n)
    board.submit(best)
    assert not board.submit(worse).improved and not board.submit(near).improved
    rows = []
    for path, x in (("worse", worse), ("tested, rejected", near)):
        floor, t = alternating_medians(
            [lambda x=x: x.sum(), lambda x=x: board.submit(x)], repeat=9, number=20
        )
        rows.append((path, floor, t))

    accepting = ParameterFreeLadder(n=n)
    accepting.submit(best)
    # Each accepted vector is read once (untimed: it arrives from the loss
    # just computed), then summed (the floor), then submitted.
    queue: Iterator[np.ndarray] = iter(improvements)
    pending: list[np.ndarray] = []

    def warm_next() -> None:
        pending.append(next(queue))
        pending[-1].sum()

    def accept() -> None:
        assert accepting.submit(pending.pop()).improved

    _, floor, t = alternating_medians([warm_next, lambda: pending[-1].sum(), accept], repeat=11)
    rows.append(("accepted", floor, t))
    for path, floor, t in rows:
        goal = f"  (goal <= {GOAL:g}x)" if path == "accepted" and n == 10**6 else ""
        print(f"{n:>9} {floor * 1e3:>9.3f}ms {path:>16} {t * 1e3:>9.3f}ms {t / floor:>6.2f}x{goal}")


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"{'n':>9} {'floor sum':>11} {'path':>16} {'submit':>11} {'ratio':>7}")
    with single_blas_thread():
        for n in (10**4, 10**5, 10**6):
            bench(n, rng)


if __name__ == "__main__":
    main()
