"""``ladderboard replay`` on a competition of the Ladder paper's size, against the floor.

A synthetic history is written to a temporary directory: 12000 test rows
(3600 public, 8400 private, as Kaggle's Photo Quality Prediction), 200 teams
of 10 submissions each (2000 files of about 180 kB, probabilities with six
decimals, rows in solution order, integer ids). Each team has a skill; each
submission is the labels seen through the team's noise.

Timed (wall clock, on whatever else the machine is running):

- the floor: ``pyarrow.csv.read_csv`` of every file, nothing else;
- the replay under the loss-based mechanisms (every registered mechanism but
  the metric-based ones), with 1 and 2 threads: discovery, tolerant
  reading and alignment, log loss per row, every mechanism with per-team
  boards, and the analyses (perturbations, Kendall, half-splits, t-tests);
- the replay under ``all`` mechanisms, once, with the seconds of each stage;
- writing the tables, figures and report;

and Kendall's tau of each board, with the Shaky Ladder's again at ``--clip 0.01``.

Issue 6's goal: 2000 submissions x 12000 rows under all mechanisms in under
30 s on a 2-core machine.

    python benchmarks/bench_replay.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pv

from _timing import median_seconds
from ladderboard.files import Solution
from ladderboard.mechanisms import MECHANISMS
from ladderboard.replay import replay_competition, write_outputs

N_ROWS = 12_000
N_TEAMS = 200
PER_TEAM = 10


def probabilities_as_bytes(p: np.ndarray) -> list[bytes]:
    """``0.dddddd`` for each probability in [0, 1) (six decimals), built from digits."""
    k = np.minimum(np.round(p * 1e6).astype(np.int64), 999_999)
    text = np.empty((p.size, 8), dtype=np.uint8)
    text[:, 0], text[:, 1] = ord("0"), ord(".")
    for j in range(6):
        text[:, 7 - j] = ord("0") + (k // 10**j) % 10
    return text.view("S8").ravel().tolist()


def write_history(root: Path, rng: np.random.Generator) -> Solution:
    labels = (rng.random(N_ROWS) < 0.5).astype(float)
    solution = Solution.from_labels(labels, public_fraction=0.3, random_state=0)
    (root / "solution.csv").write_bytes(solution.to_csv())
    folder = root / "submissions"
    folder.mkdir()
    prefixes = [f"{i},".encode() for i in solution.ids]
    index = ["file,team,submitted_at\n"]
    signal = 2.0 * labels - 1.0
    for t in range(N_TEAMS):
        skill = rng.uniform(0.5, 3.0)
        for s in range(PER_TEAM):
            logit = skill * signal + rng.normal(0.0, 1.5, N_ROWS)
            p = 1.0 / (1.0 + np.exp(-logit))
            values = probabilities_as_bytes(p)
            body = b"".join(a + b + b"\n" for a, b in zip(prefixes, values, strict=True))
            hour, minute = divmod(t, 60)
            name = f"team_{t}__202603{1 + s:02d}T{hour:02d}{minute:02d}00Z.csv"
            (folder / name).write_bytes(b"id,target\n" + body)
            index.append(f"{name},team_{t},2026-03-{1 + s:02d}T{hour:02d}:{minute:02d}:00Z\n")
    (root / "submissions.csv").write_text("".join(index))
    return solution


def floor(folder: Path) -> None:
    for path in sorted(folder.iterdir()):
        pv.read_csv(pa.BufferReader(path.read_bytes()))


def main() -> None:
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        write_history(root, rng)
        size = sum(p.stat().st_size for p in (root / "submissions").iterdir())
        print(
            f"history: {N_TEAMS * PER_TEAM} submissions x {N_ROWS} rows, {size / 2**20:.0f} MB, "
            f"written in {time.perf_counter() - start:.1f} s"
        )
        floor_s = median_seconds(lambda: floor(root / "submissions"), repeat=3)
        print(f"floor (pyarrow.csv.read_csv of every file): {floor_s:.2f} s\n")
        loss_based = [n for n, k in MECHANISMS.items() if k.input_kind == "losses"]
        print(f"{'mechanisms':>24} {'threads':>7} {'replay':>9} {'ratio':>6}")
        for threads in (1, 2):

            def run(threads=threads):
                return replay_competition(
                    root / "solution.csv",
                    root / "submissions",
                    mechanisms=loss_based,
                    threads=threads,
                )

            seconds = median_seconds(run, repeat=3)
            label = f"loss-based ({len(loss_based)})"
            print(f"{label:>24} {threads:>7} {seconds:>8.2f}s {seconds / floor_s:>6.2f}")
        result = run(2)
        print(
            "  stages (2 threads): " + ", ".join(f"{k} {v:.2f}s" for k, v in result.seconds.items())
        )

        start = time.perf_counter()
        result = replay_competition(
            root / "solution.csv", root / "submissions", mechanisms=["all"], threads=2
        )
        seconds = time.perf_counter() - start
        print(f"{f'all ({len(MECHANISMS)})':>24} {2:>4} {seconds:>8.2f}s {seconds / floor_s:>6.2f}")
        print("  stages: " + ", ".join(f"{k} {v:.2f}s" for k, v in result.seconds.items()))
        print(
            "  Kendall tau, public board against private: "
            + ", ".join(f"{row['mechanism']} {row['tau']:.3f}" for row in result.kendall)
        )
        start = time.perf_counter()
        write_outputs(result, root / "out", command="bench_replay")
        print(f"\nwriting tables, figures and report: {time.perf_counter() - start:.2f} s")
        clipped = replay_competition(
            root / "solution.csv",
            root / "submissions",
            mechanisms=["shaky-ladder"],
            threads=2,
            clip=0.01,
        )
        print(f"Shaky Ladder's Kendall tau with --clip 0.01: {clipped.kendall[0]['tau']:.3f}")


if __name__ == "__main__":
    main()
