"""Guards of people's accounts and teams, each a way past them found by
review: a personal token opens no team session that would outlive it; a
team that has submitted keeps its members (no new quota by leaving); a token
team outlives its last account; ids past 64 bits are a 422; an account with
the administrator's role makes accounts; an unverified address names no
account at sign-in."""

from __future__ import annotations

from datetime import timedelta

import pytest
from server_helpers import add_team, bearer, create, flipped, submit


def _accounts(client):
    return client.app.state.competitions.accounts


def _person(client, handle: str, slug: str = "demo", team: str | None = None) -> str:
    """A new account that joined ``slug`` itself (in ``team``, if given): its token."""
    accounts = _accounts(client)
    person = accounts.create(handle)
    accounts.register(slug, person.id, rules_sha256="0" * 64, via="open")
    if team is not None:
        accounts.create_account_team(slug, person.id, team)
    return accounts.create_token(person.id, "cli")[1]


def test_a_personal_token_opens_no_team_session(client, solution):
    create(client, solution)
    token = _person(client, "bob", team="owls")
    signed = client.post("/c/demo/team", data={"token": token}, follow_redirects=False)
    assert signed.status_code == 403 and "sign in to your account" in signed.text
    assert "ladderboard_team" not in client.cookies


def test_a_team_that_has_submitted_keeps_its_members(client, solution):
    create(client, solution, total_quota=2)
    token = _person(client, "ada", team="owls")
    assert submit(client, token, flipped(solution, 0.3, 1)).status_code == 201
    left = client.post("/api/competitions/demo/my-team/leave", headers=bearer(token))
    assert left.status_code == 409 and "has submitted" in left.json()["message"], left.text
    again = client.post(
        "/api/competitions/demo/my-team", json={"name": "owls2"}, headers=bearer(token)
    )
    assert again.status_code == 409, again.text
    assert [t.name for t in client.app.state.competitions.teams("demo")] == ["owls"]


def test_a_token_team_outlives_its_last_account(client, solution):
    create(client, solution)
    team_token = add_team(client, "T")
    accounts = _accounts(client)
    ada = accounts.create("ada")
    accounts.add_member("demo", "T", ada.id)
    ada_token = accounts.create_token(ada.id, "cli")[1]
    left = client.post("/api/competitions/demo/my-team/leave", headers=bearer(ada_token))
    assert left.status_code in (200, 204), left.text
    assert submit(client, team_token, flipped(solution, 0.3, 1)).status_code == 201


def test_ids_past_64_bits_are_refused_as_invalid(client, solution):
    create(client, solution)
    token = _person(client, "ada", team="owls")
    huge = "99999999999999999999"
    for method, url in (
        ("DELETE", f"/api/competitions/demo/my-team/invitations/{huge}"),
        ("POST", f"/api/competitions/demo/my-team/merges/{huge}/accept"),
        ("POST", f"/api/competitions/demo/my-team/merges/{huge}/withdraw"),
    ):
        answer = client.request(method, url, headers=bearer(token))
        assert answer.status_code == 422, (url, answer.text)


def test_an_account_with_the_administrators_role_makes_accounts(client):
    accounts = _accounts(client)
    admin = accounts.create("root", role="admin")
    token = accounts.create_token(admin.id, "cli")[1]
    made = client.post("/api/accounts", json={"handle": "newbie"}, headers=bearer(token))
    assert made.status_code == 201, made.text
    participant = _accounts(client).create_token(accounts.create("pat").id, "cli")[1]
    refused = client.post("/api/accounts", json={"handle": "other"}, headers=bearer(participant))
    assert refused.status_code == 403, refused.text


@pytest.mark.slow
def test_an_unverified_address_names_no_account_at_sign_in(client):
    def sign_up(handle: str) -> None:
        form = {"handle": handle, "email": "v@uni.example", "password": "a long password"}
        client.post("/account/sign-up", data=form)
        client.cookies.clear()

    def sign_in(login: str) -> int:
        answer = client.post(
            "/account/sign-in",
            data={"login": login, "password": "a long password"},
            follow_redirects=False,
        )
        client.cookies.clear()
        return answer.status_code

    sign_up("victim")
    sign_up("eve")  # the same address, which neither has proven to own
    assert sign_in("victim") == 303  # by handle, as ever
    assert sign_in("v@uni.example") == 401  # an unverified address names nobody
    victim = _accounts(client).by_handle("victim")
    _accounts(client).verify_email(victim.id)
    assert sign_in("v@uni.example") == 303  # the one verified owner


def test_the_team_pages_sign_out_signs_a_members_account_out(client, solution):
    create(client, solution)
    accounts = _accounts(client)
    _person(client, "ada", team="owls")
    cookie = accounts.open_session(accounts.by_handle("ada").id, timedelta(hours=1))
    client.cookies.set("ladderboard_session", cookie)
    page = client.get("/c/demo/team")
    csrf = page.text.split('action="/c/demo/team/sign-out"')[1].split('name="csrf" value="')[1]
    client.post("/c/demo/team/sign-out", data={"csrf": csrf.split('"')[0]})
    assert accounts.session_account(cookie) is None  # revoked in the store, not only dropped
