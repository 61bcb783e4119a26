"""Two ``ladderboard serve`` processes on different ports over one store act as
one server: what one accepts, refuses, counts or caches, the other knows at
once; and when one is killed mid-load, the other goes on and nothing
acknowledged is lost or stored twice.

Each server is its own process with its own connection pool, board cache and
rate-limit connection, as two hosts behind a reverse proxy would be; only the
store is shared. Every test runs on SQLite (one host, one file) and on
PostgreSQL (what several hosts need).
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from server_helpers import assert_stored_once

from ladderboard.client import Client, ServerError
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer

pytestmark = pytest.mark.slow  # each test starts two servers

RATE_LIMIT = 40
"""Requests a minute per token (and per address for anonymous reads)."""


@pytest.fixture(scope="module")
def solution() -> Solution:
    labels = np.random.default_rng(5).integers(0, 2, 400)
    return Solution.from_labels(labels, public_fraction=0.5, random_state=0)


def predictions(solution: Solution, error_rate: float, seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    guess = np.where(rng.random(solution.n) < error_rate, 1 - solution.targets, solution.targets)
    rows = "".join(f"{i},{int(v)}\n" for i, v in zip(solution.ids, guess, strict=True))
    return f"id,target\n{rows}".encode()


def pair(database_url: str, rate_limit: int = 0) -> tuple[LocalServer, LocalServer]:
    """Two single-worker servers over one store, sharing the organiser's token."""
    token = secrets.token_urlsafe(32)
    return tuple(  # type: ignore[return-value]
        LocalServer(database_url, rate_limit_per_minute=rate_limit, admin_token=token)
        for _ in range(2)
    )


def test_two_servers_share_quotas_duplicates_caches_and_rate_limits(database_url, solution):
    a, b = pair(database_url, rate_limit=RATE_LIMIT)
    with a, b:
        org_a = Client(a.url, a.admin_token, retries=0)
        org_b = Client(b.url, b.admin_token, retries=0)
        org_a.create_competition(
            "q", solution.to_csv(), score="zero_one", mechanism="parameter-free-ladder",
            daily_quota=3,
        )  # fmt: skip
        assert org_b.competition("q")["slug"] == "q"  # created on one, known to the other
        alpha = org_b.add_team("q", "alpha")["token"]

        # Quotas: six files at once, three through each server: three are accepted.
        def send(server: str, seed: int) -> str:
            try:
                Client(server, alpha, retries=0).submit("q", predictions(solution, 0.3, seed))
            except ServerError as refusal:
                return refusal.code
            return "accepted"

        with ThreadPoolExecutor(max_workers=6) as pool:
            outcomes = list(pool.map(send, [a.url, b.url] * 3, range(6)))
        assert sorted(outcomes) == ["accepted"] * 3 + ["quota"] * 3, outcomes
        for server in (a.url, b.url):
            status = Client(server, alpha, retries=0).team_status("q")
            assert status["quota"]["remaining_today"] == 0

        # Duplicates and idempotency keys, across servers.
        org_a.create_competition(
            "d", solution.to_csv(), score="zero_one", mechanism="parameter-free-ladder",
            daily_quota="none",
        )  # fmt: skip
        beta = org_a.add_team("d", "beta")["token"]
        on_a, on_b = Client(a.url, beta, retries=0), Client(b.url, beta, retries=0)
        first = predictions(solution, 0.4, 10)
        on_a.submit("d", first)
        with pytest.raises(ServerError) as refused:
            on_b.submit("d", first)
        assert refused.value.status == 409 and refused.value.code == "duplicate"
        second = predictions(solution, 0.4, 11)
        sent = on_a.submit("d", second, idempotency_key="retry-me")
        again = on_b.submit("d", second, idempotency_key="retry-me")
        assert again["id"] == sent["id"]
        assert len(on_a.submissions("d")) == len(on_b.submissions("d")) == 2

        # Caches: A's board, then a better file through B: A shows it at once.
        before = {row["team"]: row["score"] for row in on_a.leaderboard("d")["rows"]}
        better = on_b.submit("d", predictions(solution, 0.05, 12))
        assert better["public_score"] != before["beta"]
        after = {row["team"]: row["score"] for row in on_a.leaderboard("d")["rows"]}
        assert after["beta"] == better["public_score"]

        # Rate limits: one bucket a token, whichever server is asked.
        gamma = org_b.add_team("d", "gamma")["token"]
        clients = [Client(a.url, gamma, retries=0), Client(b.url, gamma, retries=0)]
        answered, started = 0, time.monotonic()
        for request in range(2 * RATE_LIMIT):
            try:
                clients[request % 2].team_status("d")
            except ServerError as refusal:
                assert refusal.status == 429 and refusal.code == "rate_limited"
                break
            answered += 1
        # The bucket refills at RATE_LIMIT a minute: a few more may pass meanwhile,
        # never a second bucket's worth.
        refilled = math.ceil((time.monotonic() - started) * RATE_LIMIT / 60)
        assert RATE_LIMIT <= answered <= RATE_LIMIT + refilled + 1, (answered, refilled)
        assert answered < 2 * RATE_LIMIT


@pytest.mark.parametrize("kill", [False, True], ids=["both-up", "one-killed"])
def test_concurrent_clients_across_two_servers_each_stored_once(database_url, solution, kill):
    """Clients spread their submissions over both servers; with ``kill`` one
    server is killed with SIGKILL mid-load, and a client whose request went
    unanswered sends it again, with the same idempotency key, to the other."""
    teams, requests, clients = 4, 32, 8
    a, b = pair(database_url)
    with a, b:
        organiser = Client(b.url, b.admin_token, retries=0)
        organiser.create_competition(
            "load", solution.to_csv(), score="zero_one", mechanism="ladder-boot",
            daily_quota="none",
        )  # fmt: skip
        tokens = [organiser.add_team("load", f"team-{t}")["token"] for t in range(teams)]
        data = [predictions(solution, 0.4, seed) for seed in range(requests)]

        jobs = iter(range(requests))
        lock = threading.Lock()
        acknowledged: dict[int, tuple[int, int]] = {}
        killed = threading.Event()
        resent = []

        def worker() -> None:
            while True:
                with lock:
                    job = next(jobs, None)
                    if kill and job == requests // 2 and not killed.is_set():
                        a.kill()  # mid-load: other requests to it are in flight
                        killed.set()
                if job is None:
                    return
                team, key = job % teams, f"job-{job}"
                servers = [b.url] if killed.is_set() else [(a.url, b.url)[job % 2], b.url]
                for attempt, server in enumerate(servers):
                    try:
                        result = Client(server, tokens[team], retries=0).submit(
                            "load", data[job], idempotency_key=key
                        )
                    except ServerError as failure:
                        if not (failure.unreachable and attempt == 0 and kill):
                            raise
                        with lock:
                            resent.append(job)
                        continue
                    with lock:
                        acknowledged[job] = (team, result["id"])
                    break

        with ThreadPoolExecutor(max_workers=clients) as pool:
            for future in [pool.submit(worker) for _ in range(clients)]:
                future.result()
        assert sorted(acknowledged) == list(range(requests))
        assert killed.is_set() == kill
        board = organiser.leaderboard("load")
        if kill:
            a.start()  # the killed server comes back and shows the same board
            assert Client(a.url, a.admin_token, retries=0).leaderboard("load") == board
    assert_stored_once(database_url, acknowledged, "load")
