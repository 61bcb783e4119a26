"""A person's API token acts for the team the account is a member of, with
the team's one quota; a revoked token is refused like any unknown token; an
account in no team of the competition is told to join one (403); and a
participant's token is no organiser's."""

from __future__ import annotations

from server_helpers import bearer, create, flipped, submit


def _competitions(client):
    return client.app.state.competitions


def test_personal_tokens_two_members_submit_for_one_team_on_one_quota(client, solution):
    create(client, solution, daily_quota=2)
    accounts = _competitions(client).accounts
    alice, bob = accounts.create("alice"), accounts.create("bob")
    accounts.create_account_team("demo", alice.id, "owls")
    accounts.add_member("demo", "owls", bob.id)
    _, alice_token = accounts.create_token(alice.id, "cli")
    _, bob_token = accounts.create_token(bob.id, "cli")
    first = submit(client, alice_token, flipped(solution, 0.3, 1))
    second = submit(client, bob_token, flipped(solution, 0.3, 2))
    assert (first.status_code, second.status_code) == (201, 201), second.text
    assert [first.json()["number"], second.json()["number"]] == [1, 2]
    third = submit(client, bob_token, flipped(solution, 0.3, 3))
    assert third.status_code == 429 and third.json()["error"] == "quota", third.text
    status = client.get("/api/competitions/demo/team", headers=bearer(alice_token))
    assert status.status_code == 200, status.text
    assert (status.json()["name"], status.json()["quota"]["used_today"]) == ("owls", 2)


def test_personal_tokens_a_rotated_token_is_refused_and_the_other_member_goes_on(client, solution):
    create(client, solution)
    accounts = _competitions(client).accounts
    alice, bob = accounts.create("alice"), accounts.create("bob")
    accounts.create_account_team("demo", alice.id, "owls")
    accounts.add_member("demo", "owls", bob.id)
    info, old = accounts.create_token(alice.id, "cli")
    _, bob_token = accounts.create_token(bob.id, "cli")
    _, new = accounts.rotate_token(alice.id, info.id)
    refused = submit(client, old, flipped(solution, 0.3, 1))
    assert refused.status_code == 401, refused.text
    assert submit(client, new, flipped(solution, 0.3, 2)).status_code == 201
    assert submit(client, bob_token, flipped(solution, 0.3, 3)).status_code == 201


def test_personal_tokens_an_account_without_a_team_is_told_to_join(client, solution):
    create(client, solution)
    accounts = _competitions(client).accounts
    carol = accounts.create("carol")
    _, token = accounts.create_token(carol.id, "cli")
    refused = submit(client, token, flipped(solution, 0.3, 1))
    assert refused.status_code == 403 and "join" in refused.json()["message"], refused.text
    closing = client.post("/api/competitions/demo/close", headers=bearer(token))
    assert closing.status_code == 403, closing.text
    assert client.get("/api/competitions/demo").json()["closed"] is False
