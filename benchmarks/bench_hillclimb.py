"""Raw gain of near-duplicate hill-climbing against each board, with intervals.

The papers' yardstick (:mod:`ladderboard.advisor.yardstick`): random labels
(every file's true error is 0.5), ``n`` public rows, a budget of ``k``
files; the raw gain is the true error of the file the attacker would select
minus what the board displays at the end (Blum & Hardt 2015, Def. 2.1), as
a mean over repetitions with its Student-t 95 % interval. Every board sees
the same labels and attacker's draws in a repetition, so the last column
pairs each board with the fixed-step Ladder (η = 1/√n). The fixed
references: the best of ``k`` blind files on the noiseless full-disclosure
board, and √(log k / n) (Blum & Hardt 2015, Thm 3.3).

    python benchmarks/bench_hillclimb.py --n 4000 --k 100 1000 --reps 10
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from ladderboard.advisor.grid import default_grid, scoring_rule, shaky_default_label
from ladderboard.advisor.yardstick import (
    blind_reference,
    lower_bound_reference,
    measure_gains,
    paired_difference,
)

BOARDS = (
    "PF Ladder",
    "Sig-Ladder α=0.15",
    "Sig-Ladder α=0.01",
    "LadderBoot b=10",
    "LadderBoot b=100",
    "LadderBoot b=1000",
    "BayesBoot",
    shaky_default_label(),
    "Ladder η=1/√n",
    "Kaggle 1e-5",
)
REFERENCE = "Ladder η=1/√n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=4000)
    parser.add_argument("--k", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--boards", nargs="+", default=list(BOARDS))
    args = parser.parse_args(argv)
    grid = {s.label: s for s in default_grid(scoring_rule("zero_one"))}
    unknown = [b for b in args.boards if b not in grid]
    if unknown:
        parser.error(f"unknown boards {unknown}; the grid has {sorted(grid)}")
    settings = [grid[b] for b in args.boards]

    began = time.perf_counter()
    rows = measure_gains(
        settings,
        n=args.n,
        ks=args.k,
        repetitions=args.reps,
        random_state=args.seed,
        progress=lambda r: print(
            f"  {r.label} k={r.k}: {r.interval} ({r.seconds:.1f} s)", file=sys.stderr
        ),
    )
    by = {(r.label, r.k): r for r in rows}
    root = 1 / math.sqrt(args.n)
    print(
        f"n = {args.n}, {args.reps} repetitions, random labels; raw gain = 0.5 − displayed, "
        f"mean ± Student-t 95 % half-width; 1/√n = {root:.4f}\n"
    )
    head = "| board | " + " | ".join(
        f"k = {k} | × 1/√n | − Ladder η=1/√n (paired) | s" for k in args.k
    )
    print(head + " |")
    print("|---|" + "---|---|---|---|" * len(args.k))
    for setting in settings:
        cells = []
        for k in args.k:
            row = by[(setting.label, k)]
            cells.append(f"{row.interval}")
            cells.append(f"{row.interval.mean / root:.1f}")
            if (REFERENCE, k) in by and setting.label != REFERENCE:
                cells.append(str(paired_difference(row.gains, by[(REFERENCE, k)].gains)))
            else:
                cells.append("–")
            cells.append(f"{row.seconds:.0f}")
        print(f"| {setting.label} | " + " | ".join(cells) + " |")
    cells = []
    for k in args.k:
        blind = blind_reference(args.n, k, repetitions=args.reps, random_state=args.seed)
        cells += [str(blind), f"{blind.mean / root:.1f}", "–", "–"]
    print("| reference: best of k blind files, noiseless board | " + " | ".join(cells) + " |")
    cells = []
    for k in args.k:
        bound = lower_bound_reference(args.n, k)
        cells += [f"{bound:.3f}", f"{bound / root:.1f}", "–", "–"]
    print("| reference: √(log k / n) | " + " | ".join(cells) + " |")
    print(f"\ntotal {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
