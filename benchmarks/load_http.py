"""A bounded load test of the competition server over HTTP, and its benchmark.

For each database (a SQLite file, and a new PostgreSQL database with
``--pg``), each size n (rows of a submission file) and each number of uvicorn
workers, it starts the real server on a free loopback port, creates a
ParameterFreeLadder competition with no quota, registers teams (twice as many
as clients, as on a busy last day where each team submits now and then), and
then alternates, round after round, its two sides in the same run:

* **one client**: one client process sends submissions one after the other;
* **C clients**: ``--processes`` client processes, each with ``C / processes``
  threads, send submissions at once;

and between them the engine alone (``Competitions.submit`` on a database of
the same kind, in this process, while the server is idle) times the same
files. Requests (the file as the body, as the ladderboard client sends it,
or with ``--form`` the multipart form a browser sends; with the team's token
and an idempotency key) are built before the clock starts and sent with the standard library's
``http.client``, so that a client costs little more than its socket (about
0.5 ms of CPU a request, against 13 ms with a full-featured client).

It prints, per configuration: accepted submissions a second with one client
and with C, their ratio (goal: at least 1.6 with 32 clients and 2 workers),
p50 and p99 latency under load (goal: p99 at most 4 × p50), the server's CPU
time per submission with one client (``1cl CPU``) and per accepted
submission under load (read from ``/proc`` for the server and its workers),
the client processes' own CPU (they share this machine's cores with the
server: on 2 cores the load generator takes CPU from the server it measures,
and the figure says how much), and the one-client HTTP time over the
engine's (goal: at most 1.5 at n = 1e4, 1.3 at 1e5).

A second line says why the ratio is what it is. One client keeps some of the
cores busy (CPU a submission of the server, the database and the client,
over its latency; the server hashes and compresses a file on worker threads
beside its parsing), so the cores allow at most ``cores / that`` times one
client's rate; under load the ratio is about that bound times the CPU of
a submission alone over its CPU under load, times the share of the cores
busy (exactly, for the rates pooled over the rounds rather than their
medians). On PostgreSQL the database's CPU is its server's, backends included
(read through the postmaster, when it runs on this machine; whatever else
uses that server meanwhile counts too); SQLite's work is the server's own.
Work the kernel does apart from any process (writing back pages, the
loopback network) is in none of them.

The clock of a phase starts once every client process holds its requests.
Before the first round every team submits once over the load's connections,
untimed, so that every worker has read the competition (one client's
connection reaches one worker). The first submissions of each one-client
phase are sent but neither timed nor counted, and a load phase is long
enough (``--load``) to measure a steady rate rather than the first requests
after the server sat idle. Then ``verify`` replays every board bit for bit,
and every acknowledged submission is checked to be stored exactly once.

    python benchmarks/load_http.py [--pg postgresql+psycopg://postgres@127.0.0.1/test]
        [--sizes 10000 100000] [--workers 1 2] [--clients 32] [--processes 4]
        [--rounds 3] [--load 480] [--solo 40] [--form] [--rate-limit N]

Loopback only; every request loop is bounded by count and by ``--seconds``;
every server it starts is stopped, every database it creates is dropped.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import resource
import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.client import HTTPConnection
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from sqlalchemy import create_engine, make_url, select, text
from sqlalchemy.orm import Session

from ladderboard.client import Client
from ladderboard.engine import Competitions
from ladderboard.engine.audit import verify
from ladderboard.files.solution import Solution
from ladderboard.rules.config import CompetitionConfig
from ladderboard.server.local import LocalServer
from ladderboard.store import SubmissionRow, TeamRow, scratch_postgres_database

SLUG = "load"
WARM = 2  # submissions of each one-client phase and engine batch not counted
TICKS = os.sysconf("SC_CLK_TCK")


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


# ------------------------------------------------------------------ requests
@dataclass(frozen=True)
class Request:
    """One submission, ready to send: the job's key, its headers and body."""

    key: str
    headers: dict[str, str]
    body: bytes


def build_request(token: str, key: str, data: bytes, *, form: bool = False) -> Request:
    """The POST the ladderboard client sends (the file as the body), or with
    ``form`` the multipart form a browser sends, built once."""
    if not form:
        headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": key}
        return Request(key, headers | {"Content-Type": "text/csv"}, data)
    boundary = uuid.uuid4().hex
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
        f'filename="predictions.csv"\r\nContent-Type: text/csv\r\n\r\n'
    ).encode()
    body = head + data + f"\r\n--{boundary}--\r\n".encode()
    headers = {
        "Authorization": f"Bearer {token}",
        "Idempotency-Key": key,
        "Content-Type": f"multipart/form-data; boundary={boundary}",
    }
    return Request(key, headers, body)


@dataclass
class Outcome:
    """What a client process saw: latencies, acknowledged jobs (key → the
    team's submission number), refusals, and its own CPU seconds."""

    latencies: list[float] = field(default_factory=list)
    acknowledged: dict[str, int] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)
    cpu: float = 0.0


def _client_process(url: str, requests: list[Request], threads: int, seconds: float) -> Outcome:
    """Send ``requests`` over ``threads`` keep-alive connections, until done or
    ``seconds`` have passed, starting when every client process holds its
    requests (the clock starts then)."""
    _GO.wait()
    deadline = time.time() + seconds
    start_cpu = resource.getrusage(resource.RUSAGE_SELF)
    outcome = Outcome()
    lock = threading.Lock()
    queue = iter(requests)

    address = urlsplit(url)
    path = f"/api/competitions/{SLUG}/submissions"

    def worker() -> None:
        # The standard library's client: a request costs it a fraction of
        # what a full-featured client costs, CPU taken from the server.
        http = HTTPConnection(address.hostname, address.port, timeout=120)
        try:
            while time.time() < deadline:
                with lock:
                    request = next(queue, None)
                if request is None:
                    return
                start = time.perf_counter()
                http.request("POST", path, body=request.body, headers=request.headers)
                answer = http.getresponse()
                text = answer.read()
                elapsed = time.perf_counter() - start
                with lock:
                    if answer.status in (200, 201):
                        outcome.latencies.append(elapsed)
                        outcome.acknowledged[request.key] = json.loads(text)["id"]
                    else:
                        outcome.refused.append(f"{request.key}: {answer.status} {text[:300]!r}")
        finally:
            http.close()

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    end_cpu = resource.getrusage(resource.RUSAGE_SELF)
    outcome.cpu = (end_cpu.ru_utime - start_cpu.ru_utime) + (end_cpu.ru_stime - start_cpu.ru_stime)
    return outcome


_GO: Any = None  # in a client process: passed once every client holds its requests


def _started(ready: Any, go: Any) -> None:
    """A client process's initializer: wait until every one is up."""
    global _GO
    _GO = go
    ready.wait()


def _stat(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command's name, or ``None``."""
    try:
        stat = Path("/proc", str(pid), "stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split()


def tree_cpu(pid: int) -> float:
    """CPU seconds used so far by process ``pid``, its descendants, and the
    children it has reaped (a PostgreSQL backend that exits adds its time to
    the postmaster's): the server and its uvicorn workers, or a database
    server and its backends."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (fields := _stat(entry.name)) is not None:
            parents[int(entry.name)] = int(fields[1])
            times[int(entry.name)] = (int(fields[11]) + int(fields[12])) / TICKS
    root = _stat(pid)
    total = 0.0 if root is None else (int(root[13]) + int(root[14])) / TICKS
    frontier = [pid]
    while frontier:
        current = frontier.pop()
        total += times.get(current, 0.0)
        frontier += [child for child, parent in parents.items() if parent == current]
    return total


def postmaster(url: str) -> int | None:
    """The PostgreSQL server process behind ``url`` when it runs on this
    machine (its backends' parent), else ``None``."""
    host = make_url(url).host
    if host not in (None, "", "localhost", "127.0.0.1", "::1"):
        return None  # a server on another machine: its pids mean nothing here
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            backend = connection.execute(text("SELECT pg_backend_pid()")).scalar_one()
    finally:
        engine.dispose()
    fields = _stat(backend)
    if fields is None or _command(backend) != "postgres":
        return None  # not visible from here (another container, hidden pids)
    parent = int(fields[1])
    return parent if parent != 1 and _command(parent) == "postgres" else None


def _command(pid: int) -> str | None:
    try:
        return Path("/proc", str(pid), "comm").read_text().strip()
    except OSError:
        return None


@dataclass
class Phase:
    """One timed phase: its outcome over all client processes and the
    server's CPU in it."""

    latencies: list[float]
    acknowledged: dict[str, int]
    refused: list[str]
    seconds: float
    server_cpu: float
    database_cpu: float
    client_cpu: float

    @property
    def cpu(self) -> float:
        """Every process's CPU seconds in the phase: server, database, clients."""
        return self.server_cpu + self.database_cpu + self.client_cpu

    @property
    def per_s(self) -> float:
        return len(self.latencies) / self.seconds


def run_phase(
    context: multiprocessing.context.BaseContext,
    server: LocalServer,
    requests: list[Request],
    *,
    processes: int,
    threads: int,
    seconds: float,
    database: int | None,
) -> Phase:
    """Send ``requests`` from ``processes`` client processes of ``threads``
    threads each (request i goes to process i % processes); ``database`` is
    the PostgreSQL server process whose CPU is counted too (SQLite's work is
    the server's own)."""
    shares = [requests[i::processes] for i in range(processes)]
    ready, go = context.Barrier(processes + 1), context.Barrier(processes + 1)
    with context.Pool(processes, initializer=_started, initargs=(ready, go)) as pool:
        ready.wait()  # every client process is up
        sent = pool.starmap_async(
            _client_process, [(server.url, share, threads, seconds) for share in shares]
        )
        go.wait()  # and holds its requests (hundreds of MB at 1e5 rows): the clock starts
        database_before = 0.0 if database is None else tree_cpu(database)
        cpu_before, start = tree_cpu(server.pid), time.perf_counter()
        outcomes = sent.get()
        elapsed = time.perf_counter() - start
        cpu_after = tree_cpu(server.pid)
        database_after = 0.0 if database is None else tree_cpu(database)
    return Phase(
        latencies=[x for o in outcomes for x in o.latencies],
        acknowledged={k: v for o in outcomes for k, v in o.acknowledged.items()},
        refused=[x for o in outcomes for x in o.refused],
        seconds=elapsed,
        server_cpu=cpu_after - cpu_before,
        database_cpu=database_after - database_before,
        client_cpu=sum(o.cpu for o in outcomes),
    )


# ------------------------------------------------------------------ checks
def check_stored_once(url: str, acknowledged: dict[str, tuple[str, int]]) -> int:
    """``verify`` passes, and the stored submissions are exactly the
    acknowledged ones, as (team, the team's submission number)."""
    store = Competitions.open(url, create_schema=False)
    try:
        report = verify(store, SLUG)
        with Session(store.engine) as session:
            names = dict(session.execute(select(TeamRow.id, TeamRow.name)).all())
            stored = sorted(
                (names[team], number)
                for team, number in session.execute(
                    select(SubmissionRow.team_id, SubmissionRow.number)
                )
            )
    finally:
        store.dispose()
    if stored != sorted(acknowledged.values()):
        raise AssertionError(
            f"{len(stored)} submissions stored, {len(acknowledged)} acknowledged, not the same"
        )
    return report.submissions


def config() -> CompetitionConfig:
    return CompetitionConfig(
        score="zero_one", mechanism="parameter-free-ladder", daily_quota=None, invalid_quota=None
    )


def engine_batch(store: Competitions, team: str, files: list[bytes]) -> list[float]:
    times = []
    for data in files:
        start = time.perf_counter()
        store.submit(SLUG, team, data)
        times.append(time.perf_counter() - start)
    return times[WARM:]


# ------------------------------------------------------------------ bench
def bench(args: argparse.Namespace, pg: str | None, n: int, workers: int, folder: Path) -> dict:
    context = multiprocessing.get_context("forkserver")
    rng = np.random.default_rng(n)
    solution = Solution.from_labels(rng.integers(0, 2, n), public_fraction=0.5, random_state=0)
    teams = 2 * args.clients
    per_team = -(-(args.rounds * args.load) // teams) + 2  # and one each to open
    per_solo = args.rounds * (args.solo + WARM)
    files = make_files(solution, max(per_team, per_solo), seed=n)
    solo_rates, solo_phases, load_phases, solo_times, engine_times = [], [], [], [], []
    acknowledged: dict[str, tuple[str, int]] = {}
    with fresh_database(pg, folder) as engine_url, fresh_database(pg, folder) as url:
        engine_store = Competitions.open(engine_url)
        engine_store.create(SLUG, solution, config())
        for r in range(args.rounds):
            engine_store.add_team(SLUG, f"engine-{r}")
        database = None if pg is None else postmaster(url)
        with LocalServer(url, workers=workers, rate_limit_per_minute=args.rate_limit) as server:
            organiser = Client(server.url, server.admin_token, timeout=120)
            organiser.create_competition(
                SLUG, solution.to_csv(), score="zero_one", mechanism="parameter-free-ladder",
                daily_quota="none", invalid_quota="none",
            )  # fmt: skip
            names = [f"team-{t}" for t in range(teams)] + [f"solo-{r}" for r in range(args.rounds)]
            tokens = {name: organiser.add_team(SLUG, name)["token"] for name in names}
            organiser.close_connection()
            used = dict.fromkeys(tokens, 0)

            def requests_for(team_names: list[str], count: int) -> list[Request]:
                out = []
                for j in range(count):
                    name = team_names[j % len(team_names)]
                    key = f"{name}-{used[name]}"
                    out.append(build_request(tokens[name], key, files[used[name]], form=args.form))
                    used[name] += 1
                return out

            team_names = [f"team-{t}" for t in range(teams)]

            def send(requests: list[Request], processes: int, threads: int) -> Phase:
                """One phase; every submission in it acknowledged (and recorded)."""
                phase = run_phase(
                    context, server, requests, processes=processes, threads=threads,
                    seconds=args.seconds, database=database,
                )  # fmt: skip
                if phase.refused:
                    raise AssertionError(f"{len(phase.refused)} refused, e.g. {phase.refused[0]}")
                for key, number in phase.acknowledged.items():
                    acknowledged[key] = (key.rsplit("-", 1)[0], number)
                return phase

            def many(count: int) -> Phase:
                threads = args.clients // args.processes
                return send(requests_for(team_names, count), args.processes, threads)

            # Neither timed nor counted: a submission from every team, over as
            # many connections as the load, so that every worker has read the
            # competition (a one-client phase's connection reaches one worker).
            many(teams)
            for r in range(args.rounds):
                solo = requests_for([f"solo-{r}"], args.solo + WARM)
                send(solo[:WARM], 1, 1)  # sent, but neither timed nor counted
                one = send(solo[WARM:], 1, 1)
                load_phases.append(many(args.load))
                engine_times += engine_batch(engine_store, f"engine-{r}", files[: args.solo + WARM])
                solo_phases.append(one)
                solo_times += one.latencies
                solo_rates.append(len(one.latencies) / sum(one.latencies))
        engine_store.dispose()
        verified = check_stored_once(url, acknowledged)
    latencies = np.array([x for p in load_phases for x in p.latencies])
    accepted = sum(len(p.latencies) for p in load_phases)
    load_rate = statistics.median(p.per_s for p in load_phases)
    solo_rate = statistics.median(solo_rates)
    solo_ms = 1e3 * statistics.median(solo_times)
    engine_ms = 1e3 * statistics.median(engine_times)
    solo_count = sum(len(p.latencies) for p in solo_phases)
    solo_seconds = sum(sum(p.latencies) for p in solo_phases)

    def per_submission(phases: list[Phase], count: int) -> dict[str, float]:
        """Milliseconds of CPU a submission: server, database, clients, all."""
        return {
            part: 1e3 * sum(getattr(p, part) for p in phases) / count
            for part in ("server_cpu", "database_cpu", "client_cpu", "cpu")
        }

    alone, loaded = per_submission(solo_phases, solo_count), per_submission(load_phases, accepted)
    cores = len(os.sched_getaffinity(0))
    # One client keeps alone["cpu"] / latency cores busy (the server's worker
    # threads hash and compress beside its parsing). If a submission under
    # load cost what it costs alone, the cores would allow at most this many
    # times one client's rate.
    alone_cores = alone["cpu"] * solo_count / (1e3 * solo_seconds)
    return {
        "n": n,
        "workers": workers,
        "accepted": accepted,
        "verified": verified,
        "solo_per_s": solo_rate,
        "load_per_s": load_rate,
        "speedup": load_rate / solo_rate,
        "p50_ms": 1e3 * float(np.percentile(latencies, 50)),
        "p99_ms": 1e3 * float(np.percentile(latencies, 99)),
        "alone": alone,
        "loaded": loaded,
        "cores": cores,
        "alone_cores": alone_cores,
        "ceiling": cores / alone_cores,
        "busy": loaded["cpu"] * accepted / (1e3 * cores * sum(p.seconds for p in load_phases)),
        "solo_ms": solo_ms,
        "engine_ms": engine_ms,
        "http_ratio": solo_ms / engine_ms,
    }


def explain(r: dict) -> str:
    """Why the ratio is what it is: ratio = ceiling x (CPU alone / CPU under
    load) x the share of the cores busy under load."""
    alone, loaded = r["alone"], r["loaded"]

    def parts(cpu: dict[str, float]) -> str:
        return (
            f"{cpu['cpu']:.1f} ms (server {cpu['server_cpu']:.1f}, database "
            f"{cpu['database_cpu']:.1f}, clients {cpu['client_cpu']:.1f})"
        )

    return (
        f"{'':>10} CPU a submission alone {parts(alone)}, {r['alone_cores']:.2f} cores busy: "
        f"{r['cores']} cores allow a ratio of at most {r['ceiling']:.2f}; under load "
        f"{parts(loaded)}, {loaded['cpu'] / alone['cpu']:.2f}x alone, "
        f"{100 * r['busy']:.0f} % of the cores busy"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pg", help="Also on PostgreSQL: a URL whose server may create databases.")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--processes", type=int, default=4, help="Client processes.")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--load", type=int, default=480, help="Submissions a load phase.")
    parser.add_argument("--solo", type=int, default=40, help="Submissions a one-client phase.")
    parser.add_argument("--seconds", type=float, default=120.0, help="Time limit a phase.")
    parser.add_argument(
        "--form", action="store_true", help="Send multipart forms (as a browser does)."
    )
    parser.add_argument(
        "--rate-limit", type=int, default=0, metavar="N",
        help="The server's per-token limit a minute (0, the default here: off; a served "
        "site's default is 60, which this load would exceed).",
    )  # fmt: skip
    args = parser.parse_args()
    if not 1 <= args.clients <= 256 or args.clients % args.processes:
        parser.error("--clients must be in [1, 256] and a multiple of --processes")
    if not 1 <= args.load <= 5000 or not 1 <= args.solo <= 500 or not 1 <= args.rounds <= 20:
        parser.error("--load must be in [1, 5000], --solo in [1, 500], --rounds in [1, 20]")
    cores = len(os.sched_getaffinity(0))
    print(
        f"{args.clients} clients in {args.processes} processes against 1 client, "
        f"{args.rounds} rounds of {args.load} and {args.solo} submissions, alternated; "
        f"ParameterFreeLadder, 0/1 loss; {cores} cores shared by server and clients; "
        f"{'multipart forms' if args.form else 'the file as the body'}; "
        f"{f'token limit {args.rate_limit}/min' if args.rate_limit else 'no token limit'}"
    )
    header = (
        f"{'store':<10} {'n':>7} {'wrk':>3} {'1 cl/s':>7} {f'{args.clients} cl/s':>7} "
        f"{'ratio':>5} {'p50 ms':>7} {'p99 ms':>7} {'p99/p50':>7} {'1cl CPU':>7} "
        f"{'srv CPU ms':>10} {'cli CPU ms':>10} {'1 cl ms':>8} {'engine ms':>9} {'HTTP/eng':>8}"
    )
    print(header)
    stores = [("SQLite", None)] + ([("PostgreSQL", args.pg)] if args.pg else [])
    with tempfile.TemporaryDirectory(prefix="ladderboard-load-") as folder:
        for label, pg in stores:
            for n in args.sizes:
                for workers in args.workers:
                    r = bench(args, pg, n, workers, Path(folder))
                    print(
                        f"{label:<10} {r['n']:>7} {r['workers']:>3} {r['solo_per_s']:>7.1f} "
                        f"{r['load_per_s']:>7.1f} {r['speedup']:>5.2f} {r['p50_ms']:>7.1f} "
                        f"{r['p99_ms']:>7.1f} {r['p99_ms'] / r['p50_ms']:>7.2f} "
                        f"{r['alone']['server_cpu']:>7.1f} {r['loaded']['server_cpu']:>10.1f} "
                        f"{r['loaded']['client_cpu']:>10.1f} "
                        f"{r['solo_ms']:>8.1f} {r['engine_ms']:>9.1f} {r['http_ratio']:>8.2f}\n"
                        f"{explain(r)}",
                        flush=True,
                    )
    print(
        f"goals: ratio >= 1.6 at {args.clients} clients and 2 workers; p99/p50 <= 4; "
        "HTTP/eng <= 1.5 at n = 1e4 and <= 1.3 at 1e5 (one client). Every run: verify "
        "replays every board bit for bit; every acknowledged submission is stored exactly once"
    )


if __name__ == "__main__":
    main()
