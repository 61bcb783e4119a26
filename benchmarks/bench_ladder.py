"""ParameterFreeLadder.submit against the floor: one ``losses.sum()``.

Three paths: a submission no better than the release (rejected after the sum),
one that is tested and rejected (the paired test's O(n) work), and one that is
accepted (the test plus keeping a copy of the new best loss vector).

    python benchmarks/bench_ladder.py
"""

from __future__ import annotations

import numpy as np

from _timing import median_seconds
from ladderboard.mechanisms import ParameterFreeLadder


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
    floor = median_seconds(lambda: worse.sum(), number=20)

    def board_with_best() -> ParameterFreeLadder:
        board = ParameterFreeLadder(n=n)
        board.submit(best)
        return board

    board = board_with_best()
    assert not board.submit(worse).improved and not board.submit(near).improved
    rows = []
    for path, x in (("worse", worse), ("tested, rejected", near)):
        rows.append((path, median_seconds(lambda x=x: board.submit(x), number=20)))
    accepting = board_with_best()
    it = iter(improvements)

    def accept() -> None:
        assert accepting.submit(next(it)).improved

    rows.append(("accepted", median_seconds(accept, repeat=7, number=3)))
    for path, t in rows:
        print(f"{n:>9} {floor * 1e3:>9.3f}ms {path:>16} {t * 1e3:>9.3f}ms {t / floor:>6.2f}")


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"{'n':>9} {'floor sum':>11} {'path':>16} {'submit':>11} {'ratio':>6}")
    for n in (10**4, 10**5, 10**6):
        bench(n, rng)


if __name__ == "__main__":
    main()
