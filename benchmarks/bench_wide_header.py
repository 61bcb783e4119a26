"""The refusal of a submission whose header has tens of thousands of columns.

A gzip file whose header names 40,000 or 100,000 columns (the id, the
target and made-up names; 87 KB and 230 KB compressed) is refused by
``parse_submission``. The baseline, timed in the same run and in turn with
it, is a valid gzip file of about the same compressed size for a solution
of as many rows, read whole: what any team may send. Goal: the refusal costs
at most what that valid file costs (ratio <= 1), so that a header cannot
hold the scoring slot longer than an ordinary file.

    python benchmarks/bench_wide_header.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import gzip

import numpy as np

from _timing import alternating_medians
from ladderboard.files import Solution, SubmissionError, parse_submission


def wide(columns: int) -> bytes:
    names = ["id", "target", *(f"c{i}" for i in range(columns - 2))]
    text = ",".join(names) + "\n" + ",".join(["0"] * columns) + "\n"
    return gzip.compress(text.encode(), compresslevel=6)


def valid_of_size(compressed: int, rng: np.random.Generator) -> tuple[Solution, bytes]:
    """A solution and a valid gzip submission of about ``compressed`` bytes."""
    n = 1000
    while True:
        solution = Solution.from_labels(rng.integers(0, 2, n), public_fraction=0.5, random_state=0)
        values = rng.random(n).round(6).tolist()
        rows = "".join(f"{i},{v!r}\n" for i, v in zip(solution.ids, values, strict=True))
        data = gzip.compress(f"id,target\n{rows}".encode(), compresslevel=6)
        if len(data) >= compressed:
            return solution, data
        n = int(n * compressed / len(data) * 1.05) + 1


def refusal(data: bytes, solution: Solution) -> str:
    try:
        parse_submission(data, solution)
    except SubmissionError as error:
        return error.code
    return "accepted"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    repeat = parser.parse_args().repeat
    rng = np.random.default_rng(0)
    print(
        f"{'columns':>8} {'gzip':>8} {'refusal':>10} {'code':>17} {'baseline':>10} "
        f"{'ratio':>7} {'goal':>5}"
    )
    for columns in (40_000, 100_000):
        data = wide(columns)
        solution, valid = valid_of_size(len(data), rng)
        code = refusal(data, solution)
        refused, baseline = alternating_medians(
            [
                lambda d=data, s=solution: refusal(d, s),
                lambda v=valid, s=solution: parse_submission(v, s),
            ],
            repeat=repeat,
        )
        print(
            f"{columns:>8} {len(data) / 1024:>6.0f}KB {refused * 1e3:>8.1f}ms {code:>17} "
            f"{baseline * 1e3:>8.1f}ms {refused / baseline:>7.3f} {'<= 1':>5}"
        )


if __name__ == "__main__":
    main()
