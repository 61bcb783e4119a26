"""A competition created through the API without naming a mechanism runs
ladderboard's default (:data:`ladderboard.recommended.RECOMMENDED`) with its
parameters at the solution's public size, every one stored and returned;
the OpenAPI schema says so. On SQLite and PostgreSQL, in-process."""

from __future__ import annotations

import pytest
from server_helpers import organiser

from ladderboard.mechanisms import parameters_of
from ladderboard.recommended import RECOMMENDED


def _post(client, solution, **form):
    return client.post(
        "/api/competitions",
        data={"slug": "demo", "score": "zero_one", **form},
        files={"solution": ("solution.csv", solution.to_csv(), "text/csv")},
        headers=organiser(),
    )


def test_without_a_mechanism_the_api_creates_the_default_with_explicit_params(client, solution):
    created = _post(client, solution)
    assert created.status_code == 201, created.text
    body = created.json()
    expected = RECOMMENDED.params_at(solution.n_public)
    assert body["mechanism"] == RECOMMENDED.mechanism
    assert body["mechanism_params"] == {**body["mechanism_params"], **expected}
    assert set(body["mechanism_params"]) == {p.name for p in parameters_of(RECOMMENDED.mechanism)}
    stored = client.app.state.competitions.competition("demo").config
    assert (stored.mechanism, stored.mechanism_params) == (
        body["mechanism"],
        body["mechanism_params"],
    )


def test_a_named_mechanism_without_params_is_stored_with_its_defaults(client, solution):
    created = _post(client, solution, mechanism="ladder-boot")
    assert created.status_code == 201, created.text
    assert created.json()["mechanism_params"] == {
        "alpha": 0.15,
        "b": 100,
        "floor": None,
        "precision": None,
    }


def test_params_without_a_mechanism_or_a_default_that_cannot_score_are_refused(client, solution):
    for form, words in (
        ({"mechanism_params": '{"b": 10}'}, "need the mechanism they set: name it"),
        ({"score": "auc"}, f"ladderboard's default, {RECOMMENDED.label}, was tried"),
        ({"score": "squared"}, "'squared' is unbounded: give eta"),
    ):
        refused = _post(client, solution, **form)
        assert refused.status_code == 422, refused.text
        assert words in refused.json()["message"], refused.json()
    assert client.get("/api/competitions").json() == []


@pytest.mark.slow
def test_the_openapi_schema_says_what_an_omitted_mechanism_means(client):
    schema = client.get("/openapi.json").json()
    (body,) = [
        component
        for name, component in schema["components"]["schemas"].items()
        if name.startswith("Body_create_competition")
    ]
    assert "mechanism" not in body.get("required", [])
    described = body["properties"]["mechanism"]["description"]
    assert f"Omitted: ladderboard's default, {RECOMMENDED.label}" in described
    assert "every parameter" in body["properties"]["mechanism_params"]["description"]
