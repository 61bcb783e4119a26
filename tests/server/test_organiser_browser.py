"""The organiser's pages in a real browser, at 1280 px and on a 375 px phone:
Debian's Chromium driven by Playwright against a live uvicorn server.

The organiser creates a competition (ladderboard's default filled in for
the solution file's public rows, a refusal that keeps every value and the
solution file), imports
teams and downloads their tokens once, reads the teams table
(long names cut, sorted, a team disabled) and the duplicate flags, closes the
competition after a confirmation, previews the private board and publishes
it after another. At each step: no serious or critical axe-core violation,
a focus ring of at least 3:1, and no page wider than the phone.
Screenshots go to ``$LADDERBOARD_SCREENSHOTS`` when it is set.
"""

from __future__ import annotations

import csv
import io
import os
import re
from datetime import UTC, datetime
from pathlib import Path

import httpx2
import pytest
from accessibility import audit, describe, focus_ring_contrast, require_axe
from playwright.sync_api import Browser, Page, expect
from server_helpers import ADMIN, add_team, bearer, create, organiser, predictions, submit

from ladderboard.files.solution import Solution
from ladderboard.recommended import RECOMMENDED
from ladderboard.server.organiser_advice import advice_for

pytestmark = pytest.mark.slow

VIEWPORTS = {
    1280: {"viewport": {"width": 1280, "height": 900}},
    375: {
        "viewport": {"width": 375, "height": 812},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 2,
    },
}
LONG_NAME = "The Extraordinarily Long-Named Gradient Boosting Collective of Upper Example"


def _csv_file(name: str, content: bytes) -> dict:
    return {"name": name, "mimeType": "text/csv", "buffer": content}


class Walk:
    """One organiser's walk through the pages at one width: each step is
    audited (axe-core, the page's width) and photographed."""

    def __init__(self, page: Page, width: int, shots: Path | None):
        self.page, self.width, self.shots = page, width, shots

    def check(self, name: str) -> None:
        page = self.page
        expect(page.get_by_role("heading", level=1)).to_be_visible()
        where = f"{name} at {self.width} px"
        if self.shots is not None:
            page.screenshot(
                path=str(self.shots / f"organiser-{name}-{self.width}px.png"), full_page=True
            )
        wide = page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
        assert wide <= 0, f"{where}: the page is {wide} px wider than the screen"
        violations = audit(page)
        assert not violations, describe(violations, where)

    def rings(self, *selectors: str) -> None:
        """The keyboard focus rings of the first of each of ``selectors`` have 3:1."""
        for selector in selectors:
            ring = focus_ring_contrast(self.page, selector)
            assert ring.contrast >= 3, f"at {self.width} px: {ring}"


@pytest.mark.parametrize("width", list(VIEWPORTS), ids=lambda w: f"{w}px")
def test_organiser_walks_from_creation_to_publication_in_a_browser(
    browser: Browser, live_server: str, solution: Solution, width: int
):
    require_axe()
    shots_dir = os.environ.get("LADDERBOARD_SCREENSHOTS")
    shots = Path(shots_dir) if shots_dir else None
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(base_url=live_server, **VIEWPORTS[width])
    context.set_default_timeout(10_000)
    page = context.new_page()
    walk = Walk(page, width, shots)

    # Sign in; the list of competitions is empty and offers the create form.
    page.goto("/organiser")
    page.get_by_label("Organiser token").fill(ADMIN)
    page.get_by_role("button", name="Sign in").click()
    walk.check("empty")
    page.get_by_role("link", name="Create a competition").first.click()
    expect(page.get_by_role("heading", name="Create a competition", level=1)).to_be_visible()

    # Choosing the solution file counts its public rows and says what the default will be at
    # that size; the field stays empty for the server to write in the loss's units.
    form = page.locator("#create-form")
    expect(form.locator("fieldset.params:visible")).to_have_count(1)
    page.get_by_label("Solution file").set_input_files(_csv_file("solution.csv", solution.to_csv()))
    assert advice_for("zero_one", solution.n_public) is None  # nothing beats the default here
    expect(page.locator("#holdout-count")).to_contain_text(f"{solution.n_public} public rows")
    expect(page.locator("#holdout-count")).to_contain_text(f"default, {RECOMMENDED.label}")
    expect(page.get_by_label("Mechanism", exact=True)).to_have_value(RECOMMENDED.mechanism)
    expect(page.locator(f"#params-{RECOMMENDED.mechanism}")).to_be_visible()
    for name, value in RECOMMENDED.params_at(solution.n_public).items():
        field = f"param-{RECOMMENDED.mechanism}-{name}"
        expect(page.locator(f"#{field}")).to_have_value("")
        expect(page.locator(f"#{field}-default")).to_contain_text(
            f"{value:g} for the solution's {solution.n_public} public rows on a loss in [0, 1]"
        )
    walk.check("create-preselected")
    walk.rings("main a", "main button", "main select", "main input[type=text]")

    # The Ladder with a step that is no number is refused in a sentence; every value stays.
    page.get_by_label("Slug").fill("iris")
    page.get_by_label("Title").fill("Flower challenge")
    page.get_by_label("Overview (Markdown)").fill("# Flowers\nPredict each flower's class.")
    page.get_by_label("Rules (Markdown)").fill("- One account a team.")
    page.get_by_label("Mechanism", exact=True).select_option("ladder")
    expect(page.get_by_label("Loss or metric")).to_have_value("zero_one")  # a loss again
    expect(page.locator("optgroup[data-kind=predictions]")).to_be_disabled()
    page.locator("#param-ladder-eta").fill("big")
    page.get_by_label("Submissions a day per team").fill("none")
    future = f"{datetime.now(UTC).year + 1}-06-30T18:00"
    page.get_by_label("Deadline, optional (date and time)").fill(future)
    page.get_by_label("Time zone").select_option("Europe/Paris")
    page.get_by_role("button", name="Create competition").click()
    expect(page.get_by_role("alert")).to_contain_text("The Ladder's eta must be a number")
    expect(page.get_by_label("Slug")).to_have_value("iris")
    expect(page.get_by_label("Rules (Markdown)")).to_have_value("- One account a team.")
    expect(page.get_by_label("Mechanism", exact=True)).to_have_value("ladder")
    expect(page.get_by_label("Time zone")).to_have_value("Europe/Paris")
    expect(page.get_by_label("Deadline, optional (date and time)")).to_have_value(future)
    expect(page.locator("#solution-kept")).to_contain_text("Kept from your last try: solution.csv")
    walk.check("create-refused")

    # With its step and the file chosen again (it replaces the kept one), the competition is
    # created with two data files; choosing the file again leaves the step the organiser typed.
    page.locator("#param-ladder-eta").fill("0.02")
    page.get_by_label("Board", exact=True).select_option("per-rank")
    expect(page.get_by_label("Ranks of a per-rank board")).to_be_visible()
    page.get_by_label("Board", exact=True).select_option("per-team")
    expect(page.get_by_label("Ranks of a per-rank board")).to_be_hidden()
    page.get_by_label("Solution file").set_input_files(_csv_file("solution.csv", solution.to_csv()))
    expect(page.locator("#holdout-count")).to_contain_text(f"{solution.n_public} public rows")
    expect(page.get_by_label("Mechanism", exact=True)).to_have_value("ladder")
    expect(page.locator("#param-ladder-eta")).to_have_value("0.02")
    page.get_by_label("Data files for the participants").set_input_files(
        [_csv_file("train.csv", b"x,y\n1,2\n"), _csv_file("notes.csv", b"a\n")]
    )
    page.get_by_role("button", name="Create competition").click()
    expect(page.get_by_role("status").first).to_contain_text("Competition Flower challenge created")
    expect(page.get_by_role("heading", name="Flower challenge", level=1)).to_be_visible()
    expect(page.get_by_role("region", name="Data files table")).to_contain_text("train.csv")
    walk.check("desk-created")

    # Teams imported from a CSV; their tokens downloaded once.
    names = ["Gradient Gang", "Forest Friends", LONG_NAME]
    page.get_by_label("CSV of team names").set_input_files(
        _csv_file("teams.csv", ("name\n" + "\n".join(names) + "\n").encode())
    )
    page.get_by_role("button", name="Import teams").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("3 teams imported")
    walk.check("tokens")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download the tokens").click()
    assert download.value.suggested_filename == "iris-team-tokens.csv"
    rows = list(csv.reader(io.StringIO(Path(download.value.path()).read_text())))
    tokens = dict(rows[1:])
    assert rows[0] == ["name", "token"] and list(tokens) == names

    # Teams submit (one repeats another's file); the desk shows their activity and the flag.
    with httpx2.Client(base_url=live_server) as api:
        for seed, name in ((0, "Gradient Gang"), (1, "Gradient Gang"), (1, LONG_NAME)):
            response = api.post(
                "/api/competitions/iris/submissions",
                files={"file": ("p.csv", predictions(solution, seed), "text/csv")},
                headers=bearer(tokens[name]),
            )
            assert response.status_code == 201, response.text
    page.get_by_role("link", name="Back to the desk").click()
    teams = page.get_by_role("region", name="Teams table")
    long_name = teams.get_by_role("link", name=LONG_NAME)
    assert long_name.evaluate("e => getComputedStyle(e).textOverflow") == "ellipsis"
    assert long_name.evaluate("e => e.scrollWidth > e.clientWidth")  # cut, with an ellipsis
    flags = page.get_by_role("region", name="Duplicate flags table")
    expect(flags.get_by_role("row", name=LONG_NAME)).to_contain_text("Gradient Gang")
    teams.get_by_role("link", name="Submissions").click()
    expect(teams.locator("th[aria-sort=descending]")).to_have_text("Submissions▼")
    expect(teams.get_by_role("rowheader").first).to_have_text("Gradient Gang")
    teams.get_by_role("button", name="Disable team Forest Friends").click()
    expect(page.get_by_role("status").first).to_contain_text("Team Forest Friends disabled")
    expect(teams.get_by_role("button", name="Enable team Forest Friends")).to_be_visible()
    expect(teams.locator("th[aria-sort=descending]")).to_have_text("Submissions▼")  # same view
    walk.check("desk-teams")
    long_name = teams.get_by_role("link", name=LONG_NAME)
    long_name.click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(LONG_NAME)
    expect(page.get_by_role("region", name="Duplicate flags of the team table")).to_contain_text(
        "Gradient Gang"
    )
    walk.check("team")
    page.goto("/organiser/c/iris")
    walk.rings("main a", "main button", "main th a")

    # Closing asks first; Cancel leaves it open.
    page.get_by_role("link", name="Close the competition…").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Close Flower challenge?")
    expect(page.get_by_text("Teams can no longer submit.")).to_be_visible()
    walk.check("confirm-close")
    walk.rings("main a", "main button")
    page.get_by_role("link", name="Cancel").click()
    expect(page.get_by_role("link", name="Close the competition…")).to_be_visible()
    page.get_by_role("link", name="Close the competition…").click()
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("status").first).to_contain_text("Flower challenge is closed")
    preview = page.get_by_role("region", name="Private board table")
    expect(preview.get_by_role("row", name="Gradient Gang")).to_be_visible()
    walk.check("desk-closed")

    # Publishing is its own act, with its own confirmation.
    page.get_by_role("link", name="Publish the private board and the key…").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Publish the private board of Flower challenge?"
    )
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("status").first).to_contain_text("are public")
    expect(page.get_by_role("link", name="Publish the private board and the key…")).to_have_count(0)
    walk.check("desk-published")

    page.goto("/organiser")
    expect(
        page.get_by_role("region", name="Competitions table").get_by_role(
            "link", name="Flower challenge"
        )
    ).to_be_visible()
    walk.check("list")
    context.close()


def test_organiser_desk_team_actions_are_on_a_phone_screen(
    browser: Browser, live_server: str, solution: Solution
):
    """On a 375 px phone each team's Disable button is on the screen as the
    desk opens, though the teams table is wider than the phone and scrolls in
    its region: the organiser disables and enables a team without scrolling
    sideways. A data file's Remove button is on the screen too."""
    names = ["Gradient Gang", "Forest Friends", LONG_NAME]
    with httpx2.Client(base_url=live_server) as api:
        create(api, solution, "iris", title="Flower challenge")
        for seed, name in enumerate(names):
            token = add_team(api, name, "iris")
            assert submit(api, token, predictions(solution, seed), "iris").status_code == 201
        response = api.put(
            "/api/competitions/iris/files/a-rather-long-name-for-the-training-data.csv",
            files={"file": ("train.csv", b"x,y\n1,2\n", "text/csv")},
            headers=organiser(),
        )
        assert response.status_code == 200, response.text
    context = browser.new_context(base_url=live_server, **VIEWPORTS[375])
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto("/organiser")
    page.get_by_label("Organiser token").fill(ADMIN)
    page.get_by_role("button", name="Sign in").click()
    page.goto("/organiser/c/iris")
    teams = page.get_by_role("region", name="Teams table")
    assert teams.evaluate("e => e.scrollWidth > e.clientWidth")  # the table is wider
    for name in names:
        box = teams.get_by_role("button", name=f"Disable team {name}").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375, (name, box)
    shots_dir = os.environ.get("LADDERBOARD_SCREENSHOTS")
    if shots_dir:
        Path(shots_dir).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(shots_dir, "organiser-desk-phone-375px.png")), full_page=True)
    button = teams.get_by_role("button", name="Disable team Forest Friends")
    button.evaluate("e => window.scrollTo(0, e.getBoundingClientRect().top + scrollY - 300)")
    box = button.bounding_box()
    assert box is not None
    centre = [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2]
    # Nothing lies over the button: a tap at its centre reaches it.
    assert button.evaluate("(e, [x, y]) => e.contains(document.elementFromPoint(x, y))", centre)
    assert teams.evaluate("e => e.scrollLeft") == 0 and page.evaluate("scrollX") == 0
    page.touchscreen.tap(*centre)
    expect(page.get_by_role("status").first).to_contain_text("Team Forest Friends disabled")
    enable = teams.get_by_role("button", name="Enable team Forest Friends")
    box = enable.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375, box
    enable.click()
    expect(page.get_by_role("status").first).to_contain_text("Team Forest Friends enabled")
    files = page.get_by_role("region", name="Data files table")
    assert files.evaluate("e => e.scrollWidth > e.clientWidth")
    box = files.get_by_role("button", name=re.compile("Remove a-rather-long-name")).bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375, box
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    context.close()
