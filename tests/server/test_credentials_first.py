"""Credentials before anything else, on SQLite and PostgreSQL: failed
authentications from one address are limited without locking out the
valid tokens sent from it (issue 36, item 8); a leaked team token is
replaced without taking the team off the board (item 12)."""

from __future__ import annotations

import re

import anyio
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


# ------------------------------------------- credentials before the body
def call(app, method: str, path: str, headers: dict[str, str], chunks, hold=None):
    """Send one request straight to the ASGI ``app``, its body in ``chunks``
    (a list of bytes; ``hold``, an event the last one waits for): its status
    and how many chunks the app read."""
    return anyio.run(acall, app, method, path, headers, chunks, hold)


async def acall(app, method: str, path: str, headers: dict[str, str], chunks, hold=None):
    """:func:`call` on the running event loop."""
    read = 0
    status: list[int] = []

    async def receive():
        nonlocal read
        if read < len(chunks):
            read += 1
            if hold is not None and read == len(chunks):
                await hold.wait()
            return {"type": "http.request", "body": chunks[read - 1], "more_body": True}
        if hold is not None:
            await hold.wait()
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            status.append(message["status"])

    scope = {
        "type": "http", "method": method, "path": path, "raw_path": path.encode(),
        "query_string": b"", "root_path": "", "scheme": "http", "http_version": "1.1",
        "server": ("testserver", 80), "client": ("10.0.0.9", 1234), "app": app,
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }  # fmt: skip
    await app(scope, receive, send)
    return status[0], read


MULTIPART = {"Content-Type": "multipart/form-data; boundary=x"}
BIG = [b"--x\r\n" + b"a" * 2**20] * 48  # a 48 MiB form, chunked


def test_writes_without_credentials_are_refused_before_their_body(make_client, solution):
    client = make_client()
    create(client, solution)
    token = add_team(client, "alpha")
    app = client.app
    refused = {
        ("POST", "/api/competitions", None): 401,
        ("POST", "/api/competitions", token): 401,
        ("POST", "/api/competitions/demo/teams/import", None): 401,
        ("POST", "/api/competitions/demo/teams/import", token): 403,
        ("PUT", "/api/competitions/demo/files/x.csv", None): 401,
        ("PUT", "/api/competitions/demo/files/x.csv", "not-a-token"): 401,
        ("PUT", "/api/competitions/demo/selection", None): 401,
        ("POST", "/api/competitions/demo/submissions", None): 401,
        ("POST", "/organiser/competitions", None): 401,
        ("POST", "/organiser/c/demo/files", None): 401,
    }
    for (method, path, who), expected in refused.items():
        headers = MULTIPART | ({} if who is None else bearer(who))
        if path.endswith("submissions"):
            headers = {"Content-Type": "text/csv", "Content-Length": str(2**20)}
        assert call(app, method, path, headers, BIG) == (expected, 0), (method, path, who)


def test_bodies_have_small_caps_where_no_file_goes(make_client, solution):
    client = make_client()
    create(client, solution)
    token = add_team(client, "alpha")
    big_json = {"Content-Type": "application/json", "Content-Length": str(40 * 10**6)}
    selection = "/api/competitions/demo/selection"
    assert call(client.app, "PUT", selection, big_json | bearer(token), BIG) == (413, 0)
    chunked = call(
        client.app, "PUT", selection, {"Content-Type": "application/json"} | bearer(token), BIG
    )
    assert chunked[0] == 413 and chunked[1] <= 1
    form = {"Content-Type": "application/x-www-form-urlencoded", "Content-Length": str(10**6)}
    assert call(client.app, "POST", "/c/demo/team", form, BIG) == (413, 0)
    assert call(client.app, "POST", "/organiser/login", form, BIG) == (413, 0)


def test_a_stalled_body_times_out_and_receipts_are_bounded(make_client, solution):
    client = make_client(body_timeout_seconds=0.3, upload_slots=1)
    create(client, solution)
    path = "/api/competitions/demo/files/notes.csv"
    stalled = call(client.app, "PUT", path, MULTIPART | organiser(), [b"--x\r\n"], anyio.Event())
    assert stalled[0] == 408
    results: list[tuple[int, int]] = []

    async def both() -> None:
        hold = anyio.Event()
        slow = [b"--x\r\n"]

        async def first() -> None:
            results.append(
                await acall(client.app, "PUT", path, MULTIPART | organiser(), slow, hold)
            )

        async with anyio.create_task_group() as group:
            group.start_soon(first)
            await anyio.sleep(0.05)
            results.append(await acall(client.app, "PUT", path, MULTIPART | organiser(), BIG))

    anyio.run(both)
    assert results[0] == (503, 0)  # the second, while the first holds the only slot
    assert results[1][0] == 408  # the first: its hold outlasted the body timeout
