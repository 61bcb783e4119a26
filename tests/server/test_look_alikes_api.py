"""Look-alike accounts on the web edge: the organiser reads them from
``GET /api/competitions/{slug}/look-alikes`` and on the desk, each flag with
its rule, its evidence, its accounts and their teams; anonymous callers,
teams and participants' personal tokens are refused and see no address."""

from __future__ import annotations

import re
from html import unescape

from organiser_helpers import sign_in
from server_helpers import add_team, bearer, create, organiser

URL = "/api/competitions/demo/look-alikes"


def _accounts(client):
    return client.app.state.competitions.accounts


def _two_of_one_person(client):
    accounts = _accounts(client)
    alice = accounts.create("alice", email="Alice@Example.org")
    alias = accounts.create("alias", email="alice@example.org")
    carol = accounts.create("carol", email="carol@example.org")
    accounts.create_account_team("demo", alice.id, "owls")
    accounts.create_account_team("demo", alias.id, "larks")
    accounts.add_member("demo", "larks", carol.id)
    return alice, alias, carol


def test_look_alikes_the_organiser_reads_each_flag_with_its_evidence(client, solution):
    create(client, solution)
    alice, alias, _ = _two_of_one_person(client)
    answer = client.get(URL, headers=organiser())
    assert answer.status_code == 200, answer.text
    assert answer.headers["cache-control"] == "no-store"
    [flag] = answer.json()
    assert flag["rule"] == "same-email" and "alice@example.org" in flag["evidence"]
    assert flag["accounts"] == [
        {"account_id": alice.id, "handle": "alice", "team": "owls"},
        {"account_id": alias.id, "handle": "alias", "team": "larks"},
    ]
    assert flag["teams"] == ["larks", "owls"]
    create(client, solution, slug="quiet")
    assert client.get("/api/competitions/quiet/look-alikes", headers=organiser()).json() == []
    missing = client.get("/api/competitions/nope/look-alikes", headers=organiser())
    assert missing.status_code == 404, missing.text


def test_look_alikes_are_the_organisers_alone(client, solution):
    create(client, solution)
    _, _, carol = _two_of_one_person(client)
    team_token = add_team(client, "listed")
    _, personal = _accounts(client).create_token(carol.id, "cli")
    for headers, status in (({}, 401), (bearer(team_token), 403), (bearer(personal), 403)):
        refused = client.get(URL, headers=headers)
        assert refused.status_code == status, refused.text
        assert "example.org" not in refused.text


def test_look_alikes_on_the_desk_name_the_rule_the_accounts_and_their_teams(client, solution):
    create(client, solution)
    sign_in(client)
    assert "No two accounts of this competition look alike." in client.get("/organiser/c/demo").text
    _two_of_one_person(client)
    page = client.get("/organiser/c/demo").text
    table = page.split('aria-label="Look-alike accounts table"', 1)[1].split("</table>", 1)[0]
    [row] = re.findall(r"<tr><td>(.*?)</tr>", table, flags=re.S)
    text = unescape(re.sub(r"<[^>]+>", "", row))
    assert text.startswith("same-email")
    assert "alice (owls), alias (larks)" in text and "carol" not in text
    assert 'href="/organiser/c/demo/team?name=owls"' in row
