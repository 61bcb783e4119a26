"""The participant's pages in Chromium, at 1280 px and on a 375 px phone,
against one live server seeded once: an open competition with a Markdown
overview (and a script in it that must not run), a data file and 131 teams;
a closed one waiting for the organiser; a closed one with its final ranking
published.

A team reads the tabs, signs in once, submits, sees what happened, selects
its final submissions, is refused a bad file and signs out; a closed
competition's form is disabled and says why; a long board pages and finds a
team, and a long team name never pushes the score off a phone's screen; an
unknown page is an HTML page. Screenshots go to ``$LADDERBOARD_SCREENSHOTS``
when it is set, for a person to look at.
"""

from __future__ import annotations

import math
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from playwright.sync_api import Browser, Page, expect, sync_playwright
from server_helpers import ADMIN, predictions

from ladderboard.engine import Competitions
from ladderboard.files.solution import Solution
from ladderboard.mechanisms import COMPETITION_MECHANISMS
from ladderboard.rules.config import CompetitionConfig
from ladderboard.server.app import create_app
from ladderboard.server.deps import hash_token
from ladderboard.server.settings import Settings
from system import require

pytestmark = pytest.mark.slow

CHROMIUM = "/usr/bin/chromium"
WIDTHS = (1280, 375)
LONG_NAME = "The Extraordinarily Long-Named Team of Gradient Boosting Enthusiasts United"
OVERVIEW = """# Predict the flower

Each row is a flower: predict its **class**. Scored by the zero-one loss.

| File | What it holds |
|:--|--:|
| sample_submission.csv | every id, target 0 |

More at https://example.org/flowers.
<script>alert("overview")</script>
<img src=x onerror="alert('img')">
"""


def token_of(team: str) -> str:
    return "token-" + re.sub(r"\W", "-", team.lower())


def seed(url: str, solution: Solution) -> None:
    """Three competitions and their teams, written through the engine."""
    competitions = Competitions.open(url)
    try:
        competitions.create(
            "iris",
            solution,
            CompetitionConfig(score="zero_one", mechanism="parameter-free-ladder"),
            title="Flower challenge",
            description=OVERVIEW,
            rules="1. One account per team.\n2. Public data only: [the list](https://example.org).",
        )
        competitions.add_file("iris", "train.csv", b"id,x\n" + b"t1,1\nt2,2\n" * 200)
        names = [f"team-{i:03d}" for i in range(126)]
        names += [LONG_NAME, "Team 1280", "Team 375", "Quiet", "Phone"]
        for i, name in enumerate(names):
            competitions.add_team("iris", name, token_hash=hash_token(token_of(name)))
            if name not in ("Team 1280", "Team 375", "Quiet", "Phone"):
                competitions.submit("iris", name, predictions(solution, 100 + i))
        for i in range(3):  # long messages make the team's table wider than a phone
            message = f"attempt {i + 1}: gradient boosting, depth {i + 3}, learning rate 0.05"
            competitions.submit("iris", "Phone", predictions(solution, 900 + i), message=message)
        for slug, title in (("waiting", "Awaiting the organiser"), ("final", "Finished")):
            competitions.create(
                slug,
                solution,
                CompetitionConfig(
                    score="zero_one", mechanism="ladder", mechanism_params={"eta": 0.01}
                ),
                title=title,
                description=f"The {title.lower()} competition.",
            )
            for i, name in enumerate(("alpha", "beta")):
                competitions.add_team(slug, name, token_hash=hash_token(f"{slug}-{token_of(name)}"))
                competitions.submit(slug, name, predictions(solution, 7 + i))
            competitions.close(slug)
        competitions.publish("final")
    finally:
        competitions.dispose()


@pytest.fixture(scope="module")
def site(tmp_path_factory, solution) -> Iterator[str]:
    """The base URL of a live server over the seeded store, for every test here."""
    url = f"sqlite:///{tmp_path_factory.mktemp('participant') / 'site.db'}"
    seed(url, solution)
    settings = Settings(admin_token=ADMIN, database_url=url, rate_limit_per_minute=0)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings), log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture(scope="module")
def chromium_browser() -> Iterator[Browser]:
    require(
        os.access(CHROMIUM, os.X_OK),
        f"{CHROMIUM} is missing (apt-get install chromium): see the README's Set-up",
    )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        yield browser
        browser.close()


@pytest.fixture(params=WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def width(request) -> int:
    return request.param


@pytest.fixture
def page(chromium_browser: Browser, site: str, width: int) -> Iterator[Page]:
    context = chromium_browser.new_context(base_url=site, viewport={"width": width, "height": 900})
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.dialogs = []  # any alert() a page manages to run
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    yield page
    context.close()


def shot(page: Page, name: str, width: int) -> None:
    """A full-page screenshot for a person to look at, when asked for one."""
    folder = os.environ.get("LADDERBOARD_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder, f"participant-{name}-{width}px.png")), full_page=True)


def fits(page: Page) -> None:
    """Nothing makes the page itself scroll sideways (wide tables scroll in their region)."""
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def csv_file(name: str, content: bytes) -> dict:
    return {"name": name, "mimeType": "text/csv", "buffer": content}


# -------------------------------------------------------------------- tabs
def test_participant_browser_tabs_overview_data_and_rules(page: Page, width: int):
    page.goto("/")
    card = page.get_by_role("listitem").filter(has_text="Flower challenge")
    expect(card).to_contain_text("Predict the flower. Each row is a flower: predict its class.")
    expect(card).not_to_contain_text("**")
    shot(page, "index", width)
    card.get_by_role("link", name="Flower challenge").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Flower challenge")
    tabs = page.get_by_role("navigation", name="Competition")
    expect(tabs.get_by_role("link")).to_have_text(
        ["Overview", "Data", "Rules", "Leaderboard", "Submit", "My team"]
    )
    expect(tabs.get_by_role("link", name="Overview")).to_have_attribute("aria-current", "page")
    how = page.get_by_role("link", name="How this leaderboard works").first
    expect(how).to_have_attribute("href", "/how?competition=iris")
    facts = page.get_by_role("region", name="At a glance")
    expect(facts).to_contain_text("zero_one: lower is better")
    expect(facts).to_contain_text("id, target")
    expect(page.locator(".prose table")).to_have_count(1)  # the overview's Markdown table
    expect(page.get_by_role("link", name="https://example.org/flowers")).to_have_attribute(
        "rel", "nofollow noopener"
    )
    assert page.dialogs == []  # the script in the overview never ran
    fits(page)
    shot(page, "overview", width)

    tabs.get_by_role("link", name="Data").click()
    files = page.get_by_role("heading", level=3)
    expect(files).to_have_text(["sample_submission.csv", "train.csv"])
    expect(page.get_by_role("link", name="sample_submission.csv")).to_have_attribute(
        "href", "/api/competitions/iris/files/sample_submission.csv"
    )
    expect(page.get_by_text("made from the ids, never the labels")).to_be_visible()
    fits(page)
    shot(page, "data", width)

    tabs.get_by_role("link", name="Rules").click()
    expect(page.get_by_role("listitem").filter(has_text="One account per team")).to_be_visible()
    expect(page.get_by_role("heading", name="The board's rules")).to_be_visible()
    fits(page)
    shot(page, "rules", width)

    # How it works, from the competition: its own mechanism first, the others after.
    page.get_by_role("link", name="How this leaderboard works").first.click()
    headings = page.get_by_role("heading", level=2)
    expect(headings.first).to_have_text("The parameter-free Ladder: parameter-free-ladder")
    expect(headings.nth(1)).to_have_text("The final ranking")
    expect(page.get_by_role("heading", name="The final ranking")).to_have_count(1)
    others = page.get_by_role("navigation", name="Other mechanisms").get_by_role("link")
    expect(others).to_have_count(len(COMPETITION_MECHANISMS) - 1)
    others.filter(has_text="The Shaky Ladder").click()
    expect(page.locator("#shaky-ladder")).to_be_in_viewport()
    fits(page)
    shot(page, "how", width)


# ------------------------------------------------------------- a team's day
def test_participant_browser_team_signs_in_once_submits_and_selects(
    page: Page, width: int, solution
):
    team = f"Team {width}"
    page.goto("/c/iris/submit")
    expect(page.get_by_label("Team token")).to_be_visible()  # not signed in: the token field
    page.get_by_role("navigation", name="Competition").get_by_role("link", name="My team").click()
    page.get_by_label("Team token").fill(token_of(team))
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name=f"Team {team}")).to_be_visible()
    cookie = next(c for c in page.context.cookies() if c["name"] == "ladderboard_team")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax" and cookie["path"] == "/c/iris"

    page.get_by_role("navigation", name="Competition").get_by_role("link", name="Submit").click()
    expect(page.get_by_label("Team token")).to_have_count(0)  # signed in: no token field
    expect(page.get_by_text(f"Submitting as team {team}")).to_be_visible()
    page.get_by_label("Predictions file").set_input_files(
        csv_file("predictions.csv", predictions(solution, width))
    )
    page.get_by_label("Message").fill("gradient boosting, depth 3")
    page.get_by_role("button", name="Submit").click()
    result = page.get_by_role("status")
    expect(result).to_contain_text("is scored")
    expect(result).to_contain_text("Your team's first board score")
    released = page.locator(".released").inner_text()
    # The parameter-free Ladder releases multiples of 1/n: the decimals 1/n needs, not five.
    decimals = math.ceil(math.log10(solution.n_public) - 1e-9)
    assert re.fullmatch(rf"\d\.\d{{{decimals}}}", released), released
    fits(page)
    shot(page, "submit-scored", width)

    page.get_by_label("Predictions file").set_input_files(csv_file("oops.csv", b"name,guess\n"))
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("alert")).to_contain_text("the header must be 'id', 'target'")
    shot(page, "submit-refused", width)

    page.get_by_role("navigation", name="Competition").get_by_role("link", name="My team").click()
    stats = page.locator(".stats")
    expect(stats).to_contain_text(re.compile(r"Public board rank\s+\d+ of \d+"))
    expect(stats).to_contain_text(re.compile(r"Files today\s+1 of 5\s+4 left; resets in"))
    table = page.get_by_role("table", name="1 submission, newest first")
    expect(table).to_contain_text(released)
    expect(table).to_contain_text(re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+UTC"))
    # A ladder's automatic choice is the mechanism's, named only after the close.
    expect(page.get_by_text("the board took as your team's best will count")).to_be_visible()
    expect(
        page.get_by_role("img", name=f"Your team's board score over time, team {team}")
    ).to_be_visible()
    refused = page.get_by_role("table", name=re.compile("1 refused file"))
    expect(refused).to_contain_text("the header must be")
    fits(page)
    shot(page, "team", width)

    page.get_by_label("Select submission 1").check()
    page.get_by_role("button", name="Save my final selection").click()
    expect(page.get_by_role("status")).to_contain_text("Your final selection is saved")
    expect(page.get_by_text("submission 1, as you selected")).to_be_visible()
    shot(page, "team-selected", width)

    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in as your team")).to_be_visible()
    assert not [c for c in page.context.cookies() if c["name"] == "ladderboard_team"]


@pytest.mark.parametrize("width", [375], ids=["375px"])
def test_participant_browser_phone_selects_final_submissions_without_scrolling_sideways(
    page: Page, width: int
):
    """On a phone the box that selects a submission is on the screen as the
    page opens, beside the button that saves it: neither the page nor the
    table's region has to scroll sideways to select and save."""
    page.goto("/c/iris/team")
    page.get_by_label("Team token").fill(token_of("Phone"))
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Team Phone")).to_be_visible()
    expect(page.get_by_text("To choose yourself, tick up to 2 submissions")).to_be_visible()
    form = page.get_by_role("form", name="Final selection")
    region = form.get_by_role("region", name="Submissions")
    for number in (1, 2, 3):
        box = page.get_by_label(f"Select submission {number}").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
    box = page.get_by_label("Select submission 2").bounding_box()
    assert box is not None
    # Nothing lies over the box: a tap at its centre reaches it.
    page.evaluate(f"window.scrollTo(0, {box['y']} - 200)")
    box = page.get_by_label("Select submission 2").bounding_box()
    assert box is not None
    hit = page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y)?.id",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
    )
    assert hit == "select-2", hit
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page.get_by_label("Select submission 2")).to_be_checked()
    assert region.evaluate("e => e.scrollLeft") == 0
    assert page.evaluate("window.scrollX") == 0
    fits(page)
    shot(page, "team-phone", width)
    page.get_by_role("button", name="Save my final selection").click()
    expect(page.get_by_role("status")).to_contain_text("Your final selection is saved")
    expect(page.get_by_text("submission 2, as you selected")).to_be_visible()
    expect(page.get_by_text("To change your choice, tick up to 2")).to_be_visible()
    expect(page.get_by_label("Select submission 2")).to_be_checked()
    expect(page.get_by_label("Select submission 1")).not_to_be_checked()


# ------------------------------------------------------------------- closed
def test_participant_browser_closed_competitions_say_why(page: Page, width: int):
    page.goto("/c/waiting/submit")
    expect(page.get_by_role("button", name="Submit")).to_be_disabled()
    note = page.get_by_role("note")
    expect(note).to_contain_text("Submissions are closed.")
    expect(note).to_contain_text("waiting for the organiser to publish it")
    shot(page, "submit-closed", width)
    page.goto("/c/waiting/leaderboard?board=private")
    expect(page.get_by_role("main")).to_contain_text("waiting for the organiser")

    page.goto("/c/final/leaderboard")
    expect(page.get_by_role("heading", name="Private board: the final ranking")).to_be_visible()
    board = page.get_by_role("table", name=re.compile("Private board, 2 teams"))
    expect(board.get_by_role("row")).to_have_count(3)
    expect(page.get_by_role("link", name="Download the private board (CSV)")).to_have_attribute(
        "href", "/api/competitions/final/leaderboard.csv?board=private"
    )
    fits(page)
    shot(page, "board-final", width)
    page.goto("/c/final/submit")
    expect(page.get_by_role("note")).to_contain_text("was published at")


# ------------------------------------------------------------------- boards
def test_participant_browser_board_pages_and_finds_a_long_named_team(page: Page, width: int):
    page.goto("/c/iris/leaderboard")
    board = page.get_by_role("table", name=re.compile(r"Public board, 1[23]\d teams, page 1 of 2"))
    expect(board.locator("tbody tr")).to_have_count(100)
    pager = page.get_by_role("navigation", name="Board pages")
    expect(pager.get_by_role("link", name="Page 1")).to_have_attribute("aria-current", "page")
    shot(page, "board", width)

    page.get_by_role("searchbox", name="Find a team").fill("boosting enthusiasts")
    page.get_by_role("button", name="Find").click()
    row = page.locator("tr#found")
    expect(row).to_have_attribute("aria-current", "true")
    expect(page.get_by_role("status")).to_contain_text(f"{LONG_NAME} is ranked")
    name = row.locator(".name")
    expect(name).to_have_attribute("title", LONG_NAME)
    row.scroll_into_view_if_needed()
    score = row.locator("td.num").first
    box = score.bounding_box()
    assert box is not None and box["x"] + box["width"] <= width, (box, width)
    if width == 375:  # cut with an ellipsis, not wrapped or pushing the score away
        assert name.evaluate("e => e.scrollWidth > e.clientWidth")
        assert name.evaluate("e => getComputedStyle(e).textOverflow") == "ellipsis"
    fits(page)
    shot(page, "board-found", width)


# ------------------------------------------------------------------- errors
def test_participant_browser_unknown_pages_are_html(page: Page, width: int):
    response = page.goto("/c/iris/nothing-here")
    assert response is not None and response.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text("Not found")
    expect(page.get_by_role("link", name="All competitions")).to_be_visible()
    shot(page, "not-found", width)


# ------------------------------------------------------------ accessibility
PAGES = [
    "/",
    "/how",
    "/how?competition=iris",
    "/c/iris",
    "/c/iris/data",
    "/c/iris/rules",
    "/c/iris/leaderboard",
    "/c/iris/leaderboard?team=boosting",
    "/c/iris/submit",
    "/c/iris/team",
    "/c/waiting/submit",
    "/c/final/leaderboard",
    "/nope",
]


def test_participant_browser_pages_pass_axe(page: Page, width: int):
    accessibility = pytest.importorskip("accessibility")
    accessibility.require_axe()

    def check(where: str) -> None:
        violations = accessibility.audit(page)
        assert not violations, accessibility.describe(violations, f"{where} at {width} px")

    for url in PAGES:
        page.goto(url)
        check(url)
    # Signed in: the team's page with its selection form, a result and a refusal.
    page.goto("/c/iris/team")
    page.get_by_label("Team token").fill(token_of("team-000"))
    page.get_by_role("button", name="Sign in").click()
    # Audit the page the form leads to, not the one it is leaving.
    expect(page.get_by_role("heading", name="Team team-000")).to_be_visible()
    check("the team's page")
    page.goto("/c/iris/leaderboard")
    check("the board with the team marked")
    page.goto("/c/iris/submit")
    page.get_by_label("Predictions file").set_input_files(csv_file("oops.csv", b"name,guess\n"))
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("alert")).to_be_visible()
    check("a refused submission")
    page.goto("/c/iris")
    for selector in (".tabs a", ".skip", "header.site a"):
        ring = accessibility.focus_ring_contrast(page, selector)
        assert ring.contrast >= 3, str(ring)
