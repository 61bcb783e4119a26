"""The calendar over HTTP, with the engine's clock injected: a file before
the opening is refused with 409 and spends nothing (in each of the ways a
file is sent), the public board is frozen for everyone but the organiser,
late files are answered with ``late: true`` and shown on the late board;
no refusal is a 500."""

from __future__ import annotations

from datetime import timedelta

from server_helpers import add_team, bearer, create, flipped, organiser, send_file, submit

from engine_helpers import DEADLINE, FREEZE, OPENS


def _calendar(client, solution, **fields):
    return create(
        client,
        solution,
        opens_at=OPENS.isoformat(),
        freeze_at=FREEZE.isoformat(),
        deadline=DEADLINE.isoformat(),
        late_submissions="true",
        daily_quota=3,
        **fields,
    )


def _board(client, **kwargs):
    response = client.get("/api/competitions/demo/leaderboard", **kwargs)
    assert response.status_code == 200, response.text
    body = response.json()
    return body["frozen_since"], [(r["team"], r["score"], r["entries"]) for r in body["rows"]]


def test_calendar_api_refuses_before_the_opening_and_spends_nothing(clocked, solution):
    client, _ = clocked
    created = _calendar(client, solution)
    assert created["opens_at"].startswith("2026-03-02T00:00:00")
    assert created["freeze_at"].startswith("2026-03-06T00:00:00")
    assert created["late_submissions"] is True
    token = add_team(client, "alpha")
    file = flipped(solution, 0.2, 0)
    answers = [
        submit(client, token, file),
        send_file(client, token, file),
        send_file(client, token, file, headers={"Idempotency-Key": "k1"}),
        send_file(client, token, b"not,a\nsubmission\n"),
    ]
    for response in answers:
        assert response.status_code == 409, response.text
        assert response.json()["error"] == "not_open"
        assert "opens at 2026-03-02 00:00:00 UTC" in response.json()["message"]
    quota = client.get("/api/competitions/demo/team", headers=bearer(token)).json()["quota"]
    assert (quota["used_today"], quota["used_total"], quota["invalid"]) == (0, 0, 0)
    assert client.get("/api/competitions/demo/submissions", headers=bearer(token)).json() == []
    # Data and pages are there before the opening.
    assert client.get("/api/competitions/demo/files").status_code == 200
    assert "Submissions open at 2026-03-02 00:00 UTC" in client.get("/c/demo/rules").text
    overview = client.get("/c/demo").text
    assert "Not open yet: submissions open at" in overview and "2026-03-02 00:00" in overview


def test_calendar_api_freeze_and_late_board(clocked, solution):
    client, clock = clocked
    _calendar(client, solution)
    alpha, beta = add_team(client, "alpha"), add_team(client, "beta")
    clock.now = OPENS + timedelta(hours=1)
    assert submit(client, alpha, flipped(solution, 0.4, 1)).status_code == 201
    assert submit(client, beta, flipped(solution, 0.3, 2)).status_code == 201
    _, before = _board(client)

    clock.now = FREEZE + timedelta(hours=1)
    first = client.get("/api/competitions/demo/leaderboard")
    released = submit(client, alpha, flipped(solution, 0.05, 3))
    assert released.status_code == 201 and released.json()["late"] is False
    frozen_since, rows = _board(client)
    assert frozen_since.startswith("2026-03-06T00:00:00") and rows == before
    # The ETag stays: the board anonymous readers poll has not changed.
    etag = first.headers["etag"]
    again = client.get("/api/competitions/demo/leaderboard", headers={"If-None-Match": etag})
    assert again.status_code == 304
    csv = client.get("/api/competitions/demo/leaderboard.csv").text
    assert ",1," in csv and ",2," not in csv  # each team's entries as at the freeze
    live_since, live = _board(client, headers=organiser())
    assert live_since is None and live != before
    seen = client.get("/api/competitions/demo/leaderboard?board=participants", headers=organiser())
    assert seen.json()["frozen_since"].startswith("2026-03-06")
    assert [(r["team"], r["score"], r["entries"]) for r in seen.json()["rows"]] == before
    page = client.get("/c/demo/leaderboard").text
    assert "Frozen since" in page and "2026-03-06 00:00" in page

    clock.now = DEADLINE + timedelta(hours=1)
    assert _board(client) == (None, live)
    late = submit(client, beta, flipped(solution, 0.5, 4))
    assert late.status_code == 409 and late.json()["error"] == "closed"  # not published yet
    assert client.post("/api/competitions/demo/publish", headers=organiser()).status_code == 200
    private = client.get("/api/competitions/demo/leaderboard?board=private").json()["rows"]
    late = submit(client, beta, flipped(solution, 0.0, 5), headers={"Idempotency-Key": "late-1"})
    assert late.status_code == 201, late.text
    body = late.json()
    assert body["late"] is True and body["private_score"] == 0.0 and body["public_score"] == 0.0
    assert "late board" in body["explanation"]
    resent = submit(client, beta, flipped(solution, 0.0, 5), headers={"Idempotency-Key": "late-1"})
    assert resent.json()["number"] == body["number"]
    other = submit(client, beta, flipped(solution, 0.2, 6), headers={"Idempotency-Key": "late-1"})
    assert other.status_code == 409
    bad = submit(client, beta, b"not,a\nsubmission\n")
    assert bad.status_code == 400
    assert client.get("/api/competitions/demo/leaderboard?board=private").json()["rows"] == private
    assert _board(client) == (None, live)
    board = client.get("/api/competitions/demo/late-board").json()
    assert board["late"] is True
    assert [(r["team"], r["private_score"], r["entries"]) for r in board["rows"]] == [
        ("beta", 0.0, 1)
    ]
    own = client.get("/api/competitions/demo/late-submissions", headers=bearer(beta)).json()
    assert [(r["number"], r["private_score"]) for r in own] == [(1, 0.0)]
    assert client.get("/api/competitions/demo/late-submissions").status_code == 401
    page = client.get("/c/demo/late").text
    assert "Late board" in page and "beta" in page and "not part of the final ranking" in page
    signed_in = client.post("/c/demo/team", data={"token": beta}, follow_redirects=False)
    assert signed_in.status_code == 303
    page = client.get("/c/demo/team").text
    assert "Late submissions" in page and "Your team's late submissions" in page


def test_calendar_api_edits(clocked, solution):
    client, clock = clocked
    _calendar(client, solution)
    url = "/api/competitions/demo"
    moved = client.patch(url, json={"freeze_at": (FREEZE + timedelta(days=1)).isoformat()},
                         headers=organiser())  # fmt: skip
    assert moved.status_code == 200 and moved.json()["freeze_at"].startswith("2026-03-07")
    wrong = client.patch(url, json={"freeze_at": (DEADLINE + timedelta(days=1)).isoformat()},
                         headers=organiser())  # fmt: skip
    assert wrong.status_code == 422 and "must come before deadline" in wrong.json()["message"]
    clock.now = OPENS + timedelta(hours=1)
    late = client.patch(url, json={"opens_at": FREEZE.isoformat()}, headers=organiser())
    assert late.status_code == 409 and "passed its opening time" in late.json()["message"]
    assert client.get(url).json()["opens_at"].startswith("2026-03-02")
    response = client.post(
        "/api/competitions",
        data={"slug": "bad", "score": "zero_one", "mechanism": "parameter-free-ladder",
              "opens_at": "tomorrow"},
        files={"solution": ("solution.csv", solution.to_csv(), "text/csv")},
        headers=organiser(),
    )  # fmt: skip
    assert response.status_code == 422 and "opens_at must be" in response.json()["message"].lower()
