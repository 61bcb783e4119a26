"""After publication: the private board's shake-up column (each team's public
rank beside its final one, and the move between them), and a team's page
saying which files counted, their private scores, its move, and which files
the mechanism held as its best."""

from __future__ import annotations

import re
from html import unescape

from server_helpers import add_team, create, flipped, submit

from ladderboard.server.rendering import movement


def _cells(page: str) -> dict[str, list[str]]:
    """The private board's rows by team: the text of each cell."""
    rows = {}
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", page, flags=re.S):
        cells = [
            re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", unescape(c))).strip()
            for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, flags=re.S)
        ]
        if len(cells) == 7 and cells[0].isdigit():
            rows[cells[3].removesuffix(" you").strip()] = cells
    return rows


def test_the_private_board_shows_each_teams_move_from_the_public_board(client, solution):
    create(client, solution, n_selections=1)
    tokens = {name: add_team(client, name) for name in ("alpha", "beta", "gamma")}
    for k, (name, wrong) in enumerate((("alpha", 0.1), ("beta", 0.3), ("gamma", 0.45))):
        assert submit(client, tokens[name], flipped(solution, wrong, k)).status_code == 201
    store = client.app.state.competitions
    before = client.get("/c/demo/leaderboard?board=public").text
    assert "Public rank" not in before
    store.close("demo")
    store.publish("demo")
    public = {r.team: r.rank for r in store.leaderboard("demo", "public")}
    final = {r.team: r.rank for r in store.leaderboard("demo", "private")}
    page = client.get("/c/demo/leaderboard?board=private").text
    assert "Public rank" in page and "Move" in page
    rows = _cells(page)
    assert sorted(rows) == sorted(final)
    for team, cells in rows.items():
        assert cells[0] == str(final[team]) and cells[1] == str(public[team])
        assert cells[2].endswith(movement(public[team], final[team]))


def test_a_published_team_page_says_what_counted_and_what_the_board_held(client, solution):
    create(client, solution, n_selections=1)
    alpha, beta = add_team(client, "alpha"), add_team(client, "beta")
    assert submit(client, alpha, flipped(solution, 0.05, 1)).status_code == 201
    assert submit(client, alpha, flipped(solution, 0.5, 2)).status_code == 201
    assert submit(client, beta, flipped(solution, 0.2, 3)).status_code == 201
    store = client.app.state.competitions
    store.close("demo")
    store.publish("demo")
    page = unescape(client.post("/c/demo/team", data={"token": alpha}).text)
    words = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    assert "Held as your best" in page and "Private score" in page
    assert "from the public board" in words or "the same place as on the public board" in words
    views = store.submissions("demo", "alpha")
    assert [v.best for v in views] == [True, False]
    assert [v.final for v in views] == [True, False]  # the model, not the random file
    assert "chosen automatically: the latest files the board took as your team's best" in words


def test_the_organiser_sees_the_decisions_the_team_does_not(client, solution):
    """While the competition runs, the desk's team page says which files the
    mechanism took as best; the team's own page and list do not."""
    from organiser_helpers import sign_in

    create(client, solution, mechanism="ladder-boot", n_selections=1)
    alpha = add_team(client, "alpha")
    assert submit(client, alpha, flipped(solution, 0.05, 1)).status_code == 201
    assert submit(client, alpha, flipped(solution, 0.5, 2)).status_code == 201
    store = client.app.state.competitions
    assert [v.best for v in store.submissions("demo", "alpha")] == [None, None]
    organiser = store.submissions("demo", "alpha", organiser=True)
    assert [(v.best, v.final) for v in organiser] == [(True, True), (False, False)]
    sign_in(client)
    desk = unescape(client.get("/organiser/c/demo/team", params={"name": "alpha"}).text)
    cells = [
        re.sub(r"<[^>]+>", "", c).strip()
        for c in re.findall(r"<td[^>]*>(.*?)</td>", desk, flags=re.S)
    ]
    assert "Taken as best" in desk and cells.count("yes") == 1 and cells.count("no") == 1
    assert "chosen for it" in desk
