"""Credentials before anything else, on SQLite and PostgreSQL: failed
authentications from one address are limited without locking out the
valid tokens sent from it (issue 36, item 8); a leaked team token is
replaced without taking the team off the board (item 12)."""

from __future__ import annotations

import re

from organiser_helpers import alert, sign_in, status
from server_helpers import (
    ADMIN,
    add_team,
    bearer,
    create,
    organiser,
    predictions,
    send_file,
    submit,
)

from ladderboard.server.team_pages import COOKIE


# ------------------------------------------------ failures do not lock out
def test_failed_authentications_never_refuse_a_valid_token(make_client, solution):
    """A script sending an old token from behind a NAT spends the address's
    failures: its guesses get 429, while the class behind the same address
    (teams and the organiser) goes on working."""
    client = make_client(auth_failures_per_minute=3)
    create(client, solution)
    token = add_team(client, "alpha")
    guesses = [
        client.get("/api/competitions/demo/submissions", headers=bearer(f"old-{i}")).status_code
        for i in range(5)
    ]
    assert guesses == [401] * 3 + [429] * 2
    assert (
        client.get("/api/competitions/demo/submissions", headers=bearer(token)).status_code == 200
    )
    for seed, send in enumerate((submit, send_file)):
        assert send(client, token, predictions(solution, seed)).status_code == 201
    assert client.get("/api/competitions/demo/teams", headers=organiser()).status_code == 200
    signed_in = client.post("/organiser/login", data={"token": ADMIN}, follow_redirects=False)
    assert signed_in.status_code == 303
    assert client.post("/c/demo/team", data={"token": token}).status_code == 200
    # The guesses stay limited meanwhile.
    still = client.get("/api/competitions/demo/submissions", headers=bearer("old-9"))
    assert still.status_code == 429 and int(still.headers["Retry-After"]) >= 1
    assert send_file(client, "old-10", predictions(solution, 5)).status_code == 429


# --------------------------------------------------------- a leaked token
def test_a_reissued_token_replaces_the_old_one_everywhere_and_keeps_the_team(make_client, solution):
    """The organiser replaces a leaked token: the team keeps its place and
    submissions, the old token is refused at once on another server of the
    store, and the browsers signed in as the team are signed out."""
    client, other_host = make_client(), make_client()
    create(client, solution)
    old = add_team(client, "alpha")
    add_team(client, "beta")
    assert submit(client, old, predictions(solution, 1)).status_code == 201
    assert client.post("/c/demo/team", data={"token": old}).status_code == 200
    cookie = client.cookies.get(COOKIE)
    assert client.app.state.competitions.team_sessions.team_of(cookie) is not None
    board_before = client.get("/api/competitions/demo/leaderboard").json()["rows"]

    url = "/api/competitions/demo/teams/alpha/token"
    assert client.post(url).status_code == 401
    assert client.post(url, headers=bearer(old)).status_code == 403
    assert (
        client.post("/api/competitions/demo/teams/nobody/token", headers=organiser()).json()[
            "error"
        ]
        == "not_found"
    )
    reissued = client.post(url, headers=organiser())
    assert reissued.status_code == 200, reissued.text
    assert reissued.headers["cache-control"] == "no-store"
    new = reissued.json()["token"]
    assert reissued.json()["name"] == "alpha" and new != old and len(new) >= 40

    for host in (client, other_host):
        refused = host.get("/api/competitions/demo/submissions", headers=bearer(old))
        assert refused.status_code == 401, refused.text
        assert send_file(host, old, predictions(solution, 2)).status_code == 401
        own = host.get("/api/competitions/demo/submissions", headers=bearer(new))
        assert own.status_code == 200 and len(own.json()) == 1
    assert client.app.state.competitions.team_sessions.team_of(cookie) is None
    assert "Sign in as your team" in client.get("/c/demo/team").text
    assert client.get("/api/competitions/demo/leaderboard").json()["rows"] == board_before
    assert submit(client, new, predictions(solution, 3)).status_code == 201


def test_the_desk_reissues_a_token_from_the_team_row(client, solution):
    create(client, solution)
    old = add_team(client, "alpha")
    csrf = sign_in(client)
    assert "/organiser/c/demo/teams/token" in client.get("/organiser/c/demo").text
    refused = client.post("/organiser/c/demo/teams/token", data={"csrf": "0", "name": "alpha"})
    assert refused.status_code == 403
    assert client.get("/api/competitions/demo/submissions", headers=bearer(old)).status_code == 200
    page = client.post("/organiser/c/demo/teams/token", data={"csrf": csrf, "name": "alpha"})
    assert page.status_code == 200, page.text
    said = status(page.text)
    new = re.search(r"is stored\): (\S+)\. Its old token", said).group(1)
    assert client.get("/api/competitions/demo/submissions", headers=bearer(old)).status_code == 401
    assert client.get("/api/competitions/demo/submissions", headers=bearer(new)).status_code == 200
    unknown = client.post("/organiser/c/demo/teams/token", data={"csrf": csrf, "name": "nobody"})
    assert unknown.status_code == 404 and alert(unknown.text)
