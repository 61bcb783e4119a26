"""Accounts in the browser: sign up, sign in and out with a password, the
account page's personal tokens (shown once, rotated, revoked), and the
refusals of forms from another origin or without the session's CSRF value.
On SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from account_helpers import PASSWORD, bearer, csrf_of, new_token, sign_in, sign_up


def test_sign_up_signs_in_and_the_header_names_the_account(client):
    assert ">Sign in</a>" in client.get("/").text
    page = sign_up(client, "ada", email="Ada@Example.org")
    assert 'id="handle">ada</dd>' in page
    assert "ada@example.org (not verified)" in page
    assert 'href="/account">ada<' in client.get("/").text
    cookie = client.cookies.get("ladderboard_session")
    assert cookie and len(cookie) >= 40


def test_sign_out_revokes_the_session_and_a_copy_of_its_cookie(client, make_client):
    page = sign_up(client, "ada")
    cookie = client.cookies.get("ladderboard_session")
    other = make_client()
    other.cookies.set("ladderboard_session", cookie)
    assert other.get("/account").url.path == "/account"
    client.post("/account/sign-out", data={"csrf": csrf_of(page)})
    assert client.get("/account").url.path == "/account/sign-in"
    assert other.get("/account").url.path == "/account/sign-in"


@pytest.mark.slow
def test_sign_in_with_handle_or_email_and_a_wrong_password_is_counted(make_client):
    client = make_client(auth_failures_per_minute=3)  # the unverified address spends one
    sign_up(client, "ada", email="ada@example.org")
    client.cookies.clear()
    assert sign_in(client, "ADA").url.path == "/account"
    client.cookies.clear()
    # An address names the account once it is verified (anyone may type any address).
    assert sign_in(client, "ada@example.org").url.path == "/account/sign-in"
    accounts = client.app.state.competitions.accounts
    accounts.verify_email(accounts.by_handle("ada").id)
    client.cookies.clear()
    assert sign_in(client, "ada@example.org").url.path == "/account"
    client.cookies.clear()
    first, second = sign_in(client, "ada", "wrong password"), sign_in(client, "nobody", "x" * 12)
    assert (first.status_code, second.status_code) == (401, 401)
    assert "The handle or password is wrong." in first.text
    assert first.text.count("Refused") == 1 and "ladderboard_session" not in client.cookies
    # The address has spent its failures: no password is checked, the right one neither.
    third = sign_in(client, "ada")
    assert third.status_code == 429 and "ladderboard_session" not in client.cookies


@pytest.mark.slow
def test_sign_up_refusals_change_nothing(client, make_client):
    sign_up(client, "ada")
    anonymous = make_client()
    cases = [
        ({"handle": "bob", "password": "short"}, 422, "at least 10 characters"),
        ({"handle": "b", "password": PASSWORD}, 422, "the handle must be"),
        ({"handle": "bob<script>", "password": PASSWORD}, 422, "the handle must be"),
        ({"handle": "bob", "password": "bob"}, 422, "at least 10"),
        ({"handle": "bob-marley", "password": "BOB-MARLEY"}, 422, "must not be the handle"),
        ({"handle": "bob", "email": "bob@", "password": PASSWORD}, 422, "email address"),
        ({"handle": "ADA", "password": PASSWORD}, 409, "is taken"),
    ]
    for data, status, words in cases:
        response = anonymous.post("/account/sign-up", data=data)
        assert response.status_code == status, (data, response.text)
        assert words in response.text.lower()
    assert "ladderboard_session" not in anonymous.cookies
    foreign = anonymous.post(
        "/account/sign-up",
        data={"handle": "mallory", "password": PASSWORD},
        headers={"Origin": "https://evil.example"},
    )
    assert foreign.status_code == 403
    assert sign_in(anonymous, "mallory").status_code == 401
    assert sign_in(anonymous, "bob").status_code == 401


def test_a_personal_token_is_shown_once_rotated_and_revoked(client):
    sign_up(client, "ada")
    token = new_token(client, "laptop")
    page = client.get("/account").text
    assert "laptop" in page and token not in page  # listed, never shown again
    assert client.get("/api/account", headers=bearer(token)).json()["handle"] == "ada"

    token_id = client.get("/api/account/tokens", headers=bearer(token)).json()[0]["id"]
    rotated = client.post(f"/account/tokens/{token_id}/rotate", data={"csrf": csrf_of(page)})
    assert rotated.status_code == 200
    new = rotated.text.split('id="new-token">')[1].split("<")[0]
    assert new != token
    assert client.get("/api/account", headers=bearer(token)).status_code == 401
    assert client.get("/api/account", headers=bearer(new)).status_code == 200

    again = client.post(f"/account/tokens/{token_id}/rotate", data={"csrf": csrf_of(page)})
    assert again.status_code == 404  # the old token is gone for good
    (live,) = [
        t
        for t in client.get("/api/account/tokens", headers=bearer(new)).json()
        if t["revoked_at"] is None
    ]
    assert live["label"] == "laptop"
    revoked = client.post(f"/account/tokens/{live['id']}/revoke", data={"csrf": csrf_of(page)})
    assert revoked.status_code == 200 and revoked.url.path == "/account"
    assert client.get("/api/account", headers=bearer(new)).status_code == 401
    assert "No live tokens." in revoked.text


def test_token_forms_need_the_session_this_origin_and_its_csrf(client, make_client):
    page = sign_up(client, "ada")
    csrf = csrf_of(page)
    refused = [
        client.post("/account/tokens", data={"csrf": "0" * 64, "label": "x"}),
        client.post("/account/tokens", data={"label": "x"}),
        client.post(
            "/account/tokens",
            data={"csrf": csrf, "label": "x"},
            headers={"Origin": "https://evil.example"},
        ),
        make_client().post("/account/tokens", data={"csrf": csrf, "label": "x"}),
    ]
    assert [r.status_code for r in refused] == [403, 403, 403, 401]
    assert client.post("/account/tokens", data={"csrf": csrf, "label": " "}).status_code == 422
    assert "No live tokens." in client.get("/account").text
    # A sign-out from another site leaves the session alone.
    client.post(
        "/account/sign-out", data={"csrf": csrf}, headers={"Origin": "https://evil.example"}
    )
    assert client.get("/account").url.path == "/account"


@pytest.mark.slow
def test_a_sign_in_never_sends_the_browser_to_another_site(client):
    sign_up(client, "ada")
    client.cookies.clear()
    for target in ("//evil.example/", "https://evil.example/", "/\\evil.example"):
        response = client.post(
            "/account/sign-in",
            data={"login": "ada", "password": PASSWORD, "next": target},
            follow_redirects=False,
        )
        assert response.status_code == 303 and response.headers["location"] == "/account"
    response = client.post(
        "/account/sign-in",
        data={"login": "ada", "password": PASSWORD, "next": "/c/demo/team"},
        follow_redirects=False,
    )
    assert response.headers["location"] == "/c/demo/team"
    cookie = response.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie and "path=/" in cookie


def test_passwords_off_means_no_password_form_and_no_password_route(make_client):
    client = make_client(password_sign_in=False)
    assert 'action="/account/sign-in"' not in client.get("/account/sign-in").text
    response = client.post("/account/sign-up", data={"handle": "ada", "password": PASSWORD})
    assert response.status_code == 404
