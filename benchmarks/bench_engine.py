"""Submissions per second through the engine, on SQLite and PostgreSQL, at
n = 1e4 and 1e5 rows, with the time split into parsing, scoring, the
mechanism and persistence, beside the floor of reading the same CSV with
pyarrow alone. SQLite runs with its default ``synchronous = FULL`` and again
with ``?synchronous=normal`` (no wait for the disk at each commit). Last,
PostgreSQL against SQLite (default settings) with the same files sent to
each in turn (goal: at most 1.3x), and a submission after another process's
to the same board (its cached mechanism stale) against one after its own.

The floor and the submissions alternate, a file read then another file
submitted, each file once: wall time on a shared virtual machine drifts by
15 % within a minute, and a ratio of two blocks timed a minute apart drifts
with it. The CPU time of every thread of the process, against the CPU time
of reading the same files, is printed too.

    python benchmarks/bench_engine.py [--score zero_one|log_loss] [--board per-team|per-rank]
        [--pg postgresql+psycopg://postgres@127.0.0.1/test]
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow.csv as pv

from _timing import median_seconds
from ladderboard._blas import single_blas_thread
from ladderboard.engine import Competitions
from ladderboard.files.solution import Solution
from ladderboard.files.submission import parse_submission
from ladderboard.mechanisms import ParameterFreeLadder
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.scoring import score_predictions
from ladderboard.store import scratch_postgres_database

ROUNDS = 40  # each reads a file (the floor), parses another and submits a third


def files(solution: Solution, count: int, rng: np.random.Generator, score: str) -> list[bytes]:
    """Labels with 40 % flipped (zero_one), or probabilities with six decimals
    leaning towards the labels (log_loss)."""
    out = []
    ids = np.asarray(solution.ids, dtype=str)
    y = solution.targets
    for _ in range(count):
        if score == "log_loss":
            p = np.clip(0.3 * y + 0.7 * rng.random(solution.n), 0.0, 1.0)
            body = "\n".join(f"{i},{v:.6f}" for i, v in zip(ids, p, strict=True))
        else:
            p = np.where(rng.random(solution.n) < 0.4, 1 - y, y)
            body = "\n".join(f"{i},{int(v)}" for i, v in zip(ids, p, strict=True))
        out.append(f"{solution.id_column},{solution.target_columns[0]}\n{body}\n".encode())
    return out


def per_file(files: list[bytes], work) -> float:
    """The median seconds of ``work`` over the files, each once."""
    times = []
    for blob in files:
        start = time.perf_counter()
        work(blob)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def bench(url: str, n: int, label: str, score: str, board: str) -> None:
    rng = np.random.default_rng(0)
    solution = Solution.from_labels(rng.integers(0, 2, 2 * n), public_fraction=0.5, random_state=0)
    data = files(solution, 1 + 3 * ROUNDS, rng, score)
    config = CompetitionConfig(
        score=score, mechanism="parameter-free-ladder", board=board, daily_quota=None
    )
    store = Competitions.open(url)
    store.create("bench", solution, config, random_state=0)
    store.add_team("bench", "team")
    store.submit("bench", "team", data[0])  # warm the solution cache and connections
    read, parsed, submitted = data[1::3], data[2::3], data[3::3]

    probabilities = config.scoring().requires_probabilities
    parse = per_file(
        parsed, lambda blob: parse_submission(blob, solution, probabilities=probabilities)
    )
    predictions = parse_submission(parsed[0], solution, probabilities=probabilities)
    scoring = config.scoring()

    def score_once():  # as the engine scores: row numbers, no second check of parsed input
        return score_predictions(
            scoring,
            solution.targets,
            predictions,
            solution.public_rows,
            solution.private_rows,
            checked=True,
        )

    score = median_seconds(score_once, repeat=9)
    scored = score_once()
    ladder = ParameterFreeLadder(n=solution.n_public)
    ladder.submit(scored.public_input)
    with single_blas_thread():  # as in the engine (a spinning BLAS thread would linger)
        mechanism = median_seconds(lambda: ladder.submit(scored.public_input), repeat=9)

    floors, times, floor_cpu, cpu = [], [], 0.0, 0.0
    for floor_blob, blob in zip(read, submitted, strict=True):
        start, start_cpu = time.perf_counter(), time.process_time()
        pv.read_csv(io.BytesIO(floor_blob))
        middle, middle_cpu = time.perf_counter(), time.process_time()
        store.submit("bench", "team", blob)
        end, end_cpu = time.perf_counter(), time.process_time()
        floors.append(middle - start)
        times.append(end - middle)
        floor_cpu += middle_cpu - start_cpu
        cpu += end_cpu - middle_cpu
    store.engine.dispose()
    # Medians: robust to the odd checkpoint or neighbour.
    floor, total = float(np.median(floors)), float(np.median(times))
    p90 = float(np.percentile(times, 90))  # the tail: a WAL checkpoint, a new best's array
    cpu, floor_cpu = cpu / ROUNDS, floor_cpu / ROUNDS
    rest = max(0.0, total - parse - score - mechanism)
    print(
        f"{label:>18} n={2 * n:>7} rows: {1 / total:7.1f} submissions/s  "
        f"{total * 1e3:7.2f} ms = parse {parse * 1e3:6.2f} + score {score * 1e3:5.2f} "
        f"+ mechanism {mechanism * 1e3:5.2f} + persistence {rest * 1e3:6.2f}   "
        f"floor (pyarrow read) {floor * 1e3:6.2f} ms, whole submission {total / floor:5.2f}x\n"
        f"{'':>18} CPU of every thread: {cpu * 1e3:6.2f} ms a submission against "
        f"{floor_cpu * 1e3:5.2f} ms to read it, {cpu / floor_cpu:5.2f}x; "
        f"90th percentile of the submissions {p90 * 1e3:6.2f} ms"
    )


def versus(pg_admin: str, n: int, score: str, board: str) -> None:
    """A submission on PostgreSQL against one on SQLite (goal: at most 1.3x).
    The same files go to both stores in turn, SQLite then PostgreSQL, so that
    both sides see the same machine."""
    rng = np.random.default_rng(1)
    solution = Solution.from_labels(rng.integers(0, 2, 2 * n), public_fraction=0.5, random_state=0)
    data = files(solution, 1 + ROUNDS, rng, score)
    config = CompetitionConfig(
        score=score, mechanism="parameter-free-ladder", board=board, daily_quota=None
    )
    times: dict[str, list[float]] = {"SQLite": [], "PostgreSQL": []}
    with (
        tempfile.TemporaryDirectory() as tmp,
        scratch_postgres_database(pg_admin, prefix="lb_bench") as pg,
    ):
        stores = {
            "SQLite": Competitions.open(f"sqlite:///{Path(tmp) / 'bench.db'}"),
            "PostgreSQL": Competitions.open(pg),
        }
        for store in stores.values():
            store.create("bench", solution, config, random_state=0)
            store.add_team("bench", "team")
            store.submit("bench", "team", data[0])  # warm caches and connections
        for blob in data[1:]:
            for label, store in stores.items():
                start = time.perf_counter()
                store.submit("bench", "team", blob)
                times[label].append(time.perf_counter() - start)
        for store in stores.values():
            store.engine.dispose()
    sqlite, postgres = (float(np.median(times[k])) for k in ("SQLite", "PostgreSQL"))
    print(
        f"n={2 * n:>7} rows, alternating: SQLite {sqlite * 1e3:6.2f} ms, PostgreSQL "
        f"{postgres * 1e3:6.2f} ms a submission: {postgres / sqlite:5.2f}x   (goal <= 1.3x)"
    )


def stale(n: int, score: str) -> None:
    """A submission after another process submitted to the same per-team
    board (two uvicorn workers, or two hosts), whose cached mechanism is then
    stale and loaded from the stored state, against one after the same
    process's own, in turn on one SQLite file: team ``a`` always through the
    first store, team ``b`` through the two stores alternately. (On a per-rank
    board every team's submission changes the one board, so even ``a``'s
    would find its mechanism stale.)"""
    rng = np.random.default_rng(2)
    solution = Solution.from_labels(rng.integers(0, 2, 2 * n), public_fraction=0.5, random_state=0)
    data = files(solution, 2 + 2 * ROUNDS, rng, score)
    config = CompetitionConfig(score=score, mechanism="parameter-free-ladder", daily_quota=None)
    times: dict[str, list[float]] = {"own": [], "stale": []}
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        first = Competitions.open(url)
        first.create("bench", solution, config, random_state=0)
        for team in ("a", "b"):
            first.add_team("bench", team)
        second = Competitions.open(url)
        first.submit("bench", "a", data[0])  # warm caches and connections
        second.submit("bench", "b", data[1])
        for k in range(ROUNDS):
            for label, team, store in (("own", "a", first), ("stale", "b", (first, second)[k % 2])):
                blob = data[2 + 2 * k + (label == "stale")]
                start = time.perf_counter()
                store.submit("bench", team, blob)
                times[label].append(time.perf_counter() - start)
        for store in (first, second):
            store.engine.dispose()
    own, after_other = (float(np.median(times[k])) for k in ("own", "stale"))
    print(
        f"n={2 * n:>7} rows, SQLite, per-team board, alternating: after its own "
        f"submission {own * 1e3:6.2f} ms, after another process's "
        f"{after_other * 1e3:6.2f} ms: {after_other / own:5.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pg", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    parser.add_argument("--score", choices=("zero_one", "log_loss"), default="zero_one")
    parser.add_argument("--board", choices=("per-team", "per-rank"), default="per-team")
    args = parser.parse_args()
    print(f"score {args.score}, board {args.board}, ParameterFreeLadder")
    run = {"score": args.score, "board": args.board}
    for n in (5_000, 50_000):  # solution rows = 2n: 1e4 and 1e5
        with tempfile.TemporaryDirectory() as tmp:
            bench(f"sqlite:///{Path(tmp) / 'bench.db'}", n, "SQLite", **run)
        with tempfile.TemporaryDirectory() as tmp:
            url = f"sqlite:///{Path(tmp) / 'bench.db'}?synchronous=normal"
            bench(url, n, "SQLite sync=normal", **run)
        with scratch_postgres_database(args.pg, prefix="lb_bench") as url:
            bench(url, n, "PostgreSQL", **run)
    print()
    for n in (5_000, 50_000):
        versus(args.pg, n, **run)
    print()
    for n in (5_000, 50_000):
        stale(n, args.score)


if __name__ == "__main__":
    main()
