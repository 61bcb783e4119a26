"""Server-side time of every web page over a competition of a busy size:
300 teams and 10,000 submissions on a ParameterFreeLadder per-team board.

The store is filled through the engine (``Competitions``) directly, each
team's token registered by its hash, each submission a file written from the
solution's sample submission with random predictions (each team flips its own
share of the labels), stamped four minutes apart over four weeks. Then every
page in :data:`PAGES` is requested through the app in process (FastAPI's
TestClient: routing, the engine's reads, the templates, no network), one
request to each page in turn for ``--requests`` rounds, so that every page
sees the same drift of a shared machine. It prints the median and the 95th
percentile of each, beside the goal of 300 ms a page, and their ratio to two
baselines from the same rounds: ``/healthz`` (one query: the floor of a
request through the app) and the JSON API's public board of the same
competition (the board page without its HTML).

    python benchmarks/bench_pages.py [--pg postgresql+psycopg://postgres@127.0.0.1:5432/test]
        [--teams 300] [--submission-count 10000] [--requests 20]

SQLite in a temporary directory always; PostgreSQL too with ``--pg`` (a new
database, dropped afterwards).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from fastapi.testclient import TestClient

from ladderboard.engine import Competitions
from ladderboard.files.solution import Solution
from ladderboard.rules.config import CompetitionConfig
from ladderboard.server.app import create_app
from ladderboard.server.deps import hash_token
from ladderboard.server.settings import Settings
from ladderboard.store import scratch_postgres_database

SLUG = "bench"
ADMIN = "organiser-token-for-the-benchmark-0123456789"
TEAM_TOKEN = "team-token-of-the-first-team-for-the-benchmark"
GOAL_SECONDS = 0.300
ROWS = 2_000  # of the solution: 1000 public, 1000 private


@dataclass(frozen=True)
class Request:
    """One page (or baseline) as a visitor asks for it: anonymous, or signed in
    as the organiser; a POST sends ``form`` (the team page takes the token so)."""

    name: str
    path: str
    method: str = "GET"
    form: dict[str, str] = field(default_factory=dict)
    organiser: bool = False
    team: bool = False  # signed in as the first team (its session cookie)
    status: int = 200


BASELINES = (
    Request("/healthz (floor)", "/healthz"),
    Request("JSON public board", f"/api/competitions/{SLUG}/leaderboard"),
)
PAGES = (
    Request("competitions", "/"),
    Request("overview", f"/c/{SLUG}"),
    Request("data", f"/c/{SLUG}/data"),
    Request("rules", f"/c/{SLUG}/rules"),
    Request("leaderboard", f"/c/{SLUG}/leaderboard"),
    Request("leaderboard, page 3", f"/c/{SLUG}/leaderboard?page=3"),
    Request("leaderboard, find a team", f"/c/{SLUG}/leaderboard?team=Team+250"),
    Request("how it works", "/how"),
    Request("submit", f"/c/{SLUG}/submit"),
    Request("submit, signed in", f"/c/{SLUG}/submit", team=True),
    Request("my team, sign-in form", f"/c/{SLUG}/team"),
    Request("my team, signed in", f"/c/{SLUG}/team", team=True),
    Request("organiser, signed out", "/organiser"),
    Request("organiser, signed in", "/organiser", organiser=True),
    Request("organiser's desk", f"/organiser/c/{SLUG}", organiser=True),
    Request(
        "desk, sorted by submissions",
        f"/organiser/c/{SLUG}?sort=submissions&dir=desc&page=2",
        organiser=True,
    ),
    Request("desk, one team", f"/organiser/c/{SLUG}/team?name=Team+000", organiser=True),
    Request("not found", "/c/no-such-competition", status=404),
)


def predictions(solution: Solution, flip: float, rng: np.random.Generator) -> bytes:
    """The sample submission's rows with the labels, ``flip`` of them flipped."""
    header, *rows = solution.sample_submission_csv().decode().splitlines()
    ids = [row.rsplit(",", 1)[0] for row in rows]
    values = np.where(rng.random(solution.n) < flip, 1 - solution.targets, solution.targets)
    body = "".join(f"{i},{int(v)}\n" for i, v in zip(ids, values, strict=True))
    return f"{header}\n{body}".encode()


def fill(url: str, teams: int, submissions: int) -> float:
    """Create the competition, its teams and submissions; the seconds it took."""
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    solution = Solution.from_labels(rng.integers(0, 2, ROWS), public_fraction=0.5, random_state=0)
    now = [datetime.now(UTC) - timedelta(minutes=4 * submissions)]
    store = Competitions.open(url, clock=lambda: now[0])
    config = CompetitionConfig(
        score="zero_one", mechanism="parameter-free-ladder", board="per-team", daily_quota=None
    )
    store.create(SLUG, solution, config, title="A busy competition", random_state=0)
    names = [f"Team {t:03d}" for t in range(teams)]
    for t, name in enumerate(names):
        token = TEAM_TOKEN if t == 0 else f"token-of-team-{t:03d}-for-the-benchmark"
        store.add_team(SLUG, name, token_hash=hash_token(token))
    skill = rng.uniform(0.2, 0.5, teams)  # each team's share of flipped labels
    for k in range(submissions):
        t = k % teams
        store.submit(SLUG, names[t], predictions(solution, skill[t], rng), message=f"model {k}")
        now[0] += timedelta(minutes=4)
    store.dispose()
    return time.perf_counter() - start


@contextmanager
def clients(url: str) -> Iterator[tuple[TestClient, TestClient, TestClient]]:
    """An anonymous client, one signed in as the organiser and one as the
    first team, over one app."""
    settings = Settings(
        admin_token=ADMIN, database_url=url, rate_limit_per_minute=0, anonymous_reads_per_minute=0
    )
    app = create_app(settings)
    with TestClient(app) as anonymous, TestClient(app) as organiser, TestClient(app) as team:
        organiser.headers["Origin"] = "http://testserver"  # as a browser's form post
        signed = organiser.post("/organiser/login", data={"token": ADMIN})
        assert signed.status_code == 200 and "Sign out" in signed.text, signed.status_code
        team.headers["Origin"] = "http://testserver"
        signed = team.post(f"/c/{SLUG}/team", data={"token": TEAM_TOKEN})
        assert signed.status_code == 200 and "Sign out" in signed.text, signed.status_code
        yield anonymous, organiser, team


def bench(url: str, label: str, teams: int, submissions: int, rounds: int) -> None:
    seconds = fill(url, teams, submissions)
    print(
        f"\n{label}: {teams} teams, {submissions} submissions of {ROWS} rows, filled in "
        f"{seconds:.0f} s; {rounds} requests to each page, in turn"
    )
    requests = (*BASELINES, *PAGES)
    times: dict[str, list[float]] = {request.name: [] for request in requests}
    with clients(url) as (anonymous, organiser, team):

        def send(request: Request) -> float:
            client = organiser if request.organiser else team if request.team else anonymous
            start = time.perf_counter()
            response = client.request(request.method, request.path, data=request.form or None)
            elapsed = time.perf_counter() - start
            assert response.status_code == request.status, (request, response.status_code)
            return elapsed

        for request in requests:  # warm up: caches, connections, templates
            send(request)
        for _ in range(rounds):
            for request in requests:
                times[request.name].append(send(request))

    floor, board = (float(np.median(times[b.name])) for b in BASELINES)
    print(
        f"{'':24} {'median':>9} {'p95':>9} {'p95/goal':>9} {'x floor':>8} {'x JSON board':>13}"
        f"   (goal {GOAL_SECONDS * 1e3:.0f} ms a page)"
    )
    for request in requests:
        median = float(np.median(times[request.name]))
        p95 = float(np.percentile(times[request.name], 95))
        print(
            f"{request.name:24} {median * 1e3:6.1f} ms {p95 * 1e3:6.1f} ms "
            f"{p95 / GOAL_SECONDS:9.2f} {median / floor:8.1f} {median / board:13.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pg", help="A PostgreSQL URL whose server may create databases.")
    parser.add_argument("--teams", type=int, default=300)
    parser.add_argument("--submission-count", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=20, help="per page")
    args = parser.parse_args()
    run = {"teams": args.teams, "submissions": args.submission_count, "rounds": args.requests}
    with tempfile.TemporaryDirectory() as tmp:
        bench(f"sqlite:///{Path(tmp) / 'pages.db'}", "SQLite", **run)
    if args.pg:
        with scratch_postgres_database(args.pg, prefix="lb_bench") as url:
            bench(url, "PostgreSQL", **run)


if __name__ == "__main__":
    main()
