"""Shared timing helper for the benchmarks: the median of repeated runs."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence


def median_seconds(fn: Callable[[], object], *, repeat: int = 7, number: int = 1) -> float:
    """Median wall time of ``number`` calls of ``fn``, over ``repeat`` runs."""
    fn()  # warm up
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        runs.append((time.perf_counter() - start) / number)
    return statistics.median(runs)


def alternating_medians(
    sides: Sequence[Callable[[], object]], *, repeat: int = 7, number: int = 1
) -> list[float]:
    """Median wall time of each of ``sides``, timed in turn within each run.

    Each run times ``number`` calls of every side, one side after the other,
    so that a busy neighbour slows both sides of a ratio alike.
    """
    for fn in sides:
        fn()  # warm up
    runs: list[list[float]] = [[] for _ in sides]
    for _ in range(repeat):
        for fn, times in zip(sides, runs, strict=True):
            start = time.perf_counter()
            for _ in range(number):
                fn()
            times.append((time.perf_counter() - start) / number)
    return [statistics.median(times) for times in runs]
