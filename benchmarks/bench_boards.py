"""The public board of a large competition: 10,000 teams and 200,000 stored
submissions on a ParameterFreeLadder per-team board, read the old way
(every submission loaded and the standings rebuilt by the rules) and the new
way (one stored standing a team, sorted; then kept under the competition's
board version), through the engine and over HTTP.

The store is filled in bulk, not through the engine: the teams, then each
submission's row with a random released score on a 1/1000 grid (many ties)
at a random time over four weeks, then each team's standing built from its
rows by the rule the engine keeps it by
(:func:`ladderboard.rules.boards.team_standing`). The rounds alternate the
ways of reading, so that each sees the same drift of a shared machine, in
two groups: the ways of building a board (old and new) in turn, then the
reads of a server that is serving (a board patched after a submission, kept,
the floor of a request). A board built from every submission leaves a few
hundred thousand objects for the garbage collector, which a server serving
submissions does not make; in one round with the served reads they would be
charged to the first read after a submission. Each group has an untimed
round first.

- engine: ``leaderboard_from_submissions`` (the old full rebuild), the board
  built from the standings with the kept boards emptied first, by one
  reader and by eight at once (a cold worker's first page views, which share
  one build: the line after the table gives their time over one reader's),
  the first read after a new team's submission (which puts it anywhere on
  the board: the kept board is patched with its standing and its rows ranked
  again; the submission itself is not timed), and the board kept;
- HTTP (FastAPI's TestClient, in process): ``/healthz`` (the floor of a
  request), the JSON public board with the engine's ``kept_board`` swapped
  for the full rebuild, built with the kept boards emptied before each
  request, after a submission, and kept; and the HTML board page, kept.

It prints the median and the 95th percentile of each beside the goal
(20 ms) and the ratios to the old way and to ``/healthz``.

    python benchmarks/bench_boards.py [--pg postgresql+psycopg://postgres@127.0.0.1:5432/test]
        [--teams 10000] [--submission-count 200000] [--rounds 15]

SQLite in a temporary directory always; PostgreSQL too with ``--pg`` (a new
database, dropped afterwards).
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from fastapi.testclient import TestClient
from sqlalchemy import insert, select

from ladderboard.engine import Competitions
from ladderboard.engine.standings import standing_columns
from ladderboard.files.solution import Solution
from ladderboard.rules.boards import Record, team_standing
from ladderboard.rules.config import CompetitionConfig
from ladderboard.server.app import create_app
from ladderboard.server.settings import Settings
from ladderboard.store import (
    CompetitionRow,
    SubmissionRow,
    TeamRow,
    TeamStandingRow,
    scratch_postgres_database,
)
from ladderboard.store.models import table_of

SLUG = "large"
GOAL_SECONDS = 0.020
CHUNK = 10_000
READERS = 8  # readers of a board not kept, at once


def fill(store: Competitions, teams: int, submissions: int) -> float:
    """The competition, its teams, submissions and standings; the seconds it took."""
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    solution = Solution.from_labels(rng.integers(0, 2, 200), public_fraction=0.5, random_state=0)
    config = CompetitionConfig(score="zero_one", mechanism="parameter-free-ladder")
    store.create(SLUG, solution, config, random_state=0)
    begin = datetime.now(UTC) - timedelta(days=28)
    with store.engine.begin() as connection:
        competition = connection.execute(
            select(CompetitionRow.id).where(CompetitionRow.slug == SLUG)
        ).scalar_one()
        for first in range(0, teams, CHUNK):
            connection.execute(
                insert(table_of(TeamRow)),
                [
                    {
                        "competition_id": competition,
                        "name": f"Team {t:05d}",
                        "name_key": f"{t:064d}",
                        "created_at": begin,
                        "token_hash": None,
                    }
                    for t in range(first, min(first + CHUNK, teams))
                ],
            )
        team_ids = list(
            connection.execute(
                select(TeamRow.id).where(TeamRow.competition_id == competition).order_by(TeamRow.id)
            ).scalars()
        )
        of_team = rng.integers(0, teams, submissions)
        scores = np.round(rng.uniform(0.2, 0.5, submissions), 3)
        times = begin + np.sort(rng.uniform(0, 28 * 86_400, submissions)) * timedelta(seconds=1)
        counts: dict[int, int] = defaultdict(int)
        rows = []
        for k in range(submissions):
            team = team_ids[of_team[k]]
            counts[team] += 1
            rows.append(
                {
                    "competition_id": competition,
                    "team_id": team,
                    "scope": f"team:{team}",
                    "sequence": counts[team],
                    "number": counts[team],
                    "created_at": times[k],
                    "message": "",
                    "idempotency_key": None,
                    "file_sha256": f"{k:064x}",
                    "predictions_sha256": f"{k:064x}",
                    "public_score": float(scores[k]),
                    "improved": True,
                    "public_raw": float(scores[k]),
                    "private_score": float(scores[k]),
                    "selected": False,
                }
            )
        for first in range(0, submissions, CHUNK):
            connection.execute(insert(table_of(SubmissionRow)), rows[first : first + CHUNK])
        by_team: dict[int, list[Record]] = defaultdict(list)
        numbers = {}
        for ident, team, created, score, number in connection.execute(
            select(
                SubmissionRow.id,
                SubmissionRow.team_id,
                SubmissionRow.created_at,
                SubmissionRow.public_score,
                SubmissionRow.number,
            ).order_by(SubmissionRow.created_at, SubmissionRow.id)
        ):
            by_team[team].append(Record(ident, str(team), created, score, score))
            numbers[ident] = number
        direction = config.scoring().direction
        standings = []
        for team, records in by_team.items():
            standing, reached_at = team_standing(
                records, direction=direction, release_is_current_best=True
            )
            columns = standing_columns(standing, reached_at, numbers[standing.submission_id])
            standings.append({"team_id": team, "competition_id": competition, **columns})
        for first in range(0, len(standings), CHUNK):
            connection.execute(insert(table_of(TeamStandingRow)), standings[first : first + CHUNK])
    return time.perf_counter() - start


def forget(store: Competitions) -> None:
    """Empty the engine's kept boards: the next read builds the board."""
    store.caches.boards.clear()
    store.caches.public_boards.clear()


def _timed(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


Read = tuple[Callable[[], object] | None, Callable[[], object]]  # (untimed preparation, the read)


def _rounds(reads: dict[str, Read], rounds: int) -> dict[str, list[float]]:
    """Each read's times over ``rounds`` rounds of all of them in turn, after
    an untimed round."""
    times: dict[str, list[float]] = {name: [] for name in reads}
    for round_ in range(rounds + 1):
        for name, (prepare, function) in reads.items():
            if prepare is not None:
                prepare()
            elapsed = _timed(function)
            if round_:
                times[name].append(elapsed)
    return times


def _report(title: str, times: dict[str, list[float]], old: str, floor: str | None) -> None:
    print(
        f"  {title:34} {'median':>9} {'p95':>9} {'p95/goal':>9} {'x old':>7}"
        + (f" {'x /healthz':>11}" if floor else "")
        + f"   (goal {GOAL_SECONDS * 1e3:.0f} ms)"
    )
    for name, values in times.items():
        median = float(np.median(values))
        p95 = float(np.percentile(values, 95))
        line = (
            f"  {name:34} {median * 1e3:6.1f} ms {p95 * 1e3:6.1f} ms {p95 / GOAL_SECONDS:9.2f} "
            f"{median / float(np.median(times[old])):7.3f}"
        )
        if floor:
            line += f" {median / float(np.median(times[floor])):11.1f}"
        print(line)


def bench(url: str, label: str, teams: int, submissions: int, rounds: int) -> None:
    store = Competitions.open(url)
    seconds = fill(store, teams, submissions)
    print(
        f"\n{label}: {teams} teams, {submissions} submissions, filled in {seconds:.0f} s; "
        f"{rounds} rounds, the ways of reading in turn"
    )
    expected = store.leaderboard_from_submissions(SLUG)
    assert store.leaderboard(SLUG) == expected and len(expected) == teams
    del expected
    gc.collect()
    gc.freeze()  # as ladderboard serve's workers do (ladderboard.server.app.served_app)

    def rebuilt() -> None:
        forget(store)
        store.leaderboard(SLUG)

    solution = store.solution(SLUG)
    rng = np.random.default_rng(1)
    submitted = [0]

    def submit_one() -> None:
        """A new team's submission, whose score puts it anywhere on the board."""
        name = f"Mover {submitted[0]:04d}"
        submitted[0] += 1
        store.add_team(SLUG, name)
        flipped = rng.random(solution.n) < rng.uniform(0.1, 0.6)
        guess = np.where(flipped, 1 - solution.targets, solution.targets)
        rows = "".join(f"{i},{int(v)}\n" for i, v in zip(solution.ids, guess, strict=True))
        store.submit(SLUG, name, f"id,target\n{rows}".encode())

    def readers_at_once() -> None:
        """READERS threads read the board not kept, together (a cold worker's
        first page views): one builds it while the others wait for it."""
        forget(store)
        asked = threading.Barrier(READERS)

        def read() -> None:
            asked.wait()
            store.leaderboard(SLUG)

        threads = [threading.Thread(target=read) for _ in range(READERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    built: dict[str, Read] = {
        "old: every submission": (None, lambda: store.leaderboard_from_submissions(SLUG)),
        "new: from standings, uncached": (None, rebuilt),
        f"new: uncached, {READERS} readers at once": (None, readers_at_once),
    }
    served: dict[str, Read] = {
        "new: after a submission (patch)": (submit_one, lambda: store.leaderboard(SLUG)),
        "new: cached": (None, lambda: store.leaderboard(SLUG)),
    }
    times = _rounds(built, rounds) | _rounds(served, rounds)
    print(" engine")
    _report("", times, "old: every submission", None)
    crowd = np.median(times[f"new: uncached, {READERS} readers at once"])
    alone = np.median(times["new: from standings, uncached"])
    print(
        f"  {READERS} readers of a board not kept, at once, over one reader: "
        f"{crowd / alone:.2f} (about 1 when they share one build; "
        f"{READERS} or more if each built its own)"
    )

    settings = Settings(
        admin_token="organiser-token-of-the-board-bench-0123456789",
        database_url=url,
        rate_limit_per_minute=0,
    )
    app = create_app(settings, competitions=store)
    board = f"/api/competitions/{SLUG}/leaderboard"
    new_way = store.kept_board

    def rebuilt_board(slug: str, board: str = "public", *, organiser: bool = False):
        return tuple(store.leaderboard_from_submissions(slug, board))

    def old_way() -> None:
        store.kept_board = rebuilt_board  # type: ignore[method-assign]

    def new_uncached() -> None:
        store.kept_board = new_way  # type: ignore[method-assign]
        forget(store)

    def new_after_a_submission() -> None:
        store.kept_board = new_way  # type: ignore[method-assign]
        submit_one()

    def new_cached() -> None:
        store.kept_board = new_way  # type: ignore[method-assign]

    with TestClient(app) as client:

        def get(path: str) -> Callable[[], None]:
            def read() -> None:
                response = client.get(path)
                assert response.status_code == 200, (path, response.status_code)

            return read

        built = {
            "JSON board, old: every submission": (old_way, get(board)),
            "JSON board, new: uncached": (new_uncached, get(board)),
        }
        served = {
            "/healthz (floor)": (new_cached, get("/healthz")),
            "JSON board, new: after a submission": (new_after_a_submission, get(board)),
            "JSON board, new: cached": (new_cached, get(board)),
            "HTML board page, new: cached": (new_cached, get(f"/c/{SLUG}/leaderboard")),
        }
        times = _rounds(built, rounds) | _rounds(served, rounds)
    store.kept_board = new_way  # type: ignore[method-assign]
    print(" HTTP (in process)")
    _report("", times, "JSON board, old: every submission", "/healthz (floor)")
    store.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pg", help="A PostgreSQL URL whose server may create databases.")
    parser.add_argument("--teams", type=int, default=10_000)
    parser.add_argument("--submission-count", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    run = {"teams": args.teams, "submissions": args.submission_count, "rounds": args.rounds}
    with tempfile.TemporaryDirectory() as tmp:
        bench(f"sqlite:///{Path(tmp) / 'boards.db'}", "SQLite", **run)
    if args.pg:
        with scratch_postgres_database(args.pg, prefix="lb_bench") as url:
            bench(url, "PostgreSQL", **run)


if __name__ == "__main__":
    main()
