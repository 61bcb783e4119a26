"""Probes of the public/private split through the API, on SQLite and
PostgreSQL: a file that differs only in whether a row it singles out is
public or private gets answers a team cannot tell apart (the status, the
shape of the body, the error and its message, what it costs of the quota),
whatever the score, the mechanism or the idempotency key it is sent under.

The public score itself depends on the public rows, as every score does:
what reaches the team of it is the mechanism's release, always a number."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fastapi.testclient import TestClient
from server_helpers import add_team, bearer, create, organiser, submit

from ladderboard.engine.audit import verify
from ladderboard.files.solution import Solution

N = 40


@pytest.fixture(scope="module")
def real_solution() -> Solution:
    labels = np.random.default_rng(3).normal(size=N).round(3)
    return Solution.from_labels(labels, public_fraction=0.5, random_state=0)


def _rows(solution: Solution) -> tuple[str, str, str]:
    """A public row the probes know, a second public row and a private row."""
    public = [solution.ids[i] for i in solution.public_rows]
    private = [solution.ids[i] for i in solution.private_rows]
    return public[0], public[1], private[0]


def _file(solution: Solution, values: dict[str, float], elsewhere: float = 0.0) -> bytes:
    rows = "".join(f"{i},{values.get(i, elsewhere)!r}\n" for i in solution.ids)
    return f"id,target\n{rows}".encode()


def _answer(client: TestClient, token: str, response, slug: str) -> dict:
    """What a team reads of one submission: the status, the body's keys, the
    error (code and message) or whether the release is a number, and the
    quota and refused files it is left with."""
    body = response.json()
    if response.status_code == 201:
        score = body["public_score"]
        said = {"release is a number": isinstance(score, float) and math.isfinite(score)}
    else:
        said = {"error": body["error"], "message": body["message"]}
    status = client.get(f"/api/competitions/{slug}/team", headers=bearer(token)).json()
    quota = {k: v for k, v in status["quota"].items() if k != "resets_at"}
    return {
        "status": response.status_code,
        "keys": sorted(body),
        **said,
        "quota": quota,
        "refused": [(r["code"], r["message"]) for r in status["rejections"]],
    }


def _probe(client: TestClient, slug: str, files: dict[str, bytes], headers=None) -> dict:
    """Each file of ``files`` sent by a fresh team of its own; their answers."""
    answers = {}
    for name, content in files.items():
        token = add_team(client, name, slug=slug)
        response = submit(client, token, content, slug=slug, headers=headers or {})
        assert response.status_code != 500, response.text
        answers[name] = _answer(client, token, response, slug)
    return answers


# ------------------------------------- 1: a part the metric leaves undefined
@pytest.mark.parametrize(
    ("mechanism", "params"),
    [
        ("metric-full-disclosure", "{}"),
        ("bayes-boot-ladder", '{"B": 50}'),
        ("bayes-boot-ladder-boot", '{"B": 50, "b": 20}'),
    ],
)
@pytest.mark.parametrize("score", ["pearson", "spearman"])
def test_a_part_the_correlation_leaves_undefined_does_not_tell_the_split(
    client, real_solution, database_url, score, mechanism, params
):
    """1 on a known public row and 2 on row x: the private part is constant
    when x is public. 1 on x alone: the public part is constant when x is
    private. Each file is scored, its undefined part as the metric's worst
    value, whichever part x is in; the boards replay."""
    slug = "corr"
    create(
        client, real_solution, slug=slug, score=score, mechanism=mechanism, mechanism_params=params
    )
    known, public_x, private_x = _rows(real_solution)
    answers = _probe(
        client,
        slug,
        {
            "pair-public": _file(real_solution, {known: 1.0, public_x: 2.0}),
            "pair-private": _file(real_solution, {known: 1.0, private_x: 2.0}),
            "one-public": _file(real_solution, {public_x: 1.0}),
            "one-private": _file(real_solution, {private_x: 1.0}),
        },
    )
    assert answers["pair-public"] == answers["pair-private"]
    assert answers["one-public"] == answers["one-private"]
    assert answers["pair-public"]["status"] == 201
    assert answers["pair-public"]["quota"]["used_total"] == 1
    # A file the metric leaves undefined on every row is refused, whatever the split.
    token = add_team(client, "constant", slug=slug)
    refused = submit(client, token, _file(real_solution, {}, elsewhere=0.5), slug=slug)
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"] == "undefined_score"
    store = client.app.state.competitions
    assert verify(store, slug).submissions == 4
    # The organiser's private board is numbers: an undefined part counts as the worst.
    private = client.get(
        f"/api/competitions/{slug}/leaderboard", params={"board": "private"}, headers=organiser()
    )
    assert private.status_code == 200, private.text
    scores = [row["score"] for row in private.json()["rows"]]
    assert len(scores) == 4 and all(isinstance(s, float) for s in scores), scores
    assert -1.0 in scores


# ------------------------------------------------ 2: a loss that is not finite
@pytest.mark.parametrize(
    ("mechanism", "params"),
    [
        ("full-disclosure", "{}"),
        ("ladder", '{"eta": 0.01}'),
        ("parameter-free-ladder", "{}"),
        ("significance-ladder", "{}"),
        ("ladder-boot", "{}"),
    ],
)
@pytest.mark.parametrize("score", ["squared", "absolute"])
def test_a_loss_that_is_not_finite_is_a_bad_file_whichever_part(
    client, real_solution, score, mechanism, params
):
    """A row whose loss is past the largest float (squared: 1e200), or two
    rows each under it whose losses add up past it: on a known public row and
    row x, public or private, the same 400, one invalid file, no quota spent."""
    slug = "loss"
    create(
        client, real_solution, slug=slug, score=score, mechanism=mechanism, mechanism_params=params
    )
    known, public_x, private_x = _rows(real_solution)
    if score == "squared":
        huge = {public_x: {public_x: 1e200}, private_x: {private_x: 1e200}}
        large = 1e154
    else:  # no one row's absolute loss passes the largest float
        huge = {x: {known: 1.7e308, x: 1.7e308} for x in (public_x, private_x)}
        large = 1e308
    answers = _probe(
        client,
        slug,
        {
            "huge-public": _file(real_solution, huge[public_x]),
            "huge-private": _file(real_solution, huge[private_x]),
            "sum-public": _file(real_solution, {known: large, public_x: large}),
            "sum-private": _file(real_solution, {known: large, private_x: large}),
        },
    )
    assert answers["huge-public"] == answers["huge-private"]
    assert answers["sum-public"] == answers["sum-private"]
    for answer in answers.values():
        assert answer["status"] == 400
        assert answer["error"] == "score_not_finite"
        assert (answer["quota"]["used_total"], answer["quota"]["invalid"]) == (0, 1)


# --------------------------------------- 5: a used idempotency key, another file
@pytest.mark.parametrize("spent", [None, "quota", "invalid cap"])
@pytest.mark.slow
def test_a_used_key_refuses_another_file_before_reading_it(
    client, real_solution, monkeypatch, spent
):
    """Under a key already used, another file is the Conflict, unparsed and
    not counted as invalid; the probes of items 1 and 2 under it are
    answered alike; the first file resent under it gets the first answer."""
    import ladderboard.engine.targets as targets

    slug = "keys"
    quotas = {None: {}, "quota": {"daily_quota": 1}, "invalid cap": {"invalid_quota": 1}}[spent]
    create(
        client,
        real_solution,
        slug=slug,
        score="pearson",
        mechanism="metric-full-disclosure",
        **quotas,
    )
    known, public_x, private_x = _rows(real_solution)
    parsed = []
    real_parse = targets.parse_submission
    monkeypatch.setattr(
        targets, "parse_submission", lambda *a, **k: parsed.append(a) or real_parse(*a, **k)
    )
    probes = {
        "pair-public": _file(real_solution, {known: 1.0, public_x: 2.0}),
        "pair-private": _file(real_solution, {known: 1.0, private_x: 2.0}),
        "bad": b"not,a,submission\n",
    }
    answers = {}
    for name, content in probes.items():
        token = add_team(client, name, slug=slug)
        first = submit(
            client,
            token,
            _file(real_solution, {known: 3.0}),
            slug=slug,
            headers={"Idempotency-Key": "k"},
        )
        assert first.status_code == 201, first.text
        if spent == "invalid cap":
            assert submit(client, token, b"not,a,submission\n", slug=slug).status_code == 400
        parsed.clear()
        response = submit(client, token, content, slug=slug, headers={"Idempotency-Key": "k"})
        assert response.status_code == 409, response.text
        assert response.json()["error"] == "conflict"
        assert parsed == []
        answers[name] = _answer(client, token, response, slug)
        again = submit(
            client,
            token,
            _file(real_solution, {known: 3.0}),
            slug=slug,
            headers={"Idempotency-Key": "k"},
        )
        assert again.status_code == 201
        assert again.json() == first.json()
    assert answers["pair-public"] == answers["pair-private"] == answers["bad"]
    assert answers["bad"]["quota"]["used_total"] == 1
    assert answers["bad"]["quota"]["invalid"] == (1 if spent == "invalid cap" else 0)
