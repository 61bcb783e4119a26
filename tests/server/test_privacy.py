"""No GET route leaks what the mechanism keeps secret before the close.

Every GET route of the OpenAPI schema is called as anonymous, as a team and
as another team; no body may carry a private score, a label, a raw public
score, ``improved``, mechanism state or the key. After the close the private
board is visible to all.
"""

from __future__ import annotations

import json

import pytest
from server_helpers import add_team, bearer, create, organiser, predictions, submit
from sqlalchemy import select
from sqlalchemy.orm import Session

from ladderboard.store import CompetitionRow, MechanismStateRow, SubmissionRow

SECRET_FIELDS = {
    "improved",
    "public_raw",
    "state",
    "secret_key",
    "solution",
    "targets",
    "labels",
    "y_true",
    "losses",
}


def get_urls(client) -> list[str]:
    urls = []
    for path, methods in client.get("/openapi.json").json()["paths"].items():
        if "get" not in methods:
            continue
        path = path.replace("{slug}", "demo").replace("{name}", "sample_submission.csv")
        path = path.replace("{number}", "3")  # alpha has a submission 3, beta none
        urls.append(path)
        if path.endswith(("leaderboard", "leaderboard.csv")):
            urls.append(path + "?board=private")
    return urls


def walk(value, path=""):
    """Every (key path, key, value) of a JSON document."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield path, key, item
            yield from walk(item, f"{path}.{key}")
    elif isinstance(value, list):
        for item in value:
            yield from walk(item, path)


@pytest.mark.slow
def test_no_route_leaks_before_the_close_and_the_private_board_shows_after(client, solution):
    create(client, solution, mechanism="ladder-boot", mechanism_params=json.dumps({"b": 50}))
    alpha, beta = add_team(client, "alpha"), add_team(client, "beta")
    sent = {alpha: [], beta: []}
    for seed, token in enumerate([alpha, alpha, beta, alpha]):
        sent[token].append(predictions(solution, seed))
        assert submit(client, token, sent[token][-1]).status_code == 201
    file_url = "/api/competitions/demo/submissions/3/file"
    assert file_url in get_urls(client)

    store = client.app.state.competitions
    with Session(store.engine) as session:
        key = session.scalars(select(CompetitionRow.secret_key)).one()
        rows = session.scalars(select(SubmissionRow)).all()
        states = session.scalars(select(MechanismStateRow.state)).all()
    released = {row.public_score for row in rows}
    secret_numbers = {row.private_score for row in rows} | {row.public_raw for row in rows}
    secret_numbers -= released
    assert secret_numbers, "the test needs scores that differ from the released ones"
    assert any(states)
    labels_file = solution.to_csv().decode()

    for who in (None, alpha, beta):
        headers = {} if who is None else bearer(who)
        for url in get_urls(client):
            response = client.get(url, headers=headers)
            if url == file_url:  # a team's own files: alpha's third, and nobody else's
                expected = {None: 401, alpha: 200, beta: 404}[who]
                assert response.status_code == expected, (who, response.text)
                if who == alpha:
                    assert response.content == sent[alpha][2]
            if url == "/api/competitions/demo/audit":  # published after the private board
                assert response.status_code == 404, (who, response.text)
                continue
            assert response.status_code in (200, 401, 403) or url == file_url, (url, response.text)
            text = response.text
            assert key not in text, url
            assert "Private" not in text and labels_file not in text, url
            if url.endswith(".csv?board=public"):
                continue
            if "json" not in response.headers["content-type"]:
                continue
            for _, name, value in walk(response.json()):
                assert name not in SECRET_FIELDS, (url, name)
                if name in ("private_score", "key"):
                    assert value is None, (url, name, value)
                if isinstance(value, float) and name not in ("public_score",):
                    assert value not in secret_numbers or value in released, (url, name, value)
            if "?board=private" in url:
                assert response.status_code == 403, url

    assert client.post("/api/competitions/demo/close", headers=bearer(alpha)).status_code == 403
    assert client.post("/api/competitions/demo/close", headers=organiser()).status_code == 200
    # Closed, not yet published: the organiser looks the private board over first.
    for who in (None, alpha):
        headers = {} if who is None else bearer(who)
        waiting = client.get("/api/competitions/demo/leaderboard?board=private", headers=headers)
        assert waiting.status_code == 403 and "publishes" in waiting.json()["message"]
        assert (
            client.get("/api/competitions/demo/commitment", headers=headers).json()["key"] is None
        )
        own = client.get("/api/competitions/demo/submissions", headers=bearer(alpha)).json()
        assert all(s["private_score"] is None for s in own)
    preview = client.get("/api/competitions/demo/leaderboard?board=private", headers=organiser())
    assert preview.status_code == 200
    assert client.post("/api/competitions/demo/publish", headers=bearer(alpha)).status_code == 403
    published = client.post("/api/competitions/demo/publish", headers=organiser())
    assert published.status_code == 200 and published.json()["published"] is True
    private = client.get("/api/competitions/demo/leaderboard?board=private")
    assert private.status_code == 200
    shown = {row["score"] for row in private.json()["rows"]}
    assert shown <= {row.private_score for row in rows}
    assert client.get("/api/competitions/demo/commitment").json()["key"] == key


def test_the_solution_file_is_the_organisers_alone(client, solution):
    """``GET .../solution`` answers the organiser with the committed bytes,
    and anyone else as every organiser's route does: 401 without the
    organiser's token, 403 for a team of the competition."""
    create(client, solution)
    alpha = add_team(client, "alpha")
    url = "/api/competitions/demo/solution"
    assert url in get_urls(client)
    for headers, status in (({}, 401), (bearer(alpha), 403), (bearer("not-a-token"), 401)):
        refused = client.get(url, headers=headers)
        assert refused.status_code == status, refused.text
        assert solution.to_csv().decode() not in refused.text
        teams = client.get("/api/competitions/demo/teams", headers=headers)
        assert teams.status_code == status
    answer = client.get(url, headers=organiser())
    assert answer.status_code == 200 and answer.content == solution.to_csv()
    assert answer.headers["cache-control"] == "no-store"
    assert client.get("/api/competitions/nope/solution", headers=organiser()).status_code == 404


TEAM_WRITES = {
    ("post", "/api/competitions/{slug}/submissions"),
    ("put", "/api/competitions/{slug}/selection"),
}


def test_every_write_route_refuses_anonymous_callers_and_teams_where_organiser_only(
    client, solution
):
    """Every operation of the schema that is not a read, as anonymous (401,
    whatever its body), as a team of the competition (403 on the
    competition's paths, unless the route is the team's own), and as a team
    of another competition (401): none changes
    anything, and none answers with a token or a secret."""
    create(client, solution)
    create(client, solution, slug="other")
    alpha, stranger = add_team(client, "alpha"), add_team(client, "stranger", slug="other")
    before = client.get("/api/competitions/demo/teams", headers=organiser()).json()
    operations = [
        (method, path)
        for path, methods in client.get("/openapi.json").json()["paths"].items()
        for method in methods
        if method != "get"
    ]
    assert ("post", "/api/competitions/{slug}/teams/{name}/token") in operations
    for method, path in operations:
        url = path.replace("{slug}", "demo").replace("{name}", "alpha")
        # A team is told it is not the organiser on its competition's paths.
        team_status = 403 if "{slug}" in path else 401
        for who, expected in ((None, 401), (stranger, 401), (alpha, team_status)):
            if who == alpha and (method, path) in TEAM_WRITES:
                continue
            # A typed body: the submission route refuses an untyped one first (415).
            headers = {"Content-Type": "text/csv"} | ({} if who is None else bearer(who))
            response = client.request(method, url, headers=headers, content=b"id,target\n")
            assert response.status_code == expected, (method, url, who, response.text)
            assert "token" not in response.json() and "key" not in response.json()
    assert client.get("/api/competitions/demo/teams", headers=organiser()).json() == before
    own = client.get("/api/competitions/demo/submissions", headers=bearer(alpha))
    assert own.status_code == 200


def test_a_what_if_board_is_the_organisers_alone_and_never_cached(client, solution):
    """Rescoring shows scores no mechanism released: anonymous callers and
    teams are refused, before and after publication, whatever they ask; the
    organiser's answer is marked for no cache, and the public board (its
    body and its ETag) stays as it was."""
    create(client, solution, mechanism="full-disclosure")
    create(client, solution, slug="other")
    alpha, stranger = add_team(client, "alpha"), add_team(client, "stranger", slug="other")
    for seed in range(3):
        assert submit(client, alpha, predictions(solution, seed)).status_code == 201
    url = "/api/competitions/demo/rescore"
    body = {"mechanism": "ladder", "mechanism_params": {"eta": 0.1}, "board": "private"}
    public = client.get("/api/competitions/demo/leaderboard")
    for published in (False, True):
        for who, expected in ((None, 401), (stranger, 401), (alpha, 403)):
            headers = {} if who is None else bearer(who)
            refused = client.post(url, json=body, headers=headers)
            assert refused.status_code == expected, (published, who, refused.text)
            assert "rows" not in refused.json()
        answer = client.post(url, json=body, headers=organiser())
        assert answer.status_code == 200 and answer.json()["rows"]
        assert answer.headers["cache-control"] == "no-store"
        if not published:
            again = client.get("/api/competitions/demo/leaderboard")
            assert again.content == public.content
            assert again.headers["etag"] == public.headers["etag"]
            assert client.post("/api/competitions/demo/close", headers=organiser()).is_success
            assert client.post("/api/competitions/demo/publish", headers=organiser()).is_success
