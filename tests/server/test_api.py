"""The API's whole flow, in-process, on SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import gzip
import io
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from server_helpers import add_team, bearer, create, organiser, predictions, send_file, submit
from sqlalchemy import select
from sqlalchemy.orm import Session

from ladderboard.engine.audit import verify
from ladderboard.server.deps import hash_token
from ladderboard.store import TeamRow


def test_the_full_flow(client, solution):
    created = create(client, solution, title="Demo", description="Guess the bits.")
    assert created["slug"] == "demo"
    assert created["title"] == "Demo"
    assert created["n_public"] == solution.n_public
    assert len(created["commitment"]) == 64
    assert created["closed"] is False

    listed = client.get("/api/competitions").json()
    assert [c["slug"] for c in listed] == ["demo"]
    assert client.get("/api/competitions/demo").json() == created

    alpha, beta = add_team(client, "alpha"), add_team(client, "beta")
    assert alpha != beta and len(alpha) >= 40

    first = submit(client, alpha, predictions(solution, 1), data={"message": "first try"})
    assert first.status_code == 201, first.text
    body = first.json()
    assert set(body) == {
        "number",
        "id",
        "public_score",
        "score_of",
        "previous_score",
        "explanation",
        "status",
        "decimals",
        "remaining_today",
        "late",
        "private_score",
    }
    assert body["status"] == "scored"
    assert body["late"] is False and body["private_score"] is None
    mechanism = created["mechanism"]
    assert body["score_of"] == ("file" if "full-disclosure" in mechanism else "team")
    assert body["remaining_today"] == 4
    second = submit(client, alpha, predictions(solution, 2)).json()
    assert second["remaining_today"] == 3
    assert submit(client, beta, predictions(solution, 3)).status_code == 201

    own = client.get("/api/competitions/demo/submissions", headers=bearer(alpha)).json()
    assert [s["number"] for s in own] == [body["number"], second["number"]] == [1, 2]
    assert all(s["id"] == s["number"] for s in [body, second, *own])  # the old name too
    assert own[0]["message"] == "first try"
    assert all(s["private_score"] is None and s["best"] is None for s in own)
    assert {s["score_of"] for s in own} == {body["score_of"]}

    for field in ("numbers", "submission_ids"):  # the field's name, and the one clients sent
        chosen = client.put(
            "/api/competitions/demo/selection",
            json={field: [second["number"]]},
            headers=bearer(alpha),
        )
        assert chosen.status_code == 200, chosen.text
        assert chosen.json() == {"selected": [second["number"]]}

    public = client.get("/api/competitions/demo/leaderboard").json()
    assert public["board"] == "public" and public["closed"] is False
    assert sorted(row["team"] for row in public["rows"]) == ["alpha", "beta"]
    assert {row["team"]: row["entries"] for row in public["rows"]} == {"alpha": 2, "beta": 1}
    # The rows serialised once and put in the envelope: the JSON of the whole schema.
    from ladderboard.server.schemas import BoardRowOut, LeaderboardOut

    board = client.app.state.competitions.leaderboard("demo")
    whole = LeaderboardOut(
        slug="demo",
        board="public",
        closed=False,
        decimals=created["decimals"],
        rows=[BoardRowOut.of(r) for r in board],
    )
    for _ in range(2):  # serialised, then kept
        answer = client.get("/api/competitions/demo/leaderboard")
        assert answer.content == whole.model_dump_json().encode()
        assert answer.headers["content-type"] == "application/json"

    hidden = client.get("/api/competitions/demo/leaderboard?board=private", headers=bearer(alpha))
    assert hidden.status_code == 403
    preview = client.get("/api/competitions/demo/leaderboard?board=private", headers=organiser())
    assert preview.status_code == 200
    assert client.get("/api/competitions/demo/commitment").json()["key"] is None

    closed = client.post("/api/competitions/demo/close", headers=organiser())
    assert closed.status_code == 200 and closed.json()["closed"] is True
    assert closed.json()["published"] is False
    published = client.post("/api/competitions/demo/publish", headers=organiser())
    assert published.status_code == 200 and published.json()["published"] is True

    private = client.get("/api/competitions/demo/leaderboard?board=private")
    assert private.status_code == 200, private.text
    assert sorted(row["team"] for row in private.json()["rows"]) == ["alpha", "beta"]
    own = client.get("/api/competitions/demo/submissions", headers=bearer(alpha)).json()
    assert all(s["private_score"] is not None for s in own)
    assert [s["selected"] for s in own] == [False, True]
    alpha_private = next(r for r in private.json()["rows"] if r["team"] == "alpha")
    assert alpha_private["score"] == own[1]["private_score"]

    commitment = client.get("/api/competitions/demo/commitment").json()
    assert commitment["commitment"] == created["commitment"]
    assert len(commitment["key"]) >= 32

    report = verify(client.app.state.competitions, "demo", key_hex=commitment["key"])
    assert report.submissions == 3

    exported = client.get("/api/competitions/demo/leaderboard.csv?board=private")
    assert exported.status_code == 200
    assert exported.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(exported.text)))
    assert [r["team"] for r in rows] == [r["team"] for r in private.json()["rows"]]
    assert float(rows[0]["score"]) == private.json()["rows"][0]["score"]


def test_healthz_and_openapi(client):
    assert client.get("/healthz").json() == {"status": "ok", "database": "ok"}
    paths = client.get("/openapi.json").json()["paths"]
    assert {
        "/api/competitions",
        "/api/competitions/{slug}",
        "/api/competitions/{slug}/teams",
        "/api/competitions/{slug}/submissions",
        "/api/competitions/{slug}/selection",
        "/api/competitions/{slug}/leaderboard",
        "/api/competitions/{slug}/leaderboard.csv",
        "/api/competitions/{slug}/close",
        "/api/competitions/{slug}/commitment",
        "/healthz",
    } <= set(paths)
    assert client.get("/docs").status_code == 200
    schema = client.get("/openapi.json").json()
    refusal = schema["paths"]["/api/competitions/{slug}/submissions"]["post"]["responses"]
    assert {"400", "401", "403", "404", "409", "413", "422", "429"} <= set(refusal)
    assert refusal["422"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorOut")
    assert "HTTPValidationError" not in schema["components"]["schemas"]


def test_a_file_sent_as_the_body_is_scored_as_the_same_file_in_a_form(client, solution):
    """The ladderboard client sends the file as the whole body (gzip or
    not), the message in the query; a browser sends a form. The same file is
    scored alike either way, and its message is kept."""
    create(client, solution)
    data = predictions(solution, 3)
    tokens = {kind: add_team(client, kind) for kind in ("form", "csv", "gzip", "octets")}
    sent = {
        "form": submit(client, tokens["form"], data, data={"message": "first try"}),
        "csv": send_file(client, tokens["csv"], data, message="first try"),
        "gzip": send_file(
            client,
            tokens["gzip"],
            gzip.compress(data),
            content_type="application/gzip",
            message="first try",
        ),
        "octets": send_file(
            client, tokens["octets"], data, content_type="Application/Octet-Stream; x=1"
        ),
    }
    for kind, response in sent.items():
        assert response.status_code == 201, (kind, response.text)
    scores = {kind: response.json()["public_score"] for kind, response in sent.items()}
    assert scores["form"] is not None and len(set(scores.values())) == 1, scores
    for kind, token in tokens.items():
        (own,) = client.get("/api/competitions/demo/submissions", headers=bearer(token)).json()
        assert own["message"] == ("" if kind == "octets" else "first try"), (kind, own)


def _chunked(client, token, content, **kwargs):
    """The file as the body, sent in pieces with no ``Content-Length``
    (``Transfer-Encoding: chunked``): received while its submission is admitted."""
    pieces = iter([content[: len(content) // 3], content[len(content) // 3 :]])
    return send_file(client, token, pieces, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("send", [submit, send_file, _chunked], ids=["form", "file", "chunked"])
def test_idempotency_key_returns_the_first_result(client, solution, send):
    create(client, solution)
    token = add_team(client, "alpha")
    data = predictions(solution, 7)
    key = {"Idempotency-Key": "upload-1"}
    first = send(client, token, data, headers=key)
    again = send(client, token, data, headers=key)
    assert first.status_code == again.status_code == 201, first.text
    assert again.json()["id"] == first.json()["id"]
    other = send(client, token, predictions(solution, 8), headers=key)
    assert other.status_code == 409 and other.json()["error"] == "conflict"
    (own,) = client.get("/api/competitions/demo/submissions", headers=bearer(token)).json()
    assert own["id"] == first.json()["id"]


def test_a_file_body_sent_in_pieces_is_scored_as_the_file_sent_whole(client, solution):
    create(client, solution)
    data = predictions(solution, 4)
    whole = send_file(client, add_team(client, "whole"), data, message="m")
    pieces = _chunked(client, add_team(client, "pieces"), data, message="m")
    assert whole.status_code == pieces.status_code == 201, pieces.text
    assert pieces.json()["public_score"] == whole.json()["public_score"] is not None


def test_self_registration(make_client, solution):
    client = make_client(allow_self_registration=True)
    create(client, solution)
    response = client.post("/api/competitions/demo/teams", json={"name": "newcomers"})
    assert response.status_code == 201, response.text
    token = response.json()["token"]
    assert submit(client, token, predictions(solution, 1)).status_code == 201


def test_team_tokens_are_stored_hashed_and_shown_once(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    with Session(client.app.state.competitions.engine) as session:
        stored = session.scalars(select(TeamRow.token_hash)).all()
    assert stored == [hash_token(token)]
    listed = client.get("/api/competitions/demo", headers=organiser()).text
    assert token not in listed


def test_a_team_downloads_its_own_files_as_the_schema_documents(client, solution):
    """The file comes back as it was sent, typed as the schema says (gzip or
    CSV); a team asks only by its own numbers, so another's are not there."""
    create(client, solution)
    alpha, beta = add_team(client, "alpha"), add_team(client, "beta")
    packed = gzip.compress(predictions(solution, 1), mtime=0)
    assert send_file(client, alpha, packed, content_type="application/gzip").status_code == 201
    url = "/api/competitions/demo/submissions/1/file"
    answer = client.get(url, headers=bearer(alpha))
    assert answer.status_code == 200 and answer.content == packed
    assert answer.headers["content-type"] == "application/gzip"
    assert 'filename="demo-submission-1.csv.gz"' in answer.headers["content-disposition"]
    assert client.get(url, headers=bearer(beta)).json()["error"] == "not_found"
    assert client.get(url).status_code == 401
    assert client.get(url, headers=organiser()).status_code == 403
    assert client.get(url.replace("/1/", "/one/"), headers=bearer(alpha)).status_code == 422
    documented = client.get("/openapi.json").json()["paths"][
        "/api/competitions/{slug}/submissions/{number}/file"
    ]["get"]["responses"]["200"]["content"]
    assert set(documented) == {"text/csv", "application/gzip"}


def test_csv_export_defuses_formulas_in_team_names(client, solution):
    create(client, solution)
    token = add_team(client, "=HYPERLINK(0)")
    assert submit(client, token, predictions(solution, 1)).status_code == 201
    exported = client.get("/api/competitions/demo/leaderboard.csv").text
    assert exported.splitlines()[1].split(",")[1] == "'=HYPERLINK(0)"


def test_whoami_names_the_organiser_or_the_team_of_a_token(client, solution):
    create(client, solution)
    alpha = add_team(client, "alpha")
    assert client.get("/api/whoami", headers=organiser()).json() == {
        "role": "organiser",
        "teams": [],
        "account": None,
    }
    assert client.get("/api/whoami", headers=bearer(alpha)).json() == {
        "role": "team",
        "teams": [{"competition": "demo", "team": "alpha"}],
        "account": None,
    }
    for headers in ({}, bearer("not-a-token-of-this-server")):
        refused = client.get("/api/whoami", headers=headers)
        assert refused.status_code == 401 and refused.json()["error"] == "unauthorized"


@pytest.mark.parametrize("slots", [1, 3])
@pytest.mark.slow
def test_a_worker_scores_at_most_its_slots_of_submissions_at_once(make_client, solution, slots):
    """``submission_slots`` bounds the submissions one worker scores at once
    (the rest wait their turn); every one of a burst is still answered, each
    as if alone."""
    teams = 4
    client = make_client(submission_slots=slots)
    create(client, solution)
    tokens = [add_team(client, f"t{i}") for i in range(teams)]
    competitions = client.app.state.competitions
    original, under_way, most = competitions.submit, [0], [0]
    guard = threading.Lock()

    def counted(*args, **kwargs):
        with guard:
            under_way[0] += 1
            most[0] = max(most[0], under_way[0])
        try:
            time.sleep(0.2)  # long enough for the others to arrive
            return original(*args, **kwargs)
        finally:
            with guard:
                under_way[0] -= 1

    competitions.submit = counted
    try:
        with ThreadPoolExecutor(teams) as pool:
            files = [predictions(solution, i) for i in range(teams)]
            answers = list(pool.map(lambda i: submit(client, tokens[i], files[i]), range(teams)))
    finally:
        competitions.submit = original
    assert [a.status_code for a in answers] == [201] * teams
    assert most[0] == slots


@pytest.mark.slow
def test_a_poll_of_the_board_is_answered_304_until_the_board_changes(client, solution):
    """The JSON board carries an ETag; sent back in ``If-None-Match`` it
    gets 304 and no body while the board, and its envelope, stay the same;
    a submission or the close changes it. The same rows give the same tag
    in any process (a digest of the JSON, not of the process's objects)."""
    create(client, solution)
    alpha = add_team(client, "alpha")
    url = "/api/competitions/demo/leaderboard"
    first = client.get(url)
    tag = first.headers["etag"]
    assert first.status_code == 200 and first.headers["cache-control"] == "no-cache"
    for sent in (tag, f"W/{tag}", f'"other", {tag}', "*"):
        again = client.get(url, headers={"If-None-Match": sent})
        assert (again.status_code, again.content, again.headers["etag"]) == (304, b"", tag)
    assert client.get(url, headers={"If-None-Match": '"other"'}).status_code == 200
    assert submit(client, alpha, predictions(solution, 1)).status_code == 201
    changed = client.get(url, headers={"If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["etag"] != tag
    assert [row["team"] for row in changed.json()["rows"]] == ["alpha"]
    fresh = client.app.state.board_json.__class__()  # another worker's serialiser
    served = client.app.state.competitions.kept_board("demo")  # what the API serialises
    assert fresh.digest(served) == client.app.state.board_json.digest(served)
    client.post("/api/competitions/demo/close", headers=organiser())
    closed = client.get(url, headers={"If-None-Match": changed.headers["etag"]})
    assert closed.status_code == 200 and closed.json()["closed"] is True
    private = client.get(f"{url}?board=private", headers=organiser())
    assert private.headers["cache-control"] == "private, no-cache"
