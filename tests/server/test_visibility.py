"""A competition's visibility, on every route and page (SQLite and PostgreSQL).

The matrix: every route of the app under ``/c/{slug}``,
``/api/competitions/{slug}`` and ``/organiser/c/{slug}``, found by walking
``app.routes`` (so that a route added later is walked too), for each who
takes part (the team by its token and its session, a member account and a
registered one, a co-organiser, an owner, the administrators) and each
outsider (anonymous, a made-up token, another competition's team and
account), under each visibility. A private competition answers outsiders
exactly as a competition that does not exist: the same status, the same
body (its slug for the other's). Those who take part see it as if it were
public. An unlisted one is left off the listings and its pages are not
indexed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from fastapi.routing import iter_route_contexts
from organiser_helpers import alert, sign_in, status
from server_helpers import ADMIN, add_team, bearer, create, organiser, predictions, submit

from ladderboard.server.account_session import COOKIE as ACCOUNT_COOKIE
from ladderboard.server.credentials import TEAM_COOKIE

PREFIXES = ("/c/{slug}", "/api/competitions/{slug}", "/organiser/c/{slug}")
VISIBILITIES = ("public", "unlisted", "private")
SECRET, NONE = "secret", "nosuch"  # a competition, and a slug no competition has
FILE = "sample_submission.csv"


def competition_routes(app) -> list[tuple[str, str]]:
    """Every (method, path) of ``app`` under :data:`PREFIXES`."""
    found = []
    for context in iter_route_contexts(app.routes):
        path = context.path or ""
        methods = getattr(context.original_route, "methods", None) or ()
        if path in PREFIXES or path.startswith(tuple(prefix + "/" for prefix in PREFIXES)):
            found += [(method, path) for method in sorted(methods) if method != "HEAD"]
    return sorted(set(found))


def url(path: str, slug: str) -> str:
    """``path`` with its parameters: a team, a data file, a submission."""
    return (
        path.replace("{slug}", slug)
        .replace("{name:path}", "alpha")
        .replace("{name}", FILE)
        .replace("{number}", "1")
    )


def call(client, method: str, path: str, slug: str, headers: dict[str, str] | None = None):
    """``method`` on ``path`` for ``slug``, with a body every route can read
    (a typed file: the submission route refuses an untyped one first)."""
    headers = {"Content-Type": "text/csv"} | (headers or {})
    return client.request(method, url(path, slug), headers=headers, content=b"id,target\n")


def same_as_missing(private, missing, where) -> None:
    """The answer about the private competition is the answer about none."""
    assert private.status_code == missing.status_code, (where, private.text, missing.text)
    assert private.text.replace(SECRET, NONE) == missing.text, where
    assert private.headers.get("content-type") == missing.headers.get("content-type"), where


@pytest.fixture
def browsers(make_client):
    """``browsers()``: a new client (a browser of its own) over the test's database,
    with no limit on anonymous reads nor failed sign-ins (the walks make many)."""
    return lambda: make_client(anonymous_reads_per_minute=0, auth_failures_per_minute=100_000)


def state(client) -> list:
    """What no outsider's request may change: the competition, its history,
    teams, files and submissions."""
    return [
        client.get(f"/api/competitions/{SECRET}{part}", headers=organiser()).json()
        for part in ("", "/history", "/teams", "/files", "/corrections")
    ] + [client.get(f"/api/competitions/{SECRET}/leaderboard.csv", headers=organiser()).text]


def signed_in(client, slug: str, token: str) -> str:
    """Sign ``client`` in as the team of ``token`` on ``slug``'s pages; the cookie."""
    response = client.post(f"/c/{slug}/team", data={"token": token}, follow_redirects=False)
    assert response.status_code == 303, response.text
    return client.cookies[TEAM_COOKIE]


@dataclass
class Caller:
    """One way of asking: a browser (its cookies), the headers it sends,
    and the paths its credential reaches (a team's session is scoped to the
    competition's pages; the other credentials go everywhere)."""

    client: Any
    headers: dict[str, str] = field(default_factory=dict)
    scope: str = "/"


def people(browsers, admin, solution) -> tuple[dict[str, Caller], dict[str, Caller]]:
    """Everyone who may ask about competition SECRET: those who take part in
    it, and outsiders (each its name), with a team and a submission on
    SECRET and a competition "other" of their own for the outsiders."""
    competitions = admin.app.state.competitions
    accounts = competitions.accounts
    create(admin, solution, slug="other")
    alpha = add_team(admin, "alpha", slug=SECRET)
    assert submit(admin, alpha, predictions(solution, 0), slug=SECRET).status_code == 201
    stranger = add_team(admin, "stranger", slug="other")

    def account(handle: str, role: str = "participant") -> tuple[int, str]:
        made = accounts.create(handle, role=role)
        return made.id, accounts.create_token(made.id, "cli")[1]

    member, member_token = account("member")
    accounts.create_account_team(SECRET, member, "owls")
    registered, registered_token = account("registered")
    accounts.register(SECRET, registered, rules_sha256="0" * 64, via="open")
    co, co_token = account("co")
    accounts.add_organiser(SECRET, co, "co-organiser", "administrator token")
    owner, owner_token = account("owner")
    accounts.add_organiser(SECRET, owner, "owner", "administrator token")
    _, root_token = account("root", role="admin")
    elsewhere, elsewhere_token = account("elsewhere", role="organiser")
    accounts.create_account_team("other", elsewhere, "ravens")
    accounts.add_organiser("other", elsewhere, "owner", "administrator token")

    def session(account_id: int) -> Caller:
        browser = browsers()
        browser.cookies.set(ACCOUNT_COOKIE, accounts.open_session(account_id, timedelta(hours=1)))
        return Caller(browser)

    def team_session(slug: str, token: str, everywhere: bool = False) -> Caller:
        browser = browsers()
        cookie = signed_in(browser, slug, token)
        if everywhere:  # as if leaked: sent on every path
            browser.cookies.clear()
            browser.cookies.set(TEAM_COOKIE, cookie)
        return Caller(browser, scope="/" if everywhere else "/c/{slug}")

    organiser_browser = browsers()
    assert organiser_browser.post("/organiser/login", data={"token": ADMIN}).status_code == 200
    insiders = {
        "team token": Caller(browsers(), bearer(alpha)),
        "team session": team_session(SECRET, alpha),
        "member token": Caller(browsers(), bearer(member_token)),
        "member session": session(member),
        "registered token": Caller(browsers(), bearer(registered_token)),
        "co-organiser token": Caller(browsers(), bearer(co_token)),
        "co-organiser session": session(co),
        "owner token": Caller(browsers(), bearer(owner_token)),
        "administrator account": Caller(browsers(), bearer(root_token)),
        "administrator token": Caller(browsers(), organiser()),
        "organiser session": Caller(organiser_browser),
    }
    outsiders = {
        "anonymous": Caller(browsers()),
        "made-up token": Caller(browsers(), bearer("a-token-nobody-has-0123456789abcdef")),
        "other team token": Caller(browsers(), bearer(stranger)),
        "other team session": team_session("other", stranger, everywhere=True),
        "other account token": Caller(browsers(), bearer(elsewhere_token)),
        "other account session": session(elsewhere),
    }
    return insiders, outsiders


def statuses(callers: dict[str, Caller], routes) -> dict[tuple[str, str, str], int]:
    """The status each caller gets from each route of SECRET it reaches."""
    return {
        (name, method, path): call(who.client, method, path, SECRET, who.headers).status_code
        for name, who in callers.items()
        for method, path in routes
        if path.startswith(who.scope)
    }


@pytest.mark.parametrize("visibility", ["unlisted", "private"])
@pytest.mark.slow
def test_every_route_for_every_caller_under_each_visibility(browsers, solution, visibility):
    """Every route of the app under a competition's paths (walked from
    ``app.routes``), for each who takes part and each outsider, public
    first: those who take part get every read as they got it when it was
    public; so do outsiders of an unlisted one, while to outsiders a private
    one answers on every route, reads and writes, exactly as a competition
    that does not exist, and no write of theirs changes anything."""
    admin = browsers()
    create(admin, solution, slug=SECRET)
    insiders, outsiders = people(browsers, admin, solution)
    routes = competition_routes(admin.app)
    assert {("GET", "/c/{slug}/leaderboard"), ("GET", "/api/competitions/{slug}/audit")} < set(
        routes
    )
    assert ("POST", "/api/competitions/{slug}/submissions") in routes
    reads = [(method, path) for method, path in routes if method == "GET"]
    public = statuses(insiders | outsiders, reads)
    assert public["member session", "GET", "/c/{slug}/team"] == 200
    assert public["member token", "GET", "/api/competitions/{slug}/team"] == 200
    assert public["organiser session", "GET", "/organiser/c/{slug}"] == 200

    changed = admin.patch(
        f"/api/competitions/{SECRET}", json={"visibility": visibility}, headers=organiser()
    )
    assert changed.status_code == 200 and changed.json()["visibility"] == visibility
    before = state(admin)
    assert statuses(insiders, reads) == {k: v for k, v in public.items() if k[0] in insiders}
    if visibility == "unlisted":
        assert statuses(outsiders, reads) == {k: v for k, v in public.items() if k[0] in outsiders}
        return
    for name, who in outsiders.items():
        for method, path in routes:
            private = call(who.client, method, path, SECRET, who.headers)
            missing = call(who.client, method, path, NONE, who.headers)
            same_as_missing(private, missing, (name, method, path))
    assert state(admin) == before


@pytest.mark.parametrize("visibility", VISIBILITIES)
@pytest.mark.slow
def test_listings_show_a_competition_to_whom_its_visibility_admits(browsers, solution, visibility):
    """The home page and ``GET /api/competitions`` list a public competition
    to everyone, an unlisted or a private one only to those who take part in
    it (a team's session reaches only the competition's own pages); ``/how``
    knows a private one only for them."""
    admin = browsers()
    create(admin, solution, slug=SECRET, title="Hidden churn", visibility=visibility)
    insiders, outsiders = people(browsers, admin, solution)
    for name, who in (insiders | outsiders).items():
        shown = visibility == "public" or (name in insiders and who.scope == "/")
        listed = who.client.get("/api/competitions", headers=who.headers).json()
        slugs = [c["slug"] for c in listed]
        assert (SECRET in slugs) == shown and "other" in slugs, (name, slugs)
        if not who.headers:  # a browser: its cookies
            assert ("Hidden churn" in who.client.get("/").text) == shown, name
        how = who.client.get(f"/how?competition={SECRET}", headers=who.headers).text
        hidden = visibility == "private" and not (name in insiders and who.scope == "/")
        assert ("There is no competition" in how) == hidden, name


@pytest.mark.parametrize("visibility", VISIBILITIES)
def test_a_competition_that_is_not_public_asks_not_to_be_indexed(browsers, solution, visibility):
    admin = browsers()
    create(admin, solution, slug=SECRET, visibility=visibility)
    alpha = add_team(admin, "alpha", slug=SECRET)
    team_browser = browsers()
    signed_in(team_browser, SECRET, alpha)
    for page in ("", "/data", "/rules", "/leaderboard", "/late", "/submit", "/team"):
        response = team_browser.get(f"/c/{SECRET}{page}")
        assert response.status_code == 200, (page, response.text)
        robots = response.headers.get("x-robots-tag")
        assert robots == (None if visibility == "public" else "noindex"), page
    assert browsers().get("/").headers.get("x-robots-tag") is None


def test_a_change_of_visibility_is_a_setting_change_like_the_others(browsers, solution):
    """Recorded in the history and on the Rules page; refused (422) when it
    is not one of the three, changing nothing; shown in the competition's
    JSON and on its Overview."""
    admin = browsers()
    created = create(admin, solution, slug=SECRET)
    assert created["visibility"] == "public"
    for wrong in ("secret", "", None, 3):
        refused = admin.patch(
            f"/api/competitions/{SECRET}", json={"visibility": wrong}, headers=organiser()
        )
        if wrong is None:  # null: left as it is
            assert refused.status_code == 200 and refused.json()["visibility"] == "public"
            continue
        assert refused.status_code == 422, refused.text
    changed = admin.patch(
        f"/api/competitions/{SECRET}", json={"visibility": "unlisted"}, headers=organiser()
    )
    assert changed.status_code == 200 and changed.json()["visibility"] == "unlisted"
    history = admin.get(f"/api/competitions/{SECRET}/history").json()
    assert [(h["setting"], h["old"], h["new"]) for h in history] == [
        ("visibility", "public", "unlisted")
    ]
    assert "Visibility: public → unlisted" in admin.get(f"/c/{SECRET}/rules").text
    overview = admin.get(f"/c/{SECRET}").text
    assert re.search(r"Visibility</dt>\s*<dd>Unlisted", overview), overview
    bad = admin.post(
        "/api/competitions",
        data={"slug": "bad", "score": "zero_one", "visibility": "hidden"},
        files={"solution": ("solution.csv", solution.to_csv(), "text/csv")},
        headers=organiser(),
    )
    assert bad.status_code == 422
    assert admin.get("/api/competitions/bad").status_code == 404


@pytest.mark.slow
def test_the_desk_creates_and_changes_a_competition_s_visibility(browsers, solution):
    """The creation form and the settings form offer the three; the settings
    form saves a change, the desk says it, and a value that is not one of
    them is refused naming it, changing nothing."""
    desk = browsers()
    csrf = sign_in(desk)
    form = {
        "csrf": csrf, "slug": SECRET, "title": "Hidden", "mechanism": "parameter-free-ladder",
        "score": "zero_one", "zone": "UTC", "visibility": "private",
    }  # fmt: skip
    created = desk.post(
        "/organiser/competitions",
        data=form,
        files=[("solution", ("solution.csv", solution.to_csv(), "text/csv"))],
    )
    assert created.status_code == 201, alert(created.text)
    assert desk.get(f"/api/competitions/{SECRET}", headers=organiser()).json()["visibility"] == (
        "private"
    )
    assert browsers().get(f"/c/{SECRET}").status_code == 404
    page = desk.get(f"/organiser/c/{SECRET}").text
    assert re.search(r'id="set-visibility-private"[^>]* checked', page)
    for wrong in ("secret", "PUBLIC"):
        refused = desk.post(
            f"/organiser/c/{SECRET}/settings", data={"csrf": csrf, "visibility": wrong}
        )
        assert refused.status_code == 422 and "visibility" in alert(refused.text).lower(), wrong
    saved = desk.post(
        f"/organiser/c/{SECRET}/settings", data={"csrf": csrf, "visibility": "public"}
    )
    assert saved.status_code == 200 and status(saved.text) == (
        "Saved: Visibility: private → public."
    )
    assert browsers().get(f"/c/{SECRET}").status_code == 200
    bad = desk.post(
        "/organiser/competitions",
        data=form | {"slug": "bad", "visibility": "hidden"},
        files=[("solution", ("solution.csv", solution.to_csv(), "text/csv"))],
    )
    assert bad.status_code == 422 and "visibility" in alert(bad.text).lower()
    assert desk.get("/api/competitions/bad", headers=organiser()).status_code == 404


def test_a_team_signs_in_to_a_private_competition_from_its_not_found_page(browsers, solution):
    """The page of a private competition, to a browser not signed in, is the
    page of a competition that does not exist, with a form to sign in as a
    team; a team's token opens the competition's pages, another's does not."""
    admin = browsers()
    create(admin, solution, slug=SECRET, visibility="private")
    create(admin, solution, slug="other")
    alpha = add_team(admin, "alpha", slug=SECRET)
    stranger = add_team(admin, "stranger", slug="other")
    browser = browsers()
    page = browser.get(f"/c/{SECRET}")
    assert page.status_code == 404 and f'action="/c/{SECRET}/team"' in page.text
    assert page.text.replace(SECRET, NONE) == browser.get(f"/c/{NONE}").text
    refused = browser.post(f"/c/{SECRET}/team", data={"token": stranger}, follow_redirects=False)
    missing = browser.post(f"/c/{NONE}/team", data={"token": stranger}, follow_redirects=False)
    same_as_missing(refused, missing, "another team's token")
    assert TEAM_COOKIE not in browser.cookies
    signed_in(browser, SECRET, alpha)
    for tab in ("", "/leaderboard", "/team"):
        assert browser.get(f"/c/{SECRET}{tab}").status_code == 200, tab
