"""The calendar played through with an injected clock, on both stores: an
opening time (files refused before it, nothing spent), a freeze (the public
board fixed for participants while releases continue and the organiser's
board moves), the close (the board shows all) and late files after the
publication (scored exactly, on the late board only, the final ranking
unchanged)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from engine_helpers import CALENDAR_START as START
from engine_helpers import DEADLINE, FREEZE, OPENS, Clock, csv_for, make_solution, noisy
from ladderboard.engine import Competitions
from ladderboard.engine.audit import verify
from ladderboard.engine.errors import CompetitionClosed, NotOpenYet, QuotaExceeded
from ladderboard.rules.config import CompetitionConfig


def _board(competitions, **kwargs):
    return [(r.team, r.score, r.entries) for r in competitions.leaderboard("comp", **kwargs)]


def _config(**changes) -> CompetitionConfig:
    settings = dict(
        score="zero_one",
        mechanism="parameter-free-ladder",
        daily_quota=2,
        opens_at=OPENS,
        freeze_at=FREEZE,
        deadline=DEADLINE,
        late_submissions=True,
    )
    return CompetitionConfig(**{**settings, **changes})


@pytest.mark.parametrize("board", ["per-team", "per-rank"])
def test_calendar_played_through(database_url, board):
    clock = Clock(START)
    competitions = Competitions.open(database_url, clock=clock, store_clock=clock)
    solution = make_solution()
    files = [csv_for(solution, noisy(solution, flip, seed)) for seed, flip in enumerate(
        (0.4, 0.3, 0.2, 0.1, 0.05, 0.35, 0.0)
    )]  # fmt: skip
    competitions.create("comp", solution, _config(board=board), random_state=3)
    for team in ("alpha", "beta"):
        competitions.add_team("comp", team)

    # Before the opening: teams exist and read the data; a file is refused,
    # with or without an idempotency key, and nothing is spent.
    assert competitions.sample_submission("comp")
    for key in (None, "first"):
        with pytest.raises(NotOpenYet, match="opens at 2026-03-02 00:00:00 UTC"):
            competitions.submit("comp", "alpha", files[0], idempotency_key=key)
    with pytest.raises(NotOpenYet):
        competitions.submit("comp", "alpha", b"not a csv")
    with pytest.raises(NotOpenYet):
        competitions.admit("comp", "alpha")
    quota = competitions.quota("comp", "alpha")
    assert (quota.used_today, quota.used_total, quota.invalid) == (0, 0, 0)
    assert competitions.invalid_count("comp", "alpha") == 0
    assert competitions.submissions("comp", "alpha") == []
    assert competitions.leaderboard("comp") == []

    # Open: the board moves with each submission; the key not used before
    # the opening is free.
    clock.now = OPENS + timedelta(hours=1)
    competitions.submit("comp", "alpha", files[0], idempotency_key="first")
    competitions.submit("comp", "beta", files[1])
    before_freeze = _board(competitions)
    assert sorted(team for team, _, _ in before_freeze) == ["alpha", "beta"]
    assert competitions.frozen_board("comp") is None

    # Frozen: the public board stays as it stood, while the teams' releases
    # continue and the organiser's board moves.
    clock.now = FREEZE + timedelta(hours=1)
    assert competitions.competition("comp").frozen_since(clock.now) == FREEZE
    assert _board(competitions) == before_freeze  # no submission since: the same board
    released = competitions.submit("comp", "alpha", files[3])
    competitions.submit("comp", "beta", files[4])
    assert _board(competitions) == before_freeze
    frozen = competitions.frozen_board("comp")
    assert [(r.team, r.score, r.entries) for r in frozen] == before_freeze
    own = competitions.submissions("comp", "alpha")
    assert [v.public_score for v in own][-1] == released.public_score
    live = _board(competitions, organiser=True)
    assert live != before_freeze
    assert sorted(entries for _, _, entries in live) == [2, 2]
    explanation = competitions.explain("comp", "alpha", released)
    assert ("frozen since 2026-03-06 00:00 UTC" in explanation) == (board == "per-rank")

    # Closed: the public board shows every submission again.
    clock.now = DEADLINE + timedelta(minutes=1)
    with pytest.raises(CompetitionClosed):
        competitions.submit("comp", "alpha", files[5])
    assert _board(competitions) == live
    assert competitions.competition("comp").frozen_since(clock.now) is None

    # Published: late files are scored exactly, shown on the late board only.
    competitions.publish("comp")
    private = competitions.leaderboard("comp", "private")
    public = _board(competitions)
    own_before = competitions.submissions("comp", "alpha")
    late = competitions.submit("comp", "alpha", files[6], message="after")
    assert late.late and late.number == 1
    assert late.public_score == 0.0 and late.private_score == 0.0  # the labels themselves
    second = competitions.submit("comp", "alpha", files[5])
    assert second.late and second.number == 2 and second.remaining_today == 0
    with pytest.raises(QuotaExceeded):
        competitions.submit("comp", "alpha", files[2])
    with pytest.raises(QuotaExceeded):
        competitions.admit("comp", "alpha")
    competitions.admit("comp", "beta")  # its own late quota
    assert competitions.leaderboard("comp", "private") == private
    assert _board(competitions) == public
    assert competitions.submissions("comp", "alpha") == own_before
    late_board = competitions.late_board("comp")
    assert [(r.rank, r.team, r.private_score, r.number, r.entries) for r in late_board] == [
        (1, "alpha", 0.0, 1, 2)
    ]
    views = competitions.late_submissions("comp", "alpha")
    assert [(v.number, v.message, v.private_score) for v in views] == [
        (1, "after", 0.0),
        (2, "", second.private_score),
    ]
    # A resend with the same idempotency key is answered with the first answer.
    clock.now += timedelta(days=1)
    again = competitions.submit("comp", "beta", files[1], idempotency_key="late")
    assert competitions.submit("comp", "beta", files[1], idempotency_key="late") == again
    assert [r.team for r in competitions.late_board("comp")] == ["alpha", "beta"]
    # The audit runs the competition's four files again, and no late one.
    report = verify(competitions, "comp", key_hex=competitions.reveal_key("comp"))
    assert report.submissions == 4
    assert competitions.leaderboard_from_submissions("comp") == competitions.leaderboard(
        "comp", organiser=True
    )


def test_no_late_files_without_the_setting_or_before_publication(database_url):
    clock = Clock(START)
    competitions = Competitions.open(database_url, clock=clock, store_clock=clock)
    solution = make_solution()
    file = csv_for(solution, noisy(solution, 0.2, 0))
    for slug, late in (("comp", True), ("off", False)):
        competitions.create(slug, solution, _config(late_submissions=late), random_state=1)
        competitions.add_team(slug, "alpha")
    clock.now = DEADLINE + timedelta(hours=1)
    for slug in ("comp", "off"):  # closed, not published
        with pytest.raises(CompetitionClosed):
            competitions.submit(slug, "alpha", file)
        competitions.publish(slug)
    with pytest.raises(CompetitionClosed):
        competitions.submit("off", "alpha", file)
    with pytest.raises(CompetitionClosed):
        competitions.admit("off", "alpha")
    assert competitions.late_board("off") == []
    assert competitions.submit("comp", "alpha", file).late


def test_late_files_after_an_automatic_publication(database_url):
    """Past the deadline of a competition that publishes itself, the first
    late file finds it published (the publication written then), not closed."""
    clock = Clock(START)
    competitions = Competitions.open(database_url, clock=clock, store_clock=clock)
    solution = make_solution()
    competitions.create("comp", solution, _config(auto_publish=True), random_state=1)
    competitions.add_team("comp", "alpha")
    clock.now = DEADLINE + timedelta(hours=1)
    result = competitions.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.2, 0)))
    assert result.late and result.private_score is not None
    assert competitions.competition("comp").is_published()
    assert competitions.leaderboard("comp", "private") == []


def test_calendar_dates_must_come_in_order():
    with pytest.raises(ValueError, match=r"freeze_at .* must come before deadline"):
        _config(freeze_at=DEADLINE + timedelta(days=1))
    with pytest.raises(ValueError, match=r"opens_at .* must come before freeze_at"):
        _config(opens_at=FREEZE)
    with pytest.raises(ValueError, match="opens_at must carry a time zone"):
        _config(opens_at=datetime(2026, 3, 2))
    config = _config()
    assert CompetitionConfig.from_json(config.to_json()) == config


def test_calendar_edits_only_while_in_the_future(database_url):
    clock = Clock(START)
    competitions = Competitions.open(database_url, clock=clock, store_clock=clock)
    competitions.create("comp", make_solution(), _config(), random_state=1)
    later = OPENS + timedelta(hours=6)
    assert competitions.update("comp", opens_at=later).config.opens_at == later
    with pytest.raises(ValueError, match="in the past"):
        competitions.update("comp", opens_at=START - timedelta(days=1))
    clock.now = later + timedelta(hours=1)
    with pytest.raises(CompetitionClosed, match="passed its opening time"):
        competitions.update("comp", opens_at=FREEZE - timedelta(days=1))
    moved = competitions.update("comp", freeze_at=FREEZE + timedelta(hours=1))
    assert moved.config.freeze_at == FREEZE + timedelta(hours=1)
    assert competitions.update("comp", late_submissions=False).config.late_submissions is False
    clock.now = FREEZE + timedelta(hours=2)
    with pytest.raises(CompetitionClosed, match="passed its freeze"):
        competitions.update("comp", freeze_at=None)


def test_a_freeze_set_by_another_process_freezes_this_ones_submissions(database_url):
    """A freeze added by one engine reaches another engine whose cached
    target holds the configuration from before: the lock reads the stored
    calendar, so the first submission after the freeze keeps the board."""
    clock = Clock(START)
    one = Competitions.open(database_url, clock=clock, store_clock=clock)
    other = Competitions.open(database_url, clock=clock, store_clock=clock)
    solution = make_solution()
    files = [csv_for(solution, noisy(solution, flip, seed)) for seed, flip in enumerate(
        (0.4, 0.3, 0.05)
    )]  # fmt: skip
    one.create("comp", solution, _config(opens_at=None, freeze_at=None), random_state=2)
    for team in ("alpha", "beta"):
        one.add_team("comp", team)
    one.submit("comp", "alpha", files[0])  # its target is cached with no freeze
    one.submit("comp", "beta", files[1])
    before = _board(one)
    other.update("comp", freeze_at=FREEZE)
    clock.now = FREEZE + timedelta(hours=1)
    one.submit("comp", "alpha", files[2])
    for engine in (one, other):
        assert _board(engine) == before
    assert _board(one, organiser=True) != before


def test_a_correction_waits_while_the_board_is_frozen(database_url):
    """A correction re-runs every release on the corrected labels, and the
    frozen board holds releases on the old ones: it is refused from the
    freeze to the close (and nothing changes), and taken after the close."""
    clock = Clock(START)
    competitions = Competitions.open(database_url, clock=clock, store_clock=clock)
    solution = make_solution(n=200, seed=3)
    competitions.create("comp", solution, _config())
    competitions.add_team("comp", "alpha")
    clock.now = OPENS + timedelta(hours=1)
    competitions.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.3, 1)))
    lines = solution.to_csv().decode().splitlines()
    ident, target, usage = lines[1].split(",")
    lines[1] = f"{ident},{1 - float(target)},{usage}"  # one label flipped
    corrected = type(solution).from_csv(("\n".join(lines) + "\n").encode())
    assert corrected.split_sha256 == solution.split_sha256
    clock.now = FREEZE + timedelta(hours=1)
    competitions.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.2, 2)))
    frozen = _board(competitions)
    commitment = competitions.competition("comp").commitment
    with pytest.raises(CompetitionClosed, match="frozen"):
        competitions.correct_solution("comp", corrected, "row 0 was mislabelled")
    assert competitions.competition("comp").commitment == commitment
    assert _board(competitions) == frozen and competitions.corrections("comp") == []
    clock.now = DEADLINE + timedelta(minutes=1)
    competitions.correct_solution("comp", corrected, "row 0 was mislabelled")
    assert competitions.competition("comp").commitment != commitment
    competitions.dispose()


def test_a_calendar_setting_sent_as_it_is_changes_nothing(database_url):
    """A form or a PATCH that sends the calendar as it stands (no opening
    time, a freeze already passed) is no change: neither refused nor
    recorded; a change of the same settings is refused."""
    clock = Clock(START)
    competitions = Competitions.open(database_url, clock=clock, store_clock=clock)
    competitions.create("comp", make_solution(), _config(opens_at=None))
    clock.now = FREEZE + timedelta(hours=1)
    competitions.update("comp", opens_at=None, freeze_at=FREEZE, late_submissions=True)
    competitions.update("comp", freeze_at=FREEZE.isoformat())
    assert competitions.history("comp") == []
    with pytest.raises(CompetitionClosed, match="is open, with no opening time"):
        competitions.update("comp", opens_at=FREEZE - timedelta(hours=1))
    with pytest.raises(CompetitionClosed, match="passed its freeze"):
        competitions.update("comp", freeze_at=FREEZE + timedelta(days=1))
    assert competitions.history("comp") == []
    competitions.dispose()


def test_a_new_competitions_opening_and_freeze_are_to_come(database_url):
    clock = Clock(START)
    competitions = Competitions.open(database_url, clock=clock, store_clock=clock)
    for name, words in (("opens_at", "opening time"), ("freeze_at", "freeze")):
        past = _config(**{name: START - timedelta(hours=1)}, **(
            {"opens_at": None} if name == "freeze_at" else {}))  # fmt: skip
        with pytest.raises(ValueError, match=f"the {words} .* is in the past"):
            competitions.create("comp", make_solution(), past)
    assert competitions.competitions() == []
    competitions.dispose()


def test_a_team_enabled_again_after_the_freeze_is_on_the_frozen_board(database_url):
    """The freeze keeps every team's standing; a team disabled when it is
    read is left off, and is on it again once enabled."""
    clock = Clock(START)
    competitions = Competitions.open(database_url, clock=clock, store_clock=clock)
    solution = make_solution(n=200, seed=4)
    competitions.create("comp", solution, _config())
    for team in ("alpha", "beta"):
        competitions.add_team("comp", team)
    clock.now = OPENS + timedelta(hours=1)
    for seed, team in enumerate(("alpha", "beta")):
        competitions.submit(
            "comp", team, csv_for(solution, noisy(solution, 0.2 + 0.1 * seed, seed))
        )
    competitions.set_team_disabled("comp", "beta", True)
    clock.now = FREEZE + timedelta(hours=1)
    competitions.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.1, 9)))
    assert [team for team, *_ in _board(competitions)] == ["alpha"]
    competitions.set_team_disabled("comp", "beta", False)
    assert [team for team, *_ in _board(competitions)] == ["alpha", "beta"]
    competitions.dispose()
