"""Anonymous reads cost the server little: an overview is parsed once per
text, not once per view, and anonymous reads are limited per client address,
while valid credentials are never refused by that limit (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from server_helpers import ADMIN, add_team, bearer, create, organiser

from ladderboard.server import account_session, organiser_session, rendering, team_pages
from ladderboard.server.settings import Settings

OVERVIEW = "# Predict churn\n\nScored by *AUC*; " + "see [the data](https://example.org). " * 50


@pytest.fixture
def parsed(monkeypatch) -> list[str]:
    """The texts the Markdown parser is given, as the pages render."""
    texts: list[str] = []
    parse = rendering._PARSER.parse

    def counting(text, env=None):
        texts.append(text)
        return parse(text, env)

    fresh = getattr(rendering, "TextCache", None)
    if fresh is not None:  # nothing rendered by the tests before
        monkeypatch.setattr(rendering, "_RENDERED", fresh())
    monkeypatch.setattr(rendering._PARSER, "parse", counting)
    return texts


def test_an_overview_is_parsed_once_for_many_views(client, solution, parsed):
    create(client, solution, description=OVERVIEW)
    for _ in range(5):
        page = client.get("/c/demo")
        assert page.status_code == 200 and "Predict churn" in page.text
    assert parsed.count(OVERVIEW) == 1  # the page's HTML; the cards' summaries are their own
    edited = OVERVIEW.replace("churn", "attrition")
    changed = client.patch(
        "/api/competitions/demo", json={"description": edited}, headers=organiser()
    )
    assert changed.status_code == 200, changed.text
    for _ in range(3):
        assert "Predict attrition" in client.get("/c/demo").text
    assert parsed.count(edited) == 1


def test_anonymous_reads_are_limited_per_address(make_client, solution):
    client = make_client(anonymous_reads_per_minute=5)
    create(client, solution)
    for _ in range(5):
        assert client.get("/api/competitions/demo/leaderboard").status_code == 200
    refused = client.get("/api/competitions/demo/leaderboard")
    assert refused.status_code == 429, refused.text
    assert refused.json()["error"] == "rate_limited"
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    page = client.get("/c/demo")
    assert page.status_code == 429 and page.headers["content-type"].startswith("text/html")
    assert client.head("/c/demo").status_code == 429
    # Made-up credentials are anonymous reads too.
    assert client.get("/c/demo", headers=bearer("not-a-token")).status_code == 429
    client.cookies.set(team_pages.COOKIE, "not-a-session")
    assert client.get("/c/demo").status_code == 429
    client.cookies.clear()
    # Not counted: the static files and the health check.
    assert client.get("/healthz").status_code == 200
    assert client.get("/static/style.css").status_code in (200, 404)


def test_valid_credentials_are_never_refused_by_the_anonymous_limit(make_client, solution):
    client = make_client(anonymous_reads_per_minute=2)
    create(client, solution)
    token = add_team(client, "alpha")
    answers = [client.get("/api/competitions/demo/leaderboard").status_code for _ in range(3)]
    assert answers == [200, 200, 429]
    for _ in range(5):
        assert client.get("/api/competitions/demo/leaderboard", headers=organiser()).is_success
        assert client.get("/api/competitions/demo/leaderboard", headers=bearer(token)).is_success
        assert client.get("/c/demo/leaderboard", headers=bearer(token)).is_success
    # A browser signed in as a team, and one signed in as the organiser.
    signed = client.post("/c/demo/team", data={"token": token}, follow_redirects=False)
    assert signed.status_code == 303, signed.text
    assert client.cookies.get(team_pages.COOKIE)
    for _ in range(3):
        assert client.get("/c/demo").status_code == 200
        assert client.get("/c/demo/team").status_code == 200
    client.cookies.clear()
    signed = client.post("/organiser/login", data={"token": ADMIN}, follow_redirects=False)
    assert signed.status_code == 303, signed.text
    assert client.cookies.get(organiser_session.COOKIE)
    for _ in range(3):
        assert client.get("/organiser").status_code == 200
    client.cookies.clear()
    # A person's API token, and a browser signed in to the person's account.
    accounts = client.app.state.competitions.accounts
    person = accounts.create("person")
    _, personal = accounts.create_token(person.id, "cli")
    for _ in range(3):
        assert client.get("/c/demo", headers=bearer(personal)).status_code == 200
    client.cookies.set(account_session.COOKIE, accounts.open_session(person.id, timedelta(hours=1)))
    for _ in range(3):
        assert client.get("/c/demo").status_code == 200
    client.cookies.clear()
    assert client.get("/c/demo").status_code == 429


def test_anonymous_reads_are_limited_by_default():
    assert Settings(admin_token=ADMIN, database_url="sqlite://").anonymous_reads_per_minute == 600
