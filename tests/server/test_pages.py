"""The web pages in-process, on SQLite and PostgreSQL: each renders, forms act
and refuse with the API's messages, organiser forms need the cookie and the
CSRF value, and no page shows a secret before the close."""

from __future__ import annotations

import re
from html import unescape

from server_helpers import ADMIN, add_team, create, predictions, submit
from sqlalchemy import select
from sqlalchemy.orm import Session

from ladderboard.store import CompetitionRow, SubmissionRow


def sign_in(client) -> str:
    """Sign the client in as the organiser; the CSRF value of its forms."""
    response = client.post("/organiser/login", data={"token": ADMIN}, follow_redirects=False)
    assert response.status_code == 303
    cookie = response.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and ADMIN not in cookie
    page = client.get("/organiser")
    return re.search(r'name="csrf" value="([0-9a-f]+)"', page.text).group(1)


def alert(html: str) -> str:
    found = re.search(r'role="alert"><strong>Refused:</strong> (.*?)</div>', html, re.S)
    return unescape(found.group(1)) if found else ""


def test_pages_render_and_the_forms_act(client, solution):
    assert "There are no competitions yet" in client.get("/").text
    csrf = sign_in(client)
    created = client.post(
        "/organiser/competitions",
        data={
            "csrf": csrf,
            "slug": "demo",
            "score": "zero_one",
            "title": "Demo challenge",
            "mechanism": "ladder",
            "param-ladder-eta": "0.01",
        },
        files={"solution": ("solution.csv", solution.to_csv(), "text/csv")},
    )
    assert created.status_code == 201, alert(created.text)
    added = client.post("/organiser/c/demo/teams", data={"csrf": csrf, "name": "alpha"})
    assert added.status_code == 201
    token = re.search(r'id="team-token">([^<]+)<', added.text).group(1)
    assert "Demo challenge" in client.get("/").text

    form = client.get("/c/demo/submit")
    assert form.status_code == 200 and 'type="password"' in form.text
    done = client.post(
        "/c/demo/submit",
        data={"token": token, "message": "first try"},
        files={"file": ("p.csv", predictions(solution, 0), "text/csv")},
    )
    assert done.status_code == 201
    released = re.search(r'class="released">([0-9.]+)<', done.text).group(1)
    assert len(released.split(".")[1]) == 2  # the Ladder's step 0.01: what a release carries
    assert "Files left today</dt><dd>4" in done.text

    board = client.get("/c/demo/leaderboard")
    assert "alpha" in board.text and released in board.text
    assert "Private board, " not in board.text  # no private table before it is published

    team = client.post("/c/demo/team", data={"token": token})  # signs in, then the team page
    assert team.status_code == 200
    assert "<svg" in team.text and "first try" in team.text and released in team.text


def test_forms_refuse_with_the_api_messages(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    bad = client.post(
        "/c/demo/submit",
        data={"token": token},
        files={"file": ("p.csv", b"nonsense\n1\n", "text/csv")},
    )
    api = submit(client, token, b"nonsense\n1\n")
    assert bad.status_code == api.status_code == 400
    assert alert(bad.text) == api.json()["message"]

    wrong = client.post("/c/demo/team", data={"token": "not-a-token"})
    assert wrong.status_code == 401 and "not valid" in alert(wrong.text)
    organiser = client.post("/c/demo/team", data={"token": ADMIN})
    assert organiser.status_code == 403
    assert client.get("/c/nope").status_code == 404
    assert client.get("/c/nope/submit").status_code == 404

    duplicate = client.post(
        "/c/demo/submit",
        data={"token": token},
        files={"file": ("p.csv", predictions(solution, 1), "text/csv")},
    )
    assert duplicate.status_code == 201
    again = client.post(
        "/c/demo/submit",
        data={"token": token},
        files={"file": ("p.csv", predictions(solution, 1), "text/csv")},
    )
    assert again.status_code == 409 and alert(again.text)


def test_organiser_forms_need_the_cookie_and_the_csrf_value(client, solution):
    create(client, solution)
    refused = client.post("/organiser/login", data={"token": "wrong-token"})
    assert refused.status_code == 401 and "not the organiser's token" in alert(refused.text)
    # Without the session cookie (a cross-site post carries none: SameSite=Strict).
    forged = client.post("/organiser/c/demo/close", data={"csrf": "0" * 64})
    assert forged.status_code == 401
    csrf = sign_in(client)
    # With the cookie but without the form's CSRF value.
    assert client.post("/organiser/c/demo/close", data={"csrf": "0" * 64}).status_code == 403
    assert client.post("/organiser/c/demo/teams", data={"name": "x"}).status_code == 403
    assert not client.app.state.competitions.teams("demo")
    assert not client.app.state.competitions.competition("demo").is_closed()
    bad_config = client.post(
        "/organiser/competitions",
        data={"csrf": csrf, "slug": "other", "score": "pearson", "mechanism": "ladder"},
        files={"solution": ("solution.csv", solution.to_csv(), "text/csv")},
    )
    assert bad_config.status_code == 422 and "is a metric" in alert(bad_config.text)
    closed = client.post("/organiser/c/demo/close", data={"csrf": csrf})
    assert (
        closed.status_code == 200 and client.app.state.competitions.competition("demo").is_closed()
    )
    client.post("/organiser/logout", data={"csrf": csrf})
    assert "Sign in" in client.get("/organiser").text


def test_no_page_leaks_before_the_close_and_the_private_board_shows_after(client, solution):
    create(client, solution, mechanism="ladder-boot", mechanism_params='{"b": 50}')
    alpha, beta = add_team(client, "alpha"), add_team(client, "beta")
    for seed, token in enumerate([alpha, alpha, beta, alpha]):
        assert submit(client, token, predictions(solution, seed)).status_code == 201
    with Session(client.app.state.competitions.engine) as session:
        key = session.scalars(select(CompetitionRow.secret_key)).one()
        rows = session.scalars(select(SubmissionRow)).all()
    shown = {f"{row.public_score:.5f}" for row in rows}
    hidden = {f"{v:.5f}" for row in rows for v in (row.private_score, row.public_raw)} - shown
    assert hidden, "the test needs secret scores that differ from the released ones"

    public_pages = [
        "/",
        "/c/demo",
        "/c/demo/data",
        "/c/demo/rules",
        "/c/demo/leaderboard",
        "/c/demo/leaderboard?board=private",
        "/c/demo/submit",
        "/c/demo/team",
    ]
    pages = [client.get(url) for url in public_pages]
    pages.append(client.post("/c/demo/team", data={"token": alpha}))
    pages += [client.get(url) for url in public_pages]  # signed in as alpha
    pages.append(client.post("/c/demo/team", data={"token": beta}))
    labels = solution.to_csv().decode()
    for page in pages:
        assert page.status_code == 200
        assert key not in page.text and labels not in page.text
        assert "Private board, " not in page.text and "improved" not in page.text
        for number in hidden:
            assert number not in page.text, (page.url, number)
    beta_page = pages[-1].text
    assert "alpha" not in beta_page  # a team sees only its own submissions

    # Closed, the private board still waits for the organiser to publish it.
    client.app.state.competitions.close("demo")
    waiting = client.get("/c/demo/leaderboard?board=private").text
    assert "waiting for the organiser" in waiting and "Private board, " not in waiting
    assert key not in client.get("/c/demo").text

    client.app.state.competitions.publish("demo")
    board = client.get("/c/demo/leaderboard").text  # the final ranking by default
    assert "Private board, 2 teams" in board
    assert key in client.get("/c/demo").text
    private = {f"{row.private_score:.5f}" for row in rows}
    assert any(number in board for number in private)


def test_pages_load_nothing_from_elsewhere(client):
    page = client.get("/")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["cache-control"] == "no-store"
    docs = client.get("/docs")
    assert docs.status_code == 200
    assets = re.findall(r'(?:src|href)="([^"]+)"', docs.text)
    assert assets and all(url.startswith("/static/docs/") for url in assets), assets
    for url in assets:
        assert client.get(url).status_code == 200, url
    assert client.get("/redoc").status_code == 404
    for html in (page.text, client.get("/organiser").text):
        for url in re.findall(r'(?:src|href|action)="([^"]+)"', html):
            assert url.startswith(("/", "#")), url


def test_a_team_selects_its_final_submissions_on_its_page(client, solution):
    create(client, solution, n_selections=1)
    alpha, beta = add_team(client, "alpha"), add_team(client, "beta")
    ids = [submit(client, alpha, predictions(solution, s)).json()["id"] for s in (0, 1)]
    page = client.post("/c/demo/team", data={"token": alpha})
    assert page.text.count('name="submission_ids"') == 2
    client.cookies.clear()  # the token in the form, without a session

    saved = client.post(
        "/c/demo/team/selection", data={"token": alpha, "submission_ids": [str(ids[1])]}
    )
    assert saved.status_code == 200 and "Your final selection is saved" in saved.text
    assert re.search(rf'value="{ids[1]}" id="select-{ids[1]}" checked', saved.text)
    own = client.get(
        "/api/competitions/demo/submissions", headers={"Authorization": f"Bearer {alpha}"}
    )
    assert [s["selected"] for s in own.json()] == [False, True]

    too_many = client.post(
        "/c/demo/team/selection", data={"token": alpha, "submission_ids": [str(i) for i in ids]}
    )
    assert too_many.status_code == 422 and "At most 1 final submissions" in alert(too_many.text)
    # Another team cannot select alpha's submissions, nor act without a token.
    other = client.post(
        "/c/demo/team/selection", data={"token": beta, "submission_ids": [str(ids[0])]}
    )
    assert other.status_code == 404 and "has no submission" in alert(other.text)
    assert client.post("/c/demo/team/selection", data={"submission_ids": ["1"]}).status_code == 401
