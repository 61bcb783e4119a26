"""Running a competition, on SQLite and PostgreSQL: data files, the rules,
editing, the deadline, publishing, teams imported, disabled and summarised,
quotas, refused files, team sessions and explained releases. Every refusal
changes nothing."""

from __future__ import annotations

import hashlib
import math
from datetime import timedelta

import numpy as np
import pytest
from sqlalchemy import select

from engine_helpers import START, create, csv_for, make_solution, noisy, snapshot
from ladderboard.engine.errors import (
    CompetitionClosed,
    Conflict,
    NotFound,
    QuotaExceeded,
    TeamDisabled,
)
from ladderboard.files.solution import Solution
from ladderboard.files.submission import SubmissionError
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import RateLimitRow


# -------------------------------------------------------------- data files
def test_running_files_list_the_sample_first_and_never_the_solution(store):
    solution, _ = create(store)
    listed = store.files("comp")
    assert [f.name for f in listed] == ["sample_submission.csv"]
    sample = store.sample_submission("comp")
    assert listed[0].generated and listed[0].sha256 == hashlib.sha256(sample).hexdigest()
    assert sample.decode().splitlines()[0] == "id,target"
    assert len(sample.decode().splitlines()) == solution.n + 1
    assert "Usage" not in sample.decode() and sample != solution.to_csv()

    info = store.add_file("comp", "train.csv", b"x,y\n1,2\n")
    assert info.size == 8 and info.sha256 == hashlib.sha256(b"x,y\n1,2\n").hexdigest()
    assert [f.name for f in store.files("comp")] == ["sample_submission.csv", "train.csv"]
    assert store.file("comp", "train.csv")[1] == b"x,y\n1,2\n"
    with pytest.raises(Conflict, match="already has"):
        store.add_file("comp", "train.csv", b"other")
    store.add_file("comp", "train.csv", b"new", replace=True)
    assert store.file("comp", "train.csv")[1] == b"new"
    store.remove_file("comp", "train.csv")
    with pytest.raises(NotFound):
        store.file("comp", "train.csv")
    with pytest.raises(NotFound):
        store.remove_file("comp", "train.csv")


@pytest.mark.parametrize(
    "name", ["../solution.csv", ".hidden", "a/b.csv", "", "x" * 101, "sample_submission.csv"]
)
def test_running_a_bad_file_name_is_refused_and_stores_nothing(store, name):
    create(store)
    with pytest.raises(ValueError):
        store.add_file("comp", name, b"data")
    assert [f.name for f in store.files("comp")] == ["sample_submission.csv"]
    with pytest.raises(NotFound):
        store.file("comp", name if name != "sample_submission.csv" else "nothing.csv")


# -------------------------------------------------- editing and the deadline
def test_running_a_past_deadline_is_refused_at_creation_and_at_an_edit(store, clock):
    with pytest.raises(ValueError, match="in the past"):
        create(store, deadline=START - timedelta(minutes=1))
    assert store.competitions() == []
    create(store, deadline=START + timedelta(days=1))
    with pytest.raises(ValueError, match="in the past"):
        store.update("comp", deadline=START - timedelta(hours=1))
    assert store.competition("comp").deadline == START + timedelta(days=1)
    later = store.update("comp", deadline=(START + timedelta(days=3)).isoformat())
    assert later.deadline == START + timedelta(days=3) == later.config.deadline
    # A configuration is checked once and kept: the kept one follows the edit.
    assert store.competition("comp").config.deadline == START + timedelta(days=3)
    assert store.update("comp", deadline=None).deadline is None
    assert store.competition("comp").config.deadline is None


def test_running_an_extended_deadline_lets_a_cached_target_submit_again(store, clock):
    solution, _ = create(store, deadline=START + timedelta(hours=1), daily_quota=None)
    store.add_team("comp", "alpha")
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 0)))  # cached now
    store.update("comp", deadline=START + timedelta(hours=3))
    clock.advance(hours=2)  # past the first deadline, before the second
    store.admit("comp", "alpha")
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.3, 1)))
    clock.advance(hours=2)
    with pytest.raises(CompetitionClosed):
        store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.2, 2)))
    with pytest.raises(CompetitionClosed, match="cannot change"):
        store.update("comp", deadline=START + timedelta(days=9))


def test_running_the_admission_read_with_the_caller_says_what_it_says_alone(store, clock):
    """The server reads a submission's admission with its caller, in one
    query (``member_admission``): for every team and key it gives what the
    admission's own read gives, and ``admit`` refuses with it as without it."""
    from ladderboard.engine.quotas import daily_window
    from ladderboard.store import statements

    solution, _ = create(store, daily_quota=2, invalid_quota=1)
    store.add_teams("comp", ["alpha", "beta", "gamma", "delta"], ["ha", "hb", "hc", "hd"])
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 0)), idempotency_key="k1")
    clock.advance(days=1)  # alpha: one yesterday, two today (its quota for the day)
    for seed in (1, 2):
        store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, seed)))
    store.submit("comp", "beta", csv_for(solution, noisy(solution, 0.4, 3)), idempotency_key="k2")
    with pytest.raises(SubmissionError):
        store.submit("comp", "gamma", b"not a csv")  # gamma: its one invalid file
    store.set_team_disabled("comp", "delta", True)
    outcomes = {}
    for team, token_hash in (("alpha", "ha"), ("beta", "hb"), ("gamma", "hc"), ("delta", "hd")):
        for key in (None, "k1", "k2"):
            info, member, read, tat = store.member_admission("comp", token_hash, key)
            assert tat is None  # no bucket asked for
            assert info.slug == "comp" and member.name == team and read.now == clock()
            with store.reader.connect() as connection:
                alone = statements.admission(
                    connection, info_id(store), member.id, key, daily_window(clock()), clock()
                )
            assert tuple(read[3:]) == tuple(alone) and read.team_id == member.id
            assert read.commitment == info.commitment
            refusals = []
            for given in (read, None):
                try:
                    store.admit("comp", team, key, read=given)
                    refusals.append(None)
                except (QuotaExceeded, TeamDisabled) as exc:
                    refusals.append(type(exc))
            assert refusals[0] == refusals[1]
            outcomes[team, key] = refusals[0]
    assert outcomes["alpha", None] is QuotaExceeded and outcomes["alpha", "k1"] is None  # resent
    assert outcomes["beta", None] is None and outcomes["gamma", None] is QuotaExceeded
    assert outcomes["delta", "k2"] is TeamDisabled
    assert store.member_admission("comp", "nobody", None)[1:] == (None, None, None)
    # A rate-limit bucket read with it: its tat, for a team or none; None without a row.
    store.rate_limits.take("auth-failures:10.0.0.1", per_minute=6)
    with store.reader.connect() as connection:
        tat = connection.execute(select(RateLimitRow.tat)).scalar_one()
    for token_hash in ("ha", "nobody"):
        read = store.member_admission("comp", token_hash, rate_key="auth-failures:10.0.0.1")
        assert read.rate_tat == tat
    assert store.member_admission("comp", "ha", rate_key="auth-failures:10.0.0.2").rate_tat is None
    assert store.member_admission("gone", "ha", None) == (None, None, None, None)
    with pytest.raises(QuotaExceeded):  # another team's read is not this team's: read again
        store.admit("comp", "alpha", read=store.member_admission("comp", "hb")[2])
    store.close("comp")
    with pytest.raises(CompetitionClosed):
        store.admit("comp", "beta", read=store.member_admission("comp", "hb")[2])


def info_id(store) -> int:
    from sqlalchemy import select

    from ladderboard.store.models import CompetitionRow

    with store.reader.connect() as connection:
        return connection.execute(select(CompetitionRow.id)).scalar_one()


def test_running_title_overview_and_rules_are_edited(store):
    create(store)
    info = store.update("comp", title="Cats", description="# Overview", rules="Be *nice*.")
    assert (info.title, info.description, info.rules) == ("Cats", "# Overview", "Be *nice*.")
    assert store.update("comp").rules == "Be *nice*."  # what is not given stays
    with pytest.raises(ValueError):
        store.update("comp", title="x" * 201)
    assert store.competition("comp").title == "Cats"


# -------------------------------------------------------------- publishing
def test_running_publishing_waits_for_the_close_and_reveals_the_key(store):
    solution, _ = create(store)
    store.add_team("comp", "alpha")
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 0)))
    with pytest.raises(CompetitionClosed, match="close it before"):
        store.publish("comp")
    store.close("comp")
    info = store.competition("comp")
    assert info.is_closed() and not info.is_published() and info.published_at is None
    with pytest.raises(CompetitionClosed):
        store.reveal_key("comp")
    with pytest.raises(CompetitionClosed):
        store.leaderboard("comp", "private")
    preview = store.leaderboard("comp", "private", organiser=True)
    published = store.publish("comp")
    assert published.is_published() and store.publish("comp") == published  # idempotent
    assert store.leaderboard("comp", "private") == preview
    assert len(store.reveal_key("comp")) == 32


def test_running_auto_publish_opens_the_private_board_at_the_deadline(store, clock):
    solution, _ = create(store, deadline=START + timedelta(hours=1), auto_publish=True)
    store.add_team("comp", "alpha")
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 0)))
    with pytest.raises(CompetitionClosed):
        store.leaderboard("comp", "private")
    clock.advance(hours=2)
    assert store.competition("comp").is_published(clock())
    assert store.reveal_key("comp")
    assert [r.team for r in store.leaderboard("comp", "private")] == ["alpha"]


# ------------------------------------------------------------------- teams
def test_running_an_import_registers_all_teams_or_none(store):
    create(store)
    store.add_team("comp", "alpha")
    before = store.teams("comp")
    for names, message in (
        (["beta", "Beta"], "repeats team 1"),
        (["beta", "ALPHA"], "already exists"),
        (["beta", ""], "empty"),
        (["beta", "bad\x00name"], "team 2"),
    ):
        with pytest.raises((ValueError, Conflict), match=message):
            store.add_teams("comp", names, [None] * len(names))
        assert store.teams("comp") == before
    added = store.add_teams("comp", [" beta ", "gamma"], ["h1", "h2"])
    assert [t.name for t in added] == ["beta", "gamma"]
    assert store.team_by_token_hash("comp", "h2").name == "gamma"
    store.close("comp")
    with pytest.raises(CompetitionClosed):
        store.add_teams("comp", ["delta"], [None])


def test_running_a_disabled_team_cannot_submit_or_select_and_leaves_the_boards(store):
    solution, _ = create(store)
    for team in ("alpha", "beta"):
        store.add_team("comp", team)
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.3, 0)))
    store.submit("comp", "beta", csv_for(solution, noisy(solution, 0.4, 1)))
    assert store.set_team_disabled("comp", "alpha", True).disabled
    before = snapshot(store)
    with pytest.raises(TeamDisabled):
        store.admit("comp", "alpha")
    with pytest.raises(TeamDisabled):  # the target is cached: the lock reads it afresh
        store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.2, 2)))
    with pytest.raises(TeamDisabled):
        store.submit("comp", "alpha", b"not a csv")
    with pytest.raises(TeamDisabled):
        store.select("comp", "alpha", [1])
    assert snapshot(store) == before and store.rejections("comp", "alpha") == []
    assert [r.team for r in store.leaderboard("comp")] == ["beta"]
    assert [r.team for r in store.leaderboard("comp", "private", organiser=True)] == ["beta"]
    store.set_team_disabled("comp", "alpha", False)
    assert [r.team for r in store.leaderboard("comp")] == ["alpha", "beta"]
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.2, 2)))


def test_running_a_disabled_team_leaves_a_per_rank_board(store):
    solution, _ = create(store, board="per-rank", ranks=3)
    for team in ("alpha", "beta"):
        store.add_team("comp", team)
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.2, 0)))
    store.submit("comp", "beta", csv_for(solution, noisy(solution, 0.4, 1)))
    assert [r.team for r in store.leaderboard("comp")] == ["alpha", "beta"]
    store.set_team_disabled("comp", "alpha", True)
    assert [(r.rank, r.team) for r in store.leaderboard("comp")] == [(1, "beta")]


def test_running_team_summaries_count_each_teams_activity(store, clock):
    solution, _ = create(store, daily_quota=None)
    for team in ("alpha", "beta", "gamma"):
        store.add_team("comp", team)
    same = csv_for(solution, noisy(solution, 0.4, 0))
    store.submit("comp", "alpha", same)
    clock.advance(days=1)
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.3, 1)))
    store.submit("comp", "beta", same)  # flagged: repeats alpha's first
    with pytest.raises(SubmissionError):
        store.submit("comp", "gamma", b"id,target\n")
    store.set_team_disabled("comp", "gamma", True)
    summaries = {s.name: s for s in store.team_summaries("comp")}
    alpha, beta, gamma = summaries["alpha"], summaries["beta"], summaries["gamma"]
    assert (alpha.submissions, alpha.used_today, alpha.flags, alpha.invalid) == (2, 1, 1, 0)
    assert alpha.last_submission == clock()
    assert (beta.submissions, beta.flags) == (1, 1)
    assert (gamma.submissions, gamma.invalid, gamma.disabled) == (0, 1, True)
    assert gamma.last_submission is None


# ------------------------------------------------- what a team is shown
def test_running_quota_and_refused_files_as_the_team_sees_them(store, clock):
    solution, _ = create(store, daily_quota=2, total_quota=5, invalid_quota=3)
    store.add_team("comp", "alpha")
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 0)))
    with pytest.raises(SubmissionError):
        store.submit("comp", "alpha", b"id,target\n1,nan\n")
    quota = store.quota("comp", "alpha")
    assert (quota.used_today, quota.remaining_today, quota.used_total, quota.invalid) == (
        1,
        1,
        1,
        1,
    )
    assert quota.resets_at == START.replace(hour=0) + timedelta(days=1)
    (refused,) = store.rejections("comp", "alpha")
    assert refused.message and refused.size == len(b"id,target\n1,nan\n")
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.3, 1)))
    assert store.quota("comp", "alpha").remaining_today == 0
    with pytest.raises(QuotaExceeded):
        store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.2, 2)))


def test_running_final_marks_the_submissions_that_count(store):
    solution, _ = create(store, n_selections=1, daily_quota=None)
    store.add_team("comp", "alpha")
    for seed, flip in enumerate((0.4, 0.2, 0.3)):
        store.submit("comp", "alpha", csv_for(solution, noisy(solution, flip, seed)))
    # On a ladder the automatic choice follows the mechanism's decisions,
    # which a running board keeps from the team: no mark before the close.
    assert [v.final for v in store.submissions("comp", "alpha")] == [False, False, False]
    store.select("comp", "alpha", [3])
    assert [v.final for v in store.submissions("comp", "alpha")] == [False, False, True]
    store.select("comp", "alpha", [])
    store.close("comp")
    views = store.submissions("comp", "alpha")
    # The decisions stay the organiser's until publication, the close included.
    assert [(v.final, v.best) for v in views] == [(False, None)] * 3
    assert [v.selected for v in views] == [False] * 3  # the close writes no choice
    store.publish("comp")
    views = store.submissions("comp", "alpha")
    # The second file (flips 0.2) beat the first; the third (0.3) did not.
    assert [v.final for v in views] == [False, True, False]
    assert [v.best for v in views] == [True, True, False]


def test_running_full_disclosure_marks_its_best_releases_while_it_runs(store):
    solution, _ = create(store, mechanism="full-disclosure", n_selections=1, daily_quota=None)
    store.add_team("comp", "alpha")
    for seed, flip in enumerate((0.4, 0.2, 0.3)):
        store.submit("comp", "alpha", csv_for(solution, noisy(solution, flip, seed)))
    views = store.submissions("comp", "alpha")
    best = min(views, key=lambda v: (v.public_score, v.created_at))
    assert [v.final for v in views] == [v.number == best.number for v in views]


def test_running_each_release_carries_the_previous_one_and_its_explanation(store):
    solution, _ = create(store, mechanism="ladder", mechanism_params={"eta": 0.05})
    store.add_team("comp", "alpha")
    first = store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 0)))
    assert first.previous_score is None
    assert store.explain("comp", "alpha", first).startswith("Your team's first board score")
    again = store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.39, 1)))
    assert again.previous_score == first.public_score == again.public_score
    said = store.explain("comp", "alpha", again)
    assert "board score stays at" in said and "0.05" in said
    better = store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.1, 2)))
    assert store.explain("comp", "alpha", better).startswith("Your team's board score is now")


def test_running_decimals_follow_the_mechanisms_resolution(store):
    _, ladder = create(store, mechanism="ladder", mechanism_params={"eta": 0.01})
    _, shaky = create(store, slug="shaky", mechanism="shaky-ladder")
    _, kaggle = create(store, slug="kaggle", mechanism="full-disclosure")
    assert store.decimals(ladder) == 2
    assert store.decimals(kaggle) == 5
    grid = 2 ** -round(-math.log2(0.5 / 200**0.5))  # near the noise scale
    assert 1 <= store.decimals(shaky) < 5 and grid > 10 ** -store.decimals(shaky) / 2


# -------------------------------------------------------------- sessions
def test_running_team_sessions_expire_close_and_end_with_a_disabled_team(store, clock):
    create(store)
    team = store.add_team("comp", "alpha")
    cookie = store.team_sessions.open(team.id, timedelta(hours=1))
    assert store.team_sessions.team_of(cookie) == team.id
    assert store.team_sessions.team_of("forged") is None
    store.set_team_disabled("comp", "alpha", True)
    assert store.team_sessions.team_of(cookie) is None
    store.set_team_disabled("comp", "alpha", False)
    assert store.team_sessions.team_of(cookie) is None  # enabling revives no session
    later = store.team_sessions.open(team.id, timedelta(hours=1))
    assert store.team_sessions.team_of(later) == team.id
    clock.advance(hours=2)
    assert store.team_sessions.team_of(later) is None
    fresh = store.team_sessions.open(team.id, timedelta(hours=1))
    store.team_sessions.close(fresh)
    assert store.team_sessions.team_of(fresh) is None


def test_running_the_sample_submission_does_not_give_the_split_away(store):
    # A solution file that lists its public rows first, as one joined from two parts is.
    ids = np.random.default_rng(3).permutation(200)
    usage = ["Public"] * 100 + ["Private"] * 100
    text = "id,target,Usage\n" + "".join(
        f"{i},{i % 2},{u}\n" for i, u in zip(ids, usage, strict=True)
    )
    config = CompetitionConfig(score="zero_one", mechanism="parameter-free-ladder")
    store.create("comp", Solution.from_csv(text.encode()), config)
    rows = store.sample_submission("comp").decode().splitlines()
    assert rows[0] == "id,target"
    assert [int(r.split(",")[0]) for r in rows[1:]] == sorted(int(i) for i in ids)


@pytest.mark.parametrize(
    ("score", "labels", "value"),
    [("zero_one", [0, 1], "0"), ("accuracy", [1, 2], "1"), ("squared", [0.5, 2.5], "0")],
)
def test_running_the_sample_submission_writes_a_class_as_the_labels_are_written(
    store, score, labels, value
):
    """The sample is a file the team can submit as it is: its predictions are
    written as whole numbers (``0``, as the labels are, not ``0.0``), and
    under a score that compares labels they are a class of the solution
    (the smallest), which 0 need not be."""
    mechanism = "metric-full-disclosure" if score == "accuracy" else "parameter-free-ladder"
    solution = Solution.from_labels(labels * 10, public_fraction=0.5, random_state=0)
    store.create("comp", solution, CompetitionConfig(score=score, mechanism=mechanism))
    store.add_team("comp", "alpha")
    sample = store.sample_submission("comp")
    assert {row.split(",")[1] for row in sample.decode().splitlines()[1:]} == {value}
    assert store.file("comp", "sample_submission.csv")[1] == sample
    assert store.submit("comp", "alpha", sample).status == "scored"


def test_running_data_files_are_stored_all_or_none(store):
    create(store)
    with pytest.raises(ValueError, match="file name"):
        store.add_files("comp", [("good.csv", b"1"), ("../bad.csv", b"2")])
    with pytest.raises(ValueError, match="two data files"):
        store.add_files("comp", [("a.csv", b"1"), ("a.csv", b"2")])
    store.add_file("comp", "taken.csv", b"0")
    with pytest.raises(Conflict):
        store.add_files("comp", [("new.csv", b"1"), ("taken.csv", b"2")])
    assert [f.name for f in store.files("comp")] == ["sample_submission.csv", "taken.csv"]
    solution = make_solution()
    config = CompetitionConfig(score="zero_one", mechanism="parameter-free-ladder")
    with pytest.raises(ValueError):
        store.create("other", solution, config, files=[("ok.csv", b"1"), (".x", b"2")])
    assert [c.slug for c in store.competitions()] == ["comp"]
    store.create("other", solution, config, files=[("ok.csv", b"1")])
    assert store.file("other", "ok.csv")[1] == b"1"
