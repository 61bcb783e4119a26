"""Registration per competition (issue 40): joining as an account in each
mode of ``config.registration``, the organiser's invitations and list, the
rules' acceptance recorded with its hash, on both stores. A refusal records
nothing and counts no use of a code."""

from __future__ import annotations

import hashlib
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from server_helpers import bearer, create, organiser

RULES = "Be fair.\n\nOne account per person."


def rules_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def account(client, handle: str) -> tuple[object, str]:
    """A new account and its personal token."""
    accounts = client.app.state.competitions.accounts
    made = accounts.create(handle, created_from="testclient")
    _, token = accounts.create_token(made.id, "tests")
    return made, token


def competition(client, solution, registration: str, slug: str = "demo") -> None:
    create(client, solution, slug, registration=registration, rules=RULES)


def join(client, token: str, slug: str = "demo", **body):
    return client.post(f"/api/competitions/{slug}/join", json=body, headers=bearer(token))


def registrations(client, slug: str = "demo") -> list[dict]:
    response = client.get(f"/api/competitions/{slug}/registrations", headers=organiser())
    assert response.status_code == 200, response.text
    return response.json()


def invite(client, slug: str = "demo", **body) -> dict:
    response = client.post(f"/api/competitions/{slug}/invitations", json=body, headers=organiser())
    assert response.status_code == 201, response.text
    return response.json()


def uses(client, slug: str = "demo") -> dict[int, int]:
    response = client.get(f"/api/competitions/{slug}/invitations", headers=organiser())
    return {i["id"]: i["uses"] for i in response.json()}


def team_names(client, slug: str = "demo") -> list[str]:
    return [t.name for t in client.app.state.competitions.teams(slug)]


# ------------------------------------------------------------------- open
def test_open_join_records_the_rules_accepted_and_makes_the_team(client, solution):
    competition(client, solution, "open")
    _, token = account(client, "alice")
    response = join(client, token, accept_rules=True, team="Alice's team")
    assert response.status_code == 201, response.text
    joined = response.json()
    assert joined["account"] == "alice" and joined["via"] == "open"
    assert joined["team"] == "Alice's team"
    assert joined["rules_sha256"] == rules_hash(RULES) and joined["rules_current"]
    assert registrations(client) == [joined]
    members = client.app.state.competitions.accounts.members("demo", "Alice's team")
    assert [(m.role) for m in members] == ["captain"]


@pytest.mark.slow
def test_joining_again_records_nothing_new(client, solution):
    competition(client, solution, "open")
    _, token = account(client, "alice")
    first = join(client, token, accept_rules=True).json()
    again = join(client, token, accept_rules=True)
    assert again.status_code == 200
    assert again.json() == first
    assert registrations(client) == [first]


@pytest.mark.parametrize("body", [{}, {"accept_rules": False}, {"accept_rules": "yes"}])
def test_joining_without_accepting_the_rules_is_refused(client, solution, body):
    competition(client, solution, "open")
    _, token = account(client, "alice")
    response = join(client, token, team="alpha", **body)
    assert response.status_code == 422
    assert response.json()["error"] == "invalid_request"
    assert registrations(client) == [] and team_names(client) == []


def test_joining_needs_an_account(client, solution):
    competition(client, solution, "open")
    anonymous = client.post("/api/competitions/demo/join", json={"accept_rules": True})
    assert anonymous.status_code == 401
    by_organiser = join(client, "organiser-token-for-the-tests-0123456789", accept_rules=True)
    assert by_organiser.status_code == 403
    team_token = client.post(
        "/api/competitions/demo/teams", json={"name": "alpha"}, headers=organiser()
    ).json()["token"]
    assert join(client, team_token, accept_rules=True).status_code == 403
    assert join(client, team_token, accept_rules="not even a bool").status_code == 403
    assert registrations(client) == []


def test_a_closed_competition_takes_no_one(client, solution):
    competition(client, solution, "open")
    assert client.post("/api/competitions/demo/close", headers=organiser()).status_code == 200
    _, token = account(client, "alice")
    response = join(client, token, accept_rules=True, team="alpha")
    assert response.status_code == 409 and response.json()["error"] == "closed"
    assert registrations(client) == [] and team_names(client) == []


def test_a_team_name_taken_records_nothing(client, solution):
    competition(client, solution, "invitation")
    client.post("/api/competitions/demo/teams", json={"name": "alpha"}, headers=organiser())
    code = invite(client, uses=1)
    _, token = account(client, "alice")
    response = join(client, token, accept_rules=True, code=code["code"], team="ALPHA")
    assert response.status_code in (409, 422), response.text
    assert registrations(client) == [] and uses(client) == {code["id"]: 0}


# ------------------------------------------------------------------- list
def test_the_list_competition_takes_no_one_by_themselves(client, solution):
    competition(client, solution, "list")
    _, token = account(client, "alice")
    response = join(client, token, accept_rules=True)
    assert response.status_code == 403 and response.json()["error"] == "registration"
    assert registrations(client) == []


def test_the_organiser_puts_an_account_into_a_team_of_the_list(client, solution):
    competition(client, solution, "list")
    team_token = client.post(
        "/api/competitions/demo/teams", json={"name": "alpha"}, headers=organiser()
    ).json()["token"]
    client.post("/api/competitions/demo/teams", json={"name": "beta"}, headers=organiser())
    account(client, "bob")
    path = "/api/competitions/demo/teams/alpha/members"
    response = client.post(path, json={"account": "bob"}, headers=organiser())
    assert response.status_code == 201, response.text
    assert response.json()["via"] == "list" and response.json()["team"] == "alpha"
    assert [r["account"] for r in registrations(client)] == ["bob"]
    # The team's token keeps working.
    assert client.get("/api/competitions/demo/team", headers=bearer(team_token)).status_code == 200
    # Into another team: refused, nothing changed.
    other = client.post(
        "/api/competitions/demo/teams/beta/members", json={"account": "bob"}, headers=organiser()
    )
    assert other.status_code == 409
    nobody = client.post(path, json={"account": "nobody"}, headers=organiser())
    assert nobody.status_code == 404
    account(client, "cat")
    no_team = client.post(
        "/api/competitions/demo/teams/gamma/members", json={"account": "cat"}, headers=organiser()
    )
    assert no_team.status_code == 404
    assert [(r["account"], r["team"]) for r in registrations(client)] == [("bob", "alpha")]


def test_only_the_organiser_adds_members_and_reads_registrations(client, solution):
    competition(client, solution, "open")
    _, token = account(client, "alice")
    client.post("/api/competitions/demo/teams", json={"name": "alpha"}, headers=organiser())
    for headers in ({}, bearer(token)):
        assert client.get("/api/competitions/demo/registrations", headers=headers).status_code in (
            401,
            403,
        )
        added = client.post(
            "/api/competitions/demo/teams/alpha/members", json={"account": "alice"}, headers=headers
        )
        assert added.status_code in (401, 403)
        made = client.post("/api/competitions/demo/invitations", json={}, headers=headers)
        assert made.status_code in (401, 403)
    assert registrations(client) == []


# ------------------------------------------------------------- invitation
def test_an_invitation_code_admits_and_counts_one_use(client, solution):
    competition(client, solution, "invitation")
    made = invite(client, label="course", uses=2)
    assert made["state"] == "valid" and made["uses"] == 0 and made["code"]
    link = urlsplit(made["link"])
    assert link.path == "/c/demo/join" and parse_qs(link.query)["code"] == [made["code"]]
    listed = client.get("/api/competitions/demo/invitations", headers=organiser()).json()
    assert "code" not in listed[0] and made["code"] not in str(listed)
    _, token = account(client, "alice")
    response = join(client, token, accept_rules=True, code=made["code"], team="alpha")
    assert response.status_code == 201, response.text
    assert response.json()["via"] == "invitation"
    assert response.json()["invitation"] == made["id"]
    assert uses(client) == {made["id"]: 1}
    # Joining again counts no second use.
    assert join(client, token, accept_rules=True, code=made["code"]).status_code == 200
    assert uses(client) == {made["id"]: 1}


def _refused(client, token: str, code: str | None) -> str:
    body = {"accept_rules": True, "team": "mine"}
    if code is not None:
        body["code"] = code
    before = uses(client)
    response = join(client, token, **body)
    assert response.status_code == 403, response.text
    assert response.json()["error"] in ("invitation", "registration")
    assert "carol" not in [r["account"] for r in registrations(client)]
    assert "mine" not in team_names(client)
    assert uses(client) == before
    return response.json()["message"]


def test_no_code_or_a_wrong_one_admits_no_one(client, solution):
    competition(client, solution, "invitation")
    competition(client, solution, "invitation", slug="other")
    elsewhere = invite(client, slug="other")
    invite(client)
    _, token = account(client, "carol")
    assert "needs an invitation code" in _refused(client, token, None)
    assert "not one of competition" in _refused(client, token, "not-a-code")
    assert "not one of competition" in _refused(client, token, elsewhere["code"])
    assert "not one of competition" in _refused(client, token, "x" * 200)


def test_a_revoked_code_admits_no_one(client, solution):
    competition(client, solution, "invitation")
    made = invite(client)
    revoked = client.delete(f"/api/competitions/demo/invitations/{made['id']}", headers=organiser())
    assert revoked.status_code == 200 and revoked.json()["state"] == "revoked"
    _, token = account(client, "carol")
    assert "revoked" in _refused(client, token, made["code"])


def test_a_used_up_code_admits_no_one(client, solution):
    competition(client, solution, "invitation")
    made = invite(client, uses=1)
    _, first = account(client, "alice")
    assert join(client, first, accept_rules=True, code=made["code"]).status_code == 201
    _, token = account(client, "carol")
    assert "used up" in _refused(client, token, made["code"])


def test_an_expired_code_admits_no_one(clocked, solution):
    client, clock = clocked
    competition(client, solution, "invitation")
    made = invite(client, days=1)
    clock.advance(days=1, seconds=1)
    _, token = account(client, "carol")
    assert "expired" in _refused(client, token, made["code"])


@pytest.mark.parametrize(
    "body", [{"uses": 0}, {"uses": -1}, {"days": 0}, {"days": 1e9}, {"label": "x" * 101}]
)
def test_an_invitation_out_of_bounds_is_refused(client, solution, body):
    competition(client, solution, "invitation")
    response = client.post("/api/competitions/demo/invitations", json=body, headers=organiser())
    assert response.status_code == 422
    assert client.get("/api/competitions/demo/invitations", headers=organiser()).json() == []


@pytest.mark.parametrize("ident", ["999", "0", str(2**70), "abc"])
def test_revoking_no_such_invitation_is_a_clear_refusal(client, solution, ident):
    competition(client, solution, "invitation")
    response = client.delete(f"/api/competitions/demo/invitations/{ident}", headers=organiser())
    assert response.status_code in (404, 422)


# ------------------------------------------------------------------ rules
def test_rules_changed_since_acceptance_show_and_are_accepted_again(client, solution):
    competition(client, solution, "open")
    _, token = account(client, "alice")
    join(client, token, accept_rules=True)
    new_rules = RULES + "\n\nNo private sharing."
    patched = client.patch("/api/competitions/demo", json={"rules": new_rules}, headers=organiser())
    assert patched.status_code == 200
    [stale] = registrations(client)
    assert stale["rules_sha256"] == rules_hash(RULES) and not stale["rules_current"]
    again = join(client, token, accept_rules=True)
    assert again.status_code == 200
    assert again.json()["rules_sha256"] == rules_hash(new_rules) and again.json()["rules_current"]


# ------------------------------------------------------------------ pages
def _browser(client, handle: str):
    """Sign this client's browser in as a new account; the account."""
    accounts = client.app.state.competitions.accounts
    made = accounts.create(handle, created_from="testclient")
    from datetime import timedelta

    client.cookies.set("ladderboard_session", accounts.open_session(made.id, timedelta(hours=1)))
    return made


def _csrf(html: str) -> str:
    return re.search(r'name="csrf" value="([0-9a-f]+)"', html).group(1)


def test_the_join_page_sends_a_stranger_to_sign_in_and_back(client, solution):
    competition(client, solution, "invitation")
    made = invite(client)
    page = client.get("/c/demo/join", params={"code": made["code"]})
    assert page.status_code == 200
    assert "Be fair." in page.text and "One account per person." in page.text
    link = re.search(r'href="(/account/sign-in\?next=[^"]+)"', page.text).group(1)
    back = parse_qs(urlsplit(link.replace("&amp;", "&")).query)["next"][0]
    assert back == f"/c/demo/join?code={made['code']}"


def test_the_join_page_joins_with_the_rules_accepted(client, solution):
    competition(client, solution, "invitation")
    made = invite(client, uses=1)
    _browser(client, "dora")
    page = client.get("/c/demo/join", params={"code": made["code"]})
    assert "I accept the rules" in page.text and 'value="dora"' in page.text
    csrf = _csrf(page.text)
    form = {"csrf": csrf, "code": made["code"], "team": "dora"}
    unticked = client.post("/c/demo/join", data=form)
    assert unticked.status_code == 422 and registrations(client) == []
    forged = client.post("/c/demo/join", data=form | {"csrf": "0" * 64, "accept_rules": "on"})
    assert forged.status_code == 403 and registrations(client) == []
    joined = client.post("/c/demo/join", data=form | {"accept_rules": "on"}, follow_redirects=True)
    assert joined.status_code == 200 and "You joined this competition" in joined.text
    [registration] = registrations(client)
    assert registration["account"] == "dora" and registration["team"] == "dora"
    assert uses(client) == {made["id"]: 1}


def test_the_join_page_offers_the_changed_rules_again(client, solution):
    competition(client, solution, "open")
    _browser(client, "erin")
    csrf = _csrf(client.get("/c/demo/join").text)
    client.post("/c/demo/join", data={"csrf": csrf, "accept_rules": "on", "team": ""})
    client.patch("/api/competitions/demo", json={"rules": "New rules."}, headers=organiser())
    page = client.get("/c/demo/join")
    assert "The rules changed since you accepted them" in page.text
    accepted = client.post(
        "/c/demo/join/rules", data={"csrf": _csrf(page.text), "accept_rules": "on"}
    )
    assert accepted.status_code in (200, 303)
    [registration] = registrations(client)
    assert registration["rules_sha256"] == rules_hash("New rules.")
    assert "changed since you accepted" not in client.get("/c/demo/join").text


# ------------------------------------------------------------------- desk
def test_the_desk_makes_an_invitation_shown_once_and_lists_who_joined(client, solution):
    from organiser_helpers import sign_in, status

    competition(client, solution, "invitation")
    csrf = sign_in(client)
    made = client.post("/organiser/c/demo/invitations", data={"csrf": csrf, "label": "TAs"})
    assert made.status_code == 200
    code = re.search(r'<code class="token">([^<]+)</code>', made.text).group(1)
    assert "made" in status(made.text)
    _, token = account(client, "alice")
    assert join(client, token, accept_rules=True, code=code, team="alpha").status_code == 201
    desk = client.get("/organiser/c/demo").text
    assert code not in desk
    assert "alice" in desk and "by invitation 1 (TAs)" in desk


def test_the_team_page_says_the_rules_changed_and_takes_them_again(client, solution):
    competition(client, solution, "open")
    _browser(client, "finn")
    csrf = _csrf(client.get("/c/demo/join").text)
    client.post("/c/demo/join", data={"csrf": csrf, "accept_rules": "on", "team": "finn"})
    assert "The rules changed" not in client.get("/c/demo/team").text
    client.patch("/api/competitions/demo", json={"rules": "Other rules."}, headers=organiser())
    page = client.get("/c/demo/team").text
    assert "The rules changed since you accepted them" in page
    form = {"csrf": _csrf(page.split("The rules changed")[1]), "accept_rules": "on", "back": "team"}
    accepted = client.post("/c/demo/join/rules", data=form, follow_redirects=False)
    assert accepted.status_code == 303 and accepted.headers["location"] == "/c/demo/team"
    assert registrations(client)[0]["rules_sha256"] == rules_hash("Other rules.")
    assert "The rules changed" not in client.get("/c/demo/team").text


def test_the_organisers_acts_are_in_the_action_log_without_codes(client, solution):
    competition(client, solution, "list")
    client.post("/api/competitions/demo/teams", json={"name": "alpha"}, headers=organiser())
    account(client, "gus")
    made = invite(client, label="TAs", uses=3)
    client.delete(f"/api/competitions/demo/invitations/{made['id']}", headers=organiser())
    path = "/api/competitions/demo/teams/alpha/members"
    assert client.post(path, json={"account": "gus"}, headers=organiser()).status_code == 201
    refused = client.post(path, json={"account": "nobody"}, headers=organiser())
    assert refused.status_code == 404
    actions = client.app.state.competitions.accounts.actions("demo")
    names = ("invitation.create", "invitation.revoke", "team.member.add")
    mine = [(a.action, a.actor) for a in reversed(actions) if a.action in names]
    assert mine == [
        ("invitation.create", "administrator token"),
        ("invitation.revoke", "administrator token"),
        ("team.member.add", "administrator token"),
    ]
    assert made["code"] not in str([a.detail for a in actions])
    assert {"account": "gus", "team": "alpha"} in [a.detail for a in actions]


def test_the_desk_forms_set_the_registration(client, solution):
    from organiser_helpers import sign_in, status

    csrf = sign_in(client)
    create(client, solution)
    assert client.get("/api/competitions/demo").json()["registration"] == "list"
    desk = client.get("/organiser/c/demo").text
    assert '<option value="list" selected>' in desk
    settings = {
        "csrf": csrf, "daily_quota": "5", "total_quota": "none", "invalid_quota": "20",
        "n_selections": "2", "max_megabytes": "50", "precision": "5",
    }  # fmt: skip
    bad = client.post("/organiser/c/demo/settings", data=settings | {"registration": "everyone"})
    assert bad.status_code == 422
    assert client.get("/api/competitions/demo").json()["registration"] == "list"
    page = client.post("/organiser/c/demo/settings", data=settings | {"registration": "open"})
    assert page.status_code == 200
    assert status(page.text) == "Saved: Registration: list → open."
    assert client.get("/api/competitions/demo").json()["registration"] == "open"
    assert client.post("/api/competitions/demo/close", headers=organiser()).status_code == 200
    assert 'name="registration"' not in client.get("/organiser/c/demo").text


# ----------------------------------------------------------- private and invited
def test_a_private_competition_opens_to_a_stranger_only_with_a_valid_code(client, solution):
    create(client, solution, registration="invitation", rules=RULES, visibility="private")
    missing = client.get("/c/nowhere/join")
    made = invite(client)
    _, token = account(client, "carol")
    # Without a code, or with a wrong one, it is a competition that does not exist.
    for code in (None, "not-a-code"):
        body = {"accept_rules": True} | ({} if code is None else {"code": code})
        refused = join(client, token, **body)
        assert refused.status_code == 404 and refused.json()["error"] == "not_found", refused.text
        page = client.get("/c/demo/join", params={} if code is None else {"code": code})
        assert page.status_code == 404
        assert page.text.replace("demo", "nowhere") == missing.text
    assert client.get("/api/competitions/demo", headers=bearer(token)).status_code == 404
    assert registrations(client) == []
    assert uses(client) == {made["id"]: 0}
    # With the code it opens, and once joined the competition is the account's to see.
    assert client.get("/c/demo/join", params={"code": made["code"]}).status_code == 200
    joined = join(client, token, accept_rules=True, code=made["code"], team="carols")
    assert joined.status_code == 201, joined.text
    assert client.get("/api/competitions/demo", headers=bearer(token)).status_code == 200


@pytest.mark.parametrize("mode", ["list", "open", "invitation"])
def test_the_overview_leads_to_the_join_page_unless_the_organiser_lists_the_teams(
    client, solution, mode
):
    competition(client, solution, mode)
    page = client.get("/c/demo")
    assert page.status_code == 200
    assert ('href="/c/demo/join"' in page.text) == (mode != "list")
    assert ("invitation code the organiser gave you" in page.text) == (mode == "invitation")
    client.post("/api/competitions/demo/close", headers=organiser())
    assert 'href="/c/demo/join"' not in client.get("/c/demo").text
