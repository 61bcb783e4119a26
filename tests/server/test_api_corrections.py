"""A solution corrected over the API and the command line (SQLite and
PostgreSQL): ``POST /api/competitions/{slug}/corrections`` takes the
corrected file and the reason (organiser only), the teams' scores and pages
follow, the history and ``GET .../corrections`` show it; a refusal is a
4xx, never a 500, and changes nothing."""

from __future__ import annotations

import pytest
from organiser_helpers import alert, sign_in, status
from server_helpers import LABELS, add_team, bearer, create, organiser, predictions, submit
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.client import Client
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer


def _flipped(solution: Solution) -> bytes:
    """``solution``'s file with the label of its first public row corrected."""
    lines = solution.to_csv().decode().splitlines()
    row = int(solution.public_rows[0]) + 1
    cells = lines[row].split(",")
    cells[1] = "0" if float(cells[1]) == 1.0 else "1"
    lines[row] = ",".join(cells)
    return ("\n".join(lines) + "\n").encode()


def _correct(client, data: bytes, reason: str | None = "row 1 was mislabelled", **kwargs):
    form = {} if reason is None else {"reason": reason}
    return client.post(
        "/api/competitions/demo/corrections",
        data=form,
        files={"solution": ("solution.csv", data, "text/csv")},
        headers=kwargs.pop("headers", organiser()),
    )


def test_api_correction_rescores_and_is_listed(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    for seed in range(3):
        assert submit(client, token, predictions(solution, seed)).status_code == 201
    before = client.get("/api/competitions/demo/submissions", headers=bearer(token)).json()
    old = client.get("/api/competitions/demo/commitment").json()["commitment"]
    answer = _correct(client, _flipped(solution))
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert body["old_commitment"] == old != body["new_commitment"]
    assert body["number"] == 1 and body["changed"] >= 1
    assert (
        client.get("/api/competitions/demo/commitment").json()["commitment"]
        == (body["new_commitment"])
    )
    after = client.get("/api/competitions/demo/submissions", headers=bearer(token)).json()
    changed = [
        a["number"]
        for a, b in zip(after, before, strict=True)
        if a["public_score"] != b["public_score"]
    ]
    assert changed and [a["number"] for a in after if a["corrected"]] == changed
    listed = client.get("/api/competitions/demo/corrections")  # anyone
    assert [c["reason"] for c in listed.json()] == ["row 1 was mislabelled"]
    history = client.get("/api/competitions/demo/history").json()
    assert history[-1]["setting"] == "solution" and "mislabelled" in history[-1]["words"]
    rules = client.get("/c/demo/rules")
    assert "Solution corrected (row 1 was mislabelled)" in rules.text
    assert body["new_commitment"] in rules.text


def test_api_correction_refusals_change_nothing(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    assert submit(client, token, predictions(solution, 0)).status_code == 201
    commitment = client.get("/api/competitions/demo/commitment").json()["commitment"]
    other = Solution.from_labels(LABELS, public_fraction=0.5, random_state=1).to_csv()
    cases = [
        (_correct(client, _flipped(solution), headers=bearer(token)), 403),
        (_correct(client, _flipped(solution), headers={}), 401),
        (_correct(client, _flipped(solution), reason=None), 422),
        (_correct(client, _flipped(solution), reason="  "), 422),
        (_correct(client, other), 422),
        (_correct(client, solution.to_csv()), 422),
        (_correct(client, b"not,a\nsolution"), 400),
    ]
    for response, expected in cases:
        assert response.status_code == expected, response.text
    assert client.get("/api/competitions/demo/commitment").json()["commitment"] == commitment
    client.post("/api/competitions/demo/close", headers=organiser())
    client.post("/api/competitions/demo/publish", headers=organiser())
    late = _correct(client, _flipped(solution))
    assert late.status_code == 409, late.text
    assert client.get("/api/competitions/demo/corrections").json() == []


@pytest.fixture
def live(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    with LocalServer(f"sqlite:///{tmp_path / 'cli.db'}") as server:
        yield server


@pytest.mark.slow
def test_cli_competition_correct(live, tmp_path):
    solution = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)
    organiser_client = Client(live.url, token=live.admin_token)
    organiser_client.create_competition(
        "demo", solution.to_csv(), score="zero_one", mechanism="parameter-free-ladder"
    )
    corrected = tmp_path / "corrected.csv"
    corrected.write_bytes(_flipped(solution))
    env = {"LADDERBOARD_SERVER": live.url, "LADDERBOARD_TOKEN": live.admin_token}
    args = ["competition", "correct", "demo", "--solution", str(corrected)]
    done = CliRunner().invoke(app, [*args, "--reason", "row 1", "--json"], env=env)
    assert done.exit_code == 0, done.output
    assert '"reason": "row 1"' in done.output
    again = CliRunner().invoke(app, [*args, "--reason", "again"], env=env)
    assert again.exit_code != 0 and "nothing to correct" in again.output, again.output
    assert len(organiser_client.history("demo")) == 1


def test_desk_form_corrects_the_solution_and_a_refusal_keeps_the_reason(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    assert submit(client, token, predictions(solution, 0)).status_code == 201
    csrf = sign_in(client)
    page = client.get("/organiser/c/demo")
    assert "Correct the solution" in page.text
    refused = client.post(
        "/organiser/c/demo/correction",
        data={"csrf": csrf, "reason": "kept when refused"},
        files={"solution": ("solution.csv", solution.to_csv(), "text/csv")},
    )
    assert refused.status_code == 422 and "nothing to correct" in alert(refused.text)
    assert 'value="kept when refused"' in refused.text
    forged = client.post(
        "/organiser/c/demo/correction",
        data={"csrf": "wrong", "reason": "x"},
        files={"solution": ("solution.csv", _flipped(solution), "text/csv")},
    )
    assert forged.status_code == 403
    assert client.app.state.competitions.corrections("demo") == []
    done = client.post(
        "/organiser/c/demo/correction",
        data={"csrf": csrf, "reason": "row 1 was mislabelled"},
        files={"solution": ("solution.csv", _flipped(solution), "text/csv")},
    )
    assert done.status_code == 200, done.text
    assert status(done.text).startswith("The solution is corrected")
    assert "Solution corrected (row 1 was mislabelled)" in done.text  # the desk's history
    team_page = client.post("/c/demo/team", data={"token": token})
    assert team_page.status_code == 200
    assert '<span class="corrected">corrected</span>' in team_page.text
    client.post("/api/competitions/demo/close", headers=organiser())
    client.post("/api/competitions/demo/publish", headers=organiser())
    assert "Correct the solution" not in client.get("/organiser/c/demo").text


@pytest.mark.slow
def test_a_solution_over_the_form_limit_is_corrected_as_it_was_created(client):
    """A correction carries a whole solution, as the creation does: it is
    read under the upload limit of files, not the small limit of forms."""
    labels = [0, 1] * 160_000  # about 5 MB of CSV, over the 4 MiB of a form
    big = Solution.from_labels(labels, public_fraction=0.5, random_state=0)
    assert len(big.to_csv()) > 4 * 2**20
    create(client, big)
    response = _correct(client, _flipped(big))
    assert response.status_code == 201, response.text
