"""parse_submission against the floor: ``pyarrow.csv.read_csv`` of the same bytes.

One float target, ids read as strings, at n = 1e4 and 1e5 rows. The floor
reads the file with pyarrow's defaults (type inference included) and nothing
else; parse_submission also checks the header, the encoding, every value, and
aligns the rows with the solution by id. Goals: at most 2x the floor at
n = 1e5, shuffled text ids included; ``Solution.from_csv`` at most 3x.

Rows come in three orders and two kinds of id:

- ``same order``: the rows in solution order (a file built from the sample
  submission), integer ids "0" .. "n-1";
- ``shuffled``: the rows in random order, the same integer ids;
- ``shuffled, text ids``: random order, ids that are not integers
  ("row-0000017"), so alignment takes the general hash lookup.

Each ratio times its two sides in turn within every repetition, so that a
busy machine slows both alike. The gzip rows compare parse_submission of the
compressed file with pyarrow reading it through a gzip input stream.

Last, ``Solution.from_csv`` of a solution file of 1e6 rows (integer and text
ids) against the same floor; it also checks ids, targets and the split, and
builds the id lookup that every submission then uses.

    python benchmarks/bench_parse.py
"""

from __future__ import annotations

import gzip

import numpy as np
import pyarrow as pa
import pyarrow.csv as pv

from _timing import alternating_medians
from ladderboard.files import Solution, parse_submission


def submission(solution: Solution, predictions: np.ndarray, order: np.ndarray) -> bytes:
    ids, values = solution.ids, predictions.tolist()
    rows = "".join(f"{ids[i]},{values[i]!r}\n" for i in order.tolist())
    return f"{solution.id_column},{solution.target_columns[0]}\n{rows}".encode()


def floor_plain(data: bytes) -> object:
    return pv.read_csv(pa.BufferReader(data))


def floor_gzip(data: bytes) -> object:
    return pv.read_csv(pa.CompressedInputStream(pa.BufferReader(data), "gzip"))


def bench(n: int, rng: np.random.Generator) -> None:
    labels = (rng.random(n) < 0.5).astype(float)
    numbered = Solution.from_labels(labels, public_fraction=0.3, random_state=0)
    named = Solution.from_labels(
        labels, public_fraction=0.3, random_state=0, ids=[f"row-{i:07d}" for i in range(n)]
    )
    predictions = rng.random(n)
    shuffle = rng.permutation(n)
    cases = [
        ("same order", numbered, np.arange(n)),
        ("shuffled", numbered, shuffle),
        ("shuffled, text ids", named, shuffle),
    ]
    for label, solution, order in cases:
        plain = submission(solution, predictions, order)
        expected = predictions
        assert np.array_equal(parse_submission(plain, solution), expected)
        packed = gzip.compress(plain, compresslevel=6)
        assert np.array_equal(parse_submission(packed, solution), expected)
        for kind, data, floor_fn in (("csv", plain, floor_plain), ("gzip", packed, floor_gzip)):
            floor, parse = alternating_medians(
                [
                    lambda d=data, f=floor_fn: f(d),
                    lambda d=data, s=solution: parse_submission(d, s),
                ],
                repeat=15,
                number=5,
            )
            print(
                f"{n:>7} {label:>19} {kind:>5} {len(data) / 2**20:>7.2f}MB "
                f"{floor * 1e3:>9.2f}ms {parse * 1e3:>9.2f}ms {parse / floor:>6.2f} "
                f"{'<= 2' if n >= 10**5 else '':>5}"
            )


def bench_solution(n: int, rng: np.random.Generator) -> None:
    targets = rng.random(n)
    for label, ids in (("integer ids", None), ("text ids", [f"row-{i:07d}" for i in range(n)])):
        solution = Solution.from_labels(targets, public_fraction=0.3, random_state=0, ids=ids)
        data = solution.to_csv()
        assert Solution.from_csv(data) == solution
        floor, read = alternating_medians(
            [lambda d=data: floor_plain(d), lambda d=data: Solution.from_csv(d)], repeat=5
        )
        print(
            f"{n:>7} {label:>19} {'csv':>5} {len(data) / 2**20:>7.2f}MB "
            f"{floor * 1e3:>9.2f}ms {read * 1e3:>9.2f}ms {read / floor:>6.2f} {'<= 3':>5}"
        )


def main() -> None:
    rng = np.random.default_rng(0)
    header = f"{'file':>5} {'size':>9} {'floor':>11}"
    print(
        f"parse_submission\n{'n':>7} {'rows':>19} {header} {'parse':>11} {'ratio':>6} {'goal':>5}"
    )
    for n in (10**4, 10**5):
        bench(n, rng)
    print(
        f"\nSolution.from_csv\n{'n':>7} {'ids':>19} {header} {'read':>11} {'ratio':>6} {'goal':>5}"
    )
    bench_solution(10**6, rng)


if __name__ == "__main__":
    main()
