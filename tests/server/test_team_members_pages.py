"""The Members section of a team's page for browsers signed in to accounts:
create a team, invite (the code shown once), join by the invitation link,
hand over the captaincy, merge and leave; forms need this site and the
session's CSRF value, and a refusal is a page that changes nothing."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape

from organiser_helpers import sign_in
from server_helpers import create, organiser

SITE = {"Origin": "http://testserver"}


def _browser(client, handle: str, slug: str = "demo") -> tuple[int, str]:
    """A new account registered in ``slug``, and its session cookie."""
    accounts = client.app.state.competitions.accounts
    account = accounts.create(handle)
    accounts.register(slug, account.id, rules_sha256="0" * 64, via="open")
    return account.id, accounts.open_session(account.id, timedelta(days=1))


def _page(client, cookie: str, path: str = "/c/demo/team") -> str:
    client.cookies.clear()
    client.cookies.set("ladderboard_session", cookie)
    page = client.get(path)
    assert page.status_code == 200, page.text
    return page.text


def _csrf(html: str) -> str:
    """The CSRF value of the Members forms (the page's others have their own)."""
    members = html[max(html.find('id="members-section"'), 0) :]
    return re.search(r'name="csrf" value="([0-9a-f]+)"', members).group(1)


def _post(client, cookie: str, path: str, headers=SITE, **form):
    """A form of the page at ``/c/demo/team``, posted as this browser."""
    html = _page(client, cookie)
    response = client.post(
        path,
        data={"csrf": _csrf(html)} | form,
        headers=headers,
        follow_redirects=False,
    )
    return response


def test_team_members_pages_form_a_team_by_invitation_link(client, solution):
    create(client, solution, max_team_size=3)
    ann_id, ann = _browser(client, "ann")
    _, bob = _browser(client, "bob")
    assert "Create the team" in _page(client, ann)
    created = _post(client, ann, "/c/demo/my-team", name="owls")
    assert created.status_code == 303 and created.headers["location"].endswith("#members")
    html = _page(client, ann)
    assert "Team <strong>owls</strong>" in html and "you are its captain" in html
    invited = _post(client, ann, "/c/demo/my-team/invitations")
    assert invited.status_code == 201 and invited.headers["cache-control"] == "no-store"
    link = unescape(re.search(r"(http://testserver/c/demo/join-team\?code=[^<]+)", invited.text)[1])
    code = link.split("code=")[1]
    assert code not in _page(client, ann)  # shown once
    join_page = _page(client, bob, link.removeprefix("http://testserver"))
    assert f'value="{code}"' in join_page and "Join as bob" in join_page
    client.cookies.set("ladderboard_session", bob)
    joined = client.post(
        "/c/demo/my-team/join",
        data={"csrf": _csrf(join_page), "code": code},
        headers=SITE,
        follow_redirects=False,
    )
    assert joined.status_code == 303, joined.text
    html = _page(client, bob)
    assert "<td>ann</td><td>captain</td>" in html and "<td>bob</td><td>member</td>" in html
    assert "Create an invitation code" not in html  # the captain's alone
    assert _post(client, ann, "/c/demo/my-team/captain", handle="bob").status_code == 303
    assert "you are its captain" in _page(client, bob)
    assert _post(client, ann, "/c/demo/my-team/leave").status_code == 303
    assert "Create the team" in _page(client, ann)
    assert client.app.state.competitions.membership.my_team("demo", ann_id) is None


def test_team_members_pages_refuse_forms_from_elsewhere_and_refusals_change_nothing(
    client, solution
):
    create(client, solution)
    ann_id, ann = _browser(client, "ann")
    membership = client.app.state.competitions.membership
    elsewhere = _post(
        client, ann, "/c/demo/my-team", headers={"Origin": "https://evil.example"}, name="owls"
    )
    assert elsewhere.status_code == 403
    client.cookies.set("ladderboard_session", ann)
    stale = client.post("/c/demo/my-team", data={"csrf": "0" * 64, "name": "owls"}, headers=SITE)
    assert stale.status_code == 403
    client.cookies.clear()
    anonymous = client.post("/c/demo/my-team", data={"csrf": "", "name": "owls"}, headers=SITE)
    assert anonymous.status_code == 401
    assert membership.my_team("demo", ann_id) is None
    _post(client, ann, "/c/demo/my-team", name="owls")
    refused = _post(client, ann, "/c/demo/my-team/leave")  # leaves last: allowed, retired
    assert refused.status_code == 303
    bad_code = _post(client, ann, "/c/demo/my-team/join", code="nope")
    assert bad_code.status_code == 404 and "text/html" in bad_code.headers["content-type"]
    assert membership.my_team("demo", ann_id) is None


def test_team_members_pages_the_desk_shows_a_teams_members_and_history(client, solution):
    create(client, solution)
    competitions = client.app.state.competitions
    ann_id, _ = _browser(client, "ann")
    bob_id, _ = _browser(client, "bob")
    competitions.membership.create_team("demo", ann_id, "owls")
    _, code = competitions.membership.invite("demo", ann_id)
    competitions.membership.join("demo", bob_id, code)
    reissued = client.post("/api/competitions/demo/teams/owls/token", headers=organiser())
    assert reissued.status_code == 200, reissued.text
    client.cookies.clear()
    sign_in(client)
    html = unescape(client.get("/organiser/c/demo/team?name=owls").text)
    members = html[html.index('id="members"') : html.index('id="history"')]
    assert "ann</td><td>captain" in members and "bob</td><td>member" in members
    history = html[html.index('id="history"') :]
    events = re.findall(r"</td><td>(created|invited|joined|token reissued)</td>", history)
    assert events == ["created", "invited", "joined", "token reissued"]
    assert code not in html


def test_team_members_pages_the_desk_sets_the_largest_team(client, solution):
    create(client, solution)
    csrf = sign_in(client)
    form = {"csrf": csrf, "daily_quota": "5", "total_quota": "none", "invalid_quota": "20"}
    form |= {"n_selections": "2", "max_megabytes": "50", "precision": "5"}
    assert (
        'name="max_team_size" type="text" inputmode="numeric" value="none"'
        in client.get("/organiser/c/demo").text
    )
    saved = client.post("/organiser/c/demo/settings", data=form | {"max_team_size": "2"})
    assert saved.status_code == 200 and "Largest team: no limit → 2 members" in unescape(saved.text)
    refused = client.post("/organiser/c/demo/settings", data=form | {"max_team_size": "0"})
    assert refused.status_code == 422 and "Largest team" in unescape(refused.text)
    assert client.app.state.competitions.competition("demo").config.max_team_size == 2
