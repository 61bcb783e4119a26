"""Phases over HTTP, on both stores: a final phase created with
``phase_of``, whose teams are the development phase's (a team's token
submits to both, each phase counting its own quotas and boards), shown on
each phase's overview; only an owner of the series may add a phase, and a
team cannot be added to a later phase."""

from __future__ import annotations

import re
from datetime import timedelta

from organiser_helpers import alert
from server_helpers import add_team, bearer, create, flipped, organiser, submit

from ladderboard.files.solution import Solution


def _final(client, solution, **fields):
    final = Solution.from_labels(solution.targets[::-1].copy(), public_fraction=0.5, random_state=5)
    return create(client, final, slug="final", phase_of="demo", title="Final phase", **fields)


def test_phases_api_a_token_takes_part_in_every_phase(client, solution):
    create(client, solution, title="Development phase", daily_quota=2)
    token = add_team(client, "alpha")
    created = _final(client, solution, daily_quota=1)
    assert created["phase_of"] == "demo"
    assert client.get("/api/competitions/demo").json()["phase_of"] is None

    assert submit(client, token, flipped(solution, 0.2, 0)).status_code == 201
    answer = submit(client, token, flipped(solution, 0.3, 1), slug="final")
    assert answer.status_code == 201, answer.text
    assert answer.json()["number"] == 1
    # The final phase's daily quota of one is its own: spent there, not here.
    again = submit(client, token, flipped(solution, 0.25, 2), slug="final")
    assert again.status_code == 429 and again.json()["error"] == "quota"
    assert submit(client, token, flipped(solution, 0.1, 3)).status_code == 201
    for slug, entries in (("demo", 2), ("final", 1)):
        rows = client.get(f"/api/competitions/{slug}/leaderboard").json()["rows"]
        assert [(r["team"], r["entries"]) for r in rows] == [("alpha", entries)]
    mine = client.get("/api/competitions/final/submissions", headers=bearer(token)).json()
    assert [s["number"] for s in mine] == [1]

    # A team is registered in the first phase, never in a later one.
    refused = client.post(
        "/api/competitions/final/teams", json={"name": "beta"}, headers=organiser()
    )
    assert refused.status_code == 409 and "register the team in 'demo'" in refused.text
    add_team(client, "beta")
    beta = [
        t["name"] for t in client.get("/api/competitions/final/teams", headers=organiser()).json()
    ]
    assert beta == ["alpha", "beta"]

    # Each phase's overview lists the series, the page's own phase marked.
    for slug in ("demo", "final"):
        page = client.get(f"/c/{slug}").text
        assert 'aria-labelledby="phases-heading"' in page
        assert "The final ranking is the private board of the last phase, Final phase." in page
    final_page = client.get("/c/final").text
    assert '<strong aria-current="page">Final phase</strong>' in final_page
    assert '<a href="/c/demo">Development phase</a>' in final_page
    assert "Teams register in the first phase" in final_page

    # Joining a later phase is joining its first phase.
    moved = client.get("/c/final/join?code=x1", follow_redirects=False)
    assert moved.status_code == 303 and moved.headers["location"] == "/c/demo/join?code=x1"
    accounts = client.app.state.competitions.accounts
    pat = accounts.create("pat", created_from="testclient")
    _, personal = accounts.create_token(pat.id, "tests")
    joined = client.post(
        "/api/competitions/final/join", json={"accept_rules": True}, headers=bearer(personal)
    )
    assert joined.status_code == 403, joined.text
    assert "join 'demo'" in joined.json()["message"]
    assert accounts.registration("final", pat.id) is None


def test_phases_api_only_the_series_owner_adds_a_phase(client, solution):
    create(client, solution)
    accounts = client.app.state.competitions.accounts
    ola = accounts.create("ola", role="organiser", created_from="testclient")
    _, token = accounts.create_token(ola.id, "tests")
    final = Solution.from_labels(solution.targets.copy(), public_fraction=0.5, random_state=5)
    form = {"slug": "final", "score": "zero_one", "phase_of": "demo"}
    response = client.post(
        "/api/competitions",
        data=form,
        files={"solution": ("solution.csv", final.to_csv(), "text/csv")},
        headers=bearer(token),
    )
    assert response.status_code == 403, response.text
    assert client.get("/api/competitions/final").status_code == 404
    missing = client.post(
        "/api/competitions",
        data=form | {"phase_of": "nope"},
        files={"solution": ("solution.csv", final.to_csv(), "text/csv")},
        headers=organiser(),
    )
    assert missing.status_code == 422, missing.text
    assert "there is no competition 'nope'" in missing.json()["message"].lower()
    accounts.add_organiser("demo", ola.id, "owner", "administrator token")
    response = client.post(
        "/api/competitions",
        data=form,
        files={"solution": ("solution.csv", final.to_csv(), "text/csv")},
        headers=bearer(token),
    )
    assert response.status_code == 201, response.text


def _desk_as(client, account_id: int) -> str:
    """The client's browser signed in to the desk as the account: its CSRF value."""
    client.cookies.clear()
    accounts = client.app.state.competitions.accounts
    client.cookies.set("ladderboard_session", accounts.open_session(account_id, timedelta(hours=1)))
    page = client.get("/organiser")
    return re.search(r'name="csrf" value="([0-9a-f]+)"', page.text).group(1)


def test_phases_the_create_form_adds_a_phase_for_the_series_owner_only(client, solution):
    create(client, solution)
    add_team(client, "alpha")
    accounts = client.app.state.competitions.accounts
    ola = accounts.create("ola", role="organiser", created_from="testclient")
    final = Solution.from_labels(solution.targets.copy(), public_fraction=0.5, random_state=5)
    fields = {
        "slug": "final",
        "score": "zero_one",
        "mechanism": "parameter-free-ladder",
        "zone": "UTC",
        "phase_of": "demo",
    }
    uploads = [("solution", ("solution.csv", final.to_csv(), "text/csv"))]
    csrf = _desk_as(client, ola.id)
    page = client.get("/organiser/new").text
    assert 'name="phase_of"' in page and "A later phase of, optional" in page
    refused = client.post("/organiser/competitions", data={"csrf": csrf, **fields}, files=uploads)
    assert refused.status_code == 403
    assert alert(refused.text) == (
        "A phase is added to a competition you own: 'demo' is not one of yours."
    )
    assert 'value="demo"' in refused.text  # the form keeps what was typed
    assert client.get("/api/competitions/final").status_code == 404
    accounts.add_organiser("demo", ola.id, "owner", "administrator token")
    made = client.post("/organiser/competitions", data={"csrf": csrf, **fields}, files=uploads)
    assert made.status_code == 201, alert(made.text)
    assert client.app.state.competitions.competition("final").config.phase_of == "demo"
    assert [t.name for t in client.app.state.competitions.teams("final")] == ["alpha"]


def test_phases_an_account_takes_part_in_a_private_later_phase(client, solution):
    create(client, solution, registration="open", title="Development phase")
    _final(client, solution, visibility="private")
    accounts = client.app.state.competitions.accounts
    ann = accounts.create("ann", created_from="testclient")
    _, personal = accounts.create_token(ann.id, "tests")
    joined = client.post(
        "/api/competitions/demo/join",
        json={"accept_rules": True, "team": "owls"},
        headers=bearer(personal),
    )
    assert joined.status_code in (200, 201), joined.text
    seen = client.get("/api/competitions/final", headers=bearer(personal))
    assert seen.status_code == 200, seen.text
    sent = submit(client, personal, flipped(solution, 0.2, 1), slug="final")
    assert sent.status_code == 201, sent.text
    # An outsider still finds nothing there.
    assert client.get("/api/competitions/final").status_code == 404


def test_phases_only_the_first_phases_owner_extends_the_series(client, solution):
    """Owning a later phase is not owning the series: naming it as
    ``phase_of`` adds a phase to its first phase's teams."""
    create(client, solution)
    _final(client, solution)
    accounts = client.app.state.competitions.accounts
    ola = accounts.create("ola", role="organiser", created_from="testclient")
    _, token = accounts.create_token(ola.id, "tests")
    accounts.add_organiser("final", ola.id, "owner", "administrator token")
    extra = Solution.from_labels(solution.targets.copy(), public_fraction=0.5, random_state=9)
    response = client.post(
        "/api/competitions",
        data={"slug": "extra", "score": "zero_one", "phase_of": "final"},
        files={"solution": ("solution.csv", extra.to_csv(), "text/csv")},
        headers=bearer(token),
    )
    assert response.status_code == 403, response.text


def test_phases_the_overview_names_no_private_first_phase(client, solution):
    create(client, solution, visibility="private", title="Secret development")
    _final(client, solution)
    page = client.get("/c/final").text
    assert "Secret development" not in page
    assert "a team registered in the first phase takes part" in page
    assert 'href="/c/demo"' not in page
