"""A small version of ``benchmarks/load_http.py``: concurrent clients against a
live server on a loopback port; afterwards ``verify`` passes and every
acknowledged submission is stored exactly once."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from server_helpers import assert_stored_once

from ladderboard.client import Client
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer

pytestmark = pytest.mark.slow

CLIENTS, TEAMS, REQUESTS = 8, 4, 32


def files(solution: Solution, count: int) -> list[bytes]:
    rng = np.random.default_rng(0)
    out = []
    for _ in range(count):
        p = np.where(rng.random(solution.n) < 0.4, 1 - solution.targets, solution.targets)
        rows = "".join(f"{i},{int(v)}\n" for i, v in zip(solution.ids, p, strict=True))
        out.append(f"id,target\n{rows}".encode())
    return out


def test_concurrent_clients_each_submission_stored_exactly_once(database_url):
    labels = np.random.default_rng(1).integers(0, 2, 500)
    solution = Solution.from_labels(labels, public_fraction=0.5, random_state=0)
    data = files(solution, REQUESTS // TEAMS)
    with (
        LocalServer(database_url, workers=2) as server,
        Client(server.url, server.admin_token) as organiser,
    ):
        organiser.create_competition(
            "load", solution.to_csv(), score="zero_one", mechanism="ladder-boot",
            daily_quota="none",
        )  # fmt: skip
        tokens = [organiser.add_team("load", f"team-{t}")["token"] for t in range(TEAMS)]

        jobs = iter(range(REQUESTS))
        lock = threading.Lock()
        acknowledged: dict[int, int] = {}

        def worker() -> None:
            with Client(server.url) as http:
                while True:
                    with lock:
                        job = next(jobs, None)
                    if job is None:
                        return
                    team = http.with_token(tokens[job % TEAMS])
                    result = team.submit("load", data[job // TEAMS], idempotency_key=f"job-{job}")
                    with lock:
                        acknowledged[job] = (job % TEAMS, result["id"])

        with ThreadPoolExecutor(max_workers=CLIENTS) as pool:
            for future in [pool.submit(worker) for _ in range(CLIENTS)]:
                future.result()

    assert sorted(acknowledged) == list(range(REQUESTS))
    assert_stored_once(database_url, acknowledged, "load")
