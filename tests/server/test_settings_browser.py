"""The organiser changes a running competition's daily quota and sets a
freeze of the public board on the desk, in a real browser at 1280 px and on
a 375 px phone; teams read the changes, with their times, on the Rules page,
and the server applies them: a file beyond the new quota is refused. Each
page passes axe-core and fits the phone.
Screenshots go to ``$LADDERBOARD_SCREENSHOTS`` when it is set."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx2
import pytest
from accessibility import audit, describe, require_axe
from playwright.sync_api import Browser, Page, expect
from server_helpers import ADMIN, add_team, create, predictions, submit

from ladderboard.files.solution import Solution

pytestmark = pytest.mark.slow

VIEWPORTS = {
    1280: {"viewport": {"width": 1280, "height": 900}},
    375: {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True},
}


def _check(page: Page, name: str, width: int, shots: Path | None) -> None:
    where = f"{name} at {width} px"
    if shots is not None:
        page.screenshot(path=str(shots / f"settings-{name}-{width}px.png"), full_page=True)
    wide = page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
    assert wide <= 0, f"{where}: the page is {wide} px wider than the screen"
    violations = audit(page)
    assert not violations, describe(violations, where)


@pytest.mark.parametrize("width", list(VIEWPORTS), ids=lambda w: f"{w}px")
def test_organiser_lowers_the_daily_quota_and_teams_read_it_on_the_rules_page(
    browser: Browser, live_server: str, solution: Solution, width: int
):
    require_axe()
    shots_dir = os.environ.get("LADDERBOARD_SCREENSHOTS")
    shots = Path(shots_dir) if shots_dir else None
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
    deadline = datetime.now(UTC).replace(second=0, microsecond=0) + timedelta(days=30)
    freeze = deadline - timedelta(days=7)
    with httpx2.Client(base_url=live_server) as api:
        create(api, solution, daily_quota=5, deadline=deadline.isoformat())
        token = add_team(api, "Gradient Gang")
        for seed in (0, 1):
            assert submit(api, token, predictions(solution, seed)).status_code == 201

        context = browser.new_context(base_url=live_server, **VIEWPORTS[width])
        context.set_default_timeout(10_000)
        page = context.new_page()
        page.goto("/organiser/c/demo")
        page.get_by_label("Organiser token").fill(ADMIN)
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("heading", name="Settings", level=2)).to_be_visible()
        expect(page.get_by_label("Submissions a day")).to_have_value("5")
        expect(page.get_by_label("Submissions in all")).to_have_value("none")
        _check(page, "desk", width, shots)

        # A value that is no number is refused in a sentence; the form keeps it.
        page.get_by_label("Submissions a day").fill("fewer")
        page.get_by_role("button", name="Save the settings").click()
        expect(page.get_by_role("alert")).to_contain_text(
            "Submissions a day must be a whole number or 'none', got 'fewer'"
        )
        expect(page.get_by_label("Submissions a day")).to_have_value("fewer")
        assert api.get("/api/competitions/demo").json()["daily_quota"] == 5

        page.get_by_label("Submissions a day").fill("2")
        page.get_by_role("button", name="Save the settings").click()
        expect(page.get_by_role("status").first).to_contain_text(
            "Saved: Daily quota: 5 → 2 submissions."
        )
        changes = page.get_by_role("heading", name="Changes to these rules")
        expect(changes).to_be_visible()
        expect(page.locator("ul.changes")).to_contain_text("Daily quota: 5 → 2 submissions, from")
        expect(page.get_by_label("Submissions a day")).to_have_value("2")
        page.locator("#settings").scroll_into_view_if_needed()
        _check(page, "desk-saved", width, shots)

        # A freeze after the deadline is refused in a sentence; the form keeps it.
        freeze_field = page.get_by_label("Freeze of the public board (date and time)")
        freeze_field.fill(f"{deadline + timedelta(days=1):%Y-%m-%dT%H:%M}")
        page.get_by_role("button", name="Save the settings").click()
        expect(page.get_by_role("alert")).to_contain_text("must come before the deadline")
        expect(freeze_field).to_have_value(f"{deadline + timedelta(days=1):%Y-%m-%dT%H:%M}")
        assert api.get("/api/competitions/demo").json()["freeze_at"] is None

        # A week before the deadline, in the zone chosen beside it.
        page.get_by_label("Time zone of the calendar").select_option("UTC")
        freeze_field.fill(f"{freeze:%Y-%m-%dT%H:%M}")
        page.get_by_role("button", name="Save the settings").click()
        froze = f"Public board frozen from: none → {freeze:%Y-%m-%d %H:%M} UTC"
        expect(page.get_by_role("status").first).to_contain_text(f"Saved: {froze}.")
        expect(page.locator("ul.changes")).to_contain_text(f"{froze}, from")
        expect(freeze_field).to_have_value(f"{freeze:%Y-%m-%dT%H:%M}")
        assert (
            api.get("/api/competitions/demo")
            .json()["freeze_at"]
            .startswith(f"{freeze:%Y-%m-%dT%H:%M}")
        )
        page.locator("#settings").scroll_into_view_if_needed()
        _check(page, "desk-calendar", width, shots)

        # Teams read it on the Rules page, with its time.
        page.goto("/c/demo/rules")
        expect(page.get_by_role("heading", name="Changes to these rules")).to_be_visible()
        listed = page.locator("ul.changes li")
        expect(listed).to_have_count(2)
        expect(listed.first).to_contain_text("Daily quota: 5 → 2 submissions, from")
        expect(listed.nth(1)).to_contain_text(f"{froze}, from")
        expect(listed.first.locator("time")).to_have_attribute(
            "datetime", re.compile(r"^\d{4}-\d\d-\d\dT")
        )
        expect(page.locator("ul.rules")).to_contain_text("Up to 2 valid files a day per team")
        _check(page, "rules", width, shots)

        # The server applies it: the team has used 2 today, the new quota.
        refused = submit(api, token, predictions(solution, 2))
        assert refused.status_code == 429, refused.text
        assert "its 2 submissions for today" in refused.json()["message"]
        context.close()
