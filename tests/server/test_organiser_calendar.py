"""The calendar on the desk's settings form (SQLite and PostgreSQL), with
the engine's clock injected: the opening time and the freeze are set in a
chosen time zone while they are ahead, shown read-only with a sentence once
passed, late submissions switched at any time; each change is listed on the
desk and the Rules page, and a refusal says why, keeps what was typed and
changes nothing."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html import unescape

import pytest
from organiser_helpers import alert, sign_in, state, status
from server_helpers import create

from engine_helpers import DEADLINE, FREEZE, OPENS


def _calendar(client, solution, **fields):
    dates = {"opens_at": OPENS, "freeze_at": FREEZE, "deadline": DEADLINE}
    return create(client, solution, **{k: v.isoformat() for k, v in dates.items()} | fields)


def _form(csrf: str, **changes: str) -> dict[str, str]:
    """The settings form as the desk shows it for :func:`_calendar`, in UTC."""
    return {
        "csrf": csrf,
        "daily_quota": "5",
        "total_quota": "none",
        "invalid_quota": "20",
        "n_selections": "2",
        "max_megabytes": "50",
        "precision": "5",
        "zone": "UTC",
        "opens_at": "2026-03-02T00:00",
        "freeze_at": "2026-03-06T00:00",
        **changes,
    }


def _text(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


@pytest.mark.slow
def test_desk_sets_the_calendar_in_a_zone_and_the_rules_page_lists_it(clocked, solution):
    client, _ = clocked
    _calendar(client, solution)
    csrf = sign_in(client)
    desk = client.get("/organiser/c/demo").text
    assert 'name="opens_at" type="datetime-local" value="2026-03-02T00:00"' in desk
    assert 'name="freeze_at" type="datetime-local" value="2026-03-06T00:00"' in desk
    sent = _form(
        csrf,
        zone="Europe/Paris",  # UTC+1 in March
        opens_at="2026-03-02T10:00",
        freeze_at="2026-03-05T13:30",
        late_submissions="1",
    )
    page = client.post("/organiser/c/demo/settings", data=sent)
    assert page.status_code == 200, alert(page.text)
    assert status(page.text) == (
        "Saved: Opening time: 2026-03-02 00:00 UTC → 2026-03-02 09:00 UTC; "
        "Public board frozen from: 2026-03-06 00:00 UTC → 2026-03-05 12:30 UTC; "
        "Late submissions after the publication: no → yes."
    )
    config = client.app.state.competitions.competition("demo").config
    assert config.opens_at == datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    assert config.freeze_at == datetime(2026, 3, 5, 12, 30, tzinfo=UTC)
    assert config.late_submissions
    assert "Public board frozen from: 2026-03-06 00:00 UTC → 2026-03-05 12:30 UTC, from" in (
        _text(page.text)
    )
    rules = _text(client.get("/c/demo/rules").text)
    assert "Opening time: 2026-03-02 00:00 UTC → 2026-03-02 09:00 UTC, from" in rules
    assert "Late submissions after the publication: no → yes, from" in rules
    api = client.get("/api/competitions/demo/history").json()
    assert [c["setting"] for c in api] == ["opens_at", "freeze_at", "late_submissions"]


def test_desk_form_left_as_shown_changes_nothing_and_empty_clears_the_freeze(clocked, solution):
    client, _ = clocked
    _calendar(client, solution, freeze_at="2026-03-06T00:00:30+00:00")  # to the second
    csrf = sign_in(client)
    page = client.post("/organiser/c/demo/settings", data=_form(csrf))
    assert status(page.text) == "Nothing changed: every setting is as it was.", alert(page.text)
    assert client.app.state.competitions.history("demo") == []
    page = client.post("/organiser/c/demo/settings", data=_form(csrf, freeze_at=""))
    assert status(page.text) == "Saved: Public board frozen from: 2026-03-06 00:00 UTC → none."
    assert client.app.state.competitions.competition("demo").config.freeze_at is None


CALENDAR_REFUSALS = {
    "freeze-after-deadline": (
        {"freeze_at": "2026-03-09T00:00"},
        422,
        "The freeze (2026-03-09 00:00 UTC) must come before the deadline (2026-03-08 00:00 UTC).",
    ),
    "freeze-before-opening": (
        {"freeze_at": "2026-03-01T12:00"},
        422,
        "The opening time (2026-03-02 00:00 UTC) must come before the freeze "
        "(2026-03-01 12:00 UTC).",
    ),
    "opening-past": (
        {"opens_at": "2026-02-28T00:00", "freeze_at": ""},
        422,
        "The opening time 2026-02-28 00:00 UTC is in the past: choose a later one.",
    ),
    "freeze-text": (
        {"freeze_at": "next week"},
        422,
        "The freeze must be a date and a time like 2030-12-31T23:59, got 'next week'.",
    ),
    "zone": (
        {"zone": "Atlantis/Capital", "freeze_at": "2026-03-05T00:00"},
        422,
        "'Atlantis/Capital' is not a time zone; choose one from the list.",
    ),
}


@pytest.mark.parametrize(
    ("changes", "code", "message"), CALENDAR_REFUSALS.values(), ids=CALENDAR_REFUSALS.keys()
)
def test_desk_calendar_refusal_says_why_and_keeps_what_was_typed(
    clocked, solution, changes, code, message
):
    client, _ = clocked
    _calendar(client, solution)
    csrf = sign_in(client)
    before = state(client)
    sent = _form(csrf, late_submissions="1", **changes)
    page = client.post("/organiser/c/demo/settings", data=sent)
    assert page.status_code == code
    assert alert(page.text) == message
    for name in ("opens_at", "freeze_at"):
        assert f'name="{name}" type="datetime-local" value="{sent[name]}"' in page.text
    assert 'name="late_submissions" type="checkbox" value="1" checked' in page.text
    assert state(client) == before
    assert client.app.state.competitions.history("demo") == []


def test_desk_shows_a_passed_time_read_only_and_refuses_to_move_it(clocked, solution):
    client, clock = clocked
    _calendar(client, solution)
    clock.now = FREEZE + timedelta(hours=1)
    csrf = sign_in(client)  # a session of the clock's time
    desk = client.get("/organiser/c/demo").text
    assert 'name="opens_at"' not in desk and 'name="freeze_at"' not in desk
    assert 'name="zone"' in desk  # the deadline's form keeps its own
    text = _text(desk)
    assert "the opening time, passed, stays as it is." in text
    assert "the freeze, passed, stays until the close." in text
    # A stale form that still sends them: the engine's refusal, nothing changed.
    page = client.post("/organiser/c/demo/settings", data=_form(csrf, freeze_at="2026-03-07T00:00"))
    assert page.status_code == 409
    assert alert(page.text) == "Competition 'demo' has passed its freeze: it cannot change."
    assert client.app.state.competitions.history("demo") == []
    # The limits still change while it is open.
    page = client.post(
        "/organiser/c/demo/settings",
        data={k: v for k, v in _form(csrf, daily_quota="3").items() if k[-3:] != "_at"},
    )
    assert status(page.text) == "Saved: Daily quota: 5 → 3 submissions.", alert(page.text)


def test_desk_offers_no_opening_time_when_none_was_set(clocked, solution):
    client, _ = clocked
    create(client, solution)
    sign_in(client)
    desk = client.get("/organiser/c/demo").text
    assert 'name="opens_at"' not in desk
    assert 'name="freeze_at" type="datetime-local" value=""' in desk
    assert "Open since its creation" in _text(desk)


def test_desk_settings_form_too_large_to_read_is_refused_in_a_sentence(clocked, solution):
    client, _ = clocked
    _calendar(client, solution)
    csrf = sign_in(client)
    fields = {"csrf": csrf, **{f"extra{i}": "x" for i in range(60)}}
    page = client.post(
        "/organiser/c/demo/settings",
        data=fields,
        files={"unasked": ("a.txt", b"a", "text/plain")},
    )
    assert page.status_code == 422
    assert alert(page.text).startswith("The form could not be read:")
    assert client.app.state.competitions.history("demo") == []
