"""The desk's "What if" form, on SQLite and PostgreSQL: the what-if board
beside the live one, a refusal in one sentence that keeps the form's values,
and nothing stored or shown to the teams."""

from __future__ import annotations

import re
from html import unescape

from organiser_helpers import alert, sign_in, state
from server_helpers import add_team, bearer, create, flipped, submit

URL = "/organiser/c/demo/whatif"


def played(client, solution) -> dict[str, str]:
    create(client, solution, mechanism="full-disclosure", daily_quota="none")
    tokens = {name: add_team(client, name) for name in ("alpha", "beta")}
    for seed, (name, wrong) in enumerate((("alpha", 0.4), ("beta", 0.3), ("alpha", 0.2))):
        assert submit(client, tokens[name], flipped(solution, wrong, seed)).status_code == 201
    return tokens


def whatif_rows(html: str) -> list[tuple[str, ...]]:
    table = re.search(r"<caption[^>]*>What-if board</caption>(.*?)</table>", html, re.S)
    assert table, "no what-if table"
    rows = re.findall(r"<tr>(.*?)</tr>", table.group(1), re.S)[1:]  # past the header
    cells = [re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S) for row in rows]
    return [tuple(unescape(c).strip() for c in row) for row in cells]


def test_the_desk_shows_a_what_if_board_beside_the_live_one(client, solution):
    tokens = played(client, solution)
    csrf = sign_in(client)
    desk = client.get("/organiser/c/demo")
    assert 'href="#whatif"' in desk.text and f'action="{URL}"' in desk.text
    before = state(client), client.get("/api/competitions/demo/leaderboard").content

    same = client.post(URL, data={"csrf": csrf, "mechanism": "full-disclosure"})
    assert same.status_code == 200, same.text
    live = client.get("/api/competitions/demo/leaderboard").json()["rows"]
    shown = whatif_rows(same.text)
    assert [(r[0], r[1]) for r in shown] == [(str(r["rank"]), r["team"]) for r in live]
    assert all(r[2] == r[3] and r[4] == "same" for r in shown), shown

    ladder = client.post(
        URL,
        data={"csrf": csrf, "mechanism": "ladder", "mechanism_params": '{"eta": 0.25}'},
    )
    assert ladder.status_code == 200, ladder.text
    assert "Under ladder (eta=0.25" in unescape(ladder.text)
    assert {r[1] for r in whatif_rows(ladder.text)} == {"alpha", "beta"}
    assert "{&#34;eta&#34;: 0.25}" in ladder.text or '{"eta": 0.25}' in unescape(ladder.text)

    assert (state(client), client.get("/api/competitions/demo/leaderboard").content) == before
    # The teams' pages say nothing of it.
    team_page = client.get("/c/demo/leaderboard", headers=bearer(tokens["alpha"]))
    assert "What-if" not in team_page.text and "what if" not in team_page.text.lower()


def test_a_refused_what_if_says_why_and_keeps_the_form(client, solution):
    played(client, solution)
    csrf = sign_in(client)
    before = state(client)
    pair = client.post(URL, data={"csrf": csrf, "mechanism": "ladder", "score": "pearson"})
    assert pair.status_code == 422
    assert "pearson" in alert(pair.text) and 'value="pearson"' in pair.text
    params = client.post(
        URL, data={"csrf": csrf, "mechanism": "ladder", "mechanism_params": "{not json"}
    )
    assert params.status_code == 422
    assert "The mechanism's parameters must be a JSON object" in alert(params.text)
    ranks = client.post(URL, data={"csrf": csrf, "mechanism": "ladder", "ranks": "many"})
    assert ranks.status_code == 422 and "Ranks" in alert(ranks.text)
    unknown = client.post(URL, data={"csrf": csrf, "mechanism": "no-such"})
    assert unknown.status_code == 422 and "no-such" in alert(unknown.text)
    stale = client.post(URL, data={"csrf": "0", "mechanism": "ladder"})
    assert stale.status_code == 403 and "What-if board" not in stale.text
    assert state(client) == before


def test_a_what_if_needs_the_organisers_session(client, solution):
    tokens = played(client, solution)
    anonymous = client.post(URL, data={"csrf": "", "mechanism": "ladder"})
    assert anonymous.status_code == 401 and "What-if board" not in anonymous.text
    as_team = client.post(
        URL, data={"csrf": "", "mechanism": "ladder"}, headers=bearer(tokens["alpha"])
    )
    assert as_team.status_code == 401 and "What-if board" not in as_team.text
