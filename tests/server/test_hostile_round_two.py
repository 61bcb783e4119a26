"""Refusals and edges found by the second round of hostile testing, on
SQLite and PostgreSQL: a header too wide to compare is refused before its
names are; only a quota that time lifts asks to come back; disabling a team
ends its sessions for good; names that look alike are one team; the API's
docs page has a policy of its own; a 500 says the connection closes."""

from __future__ import annotations

import gzip
import re

import httpx2
import pytest
from browser_helpers import serve
from playwright.sync_api import Browser
from server_helpers import ADMIN, add_team, create, organiser, predictions, submit
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ladderboard.engine import Competitions
from ladderboard.files.submission import EXTRA_COLUMNS
from ladderboard.server.settings import Settings
from ladderboard.server.team_pages import COOKIE
from ladderboard.store import SubmissionRow, TeamRow, TeamSessionRow


def count(client, row) -> int:
    with Session(client.app.state.competitions.engine) as session:
        return session.scalar(select(func.count()).select_from(row))


# ------------------------------------------------------- a header too wide
def test_a_header_of_tens_of_thousands_of_columns_is_refused_by_its_width(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    names = ["id", "target", *(f"c{i}" for i in range(40_000))]
    data = gzip.compress((",".join(names) + "\n" + ",".join(["0"] * len(names)) + "\n").encode())
    response = submit(client, token, data)
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["error"] == "too_many_columns"
    assert "40002 columns" in body["message"] and "'id', 'target'" in body["message"]
    assert len(body["message"]) < 300  # not a list of the names
    assert count(client, SubmissionRow) == 0


def test_a_header_within_the_margin_is_still_told_which_columns_are_extra(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    rows = "".join(f"{i},1\n" for i in solution.ids)

    def header(extra: int) -> bytes:
        names = ["id", "target", *(f"x{i}" for i in range(extra))]
        body = "".join(f"{line.rstrip()}{',0' * extra}\n" for line in rows.splitlines())
        return (",".join(names) + "\n" + body).encode()

    widest = submit(client, token, header(EXTRA_COLUMNS)).json()
    assert widest["error"] == "extra_column" and "'x0'" in widest["message"]
    assert submit(client, token, header(EXTRA_COLUMNS + 1)).json()["error"] == "too_many_columns"
    repeated = submit(client, token, b"id,target,target\n0,1,1\n").json()
    assert repeated["error"] == "duplicate_column"


# ---------------------------------------------------------------- quotas
@pytest.mark.parametrize(
    ("quotas", "daily"),
    [
        ({"daily_quota": 1}, True),
        ({"daily_quota": 5, "total_quota": 1}, False),
        ({"daily_quota": 1, "total_quota": 1}, False),  # spent both: tomorrow is no help
    ],
)
def test_only_a_spent_daily_quota_asks_to_come_back(client, solution, quotas, daily):
    create(client, solution, **quotas)
    token = add_team(client, "alpha")
    assert submit(client, token, predictions(solution, 1)).status_code == 201
    response = submit(client, token, predictions(solution, 2))
    assert response.status_code == 429 and response.json()["error"] == "quota"
    if daily:
        assert 1 <= int(response.headers["retry-after"]) <= 86400
    else:
        assert "retry-after" not in response.headers, response.headers
        assert "all 1 submissions" in response.json()["message"]


def test_a_spent_invalid_file_cap_is_final(client, solution):
    create(client, solution, invalid_quota=1)
    token = add_team(client, "alpha")
    assert submit(client, token, b"id,target\n").status_code == 400
    response = submit(client, token, predictions(solution, 1))
    assert response.status_code == 429 and response.json()["error"] == "quota"
    assert "retry-after" not in response.headers, response.headers


# ------------------------------------------------------------- sessions
def test_enabling_a_disabled_team_does_not_revive_its_sessions(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    competitions = client.app.state.competitions
    assert client.post("/c/demo/team", data={"token": token}).status_code == 200
    cookie = client.cookies.get(COOKIE)
    assert competitions.team_sessions.team_of(cookie) is not None
    competitions.set_team_disabled("demo", "alpha", True)
    assert count(client, TeamSessionRow) == 0
    competitions.set_team_disabled("demo", "alpha", False)
    assert competitions.team_sessions.team_of(cookie) is None
    assert "Sign in as your team" in client.get("/c/demo/team").text
    # Enabling a team that is enabled signs nobody out.
    assert client.post("/c/demo/team", data={"token": token}).status_code == 200
    competitions.set_team_disabled("demo", "alpha", False)
    assert competitions.team_sessions.team_of(client.cookies.get(COOKIE)) is not None


# ---------------------------------------------------------- team names
LOOK_ALIKES = {
    "zero-width space": "Al\u200bpha",
    "zero-width joiner": "Al\u200dpha",
    "soft hyphen": "Al\u00adpha",
    "word joiner": "Al\u2060pha",
    "byte-order mark": "\ufeffAlpha",
    "combining grapheme joiner": "Al\u034fpha",
    "Hangul filler": "Alpha\u3164",
    "right-to-left override": "\u202eahplA",
    "Greek capital alpha": "\u0391lpha",
    "Cyrillic small a": "Alph\u0430",
}


@pytest.mark.parametrize("name", LOOK_ALIKES.values(), ids=LOOK_ALIKES.keys())
def test_a_name_that_looks_like_another_is_refused(client, solution, name):
    create(client, solution)
    add_team(client, "Alpha")
    response = client.post("/api/competitions/demo/teams", json={"name": name}, headers=organiser())
    letters = name in (LOOK_ALIKES["Greek capital alpha"], LOOK_ALIKES["Cyrillic small a"])
    assert response.status_code == (409 if letters else 422), response.text
    message = response.json()["message"]
    assert "Alpha" in message if letters else "invisible character U+" in message
    assert count(client, TeamRow) == 1


def test_one_line_fields_refuse_invisible_characters(client, solution):
    refused = client.post(
        "/api/competitions",
        data={"slug": "demo", "score": "zero_one", "mechanism": "parameter-free-ladder",
              "title": "Iris \u202eevil"},
        files={"solution": ("solution.csv", solution.to_csv(), "text/csv")},
        headers=organiser(),
    )  # fmt: skip
    assert refused.status_code == 422 and "U+202E" in refused.json()["message"]
    create(client, solution, description="Multi-line text may keep a soft\u00adhyphen.")
    assert add_team(client, "Ζeta") and add_team(client, "Team ❤️")  # letters and emoji stay


# ---------------------------------------------------------------- /docs
def test_the_docs_page_has_its_policy_and_the_pages_headers(client):
    response = client.get("/docs")
    assert response.status_code == 200
    policy = response.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "default-src 'self'" in policy
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
    inline = re.findall(r"<script>(.*?)</script>", response.text, re.S)
    assert len(inline) == 1 and "'sha256-" in policy
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["cache-control"] == "no-store"


@pytest.mark.slow
def test_swagger_ui_renders_its_operations_under_the_policy(live_server, browser: Browser):
    page = browser.new_page()
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text))
    page.on("pageerror", lambda error: problems.append(str(error)))
    answer = page.goto(f"{live_server}/docs")
    assert answer is not None and "frame-ancestors" in answer.headers["content-security-policy"]
    page.wait_for_selector(".opblock", timeout=15_000)
    assert page.locator(".opblock").count() > 10
    healthz = page.locator(".opblock").filter(has_text="/healthz").first
    healthz.locator(".opblock-summary").click()
    page.get_by_role("button", name="Try it out").click()
    page.get_by_role("button", name="Execute").click()
    page.wait_for_selector(".live-responses-table .response-col_status")
    assert "200" in page.locator(".live-responses-table .response-col_status").last.inner_text()
    assert not problems, problems  # no directive of the policy was broken
    page.close()


# ------------------------------------------------------------------ 500
def test_a_500_closes_the_connection_and_says_so(database_url, monkeypatch):
    def fail(self, slug):
        raise RuntimeError("the disk is on fire")

    monkeypatch.setattr(Competitions, "competition", fail)
    settings = Settings(admin_token=ADMIN, database_url=database_url, rate_limit_per_minute=0)
    with serve(settings) as url, httpx2.Client(base_url=url) as http:
        for _ in range(3):  # a keep-alive client goes on with a new connection each time
            failed = http.get("/api/competitions/demo")
            assert failed.status_code == 500 and failed.json()["error"] == "internal"
            assert failed.headers["connection"] == "close"
            assert http.get("/healthz").status_code == 200
