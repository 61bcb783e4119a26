"""A bounded load test of the competition server over HTTP, and its benchmark.

For each size n (rows of a submission file) and each number of uvicorn
workers, it starts the real server on a free loopback port over a fresh
database (a SQLite file, or a new PostgreSQL database with ``--pg``), creates
a ParameterFreeLadder competition with no daily quota, registers several
teams, and lets 32 concurrent clients submit distinct files to them (each
with an idempotency key), bounded by ``--requests`` and ``--seconds``. Then
it checks what the server acknowledged: ``verify`` replays every board bit
for bit, and every acknowledged submission is stored exactly once, nothing
else.

It prints, per configuration, p50 and p99 latency and submissions per second
under load, the median of the same submission sent by one client alone, and
the engine-only median of the same submission (``Competitions.submit`` in
this process, on the same kind of database) measured in the same run; the
ratio one-client HTTP / engine is what HTTP adds (goal: at most 1.5 at
n = 1e5).

    python benchmarks/load_http.py [--pg postgresql+psycopg://postgres@127.0.0.1/test]
        [--sizes 10000 100000] [--workers 1 2] [--clients 32] [--requests 320]

Loopback only; every server it starts is stopped, every database it creates
is dropped.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from ladderboard.client import Client, ServerError
from ladderboard.engine import Competitions
from ladderboard.engine.audit import verify
from ladderboard.files.solution import Solution
from ladderboard.rules.config import CompetitionConfig
from ladderboard.server.local import LocalServer
from ladderboard.store import SubmissionRow, scratch_postgres_database

SLUG = "load"
TEAMS = 8
SOLO = 12  # submissions timed one at a time, through HTTP and through the engine
WARM = 4  # of which the first are not counted (each worker warms up)


@contextlib.contextmanager
def fresh_database(pg: str | None, folder: Path) -> Iterator[str]:
    """A new empty database: a SQLite file in ``folder``, or one made on ``pg``."""
    if pg is None:
        yield f"sqlite:///{folder / f'{uuid.uuid4().hex[:8]}.db'}"
        return
    with scratch_postgres_database(pg, prefix="lb_load") as url:
        yield url


def make_files(solution: Solution, count: int, seed: int) -> list[bytes]:
    """``count`` distinct submission files (40 % of the labels flipped at random)."""
    rng = np.random.default_rng(seed)
    prefix = [f"{i}," for i in np.asarray(solution.ids, dtype=str)]
    out = []
    for _ in range(count):
        p = np.where(rng.random(solution.n) < 0.4, 1 - solution.targets, solution.targets)
        body = "".join(f"{a}{int(v)}\n" for a, v in zip(prefix, p, strict=True))
        out.append(f"id,target\n{body}".encode())
    return out


@dataclass
class Load:
    latencies: list[float]
    acknowledged: dict[str, int]  # idempotency key → submission id
    refused: list[str]
    seconds: float


def run_load(
    client: Client,
    tokens: list[str],
    files: list[bytes],
    *,
    clients: int,
    requests: int,
    seconds: float,
) -> Load:
    """``clients`` threads submit ``requests`` jobs in all (team j % len(tokens),
    file j // len(tokens)), stopping early after ``seconds``."""
    jobs = iter(range(requests))
    lock = threading.Lock()
    latencies: list[float] = []
    acknowledged: dict[str, int] = {}
    refused: list[str] = []
    stop_at = time.monotonic() + seconds

    def worker() -> None:
        with Client(client.server, None, timeout=120) as http:
            own = {t: http.with_token(t) for t in tokens}
            while time.monotonic() < stop_at:
                with lock:
                    job = next(jobs, None)
                if job is None:
                    return
                team, index = job % len(tokens), job // len(tokens)
                key = f"job-{job}"
                start = time.perf_counter()
                try:
                    result = own[tokens[team]].submit(
                        SLUG, files[index % len(files)], idempotency_key=key
                    )
                except ServerError as exc:
                    with lock:
                        refused.append(f"{key}: {exc}")
                    continue
                elapsed = time.perf_counter() - start
                with lock:
                    latencies.append(elapsed)
                    acknowledged[key] = result["id"]

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        for future in [pool.submit(worker) for _ in range(clients)]:
            future.result()
    return Load(latencies, acknowledged, refused, time.perf_counter() - start)


def check_stored_once(url: str, load: Load, solo: int) -> int:
    """``verify`` passes, and the stored submissions are the ``solo`` one-client ones
    (made first) and exactly the acknowledged ones."""
    store = Competitions.open(url, create_schema=False)
    try:
        report = verify(store, SLUG)
        with Session(store.engine) as session:
            stored = sorted(session.scalars(select(SubmissionRow.id)))
    finally:
        store.engine.dispose()
    acknowledged = sorted(load.acknowledged.values())
    if len(set(acknowledged)) != len(acknowledged):
        raise AssertionError("two acknowledged jobs share a submission id")
    if stored[solo:] != acknowledged or len(stored) != solo + len(acknowledged):
        raise AssertionError(
            f"{len(stored)} submissions stored, {solo} + {len(acknowledged)} acknowledged"
        )
    return report.submissions


def config() -> CompetitionConfig:
    return CompetitionConfig(
        score="zero_one", mechanism="parameter-free-ladder", daily_quota=None, invalid_quota=None
    )


def engine_seconds(url: str, solution: Solution, files: list[bytes]) -> float:
    """The median engine-only time of a submission, on a fresh database at ``url``."""
    store = Competitions.open(url)
    try:
        store.create(SLUG, solution, config())
        store.add_team(SLUG, "solo")
        times = []
        for data in files[:SOLO]:
            start = time.perf_counter()
            store.submit(SLUG, "solo", data)
            times.append(time.perf_counter() - start)
    finally:
        store.engine.dispose()
    return statistics.median(times[WARM:])


def http_seconds(client: Client, token: str, files: list[bytes]) -> float:
    """The median time of a submission sent by one client alone."""
    team = client.with_token(token)
    times = []
    for data in files[:SOLO]:
        start = time.perf_counter()
        team.submit(SLUG, data)
        times.append(time.perf_counter() - start)
    return statistics.median(times[WARM:])


def bench(args: argparse.Namespace, n: int, workers: int, folder: Path) -> dict[str, float]:
    rng = np.random.default_rng(n)
    solution = Solution.from_labels(rng.integers(0, 2, n), public_fraction=0.5, random_state=0)
    per_team = -(-args.requests // TEAMS)
    files = make_files(solution, max(per_team, SOLO), seed=n)
    with fresh_database(args.pg, folder) as url:
        engine = engine_seconds(url, solution, files)
    with fresh_database(args.pg, folder) as url:
        with LocalServer(url, workers=workers) as server:
            organiser = Client(server.url, server.admin_token, timeout=120)
            organiser.create_competition(
                SLUG, solution.to_csv(), score="zero_one", mechanism="parameter-free-ladder",
                daily_quota="none", invalid_quota="none",
            )  # fmt: skip
            tokens = [organiser.add_team(SLUG, f"team-{t}")["token"] for t in range(TEAMS)]
            solo_token = organiser.add_team(SLUG, "solo")["token"]
            solo = http_seconds(organiser, solo_token, files)
            load = run_load(
                organiser, tokens, files,
                clients=args.clients, requests=args.requests, seconds=args.seconds,
            )  # fmt: skip
            organiser.close_connection()
        if load.refused:
            raise AssertionError(f"{len(load.refused)} refused, e.g. {load.refused[0]}")
        verified = check_stored_once(url, load, SOLO)
    lat = np.array(load.latencies)
    return {
        "n": n,
        "workers": workers,
        "requests": len(lat),
        "verified": verified,
        "p50_ms": 1e3 * float(np.percentile(lat, 50)),
        "p99_ms": 1e3 * float(np.percentile(lat, 99)),
        "per_s": len(lat) / load.seconds,
        "solo_ms": 1e3 * solo,
        "engine_ms": 1e3 * engine,
        "ratio": solo / engine,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pg", help="A PostgreSQL URL whose server may create databases.")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--requests", type=int, default=320, help="Submissions per run.")
    parser.add_argument("--seconds", type=float, default=60.0, help="Time limit per run.")
    args = parser.parse_args()
    if not 1 <= args.clients <= 256 or not 1 <= args.requests <= 10_000:
        parser.error("--clients must be in [1, 256] and --requests in [1, 10000]")
    database = "PostgreSQL" if args.pg else "SQLite"
    print(
        f"{database}, {args.clients} clients, {TEAMS} teams, up to {args.requests} "
        f"submissions or {args.seconds:.0f} s per run; ParameterFreeLadder, 0/1 loss"
    )
    header = (
        f"{'n':>7} {'workers':>7} {'subs':>5} {'p50 ms':>8} {'p99 ms':>8} {'subs/s':>7} "
        f"{'1 client ms':>11} {'engine ms':>9} {'HTTP/engine':>11}"
    )
    print(header)
    with tempfile.TemporaryDirectory(prefix="ladderboard-load-") as folder:
        for n in args.sizes:
            for workers in args.workers:
                r = bench(args, n, workers, Path(folder))
                print(
                    f"{r['n']:>7} {r['workers']:>7} {r['requests']:>5} {r['p50_ms']:>8.1f} "
                    f"{r['p99_ms']:>8.1f} {r['per_s']:>7.1f} {r['solo_ms']:>11.1f} "
                    f"{r['engine_ms']:>9.1f} {r['ratio']:>11.2f}",
                    flush=True,
                )
    print(
        "every run: verify replays every board bit for bit; every acknowledged submission "
        "is stored exactly once"
    )


if __name__ == "__main__":
    main()
