"""Accounts through the API: the account and its personal tokens by personal
token (created, listed without secrets, rotated with the old one refused at
once, revoked), ``whoami`` for a personal token, and the accounts an
administrator creates with a one-time sign-in link. On SQLite and
PostgreSQL."""

from __future__ import annotations

import pytest
from account_helpers import bearer, csrf_of, new_token, sign_up
from server_helpers import ADMIN, add_team, create


@pytest.mark.slow
def test_tokens_through_the_api(client):
    sign_up(client, "ada")
    first = new_token(client, "laptop")
    made = client.post("/api/account/tokens", json={"label": "CI"}, headers=bearer(first))
    assert made.status_code == 201 and made.headers["cache-control"] == "no-store"
    second = made.json()
    assert second["label"] == "CI" and second["token"] not in (first, "")
    listed = client.get("/api/account/tokens", headers=bearer(second["token"])).json()
    assert sorted(t["label"] for t in listed) == ["CI", "laptop"]
    assert all("token" not in t and "token_hash" not in t for t in listed)
    assert next(t for t in listed if t["label"] == "laptop")["last_used_at"] is not None

    rotated = client.post(
        f"/api/account/tokens/{second['id']}/rotate", headers=bearer(first)
    ).json()
    assert client.get("/api/account", headers=bearer(second["token"])).status_code == 401
    assert client.get("/api/account", headers=bearer(rotated["token"])).status_code == 200

    assert rotated["label"] == "CI"
    old = client.delete(f"/api/account/tokens/{second['id']}", headers=bearer(first))
    assert old.status_code == 404  # rotating revoked it
    gone = client.delete(f"/api/account/tokens/{rotated['id']}", headers=bearer(first))
    assert gone.status_code == 204
    assert client.get("/api/account", headers=bearer(rotated["token"])).status_code == 401
    assert client.get("/api/account", headers=bearer(first)).status_code == 200
    again = client.delete(f"/api/account/tokens/{rotated['id']}", headers=bearer(first))
    assert again.status_code == 404


def test_one_account_cannot_touch_anothers_tokens(client, make_client):
    sign_up(client, "ada")
    ada = new_token(client)
    other = make_client()
    sign_up(other, "bob")
    bob = new_token(other)
    bobs = other.get("/api/account/tokens", headers=bearer(bob)).json()[0]["id"]
    assert client.delete(f"/api/account/tokens/{bobs}", headers=bearer(ada)).status_code == 404
    rotate = client.post(f"/api/account/tokens/{bobs}/rotate", headers=bearer(ada))
    assert rotate.status_code == 404
    assert client.get("/api/account", headers=bearer(bob)).json()["handle"] == "bob"


def test_the_account_routes_want_a_personal_token(client, solution):
    create(client, solution)
    team_token = add_team(client, "alpha")
    anonymous = client.get("/api/account", headers={"Authorization": ""})
    assert anonymous.status_code == 401
    for token in (team_token, ADMIN, "x" * 43):  # none is a personal token
        assert client.get("/api/account", headers=bearer(token)).status_code == 401
    made = client.post("/api/account/tokens", json={"label": "x"}, headers=bearer(team_token))
    assert made.status_code == 401


def test_bad_labels_are_refused_and_make_no_token(client):
    sign_up(client, "ada")
    token = new_token(client)
    for label in ("", " ", "x" * 101, "tab\there", "a\x80b", "in\u200bvisible"):
        response = client.post("/api/account/tokens", json={"label": label}, headers=bearer(token))
        assert response.status_code == 422, label
    assert len(client.get("/api/account/tokens", headers=bearer(token)).json()) == 1


def test_whoami_answers_for_a_personal_token(client):
    sign_up(client, "ada")
    token = new_token(client)
    who = client.get("/api/whoami", headers=bearer(token)).json()
    assert who["role"] == "account" and who["account"]["handle"] == "ada"


def test_an_administrator_creates_an_account_with_a_one_time_link(client, make_client):
    made = client.post(
        "/api/accounts",
        json={"handle": "grace", "email": "Grace@Example.org", "role": "organiser"},
        headers=bearer(ADMIN),
    )
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["account"]["role"] == "organiser"
    assert body["account"]["email"] == "grace@example.org"
    link = body["sign_in_link"]
    assert link.startswith("http://testserver/account/email-link?token=")

    browser = make_client()
    landing = browser.get(link)
    assert landing.status_code == 200 and "ladderboard_session" not in browser.cookies
    token = landing.text.split('name="token" value="')[1].split('"')[0]
    page = browser.post("/account/email-link/sign-in", data={"token": token})
    assert page.url.path == "/account" and 'id="handle">grace</dd>' in page.text
    assert "grace@example.org (verified)" in page.text
    used = make_client().post("/account/email-link/sign-in", data={"token": token})
    assert used.status_code == 401
    # Its owner sets a password, then signs in with the handle and it.
    short = browser.post("/account/password", data={"csrf": csrf_of(page.text), "password": "x"})
    assert short.status_code == 422
    saved = browser.post(
        "/account/password", data={"csrf": csrf_of(page.text), "password": "grace's passphrase"}
    )
    assert saved.status_code == 200 and "The password is saved" in saved.text
    foreign = browser.post(
        "/account/password",
        data={"csrf": csrf_of(page.text), "password": "mallory's passphrase"},
        headers={"Origin": "https://evil.example"},
    )
    assert foreign.status_code == 403
    other = make_client()
    signed = other.post(
        "/account/sign-in", data={"login": "grace", "password": "grace's passphrase"}
    )
    assert signed.url.path == "/account"


def test_only_an_administrator_creates_accounts(client, make_client):
    sign_up(client, "ada")
    token = new_token(client)
    body = {"handle": "grace", "role": "admin"}
    assert client.post("/api/accounts", json=body, headers=bearer(token)).status_code == 403
    assert make_client().post("/api/accounts", json=body).status_code == 401
    assert client.post("/api/accounts", json=body, headers=bearer("y" * 43)).status_code == 401
    for bad, status in (
        ({"handle": "ada"}, 409),
        ({"handle": "a b"}, 422),
        ({"handle": "grace", "email": "nope"}, 422),
        ({"handle": "grace", "email": "g\x80@example.org"}, 422),
        ({"handle": "grace", "role": "king"}, 422),
    ):
        response = client.post("/api/accounts", json=bad, headers=bearer(ADMIN))
        assert response.status_code == status, (bad, response.text)
    assert client.post("/api/accounts", json=body, headers=bearer(ADMIN)).status_code == 201


def test_hostile_ids_and_values_are_refused_with_4xx(client):
    page = sign_up(client, "ada")
    token = new_token(client)
    huge = "9" * 25
    answers = [
        client.delete(f"/api/account/tokens/{huge}", headers=bearer(token)),
        client.delete("/api/account/tokens/-1", headers=bearer(token)),
        client.delete("/api/account/tokens/x", headers=bearer(token)),
        client.post(f"/api/account/tokens/{huge}/rotate", headers=bearer(token)),
        client.post(f"/account/tokens/{huge}/revoke", data={"csrf": csrf_of(page)}),
        client.post("/account/sign-in", data={"login": "x" * 5000, "password": "y"}),
        client.post("/api/accounts", json={"handle": "ab\x00c"}, headers=bearer(ADMIN)),
        client.get("/account/email-link?token=" + "x" * 300),
        client.get("/account/oidc/none/callback?state=" + "x" * 300),
    ]
    assert all(400 <= a.status_code < 500 for a in answers), [a.status_code for a in answers]
    assert len(client.get("/api/account/tokens", headers=bearer(token)).json()) == 1
