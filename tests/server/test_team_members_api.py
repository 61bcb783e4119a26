"""The team routes for a person's token, on both stores: a team formed by
invitation submits from both members' tokens on one quota; every refusal
is a clear 4xx that changes nothing; a merge counts the retired team's
submissions in the merged team's quota; the history is the organisers'."""

from __future__ import annotations

from server_helpers import bearer, create, flipped, organiser, submit

BASE = "/api/competitions/demo"


def _people(client, *handles: str) -> list[str]:
    """A personal token for each new account, registered in ``demo``."""
    accounts = client.app.state.competitions.accounts
    tokens = []
    for handle in handles:
        account = accounts.create(handle)
        accounts.register("demo", account.id, rules_sha256="0" * 64, via="open")
        tokens.append(accounts.create_token(account.id, "cli")[1])
    return tokens


def _mine(client, token: str) -> dict:
    response = client.get(f"{BASE}/my-team", headers=bearer(token))
    assert response.status_code == 200, response.text
    return response.json()


def _refused(client, token: str, status: int, path: str, **body):
    """A refused POST: its status and error, and nothing changed."""
    before = _mine(client, token)
    response = client.post(f"{BASE}{path}", json=body or None, headers=bearer(token))
    assert response.status_code == status, response.text
    assert set(response.json()) == {"error", "message"}
    assert _mine(client, token) == before
    return response.json()


def test_team_members_api_a_team_by_invitation_submits_on_one_quota(client, solution):
    create(client, solution, daily_quota=2, max_team_size=2)
    ann, bob, cat = _people(client, "ann", "bob", "cat")
    created = client.post(f"{BASE}/my-team", json={"name": "owls"}, headers=bearer(ann))
    assert created.status_code == 201 and created.json()["role"] == "captain", created.text
    invited = client.post(f"{BASE}/my-team/invitations", headers=bearer(ann))
    assert invited.status_code == 201, invited.text
    assert invited.headers["cache-control"] == "no-store"
    code = invited.json()["code"]
    assert invited.json()["link"].endswith(f"/c/demo/join-team?code={code}")
    joined = client.post(f"{BASE}/my-team/join", json={"code": code}, headers=bearer(bob))
    assert joined.status_code == 200, joined.text
    assert [(m["handle"], m["role"]) for m in joined.json()["members"]] == [
        ("ann", "captain"),
        ("bob", "member"),
    ]
    assert "code" not in str(_mine(client, ann)["invitations"])  # never shown again
    assert submit(client, ann, flipped(solution, 0.3, 1)).status_code == 201
    assert submit(client, bob, flipped(solution, 0.3, 2)).status_code == 201
    spent = submit(client, bob, flipped(solution, 0.3, 3))
    assert spent.status_code == 429 and spent.json()["error"] == "quota", spent.text
    # The team is full: a new code is refused at acceptance.
    fresh = client.post(f"{BASE}/my-team/invitations", headers=bearer(ann)).json()["code"]
    anonymous = client.post(f"{BASE}/my-team/join", json={"code": fresh})
    assert anonymous.status_code == 401, anonymous.text
    refused = client.post(f"{BASE}/my-team/join", json={"code": fresh}, headers=bearer(cat))
    assert refused.status_code == 409 and "full" in refused.json()["message"], refused.text
    assert client.get(f"{BASE}/my-team", headers=bearer(cat)).status_code == 404


def test_team_members_api_refusals_are_clear_and_change_nothing(client, solution):
    create(client, solution)
    ann, bob = _people(client, "ann", "bob")
    team_token = client.post(f"{BASE}/teams", json={"name": "listed"}, headers=organiser()).json()[
        "token"
    ]
    client.post(f"{BASE}/my-team", json={"name": "owls"}, headers=bearer(ann))
    code = client.post(f"{BASE}/my-team/invitations", headers=bearer(ann)).json()["code"]
    client.post(f"{BASE}/my-team/join", json={"code": code}, headers=bearer(bob))
    assert _refused(client, bob, 403, "/my-team/invitations")["error"] == "forbidden"
    assert _refused(client, bob, 403, "/my-team/merges", into="listed")["error"] == "forbidden"
    assert _refused(client, ann, 409, "/my-team/leave")["error"] == "conflict"
    assert _refused(client, ann, 409, "/my-team", name="again")["error"] == "conflict"
    assert _refused(client, ann, 409, "/my-team/join", code=code)["error"] == "conflict"
    assert _refused(client, ann, 404, "/my-team/merges/999/accept")["error"] == "not_found"
    assert _refused(client, ann, 404, "/my-team/captain", handle="nobody")["error"] == "not_found"
    assert _refused(client, ann, 422, "/my-team/join", code="")["error"] == "invalid_request"
    assert _refused(client, ann, 422, "/my-team/merges", into="x" * 101)["error"]
    for token in (team_token, "organiser-token-for-the-tests-0123456789"):
        refused = client.get(f"{BASE}/my-team", headers=bearer(token))
        assert refused.status_code == 403, refused.text
    assert client.post(f"{BASE}/my-team/captain", json={"handle": "bob"}, headers=bearer(ann))
    assert _mine(client, bob)["role"] == "captain"
    assert client.post(f"{BASE}/my-team/leave", headers=bearer(ann)).status_code == 204
    assert [m["handle"] for m in _mine(client, bob)["members"]] == ["bob"]


def test_team_members_api_merge_and_history(client, solution):
    create(client, solution, daily_quota=3)
    ann, bob = _people(client, "ann", "bob")
    client.post(f"{BASE}/my-team", json={"name": "owls"}, headers=bearer(ann))
    client.post(f"{BASE}/my-team", json={"name": "bats"}, headers=bearer(bob))
    assert submit(client, ann, flipped(solution, 0.3, 1)).status_code == 201
    assert submit(client, ann, flipped(solution, 0.3, 2)).status_code == 201
    asked = client.post(f"{BASE}/my-team/merges", json={"into": "bats"}, headers=bearer(ann))
    assert asked.status_code == 201 and asked.json()["status"] == "pending", asked.text
    withdrawn = client.post(
        f"{BASE}/my-team/merges/{asked.json()['id']}/withdraw", headers=bearer(ann)
    )
    assert withdrawn.status_code == 200 and withdrawn.json()["status"] == "withdrawn"
    asked = client.post(f"{BASE}/my-team/merges", json={"into": "bats"}, headers=bearer(ann))
    merge = asked.json()["id"]
    assert [m["id"] for m in _mine(client, bob)["merges"]] == [merge]
    accepted = client.post(f"{BASE}/my-team/merges/{merge}/accept", headers=bearer(bob))
    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"
    assert _mine(client, ann)["name"] == "bats"
    assert submit(client, ann, flipped(solution, 0.3, 3)).status_code == 201
    spent = submit(client, bob, flipped(solution, 0.3, 4))
    assert spent.status_code == 429, spent.text  # owls' two count in bats' daily three
    history = client.get(f"{BASE}/teams/bats/history", headers=organiser())
    assert history.status_code == 200, history.text
    assert [e["event"] for e in history.json()][-2:] == ["merge requested", "merge accepted"]
    assert client.get(f"{BASE}/teams/bats/history").status_code == 401
    assert client.get(f"{BASE}/teams/bats/history", headers=bearer(ann)).status_code == 403
