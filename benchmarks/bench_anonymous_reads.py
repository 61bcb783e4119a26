"""What anonymous readers cost a server: a pathological overview's page views,
and a team's submission time while readers fetch the boards.

It starts ``ladderboard``'s server (one uvicorn worker, a subprocess, over a
new SQLite file) on a free loopback port with the settings given, creates a
competition whose overview is ``--overview-chars`` characters of nested
Markdown emphasis (about the slowest text to parse that the length limit
allows), and measures:

* **overview**: the seconds of each of ``--views`` anonymous views of it;
* **submissions**: a team's median and p90 submission time (one client
  sending one file after another) for ``--seconds``, alone and then while
  ``--readers`` threads read the public board and the overview page as fast
  as they are answered, anonymously from the same address; and how many
  reads were answered 200 and 429.

The server reads ``LADDERBOARD_*`` from the environment, so the same script
measures another checkout (``PYTHONPATH=/other/src``): a setting the server
does not know is ignored. ``--anonymous-reads-per-minute 0`` turns the limit
off. Loopback only; every loop is bounded by ``--seconds``; the server is
stopped and its files removed at the end.

    python benchmarks/bench_anonymous_reads.py [--readers 8] [--seconds 8]
        [--views 5] [--overview-chars 100000] [--anonymous-reads-per-minute N]
"""

from __future__ import annotations

import argparse
import http.client
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2
import numpy as np

from ladderboard.files.solution import Solution

ADMIN = "benchmark-organiser-token-0123456789"
SOLUTION = Solution.from_labels([0, 1] * 100, public_fraction=0.5, random_state=0)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _predictions(seed: int) -> bytes:
    values = np.random.default_rng(seed).integers(0, 2, size=len(SOLUTION.ids))
    rows = "".join(f"{i},{v}\n" for i, v in zip(SOLUTION.ids, values, strict=True))
    return f"id,target\n{rows}".encode()


def _serve(folder: Path, port: int, reads_per_minute: int | None) -> subprocess.Popen:
    env = {
        **os.environ,
        "LADDERBOARD_DATABASE_URL": f"sqlite:///{folder / 'bench.db'}",
        "LADDERBOARD_ADMIN_TOKEN": ADMIN,
        "LADDERBOARD_RATE_LIMIT_PER_MINUTE": "0",  # the team's own limit is not measured here
    }
    if reads_per_minute is not None:
        env["LADDERBOARD_ANONYMOUS_READS_PER_MINUTE"] = str(reads_per_minute)
    command = [sys.executable, "-m", "uvicorn", "--factory", "ladderboard.server.app:served_app"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    server = subprocess.Popen(command, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx2.get(f"http://127.0.0.1:{port}/healthz").status_code == 200:
                return server
        except httpx2.HTTPError:
            time.sleep(0.1)
    server.terminate()
    raise RuntimeError("the server did not start")


def _setup(base: str, overview: str) -> str:
    """Create the competition and a team; the team's token."""
    auth = {"Authorization": f"Bearer {ADMIN}"}
    with httpx2.Client(base_url=base, headers=auth, timeout=120) as client:
        form = {"slug": "demo", "score": "zero_one", "mechanism": "parameter-free-ladder",
                "daily_quota": "none", "description": overview}  # fmt: skip
        solution = {"solution": ("solution.csv", SOLUTION.to_csv(), "text/csv")}
        client.post("/api/competitions", data=form, files=solution).raise_for_status()
        added = client.post("/api/competitions/demo/teams", json={"name": "alpha"})
        added.raise_for_status()
        return added.json()["token"]


def _views(port: int, views: int) -> list[float]:
    seconds = []
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    for _ in range(views):
        start = time.perf_counter()
        connection.request("GET", "/c/demo")
        response = connection.getresponse()
        response.read()
        seconds.append(time.perf_counter() - start)
        assert response.status == 200, response.status
    connection.close()
    return seconds


def _submissions(port: int, token: str, seconds: float, first_seed: int) -> list[float]:
    """Submission times (s) of one client sending files one after another."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "text/csv"}
    times: list[float] = []
    end = time.monotonic() + seconds
    seed = first_seed
    while time.monotonic() < end:
        body = _predictions(seed)
        seed += 1
        start = time.perf_counter()
        connection.request("POST", "/api/competitions/demo/submissions", body, headers)
        response = connection.getresponse()
        response.read()
        times.append(time.perf_counter() - start)
        assert response.status == 201, (response.status, response.reason)
    connection.close()
    return times


def _reader(port: int, stop: threading.Event, counts: dict[int, int], lock: threading.Lock):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    paths = ["/api/competitions/demo/leaderboard", "/c/demo/leaderboard"]
    n = 0
    while not stop.is_set():
        connection.request("GET", paths[n % len(paths)])
        response = connection.getresponse()
        response.read()
        with lock:
            counts[response.status] = counts.get(response.status, 0) + 1
        n += 1
        if response.getheader("connection", "").lower() == "close":
            connection.close()
    connection.close()


def _ms(times: list[float]) -> str:
    p90 = statistics.quantiles(times, n=10)[-1] if len(times) > 1 else times[0]
    return f"median {1000 * statistics.median(times):.1f} ms, p90 {1000 * p90:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--views", type=int, default=5)
    parser.add_argument("--overview-chars", type=int, default=100_000)
    parser.add_argument("--anonymous-reads-per-minute", type=int, default=None)
    args = parser.parse_args()
    overview = ("*_" * args.overview_chars)[: args.overview_chars]
    with tempfile.TemporaryDirectory() as folder:
        port = _free_port()
        server = _serve(Path(folder), port, args.anonymous_reads_per_minute)
        try:
            token = _setup(f"http://127.0.0.1:{port}", overview)
            views = _views(port, args.views)
            shown = ", ".join(f"{s:.3f}" for s in views)
            print(f"overview of {len(overview)} characters, {args.views} views (s): {shown}")
            alone = _submissions(port, token, args.seconds, 0)
            print(f"submissions alone: {len(alone)}, {_ms(alone)}")
            stop, lock, counts = threading.Event(), threading.Lock(), {}
            readers = [
                threading.Thread(target=_reader, args=(port, stop, counts, lock))
                for _ in range(args.readers)
            ]
            for reader in readers:
                reader.start()
            try:
                loaded = _submissions(port, token, args.seconds, 100_000)
            finally:
                stop.set()
                for reader in readers:
                    reader.join(timeout=60)
            answered = ", ".join(f"{n} × {status}" for status, n in sorted(counts.items()))
            print(
                f"submissions with {args.readers} anonymous readers: {len(loaded)}, "
                f"{_ms(loaded)}; reads answered: {answered}"
            )
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
