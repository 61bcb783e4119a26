"""The organisers' action log (SQLite and PostgreSQL): each kind of organiser
action, over the API or from the desk, leaves exactly one entry saying who,
what, when and from where; a refused action leaves none; no entry holds a
token or a file's contents."""

from __future__ import annotations

import json
import re

import pytest
from organiser_helpers import sign_in
from server_helpers import add_team, bearer, create, organiser
from test_api_corrections import _flipped

from ladderboard.server.organiser_actions import ACTIONS


def _log(client, slug: str = "demo") -> list[dict]:
    response = client.get(f"/api/competitions/{slug}/actions", headers=organiser())
    assert response.status_code == 200, response.text
    return response.json()


def test_each_kind_of_api_action_leaves_one_entry(client, solution):
    accounts = client.app.state.competitions.accounts
    ola = accounts.create("ola", role="organiser", created_from="testclient")
    accounts.create("pat", created_from="testclient")
    _, token = accounts.create_token(ola.id, "tests")
    owner = bearer(token)
    csv = {"solution": ("solution.csv", solution.to_csv(), "text/csv")}
    form = {"slug": "demo", "score": "zero_one", "mechanism": "parameter-free-ladder"}
    steps = [
        ("competition.create", "POST", "/api/competitions", {"data": form, "files": csv}),
        ("competition.texts", "PATCH", "/api/competitions/demo", {"json": {"title": "Renamed"}}),
        ("competition.settings", "PATCH", "/api/competitions/demo", {"json": {"daily_quota": 3}}),
        (
            "competition.calendar",
            "PATCH",
            "/api/competitions/demo",
            {"json": {"deadline": "2099-01-01T00:00:00+00:00"}},
        ),
        ("team.add", "POST", "/api/competitions/demo/teams", {"json": {"name": "alpha"}}),
        (
            "teams.import",
            "POST",
            "/api/competitions/demo/teams/import",
            {"files": {"file": ("teams.csv", b"name\nbeta\ngamma\n", "text/csv")}},
        ),
        (
            "team.disable",
            "PATCH",
            "/api/competitions/demo/teams/alpha",
            {"json": {"disabled": True}},
        ),
        (
            "team.enable",
            "PATCH",
            "/api/competitions/demo/teams/alpha",
            {"json": {"disabled": False}},
        ),
        ("team.token", "POST", "/api/competitions/demo/teams/alpha/token", {}),
        (
            "files.add",
            "PUT",
            "/api/competitions/demo/files/data.csv",
            {"files": {"file": ("data.csv", b"secret,contents\n", "text/csv")}},
        ),
        ("file.remove", "DELETE", "/api/competitions/demo/files/data.csv", {}),
        ("organiser.add", "POST", "/api/competitions/demo/organisers", {"json": {"handle": "pat"}}),
        ("organiser.remove", "DELETE", "/api/competitions/demo/organisers/pat", {}),
        ("competition.export", "GET", "/api/competitions/demo/export", {}),
        ("competition.close", "POST", "/api/competitions/demo/close", {}),
        (
            "solution.correct",
            "POST",
            "/api/competitions/demo/corrections",
            {
                "data": {"reason": "row 1 was mislabelled"},
                "files": {"solution": ("s.csv", _flipped(solution), "text/csv")},
            },
        ),
        ("competition.publish", "POST", "/api/competitions/demo/publish", {}),
        ("audit.publish", "POST", "/api/competitions/demo/audit", {}),
    ]
    # A look-alike flag's dismissal needs look-alike accounts (test_look_alikes_api);
    # invitations and the list's members, a registration mode (test_registration).
    elsewhere = {
        "look-alike.dismiss",
        "look-alike.restore",
        "invitation.create",
        "invitation.revoke",
        "team.member.add",
    }
    assert {action for action, *_ in steps} == set(ACTIONS) - elsewhere
    secrets = [token]
    for count, (action, method, url, body) in enumerate(steps, 1):
        response = client.request(method, url, headers=owner, **body)
        assert response.status_code < 300, (action, response.text)
        secrets += re.findall(r'"token":"([^"]+)"', response.text)
        log = _log(client)
        assert len(log) == count, (action, log)
        newest = log[0]
        assert (newest["action"], newest["actor"]) == (action, "account ola")
        assert newest["address"] == "testclient"
    text = json.dumps(_log(client))
    assert not any(secret and secret in text for secret in secrets)
    assert "secret,contents" not in text
    assert [entry["action"] for entry in _log(client)] == [a for a, *_ in reversed(steps)]


def test_a_refused_action_leaves_no_entry(client, solution):
    create(client, solution)
    before = _log(client)
    assert client.post("/api/competitions/demo/publish", headers=organiser()).status_code == 409
    assert (
        client.patch(
            "/api/competitions/demo", json={"daily_quota": -1}, headers=organiser()
        ).status_code
        == 422
    )
    assert _log(client) == before


@pytest.mark.slow
def test_desk_forms_are_recorded_as_the_administrator_and_shown_newest_first(client, solution):
    create(client, solution)
    add_team(client, "alpha")
    csrf = sign_in(client)
    client.post("/organiser/c/demo/teams/disable", data={"csrf": csrf, "name": "alpha"})
    client.post("/organiser/c/demo/close", data={"csrf": csrf})
    log = _log(client)
    assert [(e["action"], e["actor"]) for e in log[:3]] == [
        ("competition.close", "administrator token"),
        ("team.disable", "administrator token"),
        ("team.add", "administrator token"),
    ]
    assert log[1]["detail"] == {"team": "alpha"}
    page = client.get("/organiser/c/demo").text
    section = page[page.index('id="actions"') :]
    assert section.index("competition.close") < section.index("team.disable")
