"""Ten million rows: a gzip submission through the engine against pyarrow's
read of the same file, the memory it takes, and the replay at that size.

A holdout of ``--rows`` rows (default 1e7: the test sets of the largest public
competitions), integer ids, 0/1 targets, half of them public. Each submission
is a gzip file (level 1, about 25 MB compressed and 99 MB of CSV at 1e7 rows)
with 40 % of the labels flipped. For every loss-based mechanism, with its
per-team board, and for the parameter-free Ladder with a per-rank board:

- ``create``: the competition stored with its solution;
- ``first``: the first submission after the competition is created, which
  reads the stored solution back and builds the mechanism's first state;
- ``steady``: the median of the next submissions; each is timed right after
  pyarrow reads another of the files (``pyarrow.csv.read_csv`` through a gzip
  input stream, the ``floor``), so that both sides see the same machine;
- ``peak``: how much the process's resident memory grew during one steady
  submission (Linux's peak resident size, reset just before), against the
  parsed arrays (the floor's table: ids and predictions).

Goals: a steady submission at most 2.5x the floor, its peak at most 3x the
parsed arrays. The limits the files need are the competition's ``max_bytes``
(set here to 256 MiB: 1e7 rows decompress to about 99 MB) and, over HTTP, the
server's ``max_upload_bytes`` (the compressed file, 25 MB, fits the default).

Last, ``replay_competition`` of a history at that size (3 teams, 2 gzip
files each) under the loss-based mechanisms, against the floor of the same
files.

    python benchmarks/bench_large.py [--rows 1e7] [--submissions 4]
"""

from __future__ import annotations

import argparse
import gc
import gzip
import io
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pv

from ladderboard.engine import Competitions
from ladderboard.files import Solution
from ladderboard.mechanisms import COMPETITION_MECHANISMS
from ladderboard.replay import replay_competition
from ladderboard.rules.config import CompetitionConfig

PARAMETERS = {"ladder": {"eta": 0.01}}  # the rest: their defaults


def gzip_file(y: np.ndarray, rng: np.random.Generator) -> bytes:
    flipped = np.where(rng.random(y.size) < 0.4, 1 - y, y)
    table = pa.table({"id": pa.array(np.arange(y.size)), "target": pa.array(flipped)})
    text = io.BytesIO()
    pv.write_csv(table, text, pv.WriteOptions(quoting_style="none"))
    return gzip.compress(text.getvalue(), compresslevel=1)


def floor(data: bytes) -> pa.Table:
    return pv.read_csv(pa.CompressedInputStream(pa.BufferReader(data), "gzip"))


def resident(key: str) -> int | None:
    """``VmRSS`` or ``VmHWM`` (the peak) of this process in bytes; None off Linux."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")  # Linux: the peak resident size starts again from now
    except OSError:
        return False
    return True


def bench(
    root: Path,
    solution: Solution,
    files: list[bytes],
    mechanism: str,
    board: str,
    parsed_bytes: int,
) -> None:
    store = Competitions.open(f"sqlite:///{root}/{mechanism}-{board}.db")
    config = CompetitionConfig(
        score="zero_one",
        mechanism=mechanism,
        mechanism_params=PARAMETERS.get(mechanism, {}),
        board=board,
        daily_quota=None,
        max_bytes=2**28,
    )
    start = time.perf_counter()
    store.create("large", solution, config, random_state=0)
    create = time.perf_counter() - start
    store.add_team("large", "team")
    start = time.perf_counter()
    store.submit("large", "team", files[0])
    first = time.perf_counter() - start
    floors, steady, peaks = [], [], []
    for k in range(1, len(files)):
        start = time.perf_counter()
        floor(files[k - 1])
        floors.append(time.perf_counter() - start)
        gc.collect()
        before, measured = resident("VmRSS"), reset_peak()
        start = time.perf_counter()
        store.submit("large", "team", files[k])
        steady.append(time.perf_counter() - start)
        peak = resident("VmHWM")
        if measured and before is not None and peak is not None:
            peaks.append(peak - before)
    store.engine.dispose()
    wall, base = statistics.median(steady), statistics.median(floors)
    memory = f"{max(peaks) / parsed_bytes:5.2f}x" if peaks else "  n/a"
    print(
        f"{mechanism:>22} {board:>8} {create:7.1f}s {first:6.2f}s {wall:7.2f}s {base:6.2f}s "
        f"{wall / base:6.2f}x  <= 2.5x  {max(peaks, default=0) / 2**20:6.0f} MiB {memory}  <= 3x"
    )


def replay(root: Path, solution: Solution, files: list[bytes], mechanisms: list[str]) -> None:
    history = root / "history"
    (history / "submissions").mkdir(parents=True)
    (history / "solution.csv").write_bytes(solution.to_csv())
    used = [files[k % len(files)] for k in range(6)]
    for k, data in enumerate(used):
        name = f"team_{k // 2}__2026030{1 + k % 2}T000000Z.csv.gz"
        (history / "submissions" / name).write_bytes(data)
    start = time.perf_counter()
    for data in used:
        floor(data)
    base = time.perf_counter() - start
    start = time.perf_counter()
    result = replay_competition(
        history / "solution.csv", history / "submissions", mechanisms=mechanisms, threads=2
    )
    seconds = time.perf_counter() - start
    print(
        f"\nreplay of 6 submissions x {solution.n} rows under {len(mechanisms)} loss-based "
        f"mechanisms: {seconds:.1f} s, floor {base:.1f} s ({seconds / base:.1f}x); stages: "
        + ", ".join(f"{k} {v:.1f}s" for k, v in result.seconds.items())
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--submissions", type=int, default=4, help="per competition, >= 2")
    args = parser.parse_args()
    n = int(args.rows)
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    start = time.perf_counter()
    solution = Solution.from_labels(y, public_fraction=0.5, random_state=0)
    files = [gzip_file(y, rng) for _ in range(max(2, args.submissions))]
    parsed_bytes = floor(files[0]).nbytes
    print(
        f"n = {n} rows; {len(files)} gzip files of {len(files[0]) / 2**20:.0f} MB "
        f"({parsed_bytes / 2**20:.0f} MiB parsed), made in {time.perf_counter() - start:.0f} s\n"
    )
    loss_based = sorted(
        name for name, k in COMPETITION_MECHANISMS.items() if k.input_kind == "losses"
    )
    print(
        f"{'mechanism':>22} {'board':>8} {'create':>8} {'first':>7} {'steady':>8} "
        f"{'floor':>7} {'ratio':>7} {'goal':>7}  {'peak':>10} {'/parsed':>6}  goal"
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for mechanism in loss_based:
            bench(root, solution, files, mechanism, "per-team", parsed_bytes)
        bench(root, solution, files, "parameter-free-ladder", "per-rank", parsed_bytes)
        replay(root, solution, files, loss_based)


if __name__ == "__main__":
    main()
