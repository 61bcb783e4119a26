"""A team's walk in Chromium on the boards whose releases are the team's best,
under the default mechanism, LadderBoot (b = 100) and BayesBootLadderBoot:
a good model, then files of random guesses. No answer to a random file says
it improved; on a 375 px phone the team can still select its finals; a team
that selected nothing is ranked on its model; the published board shows the
shake-up. Screenshots go to ``$LADDERBOARD_SCREENSHOTS`` when it is set."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import serve
from playwright.sync_api import Browser, Page, expect
from server_helpers import ADMIN, flipped

from ladderboard.engine import Competitions
from ladderboard.mechanisms import COMPETITION_MECHANISMS
from ladderboard.recommended import RECOMMENDED
from ladderboard.rules.config import CompetitionConfig
from ladderboard.server.deps import hash_token
from ladderboard.server.settings import Settings

pytestmark = pytest.mark.slow

BOARDS = {
    "default": (RECOMMENDED.mechanism, RECOMMENDED.params),
    "parameter-free": ("parameter-free-ladder", {}),
    "boot": ("ladder-boot", {"b": 100}),
    "bayes": ("bayes-boot-ladder-boot", {}),
}
RANDOM_FILES = 3


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[tuple[str, str]]:
    """A live server over a store of its own, and the store's URL."""
    url = f"sqlite:///{tmp_path_factory.mktemp('noisy') / 'site.db'}"
    Competitions.open(url).dispose()  # the schema, before the server reads it
    settings = Settings(admin_token=ADMIN, database_url=url, rate_limit_per_minute=0)
    with serve(settings) as base:
        yield base, url


def _config(slug: str) -> CompetitionConfig:
    mechanism, params = BOARDS[slug]
    klass = COMPETITION_MECHANISMS[mechanism]
    return CompetitionConfig(
        score="zero_one" if klass.input_kind == "losses" else "accuracy",
        mechanism=mechanism,
        mechanism_params=params,
        n_selections=1,
        daily_quota=None,
    )


def _shot(page: Page, name: str, width: int) -> None:
    folder = os.environ.get("LADDERBOARD_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder, f"noisy-{name}-{width}px.png")), full_page=True)


def _send(page: Page, slug: str, content: bytes, name: str) -> str:
    page.goto(f"/c/{slug}/submit")
    page.get_by_label("Predictions file").set_input_files(
        {"name": name, "mimeType": "text/csv", "buffer": content}
    )
    page.get_by_role("button", name="Submit").click()
    result = page.get_by_role("status")
    expect(result).to_contain_text("is scored")
    return result.inner_text()


@pytest.mark.parametrize("width", [1280, 375], ids=["1280px", "375px"])
@pytest.mark.parametrize("slug", list(BOARDS))
def test_a_team_walks_a_noisy_board_and_is_ranked_on_its_model(
    browser: Browser, site, solution, slug: str, width: int
):
    base, url = site
    walk = f"{slug}-{width}"  # a competition for each walk
    competitions = Competitions.open(url)
    try:
        competitions.create(walk, solution, _config(slug), title=f"The {slug} board at {width}")
        competitions.add_team(walk, "walker", token_hash=hash_token(f"{walk}-walker-token"))
        competitions.add_team(walk, "rival", token_hash=hash_token(f"{walk}-rival-token"))
        competitions.submit(walk, "rival", flipped(solution, 0.15, 99))
    finally:
        competitions.dispose()

    context = browser.new_context(base_url=base, viewport={"width": width, "height": 900})
    context.set_default_timeout(10_000)
    page = context.new_page()
    try:
        page.goto(f"/c/{walk}/team")
        page.get_by_label("Team token").fill(f"{walk}-walker-token")
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("heading", name="Team walker")).to_be_visible()

        answers = [_send(page, walk, flipped(solution, 0.02, 1), "model.csv")]
        _shot(page, f"{slug}-submit-model", width)
        for k in range(RANDOM_FILES):
            answers.append(_send(page, walk, flipped(solution, 0.5, 10 + k), f"random-{k}.csv"))
        _shot(page, f"{slug}-submit-random", width)
        for answer in answers[1:]:
            assert "better than" not in answer, answer
        expect(page.locator(".facts dt").first).to_have_text("Your team's board score")

        # On the phone too, the team can see and tick a file to select it.
        page.goto(f"/c/{walk}/team")
        box = page.get_by_label("Select submission 1")
        expect(box).to_be_visible()
        bounds = box.bounding_box()
        assert bounds is not None and bounds["x"] + bounds["width"] <= width
        _shot(page, f"{slug}-team", width)

        competitions = Competitions.open(url)
        try:
            competitions.close(walk)
            competitions.publish(walk)
            views = competitions.submissions(walk, "walker")
            private = competitions.leaderboard(walk, "private")
        finally:
            competitions.dispose()
        # Nothing selected: the final ranking takes the model, not a lucky draw.
        assert [v.final for v in views] == [True] + [False] * RANDOM_FILES
        (row,) = [r for r in private if r.team == "walker"]
        assert row.score == views[0].private_score

        page.goto(f"/c/{walk}/leaderboard?board=private")
        board = page.get_by_role("table")
        expect(board.get_by_role("columnheader", name="Move")).to_be_visible()
        _shot(page, f"{slug}-published", width)
        page.goto(f"/c/{walk}/team")
        expect(page.get_by_role("columnheader", name="Held as your best")).to_be_visible()
        _shot(page, f"{slug}-team-published", width)
    finally:
        context.close()
