"""People end to end, in Chromium against a live server and a real OpenID
Connect provider (npm's ``oidc-provider``): two participants sign up through
the provider, form a team of two by an invitation link, submit from each
one's personal token on one quota, and one rotates its token (the old one
refused, the other member's untouched); a third joins a private competition
only by the organiser's invitation; a co-organiser manages teams but may not
publish."""

from __future__ import annotations

import httpx2
import pytest
from browser_helpers import serve
from server_helpers import ADMIN, LABELS, bearer, flipped, organiser

from ladderboard.files.solution import Solution
from ladderboard.server.settings import Settings

SOLUTION = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)


def _sign_up(browser, url: str, oidc, login: str):
    """A browser context signed in as ``login`` through the provider's own
    login page (the account is made on this first sign-in), and the personal
    token it made on its account page."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{url}/")
    page.get_by_role("link", name="Sign in").click()
    page.get_by_role("link", name="Sign in with University").click()
    page.wait_for_url(f"{oidc.issuer}/**")
    page.fill("input[name=login]", login)
    page.fill("input[name=password]", "any password")
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/account")
    assert page.locator("#handle").inner_text() == login
    page.fill("#label", "laptop")
    page.get_by_role("button", name="Create the token").click()
    return context, page, page.locator("#new-token").inner_text()


def _create(http: httpx2.Client, slug: str, **fields) -> None:
    form = {"slug": slug, "score": "zero_one", "mechanism": "parameter-free-ladder", **fields}
    created = http.post(
        "/api/competitions",
        data={k: str(v) for k, v in form.items()},
        files={"solution": ("solution.csv", SOLUTION.to_csv(), "text/csv")},
        headers=organiser(),
    )
    assert created.status_code == 201, created.text


def _submit(http: httpx2.Client, token: str, seed: int) -> httpx2.Response:
    return http.post(
        "/api/competitions/course/submissions",
        files={"file": ("p.csv", flipped(SOLUTION, 0.3, seed), "text/csv")},
        headers=bearer(token),
    )


def _join(page, url: str, slug: str, team: str, query: str = "") -> None:
    page.goto(f"{url}/c/{slug}/join{query}")
    page.fill("#team", team)
    page.get_by_label("I accept the rules").check()
    page.get_by_role("button", name="Join", exact=True).click()


@pytest.mark.slow
def test_people_sign_up_team_up_submit_rotate_and_organise(tmp_path, oidc, browser):
    settings = Settings(
        admin_token=ADMIN,
        database_url=f"sqlite:///{tmp_path / 'people.db'}",
        rate_limit_per_minute=0,
        oidc_providers=[oidc.setting(label="University")],
    )
    with serve(settings) as url, httpx2.Client(base_url=url, timeout=30) as http:
        _create(http, "course", registration="open", daily_quota=2, rules="Be fair.")
        ada_context, ada, ada_token = _sign_up(browser, url, oidc, "ada")
        bob_context, bob, bob_token = _sign_up(browser, url, oidc, "bob")
        try:
            # Ada joins with a team; her invitation link brings Bob into it.
            _join(ada, url, "course", "owls")
            ada.goto(f"{url}/c/course/team")
            ada.get_by_role("button", name="Create an invitation code").click()
            link = ada.locator("code.secret").nth(1).inner_text()
            _join(bob, url, "course", "")
            bob.goto(link)
            bob.get_by_role("button", name="Join as bob").click()
            bob.goto(f"{url}/c/course/team")
            members = bob.get_by_role("table", name="The team's members").inner_text()
            assert "ada" in members and "bob" in members

            # Both members' tokens spend the team's one quota.
            assert _submit(http, ada_token, 1).status_code == 201
            assert _submit(http, bob_token, 2).status_code == 201
            third = _submit(http, bob_token, 3)
            assert third.status_code == 429 and "owls" in third.json()["message"], third.text

            # Ada rotates her token: the old one is refused, Bob's still works.
            ada.goto(f"{url}/account")
            ada.get_by_role("button", name="Rotate laptop").click()
            new_token = ada.locator("#new-token").inner_text()
            team = "/api/competitions/course/team"
            assert http.get(team, headers=bearer(ada_token)).status_code == 401
            assert http.get(team, headers=bearer(new_token)).json()["name"] == "owls"
            assert http.get(team, headers=bearer(bob_token)).json()["name"] == "owls"
        finally:
            ada_context.close()
            bob_context.close()

        # A private competition: Carol sees nothing of it but through an invitation.
        _create(http, "secret", registration="invitation", visibility="private")
        invited = http.post("/api/competitions/secret/invitations", json={}, headers=organiser())
        assert invited.status_code == 201, invited.text
        carol_context, carol, carol_token = _sign_up(browser, url, oidc, "carol")
        try:
            assert carol.goto(f"{url}/c/secret").status == 404
            assert carol.goto(f"{url}/c/secret/join").status == 404
            carol.goto(invited.json()["link"])
            carol.get_by_role("checkbox", name="I accept the rules").check()
            carol.fill("#team", "larks")
            carol.get_by_role("button", name="Join", exact=True).click()
            assert carol.goto(f"{url}/c/secret").status == 200
            mine = http.get("/api/competitions/secret/team", headers=bearer(carol_token))
            assert mine.status_code == 200 and mine.json()["name"] == "larks", mine.text
        finally:
            carol_context.close()

        # A teaching assistant, co-organiser of the course: teams yes, publication no.
        ta_context, _, ta_token = _sign_up(browser, url, oidc, "ta")
        ta_context.close()
        added = http.post(
            "/api/competitions/course/organisers",
            json={"handle": "ta", "role": "co-organiser"},
            headers=organiser(),
        )
        assert added.status_code in (200, 201), added.text
        team = http.post(
            "/api/competitions/course/teams",
            json={"name": "late-joiners"},
            headers=bearer(ta_token),
        )
        assert team.status_code == 201, team.text
        assert http.post("/api/competitions/course/close", headers=organiser()).status_code == 200
        refused = http.post("/api/competitions/course/publish", headers=bearer(ta_token))
        assert refused.status_code == 403 and "owner" in refused.json()["message"], refused.text
        assert http.get("/api/competitions/course").json()["published"] is False
