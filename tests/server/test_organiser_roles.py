"""Organisers per competition: every organiser route and desk form obeys the
one table of roles (:mod:`ladderboard.server.roles`), on both stores.

The callers: anonymous, a participant account with no role, a co-organiser,
an owner, the administrator token and an account whose role is admin; each
API route is called with a personal token, each desk page and form through
the account's browser session (or the administrator's desk session).
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from fastapi.routing import APIRoute
from organiser_helpers import sign_in
from server_helpers import bearer, create, organiser

from ladderboard.server.deps import organiser as organiser_dependency
from ladderboard.server.roles import CREATION, ROUTES, allows, route_of

CALLERS = ("anonymous", "participant", "co-organiser", "owner", "administrator", "admin account")
ROLE_OF = {
    "anonymous": None,
    "participant": None,
    "co-organiser": "co-organiser",
    "owner": "owner",
    "administrator": "administrator",
    "admin account": "administrator",
}


def _accounts(client):
    """Four accounts and their personal tokens; ``owner`` owns ``demo``,
    ``helper`` co-organises it."""
    accounts = client.app.state.competitions.accounts
    made = {}
    for handle, role in (
        ("ola", "organiser"),
        ("helper", "participant"),
        ("pat", "participant"),
        ("root", "admin"),
    ):
        info = accounts.create(handle, role=role, created_from="testclient")
        _, token = accounts.create_token(info.id, "tests")
        made[handle] = (info, token)
    client.app.state.competitions.add_team("demo", "hidden-team")
    accounts.add_organiser("demo", made["ola"][0].id, "owner", "administrator token")
    accounts.add_organiser("demo", made["helper"][0].id, "co-organiser", "administrator token")
    return made


@pytest.fixture
def people(client, solution):
    create(client, solution)
    made = _accounts(client)
    return {
        "anonymous": {},
        "participant": bearer(made["pat"][1]),
        "co-organiser": bearer(made["helper"][1]),
        "owner": bearer(made["ola"][1]),
        "administrator": organiser(),
        "admin account": bearer(made["root"][1]),
    }, made


def _uses(route: APIRoute, dependency) -> bool:
    pending = [route.dependant]
    while pending:
        dependant = pending.pop()
        if dependant.call is dependency:
            return True
        pending.extend(dependant.dependencies)
    return False


def _routes(app):
    """Every route of the app as (its full path, the route)."""
    for route in app.router.routes:
        if isinstance(route, APIRoute):
            yield route.path, route
        for context in getattr(route, "effective_route_contexts", list)():
            if isinstance(context.original_route, APIRoute):
                yield context.path, context.original_route


def test_every_organiser_route_and_desk_form_is_in_the_table(client):
    """A route that asks for an organiser is classified, a desk page or form
    of a competition is classified, and the table names no route that is
    not there."""
    declared = set()
    for path, route in _routes(client.app):
        for method in route.methods:
            declared.add((method, path))
            if _uses(route, organiser_dependency) or path.startswith("/organiser/c/"):
                assert (method, path) in ROUTES or (method, path) in CREATION, (method, path)
    assert len(declared) > 60
    assert set(ROUTES) <= declared, set(ROUTES) - declared
    assert declared >= CREATION
    for method, path in ROUTES:
        assert route_of(method, _path(path))[0] == path


def _path(path: str) -> str:
    return (
        path.replace("{slug}", "demo")
        .replace("{name:path}", "nobody")
        .replace("{name}", "nothing.csv")
        .replace("{handle}", "nobody")
    )


@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.slow
def test_each_api_route_answers_each_role_as_the_table_says(client, people, caller):
    headers, _ = people
    for (method, path), needed in ROUTES.items():
        if not path.startswith("/api/"):
            continue
        response = client.request(method, _path(path), headers=headers[caller])
        said = (method, path, response.status_code, response.text[:200])
        assert response.status_code < 500, said
        if caller == "anonymous":
            assert response.status_code == 401, said
        elif not allows(ROLE_OF[caller], needed):
            assert response.status_code == 403, said
            assert response.json()["error"] == "forbidden", said
            assert needed in response.json()["message"], said
        else:
            assert response.status_code not in (401, 403), said


def _desk_session(client, made, caller) -> str:
    """Sign the client's browser in as ``caller``: the CSRF value of its forms."""
    client.cookies.clear()
    if caller == "anonymous":
        return "0" * 64
    if caller == "administrator":
        return sign_in(client)
    handle = {
        "participant": "pat",
        "co-organiser": "helper",
        "owner": "ola",
        "admin account": "root",
    }[caller]
    accounts = client.app.state.competitions.accounts
    client.cookies.set(
        "ladderboard_session", accounts.open_session(made[handle][0].id, timedelta(hours=1))
    )
    page = client.get("/organiser")
    return re.search(r'name="csrf" value="([0-9a-f]+)"', page.text).group(1)


@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.slow
def test_each_desk_page_and_form_answers_each_role_as_the_table_says(client, people, caller):
    _, made = people
    csrf = _desk_session(client, made, caller)
    for (method, path), needed in ROUTES.items():
        if not path.startswith("/organiser/"):
            continue
        data = {"csrf": csrf} if method == "POST" else None
        response = client.request(method, _path(path), data=data)
        said = (method, path, response.status_code)
        assert response.status_code < 500, said
        if caller == "anonymous":
            assert response.status_code == 401, said
        elif not allows(ROLE_OF[caller], needed):
            assert response.status_code == 403, said
        else:
            assert response.status_code not in (401, 403), said
        if ROLE_OF[caller] is None:  # nothing of the desk shows to who has no role
            assert "hidden-team" not in response.text, said


@pytest.mark.parametrize("caller", CALLERS)
def test_the_desk_creates_competitions_for_organiser_accounts_only(
    client, people, solution, caller
):
    _, made = people
    csrf = _desk_session(client, made, caller)
    may = caller in ("owner", "administrator", "admin account")  # ola's account is an organiser
    page = client.get("/organiser/new")
    assert page.status_code == (401 if caller == "anonymous" else 200 if may else 403)
    form = {
        "csrf": csrf,
        "slug": "new-one",
        "score": "zero_one",
        "mechanism": "parameter-free-ladder",
    }
    form |= {"zone": "UTC"}
    files = {"solution": ("solution.csv", solution.to_csv(), "text/csv")}
    created = client.post("/organiser/competitions", data=form, files=files)
    assert created.status_code == (401 if caller == "anonymous" else 201 if may else 403)
    exists = client.get("/api/competitions/new-one").status_code == 200
    assert exists == may
    if may and caller != "administrator":
        organisers = client.app.state.competitions.accounts.organisers("new-one")
        assert [o.role for o in organisers] == ["owner"]


@pytest.mark.slow
def test_a_co_organiser_desk_shows_no_owner_form(client, people):
    _, made = people
    _desk_session(client, made, "co-organiser")
    page = client.get("/organiser/c/demo").text
    for owner_only in ("/close", "/settings", "/details", "/deadline", "/export", '/organisers"'):
        assert f"/organiser/c/demo{owner_only}" not in page, owner_only
    for allowed in ("/teams", "/files", "/whatif"):
        assert f'action="/organiser/c/demo{allowed}"' in page, allowed
    _desk_session(client, made, "owner")
    page = client.get("/organiser/c/demo").text
    for owner_only in ("/close", "/settings", "/details", "/export", "/organisers"):
        assert f"/organiser/c/demo{owner_only}" in page, owner_only


def test_the_organiser_home_lists_what_an_account_organises(client, people, solution):
    _, made = people
    create(client, solution, slug="other")
    _desk_session(client, made, "co-organiser")
    home = client.get("/organiser").text
    assert "/organiser/c/demo" in home and "/organiser/c/other" not in home
    assert 'href="/organiser/new"' not in home  # a participant account creates nothing
    _desk_session(client, made, "participant")
    home = client.get("/organiser").text
    assert "/organiser/c/demo" not in home and "You organise no competition" in home
    _desk_session(client, made, "admin account")
    home = client.get("/organiser").text
    assert "/organiser/c/demo" in home and "/organiser/c/other" in home


def test_an_organiser_account_creates_a_competition_and_owns_it(client, people, solution):
    headers, _made = people
    form = {"slug": "mine", "score": "zero_one", "mechanism": "parameter-free-ladder"}
    files = {"solution": ("solution.csv", solution.to_csv(), "text/csv")}
    refused = client.post(
        "/api/competitions", data=form, files=files, headers=headers["participant"]
    )
    assert refused.status_code == 403 and "organiser" in refused.json()["message"]
    assert client.get("/api/competitions/mine").status_code == 404
    made_it = client.post("/api/competitions", data=form, files=files, headers=headers["owner"])
    assert made_it.status_code == 201, made_it.text
    listed = client.get("/api/competitions/mine/organisers", headers=headers["owner"]).json()
    assert [(o["handle"], o["role"]) for o in listed] == [("ola", "owner")]
    # the co-organiser of demo has no role in mine
    assert (
        client.get("/api/competitions/mine/teams", headers=headers["co-organiser"]).status_code
        == 403
    )


def test_owners_add_and_remove_organisers_and_the_last_owner_stays(client, people):
    headers, _made = people
    url = "/api/competitions/demo/organisers"
    owner = headers["owner"]
    assert (
        client.post(url, json={"handle": "pat"}, headers=headers["co-organiser"]).status_code == 403
    )
    unknown = client.post(url, json={"handle": "nobody"}, headers=owner)
    assert unknown.status_code == 404
    bad = client.post(url, json={"handle": "pat", "role": "admin"}, headers=owner)
    assert bad.status_code == 422
    added = client.post(url, json={"handle": "pat", "role": "co-organiser"}, headers=owner)
    assert added.status_code == 200, added.text
    assert ("pat", "co-organiser") in [(o["handle"], o["role"]) for o in added.json()]
    assert (
        client.get("/api/competitions/demo/teams", headers=headers["participant"]).status_code
        == 200
    )
    last = client.delete(f"{url}/ola", headers=owner)
    assert last.status_code == 409 and "owner" in last.json()["message"]
    demoted = client.post(url, json={"handle": "ola", "role": "co-organiser"}, headers=owner)
    assert demoted.status_code == 409
    assert (
        client.post(url, json={"handle": "pat", "role": "owner"}, headers=owner).status_code == 200
    )
    assert client.delete(f"{url}/ola", headers=owner).status_code == 204
    assert client.get("/api/competitions/demo/teams", headers=owner).status_code == 403
    roles = {(o["handle"], o["role"]) for o in client.get(url, headers=organiser()).json()}
    assert roles == {("pat", "owner"), ("helper", "co-organiser")}


def test_the_desk_adds_and_removes_an_organiser(client, people):
    _, made = people
    csrf = _desk_session(client, made, "owner")
    added = client.post(
        "/organiser/c/demo/organisers", data={"csrf": csrf, "handle": "pat", "role": "owner"}
    )
    assert added.status_code == 200 and "pat is now owner of" in added.text
    last = client.post("/organiser/c/demo/organisers/remove", data={"csrf": csrf, "handle": "pat"})
    assert last.status_code == 200
    roles = {o.role for o in client.app.state.competitions.accounts.organisers("demo")}
    assert roles == {"owner", "co-organiser"}
