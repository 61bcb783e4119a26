"""Every refusal: its status and its JSON body, on SQLite and PostgreSQL."""

from __future__ import annotations

import json

import anyio
import pytest
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
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ladderboard.store import RejectionRow, SubmissionRow


def refused(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error", "message"}
    assert body["error"] == code
    assert body["message"][0].isupper() and body["message"].endswith(".")
    return body


def test_400_for_a_bad_submission_file(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    body = refused(submit(client, token, b"id,pred\n0,1\n"), 400, "missing_column")
    assert "target" in body["message"]
    refused(submit(client, token, b""), 400, "empty")


def test_400_for_a_bad_solution_file(client):
    response = client.post(
        "/api/competitions",
        data={"slug": "bad", "score": "zero_one", "mechanism": "parameter-free-ladder"},
        files={"solution": ("solution.csv", b"id,target\n1,0\n", "text/csv")},
        headers=organiser(),
    )
    body = refused(response, 400, "bad_solution")
    assert "Usage" in body["message"]


def test_401_without_or_with_an_unknown_token(client, solution):
    create(client, solution)
    data = predictions(solution, 1)
    refused(client.post("/api/competitions/demo/close"), 401, "unauthorized")
    refused(submit(client, "not-a-token", data), 401, "unauthorized")
    # A body received while the token is read (more than 1 MiB, or chunked)
    # is abandoned, and the refusal answered.
    refused(send_file(client, "not-a-token", data + b"\n" * (1100 << 10)), 401, "unauthorized")
    refused(send_file(client, "not-a-token", iter([data, data])), 401, "unauthorized")
    response = client.post(
        "/api/competitions/demo/submissions",
        files={"file": ("p.csv", data)},
        headers={"Authorization": f"Basic {ADMIN}"},
    )
    refused(response, 401, "unauthorized")
    assert response.headers["www-authenticate"] == "Bearer"
    refused(client.get("/api/competitions/demo/submissions"), 401, "unauthorized")
    refused(client.post("/api/competitions/demo/teams", json={"name": "x"}), 401, "unauthorized")


def test_403_for_the_wrong_role(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    refused(client.post("/api/competitions/demo/close", headers=bearer(token)), 403, "forbidden")
    refused(
        client.post("/api/competitions/demo/teams", json={"name": "b"}, headers=bearer(token)),
        403,
        "forbidden",
    )
    refused(submit(client, ADMIN, predictions(solution, 1)), 403, "forbidden")
    refused(
        client.get("/api/competitions/demo/leaderboard?board=private", headers=bearer(token)),
        403,
        "private_board",
    )
    refused(
        client.get("/api/competitions/demo/leaderboard.csv?board=private"), 403, "private_board"
    )


def test_404_for_what_does_not_exist(client, solution):
    refused(client.get("/api/competitions/nope"), 404, "not_found")
    refused(client.get("/api/competitions/nope/leaderboard"), 404, "not_found")
    refused(client.get("/api/nowhere"), 404, "not_found")
    create(client, solution)
    token = add_team(client, "alpha")
    response = client.put(
        "/api/competitions/demo/selection", json={"submission_ids": [999]}, headers=bearer(token)
    )
    refused(response, 404, "not_found")


def test_409_for_duplicates_conflicts_and_the_close(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    data = predictions(solution, 1)
    assert submit(client, token, data).status_code == 201
    refused(submit(client, token, data), 409, "duplicate")
    refused(
        client.post("/api/competitions/demo/teams", json={"name": "alpha"}, headers=organiser()),
        409,
        "conflict",
    )
    again = client.post(
        "/api/competitions",
        data={"slug": "demo", "score": "zero_one", "mechanism": "parameter-free-ladder"},
        files={"solution": ("solution.csv", solution.to_csv())},
        headers=organiser(),
    )
    refused(again, 409, "conflict")
    client.post("/api/competitions/demo/close", headers=organiser())
    refused(submit(client, token, predictions(solution, 2)), 409, "closed")


def test_413_for_files_over_the_limits(make_client, solution):
    client = make_client(max_upload_bytes=400)
    tiny = solution.__class__.from_labels([0, 1] * 5, public_fraction=0.5, random_state=0)
    create(client, tiny)
    token = add_team(client, "alpha")
    refused(submit(client, token, b"x" * 401), 413, "too_large")
    refused(send_file(client, token, b"x" * 401), 413, "too_large")  # the file as the body
    refused(
        client.post(
            "/api/competitions/demo/submissions",
            content=b"x" * (2 << 20),
            headers=bearer(token) | {"Content-Type": "application/octet-stream"},
        ),
        413,
        "too_large",
    )

    def chunks():  # no Content-Length: counted as it streams in
        yield b'--b\r\nContent-Disposition: form-data; name="file"; filename="p.csv"\r\n\r\n'
        for _ in range(40):
            yield b"x" * 65536

    refused(
        client.post(
            "/api/competitions/demo/submissions",
            content=chunks(),
            headers=bearer(token) | {"Content-Type": "multipart/form-data; boundary=b"},
        ),
        413,
        "too_large",
    )
    # The competition's own limit, set by the organiser and checked by the engine.
    create(client, tiny, slug="small", max_bytes="100")
    assert client.app.state.competitions.competition("small").config.max_bytes == 100
    small = add_team(client, "alpha", slug="small")
    refused(submit(client, small, b"id,target\n" + b"0,1\n" * 50, slug="small"), 413, "too_large")


def sent_raw(client, token: str, announced: int, parts: list[bytes]) -> tuple[int, dict]:
    """A file body sent to the app as an HTTP server hands it over: its
    ``Content-Length`` header says ``announced``, ``parts`` arrive, then the
    client goes away. The answer's status and JSON."""
    messages = iter([{"type": "http.request", "body": p, "more_body": True} for p in parts])
    sent: list[dict] = []

    async def receive() -> dict:
        return next(messages, {"type": "http.disconnect"})

    async def send(message: dict) -> None:
        sent.append(message)

    headers = bearer(token) | {"Content-Type": "text/csv", "Content-Length": str(announced)}
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/api/competitions/demo/submissions", "raw_path": b"",
        "root_path": "", "query_string": b"", "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80), "app": client.app,
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }  # fmt: skip
    anyio.run(client.app, scope, receive, send)
    return sent[0]["status"], json.loads(sent[1]["body"])


@pytest.mark.parametrize("announced", [200, 2 << 20], ids=["received-first", "while-admitted"])
def test_422_for_a_file_body_cut_short_and_nothing_is_stored(client, solution, announced):
    """A client that goes away mid-body (its body announced small, so received
    before the admission, or large, so received while admitted) is refused and
    leaves nothing behind: no submission, no refused file, the day's one
    submission still unspent."""
    create(client, solution, daily_quota=1)
    token = add_team(client, "alpha")
    status, body = sent_raw(client, token, announced, [b"id,target\n0,1\n"])
    assert (status, body["error"]) == (422, "invalid_request")
    assert body["message"] == "The body ended before it was complete."
    assert stored(client) == (0, 0)
    assert send_file(client, token, predictions(solution, 0)).status_code == 201


def test_422_for_a_small_file_body_longer_than_it_announced(client, solution):
    """A body announced as small is held in memory whole: no more of it than
    its ``Content-Length`` said (a request both sized and chunked, which some
    HTTP servers frame as chunked) is taken, and nothing is stored."""
    create(client, solution, daily_quota=1)
    token = add_team(client, "alpha")
    data = predictions(solution, 0)
    status, body = sent_raw(client, token, 100, [data[:100], data[100:]])
    assert (status, body["error"]) == (422, "invalid_request")
    assert "longer than its Content-Length" in body["message"]
    assert stored(client) == (0, 0)
    assert send_file(client, token, data).status_code == 201


def stored(client) -> tuple[int, int]:
    """The store's submissions and refused files."""
    with Session(client.app.state.competitions.engine) as session:
        return tuple(
            session.scalar(select(func.count()).select_from(row))
            for row in (SubmissionRow, RejectionRow)
        )


@pytest.mark.parametrize(
    "content_type", [None, "application/json", "application/x-www-form-urlencoded", "text/html"]
)
def test_415_for_a_submission_that_is_neither_a_file_nor_a_form(client, solution, content_type):
    create(client, solution, daily_quota=1)
    token = add_team(client, "alpha")
    data = predictions(solution, 0)
    body = refused(
        send_file(client, token, data, content_type=content_type), 415, "unsupported_media_type"
    )
    assert "text/csv" in body["message"] and "multipart/form-data" in body["message"]
    assert stored(client) == (0, 0)
    assert send_file(client, token, data).status_code == 201  # the day's one submission


def test_422_for_a_submission_body_that_says_nothing(client, solution):
    """An empty body, and a message both in the query and in a form, are
    refused before anything is spent: not the quota, not the invalid cap."""
    create(client, solution, daily_quota=2, invalid_quota=1)
    token = add_team(client, "alpha")
    body = refused(send_file(client, token, b""), 422, "invalid_request")
    assert "empty" in body["message"]
    twice = client.post(
        "/api/competitions/demo/submissions",
        params={"message": "a"},
        files={"file": ("p.csv", predictions(solution, 0), "text/csv")},
        data={"message": "b"},
        headers=bearer(token),
    )
    assert "query" in refused(twice, 422, "invalid_request")["message"]
    long = send_file(client, token, predictions(solution, 0), message="m" * 10_000)
    refused(long, 422, "invalid_request")
    assert stored(client) == (0, 0)
    assert send_file(client, token, predictions(solution, 0)).status_code == 201
    assert send_file(client, token, b"not,a\nsubmission\n").status_code == 400  # cap unspent


def test_405_names_the_methods_a_path_takes(client):
    paths = {
        "/api/competitions/demo/submissions": "GET, POST",
        "/api/competitions": "GET, POST",
        "/api/competitions/demo/teams": "GET, POST",
        "/healthz": "GET",
    }
    for path, allowed in paths.items():
        response = client.put(path, headers=organiser())
        body = refused(response, 405, "method_not_allowed")
        assert response.headers["allow"] == allowed
        assert body["message"].endswith(f"(it takes {allowed}).")
    # A mounted app's 405 keeps what it says it takes.
    response = client.post("/static/style.css")
    assert response.status_code == 405 and response.headers["allow"] == "GET, HEAD"
    assert "(it takes GET, HEAD)" in response.text


def test_422_for_a_bad_form(client, solution):
    files = {"solution": ("solution.csv", solution.to_csv())}

    def create_with(**form):
        base = {"slug": "demo", "score": "zero_one", "mechanism": "parameter-free-ladder"}
        return client.post("/api/competitions", data=base | form, files=files, headers=organiser())

    body = refused(
        client.post("/api/competitions", data={"slug": "x"}, files=files, headers=organiser()),
        422,
        "invalid_request",
    )
    assert "score" in body["message"]
    assert "mechanism" in refused(create_with(mechanism="magic"), 422, "invalid_request")["message"]
    refused(create_with(mechanism_params="{not json"), 422, "invalid_request")
    refused(create_with(mechanism_params="[1]"), 422, "invalid_request")
    refused(create_with(daily_quota="many"), 422, "invalid_request")
    refused(create_with(daily_quota="0"), 422, "invalid_request")
    refused(create_with(deadline="2030-01-01T00:00:00"), 422, "invalid_request")
    refused(create_with(slug="no spaces"), 422, "invalid_request")
    refused(create_with(board="sideways"), 422, "invalid_request")
    create(client, solution)
    token = add_team(client, "alpha")
    refused(client.get("/api/competitions/demo/leaderboard?board=secret"), 422, "invalid_request")
    refused(
        client.put("/api/competitions/demo/selection", json={"ids": [1]}, headers=bearer(token)),
        422,
        "invalid_request",
    )
    refused(
        client.post("/api/competitions/demo/teams", json={"name": ""}, headers=organiser()),
        422,
        "invalid_request",
    )
    ids = [submit(client, token, predictions(solution, s)).json()["id"] for s in range(3)]
    refused(
        client.put(
            "/api/competitions/demo/selection", json={"submission_ids": ids}, headers=bearer(token)
        ),
        422,
        "invalid_request",
    )


def test_429_for_the_quota_with_retry_after(client, solution):
    create(client, solution, daily_quota=1)
    token = add_team(client, "alpha")
    assert submit(client, token, predictions(solution, 1)).json()["remaining_today"] == 0
    response = submit(client, token, predictions(solution, 2))
    refused(response, 429, "quota")
    assert 1 <= int(response.headers["retry-after"]) <= 86400


def test_429_for_the_rate_limit_with_retry_after(make_client, solution):
    client = make_client(rate_limit_per_minute=3)
    create(client, solution)
    token = add_team(client, "alpha")
    url = "/api/competitions/demo/submissions"
    for _ in range(3):
        assert client.get(url, headers=bearer(token)).status_code == 200
    response = client.get(url, headers=bearer(token))
    refused(response, 429, "rate_limited")
    assert int(response.headers["retry-after"]) >= 1
    # Per token: another token, and anonymous requests, are not slowed down.
    other = add_team(client, "beta")
    assert client.get(url, headers=bearer(other)).status_code == 200
    assert client.get("/api/competitions/demo").status_code == 200


def test_429_for_anonymous_self_registration_too_fast(make_client, solution):
    client = make_client(rate_limit_per_minute=2, allow_self_registration=True)
    create(client, solution)
    url = "/api/competitions/demo/teams"
    assert client.post(url, json={"name": "a"}).status_code == 201
    assert client.post(url, json={"name": "b"}).status_code == 201
    response = client.post(url, json={"name": "c"})
    refused(response, 429, "rate_limited")
    assert "address" in response.json()["message"]


def test_a_page_and_the_api_answer_a_refusal_with_the_same_status():
    """An oversized solution is a 413 on the organiser's page as in the API."""
    from ladderboard.files.solution import SolutionError
    from ladderboard.files.submission import SubmissionError
    from ladderboard.server.errors import status_of
    from ladderboard.server.rendering import refusal

    too_large = SolutionError("the file is larger than 1 MB, the size limit")
    too_large.code = "too_large"
    for exc in (too_large, SubmissionError("too_large", "the file is larger than the limit")):
        assert status_of(exc) == 413
        assert refusal(exc)[0] == 413


def test_submitting_refuses_each_caller_as_every_team_route_does(client, solution):
    """The submission route finds its caller in one read; its refusals are
    those of the team routes that use the dependencies one by one (here the
    team's own list), status, code and sentence, for every kind of caller
    and a competition that exists or not."""
    create(client, solution)
    create(client, solution, slug="other")
    own, elsewhere = add_team(client, "alpha"), add_team(client, "beta", slug="other")
    callers = {
        "nobody": {},
        "basic": {"Authorization": f"Basic {ADMIN}"},
        "unknown": bearer("not-a-token"),
        "organiser": organiser(),
        "another competition's team": bearer(elsewhere),
        "this competition's team": bearer(own),
    }
    data = predictions(solution, 1)
    for slug in ("demo", "nope", "Nope!"):
        for who, headers in callers.items():
            listed = client.get(f"/api/competitions/{slug}/submissions", headers=headers)
            posted = client.post(
                f"/api/competitions/{slug}/submissions",
                files={"file": ("p.csv", data)},
                headers=headers,
            )
            if listed.status_code == 200:
                assert (slug, who, posted.status_code) == ("demo", "this competition's team", 201)
                continue
            assert (who, posted.status_code, posted.json()) == (
                who,
                listed.status_code,
                listed.json(),
            )
