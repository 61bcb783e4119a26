"""The desk's settings form (SQLite and PostgreSQL): it saves the quotas,
selections, file size, decimals and automatic publication while the
competition is open, says what changed, lists the changes on the desk and
the public Rules page; a refusal names the field, keeps the values sent
and changes nothing; a closed competition offers no settings form."""

from __future__ import annotations

import re
from html import unescape

from organiser_helpers import alert, sign_in, state, status
from server_helpers import create, organiser


def _form(csrf: str, **changes: str) -> dict[str, str]:
    return {
        "csrf": csrf,
        "daily_quota": "5",
        "total_quota": "none",
        "invalid_quota": "20",
        "n_selections": "2",
        "max_megabytes": "50",
        "precision": "5",
        **changes,
    }


def _text(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


def test_settings_form_saves_and_the_rules_page_lists_the_change(client, solution):
    create(client, solution)
    csrf = sign_in(client)
    page = client.post(
        "/organiser/c/demo/settings", data=_form(csrf, daily_quota="3", total_quota="40")
    )
    assert page.status_code == 200, page.text
    assert status(page.text) == (
        "Saved: Daily quota: 5 → 3 submissions; Total quota: no limit → 40 submissions."
    )
    config = client.app.state.competitions.competition("demo").config
    assert (config.daily_quota, config.total_quota) == (3, 40)
    assert "Daily quota: 5 → 3 submissions, from" in _text(page.text)  # the desk's list
    rules = client.get("/c/demo/rules")
    assert "Changes to these rules" in rules.text
    assert "Daily quota: 5 → 3 submissions, from" in _text(rules.text)
    assert "Up to 3 valid files a day per team" in _text(rules.text)
    api = client.get("/api/competitions/demo/history").json()
    assert [c["setting"] for c in api] == ["daily_quota", "total_quota"]


def test_settings_form_a_rules_page_without_changes_says_nothing_of_them(client, solution):
    create(client, solution)
    assert "Changes to these rules" not in client.get("/c/demo/rules").text


def test_settings_form_left_as_it_is_changes_nothing(client, solution):
    create(client, solution, max_bytes=1000)  # not whole megabytes: kept as it is
    csrf = sign_in(client)
    page = client.post(
        "/organiser/c/demo/settings", data=_form(csrf, max_megabytes=f"{1000 / 2**20:g}")
    )
    assert page.status_code == 200, page.text
    assert status(page.text) == "Nothing changed: every setting is as it was."
    assert client.app.state.competitions.competition("demo").config.max_bytes == 1000


def test_settings_form_a_refusal_names_the_field_and_keeps_the_values(client, solution):
    create(client, solution)
    csrf = sign_in(client)
    before = state(client)
    page = client.post(
        "/organiser/c/demo/settings", data=_form(csrf, daily_quota="3", invalid_quota="lots")
    )
    assert page.status_code == 422
    assert alert(page.text) == "Invalid files in all must be a whole number or 'none', got 'lots'."
    assert 'name="invalid_quota" type="text" inputmode="numeric" value="lots"' in page.text
    assert 'name="daily_quota" type="text" inputmode="numeric" value="3"' in page.text
    assert state(client) == before
    assert client.app.state.competitions.history("demo") == []


def test_settings_form_precision_has_a_ceiling(client, solution):
    create(client, solution)
    csrf = sign_in(client)
    page = client.post("/organiser/c/demo/settings", data=_form(csrf, precision="16"))
    assert page.status_code == 422
    assert alert(page.text) == "Decimals shown must be at most 15, got 16."


def test_settings_form_auto_publish_needs_a_deadline(client, solution):
    create(client, solution)
    csrf = sign_in(client)
    page = client.post("/organiser/c/demo/settings", data=_form(csrf, auto_publish="1"))
    assert page.status_code == 422
    assert "needs a deadline" in alert(page.text)


def test_settings_form_once_closed_offers_late_submissions_alone(client, solution):
    create(client, solution)
    csrf = sign_in(client)
    assert client.post("/api/competitions/demo/close", headers=organiser()).status_code == 200
    desk = client.get("/organiser/c/demo")
    assert 'action="/organiser/c/demo/settings"' in desk.text
    assert 'name="late_submissions"' in desk.text
    for field in ("daily_quota", "auto_publish", "opens_at", "freeze_at"):
        assert f'name="{field}"' not in desk.text, field
    page = client.post("/organiser/c/demo/settings", data=_form(csrf, daily_quota="2"))
    assert page.status_code == 409
    assert "is closed" in alert(page.text)
    page = client.post("/organiser/c/demo/settings", data={"csrf": csrf, "late_submissions": "1"})
    assert page.status_code == 200, alert(page.text)
    assert status(page.text) == "Saved: Late submissions after the publication: no → yes."
    assert client.app.state.competitions.competition("demo").config.late_submissions
