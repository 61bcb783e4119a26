"""The web pages in a real browser: Debian's Chromium driven by Playwright
against a live uvicorn server on 127.0.0.1 over a fresh SQLite file.

One organiser creates a competition on the organiser page, adds a team and
reads its token once; the team submits a file on the submit page and sees
its released score and the board, then a clear error for a bad file; the
private board appears only after the organiser closes the competition and
publishes it. Every
request the browser makes stays on the server (no CDN), ``/docs`` included.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from server_helpers import ADMIN, predictions

pytestmark = pytest.mark.slow


@pytest.fixture
def page(browser: Browser, live_server: str) -> Iterator[Page]:
    context = browser.new_context(base_url=live_server, viewport={"width": 1100, "height": 900})
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.requested = []  # every URL the browser asked for
    page.on("request", lambda request: page.requested.append(request.url))
    yield page
    context.close()


def csv_file(name: str, content: bytes) -> dict:
    return {"name": name, "mimeType": "text/csv", "buffer": content}


def test_organiser_team_and_board_in_a_browser(page: Page, live_server: str, solution, tmp_path):
    # The organiser signs in and creates a competition from a solution file.
    page.goto("/organiser")
    page.get_by_label("Organiser token").fill(ADMIN)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("link", name="Create a competition").click()
    page.get_by_label("Slug").fill("iris")
    page.get_by_label("Title").fill("Flower challenge")
    page.get_by_label("Overview (Markdown)").fill(
        "Predict the class of each flower; lower error is better."
    )
    page.get_by_label("Solution file").set_input_files(csv_file("solution.csv", solution.to_csv()))
    page.get_by_label("Mechanism", exact=True).select_option("parameter-free-ladder")
    page.get_by_label("Loss or metric").select_option("zero_one")
    page.get_by_role("button", name="Create competition").click()
    expect(page.get_by_role("status")).to_contain_text("Flower challenge created")

    # It adds a team and reads its token, shown once.
    page.get_by_label("New team's name").fill("Gradient Gang")
    page.get_by_role("button", name="Add team").click()
    expect(page.get_by_role("status")).to_contain_text("Team Gradient Gang added")
    token = page.locator("#team-token").inner_text().strip()
    assert len(token) >= 32
    page.goto("/organiser")
    assert token not in page.content()  # never shown again

    # The team submits a file and sees the released score, then the board.
    page.goto("/c/iris/submit")
    page.get_by_label("Team token").fill(token)
    page.get_by_label("Predictions file").set_input_files(
        csv_file("predictions.csv", predictions(solution, 0))
    )
    page.get_by_label("Message").fill("a first model")
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("status")).to_contain_text("scored")
    released = page.locator(".released").inner_text()
    # The parameter-free Ladder releases multiples of 1/n: as many decimals as 1/n needs.
    decimals = math.ceil(math.log10(solution.n_public) - 1e-9)
    assert released.count(".") == 1 and len(released.split(".")[1]) == decimals
    expect(page.get_by_role("status")).to_contain_text("Files left today")
    page.get_by_role("link", name="The public board").click()
    board = page.get_by_role("table", name="Public board, 1 team")
    expect(board.get_by_role("row", name="Gradient Gang")).to_contain_text(released)
    expect(page.get_by_role("heading", name="Private board")).to_have_count(0)

    # A bad file is refused with the engine's message.
    page.goto("/c/iris/submit")
    page.get_by_label("Team token").fill(token)
    page.get_by_label("Predictions file").set_input_files(csv_file("oops.csv", b"name,guess\n"))
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("alert")).to_contain_text("Refused")
    expect(page.get_by_role("alert")).to_contain_text("the header must be 'id', 'target'")

    # The team signs in once; its page shows its submissions and the chart.
    page.goto("/c/iris/team")
    page.get_by_label("Team token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    expect(
        page.get_by_role("img", name="Your team's board score over time, team Gradient Gang")
    ).to_be_visible()
    expect(page.get_by_role("cell", name="a first model")).to_be_visible()
    page.screenshot(path=str(tmp_path / "team.png"), full_page=True)

    # The keyboard reaches the skip link first, and it leads to the content.
    page.goto("/c/iris")
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to the content")).to_be_focused()
    page.screenshot(path=str(tmp_path / "competition-open.png"), full_page=True)

    # The organiser closes the competition: the private board waits for its
    # publication, then it is the board's final ranking.
    page.goto("/organiser/c/iris")
    page.get_by_role("link", name="Close the competition…").click()
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("status")).to_contain_text("is closed")
    page.goto("/c/iris/leaderboard?board=private")
    expect(page.get_by_role("main")).to_contain_text("waiting for the organiser")
    page.goto("/organiser/c/iris")
    page.get_by_role("link", name="Publish the private board and the key…").click()
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("status")).to_contain_text("are public")
    page.goto("/c/iris/leaderboard")
    private = page.get_by_role("table", name="Private board, 1 team")
    expect(private.get_by_role("row", name="Gradient Gang")).to_be_visible()
    page.screenshot(path=str(tmp_path / "competition-closed.png"), full_page=True)
    shots = os.environ.get("LADDERBOARD_SCREENSHOTS")
    if shots:  # for a person to look at
        for name in ("competition-open.png", "competition-closed.png", "team.png"):
            Path(shots, name).write_bytes((tmp_path / name).read_bytes())

    # The API's docs render from local assets.
    page.goto("/docs")
    expect(page.locator(".swagger-ui .info")).to_contain_text("ladderboard")
    outside = [url for url in page.requested if not url.startswith(live_server)]
    assert not outside, outside
