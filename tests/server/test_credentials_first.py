"""Credentials before anything else, on SQLite and PostgreSQL: failed
authentications from one address are limited without locking out the
valid tokens sent from it (issue 36, item 8)."""

from __future__ import annotations

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
