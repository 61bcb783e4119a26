"""The deadline and the close across hosts: the store's clock decides the
deadline, whatever each host's clock says, and the close (with its final
selection, or a publication past the deadline) and every submission take
one lock, so that no submission is acknowledged after the close."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from engine_helpers import csv_for, make_solution, noisy
from ladderboard.engine import Competitions
from ladderboard.engine.errors import CompetitionClosed
from ladderboard.rules.config import CompetitionConfig

SKEW = timedelta(seconds=60)


def _real_now() -> datetime:
    return datetime.now(UTC)


@pytest.mark.slow
def test_deadline_the_store_clock_decides_between_hosts_apart(database_url):
    """Two engines over one store, one host's clock a minute ahead of the
    store's and one a minute behind: before the store's deadline the host
    ahead still takes submissions and keeps the private board and the key;
    after it, the host behind refuses a submission and a selection, and
    both serve the published board, which holds every accepted file."""
    solution = make_solution()
    organiser = Competitions.open(database_url)
    deadline = _real_now() + timedelta(seconds=3)
    config = CompetitionConfig(
        score="zero_one",
        mechanism="parameter-free-ladder",
        deadline=deadline,
        auto_publish=True,
        daily_quota=None,
    )
    organiser.create("comp", solution, config, random_state=7)
    for team in ("alpha", "beta"):
        organiser.add_team("comp", team)
    ahead = Competitions.open(database_url, clock=lambda: _real_now() + SKEW)
    behind = Competitions.open(database_url, clock=lambda: _real_now() - SKEW)
    files = [csv_for(solution, noisy(solution, 0.3, seed)) for seed in range(4)]
    try:
        # Before the store's deadline: the host ahead takes a submission and
        # publishes nothing, the host behind takes one too.
        ahead.submit("comp", "alpha", files[0])
        behind.submit("comp", "beta", files[1])
        for host in (ahead, behind):
            assert not host.competition("comp").is_published()
            with pytest.raises(CompetitionClosed):
                host.leaderboard("comp", "private")
            with pytest.raises(CompetitionClosed):
                host.reveal_key("comp")
        assert _real_now() < deadline, "too slow: the first part ran past the deadline"

        time.sleep(max(0.0, (deadline - _real_now()).total_seconds()) + 0.2)
        # Past the store's deadline, the host behind (its clock a minute
        # before it) refuses a submission and a selection.
        with pytest.raises(CompetitionClosed):
            behind.submit("comp", "beta", files[2])
        with pytest.raises(CompetitionClosed):
            behind.admit("comp", "beta")
        with pytest.raises(CompetitionClosed):
            behind.select("comp", "beta", [1])
        # The host ahead publishes: a close written in the store, which the
        # host behind reads as it is.
        published = ahead.competition("comp")
        assert published.is_published() and published.closed_at == deadline
        board = ahead.leaderboard("comp", "private")
        assert behind.competition("comp").is_published()
        assert behind.leaderboard("comp", "private") == board
        assert sorted(r.team for r in board) == ["alpha", "beta"]
        assert behind.reveal_key("comp") == ahead.reveal_key("comp")
        with pytest.raises(CompetitionClosed):
            behind.submit("comp", "alpha", files[3])
        assert [len(organiser.submissions("comp", t)) for t in ("alpha", "beta")] == [1, 1]
    finally:
        for engine in (organiser, ahead, behind):
            engine.dispose()


ROUNDS = 20
TEAMS = [f"t{k}" for k in range(6)]


def _round(
    store: Competitions, slug: str, seed: int
) -> tuple[list[tuple[str, int]], set[tuple[str, int]]]:
    """One race: a thread per team submits until refused while the close
    runs. Returns the acknowledged submissions and those stored when the
    close returned: the final selection reads the store from then on, so a
    submission committed later would be acknowledged yet missing from it."""
    solution = make_solution(n=200, seed=seed)
    config = CompetitionConfig(
        score="zero_one", mechanism="parameter-free-ladder", daily_quota=None, total_quota=None
    )
    store.create(slug, solution, config, random_state=seed)
    for team in TEAMS:
        store.add_team(slug, team)
    rng = np.random.default_rng(seed)
    acknowledged: list[tuple[str, int]] = []
    errors: list[BaseException] = []
    started = threading.Barrier(len(TEAMS) + 1)

    def submit(team: str, files: list[bytes]) -> None:
        started.wait()
        for data in files:
            try:
                result = store.submit(slug, team, data)
            except CompetitionClosed:
                return
            except BaseException as exc:
                errors.append(exc)
                return
            acknowledged.append((team, result.number))

    threads = []
    for team in TEAMS:
        files = [
            csv_for(solution, noisy(solution, float(rng.uniform(0.1, 0.5)), int(s)))
            for s in rng.integers(0, 2**31, 40)
        ]
        threads.append(threading.Thread(target=submit, args=(team, files), daemon=True))
    for thread in threads:
        thread.start()
    started.wait()
    time.sleep(float(rng.uniform(0.02, 0.15)))
    store.close(slug)
    at_close = {(t, v.number) for t in TEAMS for v in store.submissions(slug, t)}
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    return acknowledged, at_close


@pytest.mark.slow
def test_deadline_no_submission_is_acknowledged_after_the_close(database_url):
    """On PostgreSQL, 20 rounds of six teams submitting while the organiser
    closes: every acknowledged submission was stored when the close
    returned (none committed after it), and every stored one acknowledged."""
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite serialises every writer: the race is PostgreSQL's")
    store = Competitions.open(database_url)
    late = []
    try:
        for k in range(ROUNDS):
            slug = f"race-{k}"
            acknowledged, at_close = _round(store, slug, k)
            stored = {(t, v.number) for t in TEAMS for v in store.submissions(slug, t)}
            assert set(acknowledged) == stored
            late += [(slug, *s) for s in sorted(stored - at_close)]
    finally:
        store.dispose()
    assert not late, f"acknowledged after the close: {late}"
