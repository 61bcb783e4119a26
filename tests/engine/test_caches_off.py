"""The caches change nothing but speed (:mod:`ladderboard.engine.caches`):
one competition's play, on a fresh store of each kind, gives every release,
every board and every list a team sees the same with every cache on as with
every cache off.

The play has several teams, invalid files, a resent duplicate, a team
disabled and enabled again, selections, quotas spent across days, the close
and the publication, on three boards: LadderBoot (stochastic) per team, the
recommended ladder with its defaults per team, and per rank.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine_helpers import Clock, csv_for, make_solution, noisy
from ladderboard.engine import (
    CompetitionError,
    Competitions,
)
from ladderboard.files.submission import SubmissionError
from ladderboard.rules.config import CompetitionConfig

pytestmark = pytest.mark.slow

TEAMS = ("alpha", "beta", "gamma", "delta")
BOARDS = {
    "boot": {"mechanism": "ladder-boot"},
    "ladder": {"mechanism": "ladder"},  # the recommended parameters filled in
    "ranks": {"mechanism": "parameter-free-ladder", "board": "per-rank", "ranks": 2},
}


@pytest.fixture
def second_url(database_url, tmp_path) -> Iterator[str]:
    """A second empty database of the same kind as ``database_url``."""
    if database_url.startswith("sqlite"):
        yield f"sqlite:///{tmp_path / 'uncached.db'}"
        return
    from ladderboard.store import scratch_postgres_database
    from system import PG_ADMIN_URL

    with scratch_postgres_database(PG_ADMIN_URL, prefix="lb_test") as url:
        yield url


def _boards(competitions: Competitions, slug: str, organiser: bool) -> list[str]:
    seen = [repr(competitions.board(slug, "public"))]
    try:
        seen.append(repr(competitions.board(slug, "private", organiser=organiser)))
    except CompetitionError as exc:
        seen.append(type(exc).__name__)
    return seen


def _outcome(call, *args) -> str:
    try:
        return repr(call(*args))
    except (CompetitionError, SubmissionError) as exc:
        return f"{type(exc).__name__}: {exc} (retry after {getattr(exc, 'retry_after', None)})"


def play(url: str, *, caching: bool) -> list[str]:
    """Everything the play shows, in order, as text."""
    clock = Clock()
    competitions = Competitions.open(url, clock=clock, store_clock=clock, caching=caching)
    seen: list[str] = []
    try:
        solution = make_solution()
        for slug, config in BOARDS.items():
            competitions.create(
                slug,
                solution,
                CompetitionConfig(score="zero_one", daily_quota=2, invalid_quota=2, **config),
                random_state=7,
            )
            competitions.add_teams(slug, list(TEAMS), [None] * len(TEAMS))
        for step in range(5):
            for slug in BOARDS:
                if step == 2:
                    competitions.set_team_disabled(slug, "delta", True)
                if step == 3:
                    competitions.set_team_disabled(slug, "delta", False)
                for k, team in enumerate(TEAMS):
                    data = csv_for(solution, noisy(solution, 0.45 - 0.05 * step, 10 * step + k))
                    if team == "gamma" and step % 2:
                        data = b"id,target\n1,nan\n"  # an invalid file
                    seen.append(_outcome(competitions.submit, slug, team, data))
                    if team == "beta" and step == 0:  # the same predictions again
                        seen.append(_outcome(competitions.submit, slug, team, data))
                    seen += _boards(competitions, slug, organiser=True)
                    seen.append(repr(competitions.submissions(slug, team)))
                    seen.append(repr(competitions.quota(slug, team)))
                if step == 3:
                    seen.append(_outcome(competitions.select, slug, "alpha", [1, 2]))
                    seen.append(_outcome(competitions.select, slug, "beta", [2]))
            clock.advance(hours=9)  # a new day every third step: the daily quota resets
        for slug in BOARDS:
            seen.append(repr(competitions.team_summaries(slug)))
            seen.append(repr(competitions.leaderboard_from_submissions(slug)))
            seen += _boards(competitions, slug, organiser=False)
            seen.append(repr(competitions.close(slug)))
            seen += _boards(competitions, slug, organiser=True)
            seen.append(repr(competitions.publish(slug)))
            seen += _boards(competitions, slug, organiser=False)
            seen.append(repr(competitions.leaderboard_from_submissions(slug, "private")))
            seen += [repr(competitions.submissions(slug, team)) for team in TEAMS]
            seen.append(competitions.reveal_key(slug))
        if not caching:  # nothing was kept
            caches = competitions.caches
            assert not caches.targets and not caches.decimals and not caches.scratch.idle
            assert caches.mechanisms.nbytes == 0 and not caches.boards.size
    finally:
        competitions.dispose()
    return seen


def test_caches_off_give_every_board_and_release_the_caches_give(database_url, second_url):
    cached = play(database_url, caching=True)
    uncached = play(second_url, caching=False)
    assert len(cached) == len(uncached) > 300
    for k, (on, off) in enumerate(zip(cached, uncached, strict=True)):
        assert on == off, f"step {k}: with caches {on}\nwithout {off}"
    # The play reached what it means to: refusals of each kind, and releases.
    text = "\n".join(cached)
    for expected in ("QuotaExceeded", "DuplicateSubmission", "TeamDisabled", "SubmissionError"):
        assert expected in text, expected
