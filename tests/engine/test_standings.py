"""The public board read from the stored team standings is the board the
rules build from every submission, row for row and in the same order of
ties, over random histories on both stores; the board cache hands out the
store's board whichever process changed it; and a store written before the
standings existed gets them by its migration."""

from __future__ import annotations

import contextlib
import shutil

import numpy as np
import pytest
from sqlalchemy import select

from engine_helpers import Clock, csv_for
from golden_histories import STORE
from ladderboard.engine import Competitions
from ladderboard.engine.audit import verify
from ladderboard.engine.errors import DuplicateSubmission, TeamDisabled
from ladderboard.engine.kept_board import KeptBoard
from ladderboard.files.solution import Solution
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import TeamStandingRow
from ladderboard.store.database import downgrade, migrate
from ladderboard.store.queries import ChangedStanding, StandingRow

TEAMS = ("ada", "bo", "cy", "dee", "eli")


def _history(store: Competitions, other: Competitions, clock: Clock, seed: int) -> int:
    """Random submissions, with equal scores (20 public rows of a 0-1 loss),
    equal times and a clock that sometimes runs back (a worker behind the
    others), and teams disabled and enabled; after every step the board is
    checked against the one rebuilt from every submission, in this process
    and in ``other`` (a second worker over the same store). Returns the
    number of boards checked."""
    rng = np.random.default_rng(seed)
    solution = store.solution("c")
    checked = 0
    for step in range(30):
        action = rng.random()
        team = TEAMS[rng.integers(len(TEAMS))]
        if action < 0.1:
            store.set_team_disabled("c", team, disabled=bool(rng.integers(2)))
        else:
            clock.advance(seconds=int(rng.choice([-90, 0, 0, 30, 600])))
            predictions = rng.integers(0, 2, solution.n)
            with contextlib.suppress(DuplicateSubmission, TeamDisabled):
                store.submit("c", team, csv_for(solution, predictions))
        if step % 3 == 0 or action < 0.1:
            # Read through the other worker first, so that its cache is behind next time.
            expected = store.leaderboard_from_submissions("c")
            assert other.leaderboard("c") == expected
            assert store.leaderboard("c") == expected
            checked += 1
    return checked


@pytest.mark.parametrize("board", ["per-team", "per-rank"])
@pytest.mark.parametrize(
    "mechanism", ["parameter-free-ladder", "full-disclosure", "shaky-ladder", "ladder-boot"]
)
@pytest.mark.slow
def test_the_stored_board_is_the_board_of_every_submission(database_url, mechanism, board):
    clock = Clock()
    store = Competitions.open(database_url, clock=clock)
    other = Competitions.open(database_url, clock=clock)
    try:
        solution = Solution.from_labels(
            np.random.default_rng(1).integers(0, 2, 40), public_fraction=0.5, random_state=1
        )
        params = {"max_updates": 40} if mechanism == "shaky-ladder" else {}
        store.create(
            "c",
            solution,
            CompetitionConfig(
                score="zero_one",
                mechanism=mechanism,
                mechanism_params=params,
                board=board,
                ranks=3,
                daily_quota=None,
            ),
            random_state=2,
        )
        for team in TEAMS:
            store.add_team("c", team)
        assert store.leaderboard("c") == []
        for seed in range(2):
            assert _history(store, other, clock, seed) >= 10
        for team in TEAMS:  # every team back on the board
            store.set_team_disabled("c", team, disabled=False)
        assert other.leaderboard("c") == store.leaderboard_from_submissions("c")
        assert len(store.leaderboard("c")) == (len(TEAMS) if board == "per-team" else 3)
        # After the close the private board is kept too, and stays right.
        store.close("c")
        private = store.leaderboard_from_submissions("c", "private")
        assert other.leaderboard("c", "private", organiser=True) == private
        store.set_team_disabled("c", TEAMS[0], disabled=True)
        assert other.leaderboard("c", "private", organiser=True) == (
            store.leaderboard_from_submissions("c", "private")
        )
        assert verify(store, "c").submissions > 0
    finally:
        store.dispose()
        other.dispose()


@pytest.mark.parametrize("mechanism", ["parameter-free-ladder", "full-disclosure"])
@pytest.mark.slow
def test_a_kept_board_is_patched_into_the_board_of_every_submission(
    database_url, mechanism, monkeypatch
):
    """A process that reads the public board now and then patches the board
    it kept with the standings changed since (submissions with equal scores
    and clocks that run back, teams disabled and enabled, several changes
    between two reads), and what it shows is the board rebuilt from every
    submission; the close is no standing's change, and the board after it is
    built afresh."""
    builds = []
    build = KeptBoard.build.__func__
    monkeypatch.setattr(
        KeptBoard, "build", classmethod(lambda cls, *a: builds.append(a[0]) or build(cls, *a))
    )
    clock = Clock()
    store = Competitions.open(database_url, clock=clock)
    reader = Competitions.open(database_url, clock=clock)
    teams = [f"team-{i}" for i in range(12)]
    try:
        solution = Solution.from_labels(
            np.random.default_rng(4).integers(0, 2, 40), public_fraction=0.5, random_state=1
        )
        config = CompetitionConfig(score="zero_one", mechanism=mechanism, daily_quota=None)
        store.create("c", solution, config, random_state=2)
        for team in teams:
            store.add_team("c", team)
        rng = np.random.default_rng(5)
        reads = 0
        for step in range(120):
            team = teams[rng.integers(len(teams))]
            if rng.random() < 0.1:
                store.set_team_disabled("c", team, disabled=bool(rng.integers(2)))
            else:
                clock.advance(seconds=int(rng.choice([-90, 0, 30, 600])))
                with contextlib.suppress(DuplicateSubmission, TeamDisabled):
                    store.submit("c", team, csv_for(solution, rng.integers(0, 2, solution.n)))
            if step % int(rng.integers(1, 6)) == 0:
                assert reader.leaderboard("c") == store.leaderboard_from_submissions("c")
                reads += 1
        assert reads >= 30 and len(builds) == 1  # one build, then only patches
        store.close("c")
        assert reader.leaderboard("c") == store.leaderboard_from_submissions("c")
        assert len(builds) == 2
    finally:
        store.dispose()
        reader.dispose()


@pytest.mark.slow
def test_the_migration_builds_the_standings_a_store_had(database_url):
    """Down to the revision before the standings and up again: the
    standings are built from the submissions as the live store kept them."""
    clock = Clock()
    store = Competitions.open(database_url, clock=clock)
    try:
        rng = np.random.default_rng(3)
        for slug, mechanism in (("ladder", "parameter-free-ladder"), ("full", "full-disclosure")):
            solution = Solution.from_labels(
                rng.integers(0, 2, 40), public_fraction=0.5, random_state=1
            )
            config = CompetitionConfig(score="zero_one", mechanism=mechanism, daily_quota=None)
            store.create(slug, solution, config)
            for team in TEAMS:
                store.add_team(slug, team)
                for _ in range(3):
                    clock.advance(seconds=int(rng.choice([0, 60])))
                    store.submit(slug, team, csv_for(solution, rng.integers(0, 2, 40)))

        def stored():
            # All but the version of each standing's change, which a standing
            # built by the migration does not know (0: any kept board takes it).
            columns = [c for c in TeamStandingRow.__table__.c if c.name != "version"]
            with store.engine.connect() as connection:
                rows = connection.execute(select(*columns).order_by(TeamStandingRow.team_id)).all()
            return [tuple(row) for row in rows]

        kept = stored()
        assert len(kept) == 2 * len(TEAMS)
        boards = {slug: store.leaderboard(slug) for slug in ("ladder", "full")}
        downgrade(store.engine, "0006")
        migrate(store.engine)
        assert stored() == kept
        fresh = Competitions(store.engine)  # no cached board
        for slug, board in boards.items():
            assert fresh.leaderboard(slug) == board == fresh.leaderboard_from_submissions(slug)
    finally:
        store.dispose()


def test_a_store_written_before_gets_its_boards_from_its_submissions(tmp_path):
    """The recorded store (schema 0005, every mechanism on both boards) is
    migrated, and each board it shows is the board of its submissions."""
    copy = tmp_path / "store.sqlite"
    shutil.copy(STORE, copy)
    store = Competitions.open(f"sqlite:///{copy}")
    try:
        infos = store.competitions()
        assert infos
        for info in infos:
            board = store.leaderboard(info.slug)
            assert board, info.slug
            assert board == store.leaderboard_from_submissions(info.slug)
    finally:
        store.dispose()


def test_verify_finds_a_standing_that_is_not_its_submissions(store):
    from sqlalchemy import update

    from engine_helpers import create, noisy
    from ladderboard.engine.errors import VerificationError

    solution, _ = create(store, "c")
    for seed, team in enumerate(("a", "b")):
        store.add_team("c", team)
        store.submit("c", team, csv_for(solution, noisy(solution, 0.2 + seed / 10, seed)))
    assert verify(store, "c").submissions == 2
    with store.engine.begin() as connection:
        connection.execute(update(TeamStandingRow).values(score=0.0))
    with pytest.raises(VerificationError, match="stored standings"):
        verify(Competitions(store.engine), "c")


def test_a_renumbered_board_row_is_the_row_at_its_new_rank():
    """The patch's cheap copy of a row at another rank is the dataclass's own
    ``replace``: equal, hashed alike, and serialised alike."""
    from dataclasses import replace
    from datetime import UTC, datetime

    from ladderboard.engine.kept_board import _renumbered
    from ladderboard.rules.boards import BoardRow
    from ladderboard.server.board_json import BoardJson

    row = BoardRow(3, "ada", 0.25, 4, datetime(2026, 3, 1, tzinfo=UTC), 2)
    copy, expected = _renumbered(row, 7), replace(row, rank=7)
    assert copy == expected and hash(copy) == hash(expected) and row.rank == 3
    assert BoardJson().rows((copy,)) == BoardJson().rows((expected,))


def test_a_board_patched_many_times_unread_ranks_its_rows_as_one_built():
    """Boards patched one from another whose rows nobody reads keep each
    row at the rank it was put at; the last one's rows, when read, are
    those of the board built from the same standings, ranks and all."""
    import random
    from datetime import UTC, datetime, timedelta

    from ladderboard.direction import GREATER_IS_BETTER

    rng = random.Random(3)
    start = datetime(2026, 11, 1, tzinfo=UTC)
    standings: dict[str, StandingRow] = {}

    def standing(name: str, k: int) -> StandingRow:
        when = start + timedelta(minutes=rng.randint(0, 50))
        return StandingRow(name, rng.choice([0.5, rng.random()]), k, when, k, 1, when)

    for t in range(30):
        standings[f"t{t}"] = standing(f"t{t}", t)
    board = KeptBoard.build(0, standings.values(), GREATER_IS_BETTER)
    for step in range(1, 60):
        name = f"t{rng.randrange(35)}"
        changed = standing(name, 100 + step)
        disabled = rng.random() < 0.15
        if disabled:
            standings.pop(name, None)
        else:
            standings[name] = changed
        board = board.patched(step, [ChangedStanding(*changed, disabled)], GREATER_IS_BETTER)
        if step % 20 == 0:
            assert board.rows == KeptBoard.build(step, standings.values(), GREATER_IS_BETTER).rows
    assert any(row.rank != at for at, row in enumerate(board.placed, 1))
    built = KeptBoard.build(60, standings.values(), GREATER_IS_BETTER).rows
    assert [board.ranked(at, at + 7) for at in range(0, len(built), 7)] == [
        built[at : at + 7] for at in range(0, len(built), 7)
    ]  # a page at a time, before the whole board is ranked
    assert board.rows == KeptBoard.build(60, standings.values(), GREATER_IS_BETTER).rows
    assert [row.rank for row in board.rows] == list(range(1, len(standings) + 1))
