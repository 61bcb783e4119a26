"""``POST /api/competitions/{slug}/rescore`` on SQLite and PostgreSQL: the
organiser's what-if board, the live board given back by the competition's
own deterministic configuration, bad input refused with 422 (the words of a
creation), and nothing stored or cached."""

from __future__ import annotations

import pytest
from server_helpers import add_team, create, flipped, organiser, submit

URL = "/api/competitions/demo/rescore"


def played(client, solution, **fields) -> None:
    create(client, solution, daily_quota="none", **fields)
    tokens = {name: add_team(client, name) for name in ("alpha", "beta", "gamma")}
    for seed, (name, wrong) in enumerate((("alpha", 0.4), ("beta", 0.3), ("gamma", 0.45),
                                          ("alpha", 0.2))):  # fmt: skip
        assert submit(client, tokens[name], flipped(solution, wrong, seed)).status_code == 201


def board(client, which: str = "public") -> list[tuple]:
    response = client.get(f"/api/competitions/demo/leaderboard?board={which}", headers=organiser())
    assert response.status_code == 200, response.text
    return [(r["rank"], r["team"], r["score"]) for r in response.json()["rows"]]


def what_if(client, **body) -> dict:
    response = client.post(URL, json=body, headers=organiser())
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-store"
    return response.json()


def test_the_competitions_own_ladder_gives_the_live_boards_back(client, solution):
    played(client, solution)
    live, private = board(client), board(client, "private")
    public = what_if(client, mechanism="parameter-free-ladder")
    assert [(r["rank"], r["team"], r["score"]) for r in public["rows"]] == live
    assert public["mechanism"] == "parameter-free-ladder" and public["score"] == "zero_one"
    assert public["board"] == "public" and public["mode"] == "per-team"
    assert isinstance(public["decimals"], int) and isinstance(public["live_decimals"], int)
    assert [(r["live_rank"], r["team"], r["live_score"]) for r in public["rows"]] == live
    assert {r["moved"] for r in public["rows"]} == {0}
    again = what_if(client, mechanism="parameter-free-ladder", board="private")
    assert [(r["rank"], r["team"], r["score"]) for r in again["rows"]] == private


def test_another_mechanism_is_shown_and_nothing_changes(client, solution):
    played(client, solution, mechanism="full-disclosure")
    before = client.get("/api/competitions/demo/leaderboard")
    ladder = what_if(client, mechanism="ladder", mechanism_params={"eta": 0.1})
    assert ladder["mechanism_params"]["eta"] == 0.1  # every parameter, as it ran
    assert {r["team"] for r in ladder["rows"]} == {"alpha", "beta", "gamma"}
    per_rank = what_if(client, mechanism="parameter-free-ladder", mode="per-rank", ranks=2)
    assert len(per_rank["rows"]) == 2 and per_rank["mode"] == "per-rank"
    after = client.get("/api/competitions/demo/leaderboard")
    assert after.content == before.content and after.headers["etag"] == before.headers["etag"]
    competition = client.get("/api/competitions/demo").json()
    assert competition["mechanism"] == "full-disclosure"


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"mechanism": "ladder", "score": "pearson"}, "score 'pearson' is a metric"),
        ({"mechanism": "ladder", "mechanism_params": {"eta": -1}}, "mechanism 'ladder': "),
        ({"mechanism": "no-such-mechanism"}, "unknown mechanism 'no-such-mechanism'"),
        ({"mechanism": "ladder", "score": "no-such-score"}, "'no-such-score' is unknown"),
        ({"mechanism": "ladder", "mechanism_params": {"eta": "high"}}, "eta"),
        ({"mechanism": "ladder", "board": "secret"}, "board"),
        ({"mechanism": "ladder", "mode": "per-person"}, "mode"),
        ({"mechanism": "ladder", "ranks": 0}, "ranks"),
        ({"mechanism": "ladder", "colour": "red"}, "colour"),
        ({"mechanism_params": {}}, "mechanism"),
        ({"mechanism": "ladder", "mechanism_params": {"a": [[[[[1]]]]]}}, "nested"),
    ],
)
@pytest.mark.slow
def test_bad_input_is_a_422_that_names_it(client, solution, body, words):
    played(client, solution)
    response = client.post(URL, json=body, headers=organiser())
    assert response.status_code == 422, response.text
    assert response.json()["error"] == "invalid_request"
    assert words.lower() in response.json()["message"].lower(), response.json()


def test_a_wrong_pair_is_refused_with_the_words_of_a_creation(client, solution):
    played(client, solution)
    pair = {"mechanism": "ladder", "score": "pearson"}
    refused = client.post(URL, json=pair, headers=organiser())
    at_create = client.post(
        "/api/competitions",
        data={"slug": "other", "score": "pearson", "mechanism": "ladder"},
        files={"solution": ("solution.csv", solution.to_csv(), "text/csv")},
        headers=organiser(),
    )
    assert refused.status_code == at_create.status_code == 422
    assert refused.json()["message"] == at_create.json()["message"]
    missing = client.post(
        "/api/competitions/nothing/rescore", json={"mechanism": "ladder"}, headers=organiser()
    )
    assert missing.status_code == 404
