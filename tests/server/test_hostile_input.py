"""Hostile input on SQLite and PostgreSQL: every refusal is the same clear
4xx on both stores, changes nothing, and costs the server no work it can
refuse without; limits hold across workers; the organiser's session is a
real one; the API leaks nothing about other teams or the split."""

from __future__ import annotations

import gzip
import json
import logging
import socket
import unicodedata
from datetime import UTC, datetime, timedelta

import httpx2
import pytest
from fastapi.testclient import TestClient
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
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from ladderboard.engine import Competitions
from ladderboard.engine.results import aware
from ladderboard.files.solution import Solution
from ladderboard.rules.config import CompetitionConfig
from ladderboard.server.app import create_app
from ladderboard.server.deps import hash_token
from ladderboard.server.local import LocalServer
from ladderboard.server.settings import Settings
from ladderboard.store import (
    CompetitionRow,
    OrganiserSessionRow,
    RateLimitRow,
    RejectionRow,
    SubmissionRow,
    TeamRow,
)
from ladderboard.store.shared_limits import RateLimits


def count(client: TestClient, row) -> int:
    with Session(client.app.state.competitions.engine) as session:
        return session.scalar(select(func.count()).select_from(row))


def create_form(solution: Solution, **fields) -> dict:
    form = {"slug": "demo", "score": "zero_one", "mechanism": "parameter-free-ladder", **fields}
    return {
        "data": form,
        "files": {"solution": ("solution.csv", solution.to_csv(), "text/csv")},
        "headers": organiser(),
    }


# ------------------------------------------------ 1, 2: text the stores disagree on
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("title", "a\x00b"),
        ("title", "x" * 201),
        ("title", "line\nbreak"),
        ("description", "nul \x00 inside"),
        ("description", "d" * 100_001),
        ("slug", "z\u043e"),  # a Cyrillic о: slugs are ASCII
        ("slug", "a\x00"),
        ("slug", "s" * 65),
    ],
)
def test_competition_text_is_refused_alike_and_nothing_is_stored(client, solution, field, value):
    response = client.post("/api/competitions", **create_form(solution, **{field: value}))
    assert response.status_code == 422, response.text
    assert response.json()["error"] == "invalid_request"
    assert field in response.json()["message"].lower()
    assert "\x00" not in response.text
    assert count(client, CompetitionRow) == 0


@pytest.mark.parametrize(
    "name", ["nul\x00name", "n" * 101, "tab\tname", "\ud800", "escape\x1b[31m"]
)
def test_team_names_are_refused_alike(client, solution, name):
    create(client, solution)
    body = json.dumps({"name": name})  # a lone surrogate travels as a JSON escape
    response = client.post(
        "/api/competitions/demo/teams",
        content=body.encode(),
        headers=organiser() | {"Content-Type": "application/json"},
    )
    assert response.status_code == 422, response.text
    assert count(client, TeamRow) == 0


@pytest.mark.parametrize("body", ["form", "file"])
def test_a_message_or_idempotency_key_with_a_nul_spends_nothing(client, solution, body):
    create(client, solution)
    token = add_team(client, "alpha")
    data = predictions(solution, 0)
    if body == "form":
        refused = submit(client, token, data, data={"message": "hi\x00there"})
    else:
        refused = send_file(client, token, data, message="hi\x00there")
    assert refused.status_code == 422, refused.text
    assert "message" in refused.json()["message"].lower()
    send = submit if body == "form" else send_file
    refused = send(client, token, data, headers={"Idempotency-Key": "key\x7f"})
    assert refused.status_code == 422, refused.text
    assert count(client, SubmissionRow) == 0
    assert count(client, RejectionRow) == 0
    assert submit(client, token, data).status_code == 201


@pytest.mark.parametrize("path", ["/api/competitions/a%00b", "/api/competitions/z%D0%BE"])
def test_a_slug_no_competition_can_have_is_a_404(client, path):
    for suffix in ("", "/leaderboard", "/commitment", "/submissions"):
        response = client.get(path + suffix, headers=organiser())
        assert response.status_code in (403, 404), (suffix, response.text)
        assert response.status_code == 404 or suffix == "/submissions"


def test_the_log_of_an_unexpected_error_carries_no_control_character(
    database_url, caplog, monkeypatch
):
    app = create_app(Settings(admin_token=ADMIN, database_url=database_url))

    def broken(slug):
        raise RuntimeError("broken")

    monkeypatch.setattr(app.state.competitions, "competition", broken)
    with TestClient(app, raise_server_exceptions=False) as client, caplog.at_level(logging.ERROR):
        response = client.get("/api/competitions/x%1b%5b2J%0aforged")
    assert response.status_code == 500
    lines = [r.getMessage() for r in caplog.records if r.name == "ladderboard.server.errors"]
    assert lines and all("\x1b" not in line and "\n" not in line for line in lines)
    assert "\\x1b" in lines[0]


# ---------------------------------------------------------------- 3: deep JSON
@pytest.mark.parametrize("field", ["mechanism_params", "score_params"])
@pytest.mark.parametrize("depth", [5, 100_000])
def test_deeply_nested_json_options_are_refused(client, solution, field, depth):
    nested = '{"a": ' + "[" * depth + "]" * depth + "}"
    response = client.post("/api/competitions", **create_form(solution, **{field: nested}))
    assert response.status_code == 422, response.text
    assert "nested" in response.json()["message"]
    assert count(client, CompetitionRow) == 0


# ------------------------------------------------------ 5: a solution gzip bomb
def test_a_solution_that_inflates_past_the_limit_is_refused(make_client, solution):
    client = make_client(max_upload_bytes=200_000)
    rows = "".join(f"{i},0,Public\n" for i in range(60_000))  # about 700 kB of CSV
    bomb = gzip.compress(f"id,target,Usage\n{rows}".encode())
    assert len(bomb) < 200_000
    form = create_form(solution)
    form["files"] = {"solution": ("solution.csv.gz", bomb, "application/gzip")}
    response = client.post("/api/competitions", **form)
    assert response.status_code == 413, response.text
    assert response.json()["error"] == "too_large"
    assert count(client, CompetitionRow) == 0


# -------------------------------------------- 6: refusals before the file is parsed
def _large_file(client, token, content, **kwargs):
    """The file as a body announced as more than 1 MiB: received while the
    submission is admitted, not before."""
    return send_file(client, token, content + b"\n" * (1100 << 10), **kwargs)


@pytest.mark.parametrize(
    "send", [submit, send_file, _large_file], ids=["form", "file", "large file"]
)
@pytest.mark.parametrize("refusal", ["quota", "invalid_cap", "closed"])
def test_refusals_that_need_no_file_do_not_parse_it(client, solution, monkeypatch, refusal, send):
    create(client, solution, daily_quota=1, invalid_quota=1)
    token = add_team(client, "alpha")
    if refusal == "quota":
        assert submit(client, token, predictions(solution, 0)).status_code == 201
    elif refusal == "invalid_cap":
        assert submit(client, token, b"not,a,submission\n").status_code == 400
    else:
        client.post("/api/competitions/demo/close", headers=organiser())
    store = client.app.state.competitions
    parsed = []
    monkeypatch.setattr(store, "submit", lambda *a, **k: parsed.append(a))
    for headers in ({}, {"Idempotency-Key": "a-new-key"}):  # a new key changes nothing
        response = send(client, token, predictions(solution, 1), headers=headers)
        assert response.status_code == (409 if refusal == "closed" else 429), response.text
    assert parsed == []


def test_a_resent_submission_is_answered_after_the_quota_is_spent(client, solution):
    create(client, solution, daily_quota=1)
    token = add_team(client, "alpha")
    data = predictions(solution, 0)
    first = submit(client, token, data, headers={"Idempotency-Key": "k"})
    again = submit(client, token, data, headers={"Idempotency-Key": "k"})
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()


@pytest.mark.slow
@pytest.mark.parametrize("content_type", ["multipart/form-data; boundary=xyz", "text/csv"])
def test_a_refused_submission_is_answered_before_its_body_arrives(
    database_url, solution, content_type
):
    """A live server answers a team whose quota is spent without waiting for
    the 50 MB it announced (the old server read the whole body first)."""
    with LocalServer(database_url) as server, httpx2.Client(base_url=server.url) as http:
        headers = {"Authorization": f"Bearer {server.admin_token}"}
        form = {"slug": "demo", "score": "zero_one", "mechanism": "ladder"}
        form |= {"mechanism_params": '{"eta": 0.01}', "daily_quota": "1"}
        created = http.post(
            "/api/competitions",
            data=form,
            files={"solution": ("s.csv", solution.to_csv(), "text/csv")},
            headers=headers,
        )
        assert created.status_code == 201, created.text
        token = http.post(
            "/api/competitions/demo/teams", json={"name": "alpha"}, headers=headers
        ).json()["token"]
        first = http.post(
            "/api/competitions/demo/submissions",
            files={"file": ("p.csv", predictions(solution, 0), "text/csv")},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert first.status_code == 201, first.text
        head = (
            "POST /api/competitions/demo/submissions HTTP/1.1\r\n"
            f"Host: {server.host}:{server.port}\r\n"
            f"Authorization: Bearer {token}\r\n"
            f"Content-Type: {content_type}\r\n"
            f"Content-Length: {50 * 2**20}\r\n\r\n"
        )
        with socket.create_connection((server.host, server.port), timeout=10) as sock:
            sock.sendall(head.encode() + b"--xyz\r\n")
            status_line = sock.recv(4096).split(b"\r\n", 1)[0]
        assert b" 429 " in status_line


# ------------------------------------------------ 4: the invalid cap under races
@pytest.mark.slow
def test_concurrent_bad_files_never_pass_the_invalid_cap(client, solution):
    from concurrent.futures import ThreadPoolExecutor

    store = client.app.state.competitions
    for round_ in range(20):
        slug = f"race{round_}"
        create(client, solution, slug=slug, invalid_quota=3)
        token = add_team(client, "alpha", slug=slug)
        with ThreadPoolExecutor(16) as pool:
            codes = list(
                pool.map(
                    lambda i, slug=slug, token=token: (
                        submit(client, token, f"bad file {i}\n".encode(), slug=slug).status_code
                    ),
                    range(16),
                )
            )
        assert sorted(codes) == [400] * 3 + [429] * 13, (round_, codes)
        assert store.invalid_count(slug, "alpha") == 3


# ------------------------------------------------------- 7: shared rate limits
def test_rate_limits_are_shared_by_every_worker(database_url, solution):
    settings = Settings(admin_token=ADMIN, database_url=database_url, rate_limit_per_minute=5)
    with TestClient(create_app(settings)) as a, TestClient(create_app(settings)) as b:
        config = CompetitionConfig(score="zero_one", mechanism="parameter-free-ladder")
        a.app.state.competitions.create("demo", solution, config)
        codes = [
            (a if i % 2 else b).get("/api/competitions/demo/leaderboard", headers=organiser())
            for i in range(10)
        ]
    assert [c.status_code for c in codes] == [200] * 5 + [429] * 5
    assert all(int(c.headers["Retry-After"]) >= 1 for c in codes[5:])


@pytest.mark.slow
def test_rate_limits_hold_across_server_processes(database_url, solution):
    # A new connection per request, so that both worker processes take some.
    fresh = httpx2.Limits(max_keepalive_connections=0)
    with (
        LocalServer(database_url, workers=2, rate_limit_per_minute=6) as server,
        httpx2.Client(base_url=server.url, limits=fresh) as client,
    ):
        headers = {"Authorization": f"Bearer {server.admin_token}"}
        created = client.post(
            "/api/competitions",
            data={"slug": "demo", "score": "zero_one", "mechanism": "parameter-free-ladder"},
            files={"solution": ("s.csv", solution.to_csv(), "text/csv")},
            headers=headers,
        )
        assert created.status_code == 201
        codes = [
            client.get("/api/competitions/demo/leaderboard", headers=headers).status_code
            for _ in range(20)
        ]
    assert codes.count(200) == 5, codes  # 6 a minute, one spent on the creation


@pytest.mark.parametrize("token_limit", [1000, 0], ids=["token-limit", "no-token-limit"])
def test_guessed_tokens_are_limited_per_address(make_client, solution, token_limit):
    """Guesses spend their address's failed authentications, with a file or
    without; a valid token from the same address is not refused for them."""
    client = make_client(auth_failures_per_minute=5, rate_limit_per_minute=token_limit)
    create(client, solution)
    token = add_team(client, "alpha")
    codes = [
        client.get("/api/competitions/demo/submissions", headers=bearer(f"guess-{i}")).status_code
        for i in range(3)
    ]
    # A guess sent with a file is counted too.
    codes += [send_file(client, f"guess-{i}", predictions(solution, i)).status_code for i in (3, 4)]
    codes += [
        client.get("/api/competitions/demo/submissions", headers=bearer(f"guess-{i}")).status_code
        for i in range(5, 8)
    ]
    assert codes == [401] * 5 + [429] * 3
    refused = send_file(client, "guess-8", predictions(solution, 0))
    assert refused.status_code == 429 and "failed authentications" in refused.json()["message"]
    assert int(refused.headers["Retry-After"]) >= 1
    with Session(client.app.state.competitions.engine) as session:
        assert session.scalar(select(func.count()).select_from(SubmissionRow)) == 0
    # A team's token (looked up, or found with its competition when it
    # submits) and the organiser's still pass.
    assert (
        client.get("/api/competitions/demo/submissions", headers=bearer(token)).status_code == 200
    )
    for seed, send in enumerate((submit, send_file)):
        assert send(client, token, predictions(solution, seed)).status_code == 201
    assert client.get("/api/competitions/demo/teams", headers=organiser()).status_code == 200
    with Session(client.app.state.competitions.engine) as session:
        spent = session.get(RateLimitRow, "token:" + hash_token(token))
        assert (spent is not None) == bool(token_limit)


def test_a_team_submitting_is_authenticated_by_the_read_that_finds_it(
    make_client, solution, monkeypatch
):
    """A team's submission is authenticated by the read that finds its team:
    the address's failed authentications are neither read nor spent for it,
    even once they are spent."""
    client = make_client(auth_failures_per_minute=2)
    create(client, solution)
    token = add_team(client, "alpha")
    reads: list[str] = []
    take, wait = RateLimits.take, RateLimits.wait

    def counted_take(self: RateLimits, key: str, **kwargs: int) -> int:
        reads.append(key)
        return take(self, key, **kwargs)

    def counted_wait(self: RateLimits, key: str, **kwargs: int) -> int:
        reads.append(key)
        return wait(self, key, **kwargs)

    monkeypatch.setattr(RateLimits, "take", counted_take)
    monkeypatch.setattr(RateLimits, "wait", counted_wait)
    guesses = [send_file(client, f"guess-{i}", predictions(solution, 0)) for i in range(3)]
    assert [guess.status_code for guess in guesses] == [401, 401, 429]
    reads.clear()
    for seed, send in enumerate((submit, send_file)):
        assert send(client, token, predictions(solution, seed)).status_code == 201
    assert not any(key.startswith("auth-failures:") for key in reads), reads


def test_what_a_submission_says_of_itself_is_refused_before_its_token_is_read(
    make_client, solution
):
    """A body of another type (415) and a text field the API refuses (422)
    are answered from the request alone, whatever its token: a guess sent so
    learns nothing of the token and is not counted against the address."""
    client = make_client(auth_failures_per_minute=2)
    create(client, solution)
    data = predictions(solution, 0)
    for token in ("guess-1", "guess-2", "guess-3"):
        assert send_file(client, token, data, content_type="text/html").status_code == 415
        assert send_file(client, token, data, message="a\x00b").status_code == 422
    untyped = client.post("/api/competitions/demo/submissions", content=data)
    assert untyped.status_code == 415
    anonymous = client.post(
        "/api/competitions/demo/submissions", content=data, headers={"Content-Type": "text/csv"}
    )
    assert anonymous.status_code == 401
    # Only now is a guess counted: two are allowed a minute.
    codes = [send_file(client, f"guess-{i}", data).status_code for i in range(3)]
    assert codes == [401, 401, 429]


def test_guessed_organiser_tokens_at_sign_in_are_limited(make_client):
    client = make_client(auth_failures_per_minute=3)
    codes = [
        client.post("/organiser/login", data={"token": f"guess-{i}"}).status_code for i in range(5)
    ]
    assert codes == [401] * 3 + [429] * 2
    right = client.post("/organiser/login", data={"token": ADMIN}, follow_redirects=False)
    assert right.status_code == 303  # the organiser is not locked out by the guesses


# --------------------------------------------------- 8: the organiser's session
def sign_in(client: TestClient) -> str:
    response = client.post("/organiser/login", data={"token": ADMIN}, follow_redirects=False)
    assert response.status_code == 303, response.text
    return response.cookies["ladderboard_organiser"]


def test_each_sign_in_is_a_new_session_that_expires(client):
    first, second = sign_in(client), sign_in(client)
    assert first != second and ADMIN not in first
    client.cookies.clear()
    response = client.post("/organiser/login", data={"token": ADMIN}, follow_redirects=False)
    assert "Max-Age=43200" in response.headers["set-cookie"]
    client.cookies.set("ladderboard_organiser", first, path="/organiser")
    assert "Sign out" in client.get("/organiser").text
    with Session(client.app.state.competitions.engine) as session, session.begin():
        session.execute(
            update(OrganiserSessionRow).values(expires_at=OrganiserSessionRow.created_at)
        )
    assert "Sign out" not in client.get("/organiser").text


def test_sign_out_revokes_the_session_everywhere(client, solution):
    create(client, solution)
    cookie = sign_in(client)
    page = client.get("/organiser").text
    csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    client.post("/organiser/logout", data={"csrf": csrf})
    client.cookies.set("ladderboard_organiser", cookie, path="/organiser")  # a copy kept
    replayed = client.post("/organiser/c/demo/close", data={"csrf": csrf})
    assert replayed.status_code == 401
    assert client.get("/api/competitions/demo").json()["closed"] is False


@pytest.mark.slow
def test_organiser_forms_from_another_origin_are_refused(client, solution):
    create(client, solution)
    sign_in(client)
    page = client.get("/organiser").text
    csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    for headers in ({"Origin": "https://evil.example"}, {"Origin": "null"}):
        forged = client.post("/organiser/c/demo/close", data={"csrf": csrf}, headers=headers)
        assert forged.status_code == 403, forged.text
    del client.headers["Origin"]
    assert client.post("/organiser/c/demo/close", data={"csrf": csrf}).status_code == 403
    assert client.get("/api/competitions/demo").json()["closed"] is False
    closed = client.post(
        "/organiser/c/demo/close", data={"csrf": csrf}, headers={"Origin": "http://testserver"}
    )
    assert closed.status_code == 200
    assert client.get("/api/competitions/demo").json()["closed"] is True


# ----------------------------------------------------------- 9 to 13: leaks
def test_submission_ids_are_each_teams_own_numbers(client, solution):
    create(client, solution)
    alpha, beta = add_team(client, "alpha"), add_team(client, "beta")
    assert submit(client, alpha, predictions(solution, 0)).json()["id"] == 1
    assert submit(client, alpha, predictions(solution, 1)).json()["id"] == 2
    assert submit(client, beta, predictions(solution, 2)).json()["id"] == 1
    own = client.get("/api/competitions/demo/submissions", headers=bearer(beta)).json()
    assert [s["id"] for s in own] == [1]
    duplicate = submit(client, alpha, predictions(solution, 0))
    assert duplicate.status_code == 409 and "submission 1" in duplicate.json()["message"]
    chosen = client.put(
        "/api/competitions/demo/selection", json={"submission_ids": [2]}, headers=bearer(alpha)
    )
    assert chosen.json() == {"selected": [2]}


def test_missing_ids_are_listed_in_an_order_that_hides_the_split(client):
    # Public rows first in the file, with ids that sort the other way.
    ids = [f"p{i}" for i in range(9, -1, -1)] + [f"a{i}" for i in range(10)]
    usage = ["Public"] * 10 + ["Private"] * 10
    rows = "".join(f"{i},{n % 2},{u}\n" for n, (i, u) in enumerate(zip(ids, usage, strict=True)))
    solution = Solution.from_csv(f"id,target,Usage\n{rows}".encode())
    create(client, solution)
    token = add_team(client, "alpha")
    response = submit(client, token, b"id,target\na0,1\n")
    assert response.status_code == 400
    message = response.json()["message"]
    shown = message.split("missing", 1)[1]
    assert shown.index("'a1'") < shown.index("'a2'") < shown.index("'a3'")
    assert "'p" not in shown


def test_look_alike_team_names_are_one_team(client, solution):
    create(client, solution)
    add_team(client, "Zo\u00eb")
    for twin in ("ZOË", unicodedata.normalize("NFD", "Zoë"), "ｚｏë"):
        response = client.post(
            "/api/competitions/demo/teams", json={"name": twin}, headers=organiser()
        )
        assert response.status_code == 409, (twin, response.text)
    assert count(client, TeamRow) == 1


def test_a_closed_competition_takes_no_new_team(client, solution):
    create(client, solution)
    client.post("/api/competitions/demo/close", headers=organiser())
    response = client.post(
        "/api/competitions/demo/teams", json={"name": "late"}, headers=organiser()
    )
    assert response.status_code == 409 and response.json()["error"] == "closed"
    assert count(client, TeamRow) == 0


def test_reads_after_the_deadline_write_the_publication_once(database_url, solution):
    """A competition that publishes automatically is published by the first
    read past its deadline (by the store's time): the close and the
    publication, dated at the deadline, written once; no selection is written
    (a team's ``selected`` stays its own choice, the final one is derived)."""
    now = [datetime.now(UTC)]
    store = Competitions.open(database_url, clock=lambda: now[0], store_clock=lambda: now[0])
    app = create_app(Settings(admin_token=ADMIN, database_url=database_url), competitions=store)
    deadline = now[0] + timedelta(hours=1)
    with TestClient(app) as client:
        create(client, solution, deadline=deadline.isoformat(), auto_publish="true")
        token = add_team(client, "alpha")
        assert submit(client, token, predictions(solution, 0)).status_code == 201
        now[0] += timedelta(hours=2)

        def written():
            with Session(store.engine) as session:
                closed_at, revealed, version = session.execute(
                    select(
                        CompetitionRow.closed_at,
                        CompetitionRow.key_revealed_at,
                        CompetitionRow.board_version,
                    )
                ).one()
                selected = session.scalar(select(func.count()).where(SubmissionRow.selected))
            return closed_at, revealed, version, selected

        assert client.get("/api/competitions/demo/commitment").json()["key"]
        closed_at, revealed, version, selected = written()
        assert (aware(closed_at), aware(revealed), selected) == (deadline, deadline, 0)
        private = client.get("/api/competitions/demo/leaderboard?board=private")
        assert private.status_code == 200
        assert [row["team"] for row in private.json()["rows"]] == ["alpha"]
        assert client.get("/c/demo").status_code == 200
        assert written() == (closed_at, revealed, version, selected)  # once
    store.dispose()


def test_a_response_with_a_token_is_never_cached(client, solution):
    create(client, solution)
    response = client.post(
        "/api/competitions/demo/teams", json={"name": "alpha"}, headers=organiser()
    )
    assert response.status_code == 201
    assert response.headers["Cache-Control"] == "no-store"
