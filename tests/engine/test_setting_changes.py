"""Settings changed while a competition runs, on SQLite and PostgreSQL: each
editable setting changes and is recorded with the engine's time; a limit
applies from its change on, in every process; fixed settings, bad values,
selections that do not fit and changes after the close are refused and
write nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine_helpers import START, create, csv_for, noisy
from ladderboard.engine import Competitions
from ladderboard.engine.errors import CompetitionClosed, Conflict, QuotaExceeded
from ladderboard.files.submission import SubmissionError
from ladderboard.rules.config import CompetitionConfig


def _unchanged(store) -> tuple:
    info = store.competition("comp")
    return info.config, info.title, info.description, info.rules, store.history("comp")


@pytest.mark.parametrize(
    ("setting", "value", "stored"),
    [
        ("daily_quota", 3, 3),
        ("daily_quota", None, None),
        ("total_quota", 40, 40),
        ("invalid_quota", None, None),
        ("n_selections", 1, 1),
        ("max_bytes", 2**20, 2**20),
        ("precision", 3, 3),
        ("auto_publish", True, True),
    ],
)
def test_setting_changes_each_editable_setting_changes_and_is_recorded(
    store, clock, setting, value, stored
):
    create(store)
    before = getattr(store.competition("comp").config, setting)
    clock.advance(hours=2)
    info = store.update("comp", actor="organiser", **{setting: value})
    assert getattr(info.config, setting) == stored
    assert getattr(store.competition("comp").config, setting) == stored
    [change] = store.history("comp")
    assert (change.at, change.setting, change.old, change.new, change.actor) == (
        START + timedelta(hours=2),
        setting,
        before,
        stored,
        "organiser",
    )


def test_setting_changes_what_is_given_as_it_is_is_not_recorded(store):
    create(store, daily_quota=5)
    info = store.competition("comp")
    store.update(
        "comp",
        daily_quota=5,
        title=info.title,
        rules=info.rules,
        mechanism=info.config.mechanism,
        mechanism_params=dict(info.config.mechanism_params),
        score="zero_one",
    )
    assert store.history("comp") == []


def test_setting_changes_texts_are_recorded_without_their_words(store):
    create(store)
    store.update("comp", title="New title", description="Overview", rules="Be kind.")
    changes = [(c.setting, c.old, c.new, c.words) for c in store.history("comp")]
    assert changes == [
        ("title", "comp", "New title", "Title: 'comp' → 'New title'"),
        ("description", None, None, "Overview: edited"),
        ("rules", None, None, "Rules: edited"),
    ]


def test_setting_changes_the_deadline_is_recorded_in_iso_8601(store):
    create(store, deadline=START + timedelta(days=1))
    store.update("comp", deadline=START + timedelta(days=2))
    [change] = store.history("comp")
    assert (change.old, change.new) == (
        (START + timedelta(days=1)).isoformat(),
        (START + timedelta(days=2)).isoformat(),
    )
    assert change.words == "Deadline: 2026-03-02 09:00 UTC → 2026-03-03 09:00 UTC"


def test_setting_changes_a_lowered_daily_quota_applies_to_what_is_left(store, clock):
    solution, _ = create(store, daily_quota=3)
    store.add_team("comp", "alpha")
    for seed in (0, 1):
        store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, seed)))
    store.update("comp", daily_quota=1)  # alpha used 2 today: none left, none taken back
    assert [s.number for s in store.submissions("comp", "alpha")] == [1, 2]
    assert store.quota("comp", "alpha").remaining_today == 0
    for attempt in (
        lambda: store.admit("comp", "alpha"),
        lambda: store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 2))),
    ):
        with pytest.raises(QuotaExceeded, match="its 1 submissions for today"):
            attempt()
    clock.advance(days=1)
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 3)))
    with pytest.raises(QuotaExceeded):
        store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 4)))
    store.update("comp", daily_quota=None)  # no limit: the same day goes on
    assert store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 4))).number == 4


def test_setting_changes_another_process_applies_the_new_quota(store, database_url, clock):
    """A second engine on the same store (another worker or host) that kept
    the competition for a team's submissions reads the quota again after an
    edit made elsewhere."""
    solution, _ = create(store, daily_quota=5)
    store.add_team("comp", "alpha")
    other = Competitions.open(database_url, clock=clock, store_clock=clock)
    try:
        other.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 0)))  # kept there
        store.update("comp", daily_quota=1)
        with pytest.raises(QuotaExceeded, match="its 1 submissions"):
            other.admit("comp", "alpha")
        with pytest.raises(QuotaExceeded, match="its 1 submissions"):
            other.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 1)))
        store.update("comp", daily_quota=2)
        assert other.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 1))).number == 2
    finally:
        other.engine.dispose()


def test_setting_changes_a_lowered_file_size_limit_refuses_the_next_larger_file(store):
    solution, _ = create(store)
    store.add_team("comp", "alpha")
    data = csv_for(solution, noisy(solution, 0.4, 0))
    store.update("comp", max_bytes=len(data) - 1)
    with pytest.raises(SubmissionError, match="over the size limit of " + str(len(data) - 1)):
        store.submit("comp", "alpha", data)
    store.update("comp", max_bytes=len(data))
    assert store.submit("comp", "alpha", data).number == 1


def test_setting_changes_fewer_selections_than_a_team_selected_are_refused(store):
    solution, _ = create(store, n_selections=3)
    store.add_teams("comp", ["alpha", "beta"], ["ha", "hb"])
    for team in ("alpha", "beta"):
        for seed in (0, 1, 2):
            store.submit(
                "comp", team, csv_for(solution, noisy(solution, 0.4, seed + 10 * len(team)))
            )
    store.select("comp", "alpha", [1, 2, 3])
    store.select("comp", "beta", [1, 2])
    before = _unchanged(store)
    with pytest.raises(Conflict, match=r"2 teams \('alpha', 'beta'\) selected more than 1"):
        store.update("comp", n_selections=1)
    with pytest.raises(Conflict, match=r"1 team \('alpha'\) selected more than 2"):
        store.update("comp", n_selections=2, title="Changed too")
    assert _unchanged(store) == before
    store.select("comp", "alpha", [3])
    assert store.update("comp", n_selections=2).config.n_selections == 2
    with pytest.raises(ValueError, match="at most 2 final submissions"):
        store.select("comp", "alpha", [1, 2, 3])


@pytest.mark.parametrize(
    "change",
    [
        {"daily_quota": 0},
        {"daily_quota": True},
        {"total_quota": -3},
        {"n_selections": 0},
        {"max_bytes": 1.5},
        {"precision": -1},
        {"precision": 10**9},
        {"auto_publish": "yes"},
    ],
)
def test_setting_changes_a_bad_value_is_refused_as_at_creation(store, change):
    create(store)
    before = _unchanged(store)
    with pytest.raises((TypeError, ValueError)) as at_creation:
        CompetitionConfig(score="zero_one", mechanism="parameter-free-ladder", **change)
    with pytest.raises(type(at_creation.value)) as refused:
        store.update("comp", title="Not this either", **change)
    assert str(refused.value) == str(at_creation.value)
    assert _unchanged(store) == before


@pytest.mark.parametrize(
    "change",
    [
        {"mechanism": "ladder"},
        {"score": "squared"},
        {"mechanism_params": {}},
        {"score_params": {"clip": 0.1}},
        {"board": "per-rank"},
        {"ranks": 3},
    ],
)
def test_setting_changes_what_gives_scores_their_meaning_is_fixed(store, change):
    create(store)
    before = _unchanged(store)
    with pytest.raises(Conflict, match=f"the {next(iter(change))} of competition 'comp' cannot"):
        store.update("comp", daily_quota=2, **change)
    assert _unchanged(store) == before


def test_setting_changes_an_unknown_setting_is_refused(store):
    create(store)
    with pytest.raises(ValueError, match="no setting 'quota'"):
        store.update("comp", quota=3)


def test_setting_changes_after_the_close_only_the_texts_change(store):
    create(store, deadline=START + timedelta(days=1))
    store.close("comp")
    before = _unchanged(store)
    for change in ({"daily_quota": 2}, {"auto_publish": True}, {"deadline": None}):
        with pytest.raises(CompetitionClosed, match="cannot change"):
            store.update("comp", rules="Not saved", **change)
        assert _unchanged(store) == before
    store.update("comp", rules="Saved", daily_quota=5)  # 5 as it is: not a change
    assert [c.setting for c in store.history("comp")] == ["rules"]
    assert store.competition("comp").rules == "Saved"
