"""The API answers as its OpenAPI schema says, on SQLite and PostgreSQL, in
the cases where they once disagreed: a body that cannot be parsed, a data
file's type, a score that is not a finite number. Each response is validated
by schemathesis against the operation's documented statuses, content types
and schemas, as the fuzz test (test_schema_fuzz) does with generated ones."""

from __future__ import annotations

import pytest
from server_helpers import add_team, bearer, create, organiser, send_file

schemathesis = pytest.importorskip("schemathesis")


def conforms(client, path: str, method: str, response) -> None:
    """Fail unless ``response`` is one the schema documents for the operation:
    its status, its content type and its body's schema."""
    document = client.app.openapi()
    answers = document["paths"][path][method.lower()]["responses"]
    assert str(response.status_code) in answers, (response.status_code, sorted(answers))
    documented = answers[str(response.status_code)].get("content", {})
    media_type = response.headers["content-type"].split(";")[0].strip()
    assert media_type in documented, (media_type, sorted(documented))
    schemathesis.openapi.from_dict(document)[path][method].validate_response(response)


BROKEN_FORM = {"Content-Type": "multipart/form-data; boundary=xx"}
BROKEN_JSON = {"Content-Type": "application/json"}
ROUTES = [  # (method, path template, body, headers)
    ("PATCH", "/api/competitions/{slug}", b'{"title": ', BROKEN_JSON),
    ("POST", "/api/competitions/{slug}/teams", b"\xff{", BROKEN_JSON),
    ("PATCH", "/api/competitions/{slug}/teams/{name}", b"[", BROKEN_JSON),
    ("PUT", "/api/competitions/{slug}/selection", b'{"submission_ids": [', BROKEN_JSON),
    ("POST", "/api/competitions/{slug}/teams/import", b"--xx\r\n\xc3--xx--\r\n", BROKEN_FORM),
    ("PUT", "/api/competitions/{slug}/files/{name}", b"--xx\r\n\xc3--xx--\r\n", BROKEN_FORM),
    ("POST", "/api/competitions", b"--xx\r\n\xc3--xx--\r\n", BROKEN_FORM),
]


@pytest.mark.parametrize(("method", "template", "body", "headers"), ROUTES)
@pytest.mark.slow
def test_a_body_that_cannot_be_parsed_is_a_documented_422(
    client, solution, method, template, body, headers
):
    create(client, solution)
    token = add_team(client, "alpha")
    caller = bearer(token) if template.endswith("selection") else organiser()
    path = template.format(slug="demo", name="alpha")
    response = client.request(method, path, content=body, headers=headers | caller)
    assert response.status_code == 422, response.text
    assert response.json()["error"] == "invalid_request"
    conforms(client, template, method, response)


@pytest.mark.parametrize("name", ["train.csv", "notes.md", "data.parquet", "blob.bin"])
@pytest.mark.slow
def test_a_data_file_is_served_with_a_documented_type(client, solution, name):
    create(client, solution)
    template = "/api/competitions/{slug}/files/{name}"
    path = template.format(slug="demo", name=name)
    stored = client.put(path, files={"file": (name, b"a,b\n1,2\n")}, headers=organiser())
    assert stored.status_code in (200, 201), stored.text
    response = client.get(path)
    assert response.status_code == 200 and response.content == b"a,b\n1,2\n"
    conforms(client, template, "GET", response)


@pytest.mark.slow
def test_a_loss_that_is_not_finite_leaves_no_score_outside_the_schema(client, solution):
    create(client, solution, score="squared", board="per-team")
    token = add_team(client, "alpha")
    private = int(solution.ids[~solution.public_mask][0])
    rows = "".join(
        f"{i},{'1e200' if i == private else '0.5'}\n" for i in (int(x) for x in solution.ids)
    )
    sent = send_file(client, token, f"id,target\n{rows}".encode())
    assert sent.status_code in (201, 400), sent.text  # scored, or refused as a bad file
    conforms(client, "/api/competitions/{slug}/submissions", "POST", sent)
    for step in ("close", "publish"):
        done = client.post(f"/api/competitions/demo/{step}", headers=organiser())
        assert done.status_code == 200, done.text
    template = "/api/competitions/{slug}/leaderboard"
    board = client.get("/api/competitions/demo/leaderboard", params={"board": "private"})
    assert board.status_code == 200, board.text
    conforms(client, template, "GET", board)
    own = client.get("/api/competitions/demo/submissions", headers=bearer(token))
    conforms(client, "/api/competitions/{slug}/submissions", "GET", own)


@pytest.mark.slow
def test_every_operation_documents_the_refusals_any_can_give(client):
    for path, operations in client.app.openapi()["paths"].items():
        for method, operation in operations.items():
            answers = operation["responses"]
            assert "503" in answers, (method, path)  # the database cannot answer
            if method == "get":
                assert "429" in answers, (method, path)  # the anonymous reads' limit
