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
    for person in (alice, alias, carol):  # each joined itself, as the join route records
        accounts.register("demo", person.id, rules_sha256="0" * 64, via="open")
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


def test_look_alikes_the_organiser_dismisses_a_flag_and_shows_it_again(client, solution):
    create(client, solution)
    _, _, carol = _two_of_one_person(client)
    [flag] = client.get(URL, headers=organiser()).json()
    assert flag["dismissed"] is False and len(flag["key"]) == 64
    team_token = add_team(client, "listed")
    _, personal = _accounts(client).create_token(carol.id, "cli")
    for headers, status in (({}, 401), (bearer(team_token), 403), (bearer(personal), 403)):
        refused = client.post(f"{URL}/{flag['key']}/dismiss", headers=headers)
        assert refused.status_code == status, refused.text
    for key in ("0" * 64, "x" * 500, "%00"):
        missing = client.post(f"{URL}/{key}/dismiss", headers=organiser())
        assert missing.status_code == 404, missing.text
    assert client.get(URL, headers=organiser()).json() == [flag]  # nothing changed

    dismissed = client.post(f"{URL}/{flag['key']}/dismiss", headers=organiser())
    assert dismissed.status_code == 200 and dismissed.json()["dismissed"] is True
    assert client.get(URL, headers=organiser()).json() == [flag | {"dismissed": True}]
    log = _accounts(client).actions("demo")
    assert (log[0].action, log[0].actor) == ("look-alike.dismiss", "administrator token")
    assert log[0].detail == {"rule": "same-email", "accounts": ["alice", "alias"]}
    restored = client.post(f"{URL}/{flag['key']}/restore", headers=organiser())
    assert restored.status_code == 200 and restored.json()["dismissed"] is False
    again = client.post(f"{URL}/{flag['key']}/restore", headers=organiser())
    assert again.status_code == 404, again.text


def test_look_alikes_dismissed_on_the_desk_and_shown_again(client, solution):
    create(client, solution)
    csrf = sign_in(client)
    _two_of_one_person(client)
    [flag] = client.get(URL, headers=organiser()).json()
    forged = client.post(
        "/organiser/c/demo/look-alikes/dismiss", data={"csrf": "wrong", "key": flag["key"]}
    )
    assert forged.status_code == 403, forged.text
    assert client.get(URL, headers=organiser()).json()[0]["dismissed"] is False
    page = client.post(
        "/organiser/c/demo/look-alikes/dismiss", data={"csrf": csrf, "key": flag["key"]}
    )
    assert page.status_code == 200, page.text
    assert "Dismissed the same-email flag of alice, alias." in unescape(page.text)
    assert 'aria-label="Look-alike accounts table"' not in page.text
    assert "1 dismissed flag" in page.text
    shown = client.post(
        "/organiser/c/demo/look-alikes/restore", data={"csrf": csrf, "key": flag["key"]}
    )
    assert shown.status_code == 200 and 'aria-label="Look-alike accounts table"' in shown.text
    unknown = client.post("/organiser/c/demo/look-alikes/restore", data={"csrf": csrf, "key": "k"})
    assert unknown.status_code == 404, unknown.text
