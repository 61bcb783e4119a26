"""Settings changed over the API while a competition runs (SQLite and
PostgreSQL): ``PATCH /api/competitions/{slug}`` takes each of them, a bad
value is a 422, a fixed setting, selections that do not fit and a change
after the close a 409, never a 500, each leaving the competition as it
was; ``GET .../history`` lists the changes for anyone."""

from __future__ import annotations

import pytest
from server_helpers import add_team, create, organiser, predictions, submit


def _patch(client, body: dict, slug: str = "demo"):
    return client.patch(f"/api/competitions/{slug}", json=body, headers=organiser())


def test_api_settings_change_and_are_listed_in_the_history(client, solution):
    create(client, solution, daily_quota=5)
    changed = _patch(
        client,
        {
            "daily_quota": 3,
            "total_quota": 30,
            "invalid_quota": None,
            "n_selections": 1,
            "max_bytes": 2**20,
            "precision": 3,
            "auto_publish": True,
        },
    )
    assert changed.status_code == 200, changed.text
    body = changed.json()
    assert (body["daily_quota"], body["total_quota"], body["invalid_quota"]) == (3, 30, None)
    assert (body["n_selections"], body["max_bytes"], body["precision"]) == (1, 2**20, 3)
    assert body["auto_publish"] is True
    history = client.get("/api/competitions/demo/history")  # anyone
    assert history.status_code == 200, history.text
    words = [change["words"] for change in history.json()]
    assert words[:3] == [
        "Daily quota: 5 → 3 submissions",
        "Total quota: no limit → 30 submissions",
        "Invalid-file cap: 20 refused files → no limit",
    ]
    assert {change["setting"] for change in history.json()} == {
        "daily_quota",
        "total_quota",
        "invalid_quota",
        "n_selections",
        "max_bytes",
        "precision",
        "auto_publish",
    }
    assert "actor" not in history.json()[0]


def test_api_settings_a_lowered_quota_refuses_the_next_file(client, solution):
    create(client, solution, daily_quota=5)
    token = add_team(client, "alpha")
    assert submit(client, token, predictions(solution, 0)).status_code == 201
    assert _patch(client, {"daily_quota": 1}).status_code == 200
    refused = submit(client, token, predictions(solution, 1))
    assert refused.status_code == 429, refused.text
    assert "its 1 submissions for today" in refused.json()["message"]


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"daily_quota": 0}, 422, "daily_quota must be an integer >= 1, got 0"),
        ({"precision": -1}, 422, "precision must be an integer >= 0, got -1"),
        ({"precision": 10**9}, 422, "precision must be at most 15"),
        ({"mechanism": "ladder"}, 409, "cannot change: they are fixed at its creation"),
        ({"board": "per-rank", "title": "x"}, 409, "fixed at its creation"),
        ({"quota": 3}, 422, "quota"),
    ],
)
def test_api_settings_a_refusal_says_why_and_changes_nothing(client, solution, body, status, words):
    create(client, solution)
    before = client.get("/api/competitions/demo").json()
    refused = _patch(client, body)
    assert refused.status_code == status, refused.text
    assert words.lower() in refused.text.lower()
    assert client.get("/api/competitions/demo").json() == before
    assert client.get("/api/competitions/demo/history").json() == []


def test_api_settings_fewer_selections_than_a_team_selected_is_a_409(client, solution):
    create(client, solution, n_selections=2)
    token = add_team(client, "alpha")
    for seed in (0, 1):
        assert submit(client, token, predictions(solution, seed)).status_code == 201
    selected = client.put(
        "/api/competitions/demo/selection",
        json={"submission_ids": [1, 2]},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert selected.status_code == 200, selected.text
    refused = _patch(client, {"n_selections": 1})
    assert refused.status_code == 409, refused.text
    assert "'alpha'" in refused.json()["message"]
    assert client.get("/api/competitions/demo").json()["n_selections"] == 2


def test_api_settings_after_the_close_only_the_texts_change(client, solution):
    create(client, solution)
    assert client.post("/api/competitions/demo/close", headers=organiser()).status_code == 200
    refused = _patch(client, {"daily_quota": 2, "rules": "Not saved"})
    assert refused.status_code == 409, refused.text
    assert "is closed" in refused.json()["message"]
    saved = _patch(client, {"rules": "Saved"})
    assert saved.status_code == 200 and saved.json()["rules"] == "Saved"
    assert [c["words"] for c in client.get("/api/competitions/demo/history").json()] == [
        "Rules: edited"
    ]


def test_api_settings_need_the_organiser(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    refused = client.patch(
        "/api/competitions/demo",
        json={"daily_quota": 50},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert refused.status_code in (401, 403), refused.text
    assert client.get("/api/competitions/demo").json()["daily_quota"] == 5
