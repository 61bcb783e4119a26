"""The organiser's pages in-process, on SQLite and PostgreSQL: the list of
competitions and each competition's desk (teams sorted and paginated, a
team's own page, duplicate flags, teams imported with their tokens once,
disabled and enabled, texts, deadline and data files edited, the close and
the publication each confirmed). Every refusal is a sentence and leaves the
store as it was. The create form is tested in test_organiser_create.py."""

from __future__ import annotations

import base64
import csv
import io
import re
from datetime import UTC, datetime, timedelta
from html import unescape

import pytest
from organiser_helpers import alert, sign_in, state, status
from server_helpers import ADMIN, add_team, bearer, create, predictions, submit
from sqlalchemy import select
from sqlalchemy.orm import Session

from ladderboard.engine import CompetitionClosed, results
from ladderboard.server.deps import hash_token
from ladderboard.server.errors import ApiError
from ladderboard.server.organiser_forms import deadline_in_utc
from ladderboard.store import TeamRow


def _team_rows(html: str) -> list[str]:
    """The team names of the desk's teams table, in the order shown."""
    table = html.split('aria-label="Teams table"', 1)[1].split("</table>", 1)[0]
    found = re.findall(r'<th scope="row"><a class="cut" href="[^"]*" title="[^"]*">([^<]*)<', table)
    return [unescape(name) for name in found]


def test_organiser_landing_lists_competitions_as_a_table_of_desks(client, solution):
    assert "Organiser token" in client.get("/organiser").text
    create(client, solution, title="Flower challenge")
    create(client, solution, slug="other", title="Other")
    add_team(client, "alpha")
    sign_in(client)
    page = client.get("/organiser").text
    assert '<table class="desk-table">' in page and 'role="region"' in page
    assert 'href="/organiser/c/demo"' in page and 'href="/organiser/c/other"' in page
    assert 'href="/organiser/new"' in page and "Sign out" in page
    demo_row = page.split('href="/organiser/c/demo"', 1)[1].split("</tr>", 1)[0]
    assert '<td class="num">1</td>' in demo_row  # one team


def test_organiser_desk_needs_a_session_and_comes_back_after_sign_in(client, solution):
    create(client, solution)
    page = client.get("/organiser/c/demo?sort=flags")
    assert page.status_code == 401 and "Organiser token" in page.text
    assert 'name="next" value="/organiser/c/demo"' in page.text
    back = client.post(
        "/organiser/login",
        data={"token": ADMIN, "next": "/organiser/c/demo"},
        follow_redirects=False,
    )
    assert back.status_code == 303 and back.headers["location"] == "/organiser/c/demo"
    for elsewhere in ("https://evil.example/organiser", "//evil.example/organiser", "/c/demo"):
        away = client.post(
            "/organiser/login", data={"token": ADMIN, "next": elsewhere}, follow_redirects=False
        )
        assert away.headers["location"] == "/organiser", elsewhere
    assert client.get("/organiser/c/nope").status_code == 404


# -------------------------------------------------------------- teams table
@pytest.mark.slow
def test_desk_sorts_teams_by_each_column_with_aria_sort(client, solution):
    create(client, solution, daily_quota="none")
    tokens = {name: add_team(client, name) for name in ("carol", "alpha", "bob")}
    for seed, name in enumerate(["bob", "bob", "carol"]):
        assert submit(client, tokens[name], predictions(solution, seed)).status_code == 201
    assert submit(client, tokens["alpha"], predictions(solution, 0)).status_code == 201  # flag
    assert submit(client, tokens["alpha"], b"bad\n").status_code == 400
    sign_in(client)

    page = client.get("/organiser/c/demo").text
    assert _team_rows(page) == ["alpha", "bob", "carol"]  # by name at first
    assert re.search(
        r'<th scope="col" aria-sort="ascending">\s*<a href="\?sort=team&amp;dir=desc', page
    )
    assert page.count("aria-sort=") == 1

    expected = {
        ("team", "desc"): ["carol", "bob", "alpha"],
        ("submissions", "desc"): ["bob", "alpha", "carol"],
        ("submissions", "asc"): ["alpha", "carol", "bob"],
        ("invalid", "desc"): ["alpha", "bob", "carol"],
        ("flags", "desc"): ["alpha", "bob", "carol"],
        ("last", "desc"): ["alpha", "carol", "bob"],
        ("today", "desc"): ["bob", "alpha", "carol"],
    }
    for (column, direction), names in expected.items():
        page = client.get(f"/organiser/c/demo?sort={column}&dir={direction}").text
        assert _team_rows(page) == names, (column, direction)
        wanted = "ascending" if direction == "asc" else "descending"
        assert re.search(rf'aria-sort="{wanted}">\s*<a href="\?sort={column}&amp;', page)
    # What the query gets wrong falls back to the default view.
    page = client.get("/organiser/c/demo?sort=token&dir=sideways&page=-3")
    assert page.status_code == 200 and _team_rows(page.text) == ["alpha", "bob", "carol"]


def test_desk_paginates_teams_fifty_a_page(client, solution):
    create(client, solution)
    names = [f"team-{i:03d}" for i in range(120)]
    client.app.state.competitions.add_teams("demo", names, [None] * len(names))
    sign_in(client)
    first = client.get("/organiser/c/demo").text
    assert _team_rows(first) == names[:50]
    assert 'aria-label="Pages of teams"' in first and "Next" in first
    third = client.get("/organiser/c/demo?sort=team&dir=asc&page=3").text
    assert _team_rows(third) == names[100:]
    assert '<span aria-current="page">3</span>' in third
    beyond = client.get("/organiser/c/demo?page=99").text
    assert _team_rows(beyond) == names[100:]  # the last page
    descending = client.get("/organiser/c/demo?sort=team&dir=desc&page=2").text
    assert _team_rows(descending) == names[::-1][50:100]


def test_desk_lists_duplicate_flags_with_both_teams_and_numbers(client, solution):
    create(client, solution)
    alpha, beta = add_team(client, "alpha"), add_team(client, "beta")
    submit(client, alpha, predictions(solution, 1))
    submit(client, alpha, predictions(solution, 2))
    submit(client, beta, predictions(solution, 2))  # beta's 1 repeats alpha's 2
    sign_in(client)
    page = client.get("/organiser/c/demo").text
    flags = page.split('aria-label="Duplicate flags table"', 1)[1].split("</table>", 1)[0]
    cells = [unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", flags)]
    assert cells == ["beta", "1", "alpha", "2"]


def test_desk_adds_one_team_and_shows_its_token_once(client, solution):
    create(client, solution)
    csrf = sign_in(client)
    added = client.post("/organiser/c/demo/teams", data={"csrf": csrf, "name": " Gang "})
    assert added.status_code == 201
    token = re.search(r'id="team-token">([^<]+)<', added.text).group(1)
    assert (
        client.get("/api/competitions/demo/submissions", headers=bearer(token)).status_code == 200
    )
    assert token not in client.get("/organiser/c/demo").text
    again = client.post("/organiser/c/demo/teams", data={"csrf": csrf, "name": "gang"})
    assert again.status_code == 409 and "already exists" in alert(again.text)
    assert 'value="gang"' in again.text  # the name typed stays in the field


def test_desk_links_each_team_to_its_page_of_submissions_and_refused_files(client, solution):
    create(client, solution)
    odd = "A&B / C?#1"
    tokens = {name: add_team(client, name) for name in ("alpha", odd)}
    submit(client, tokens["alpha"], predictions(solution, 3), data={"message": "first try"})
    submit(client, tokens[odd], predictions(solution, 3))  # repeats alpha's 1
    assert submit(client, tokens[odd], b"nonsense\n").status_code == 400
    csrf = sign_in(client)
    desk = client.get("/organiser/c/demo").text
    link = "/organiser/c/demo/team?name=A%26B%20/%20C%3F%231"
    assert f'href="{link}"' in desk and f'href="{link}#refused"' in desk
    page = client.get(link)
    assert page.status_code == 200
    html = unescape(page.text)
    assert f"<h1>Team {odd}" in html
    refused = html.split('aria-label="Refused files table"', 1)[1].split("</table>", 1)[0]
    said = client.app.state.competitions.rejections("demo", odd)[0].message
    assert said and said in refused  # the reason the team was given
    flags = html.split('aria-label="Duplicate flags of the team table"', 1)[1]
    assert "alpha" in flags.split("</table>", 1)[0]
    alpha = unescape(client.get("/organiser/c/demo/team?name=alpha").text)
    assert "first try" in alpha and "No file refused." in alpha
    off = client.post(
        "/organiser/c/demo/teams/disable", data={"csrf": csrf, "name": odd, "back": "team"}
    )
    assert off.status_code == 200 and "Team disabled" in status(off.text)
    assert f"<h1>Team {odd}" in unescape(off.text)  # back on the team's page
    missing = client.get("/organiser/c/demo/team?name=zed")
    assert missing.status_code == 404 and "has no team 'zed'" in alert(missing.text)
    client.cookies.clear()
    assert client.get(link).status_code == 401


# ------------------------------------------------------------------ import
def _import(client, csrf, content: bytes, slug: str = "demo"):
    return client.post(
        f"/organiser/c/{slug}/teams/import",
        data={"csrf": csrf},
        files={"teams": ("teams.csv", content, "text/csv")},
    )


def _tokens_csv(html: str) -> list[list[str]]:
    link = re.search(r'href="data:text/csv;charset=utf-8;base64,([^"]+)" download="([^"]+)"', html)
    assert link and link.group(2) == "demo-team-tokens.csv"
    return list(csv.reader(io.StringIO(base64.b64decode(link.group(1)).decode())))


@pytest.mark.parametrize(
    "content",
    [b"name\nAda\nBob\n=Cmd\n", b"\xef\xbb\xbfAda\r\nBob\r\n\r\n=Cmd\r\n", b'"Ada"\nBob,\n=Cmd'],
    ids=["header", "no-header-bom-crlf", "quoted-trailing-comma"],
)
def test_desk_imports_teams_and_gives_their_tokens_once(client, solution, content):
    create(client, solution)
    csrf = sign_in(client)
    page = _import(client, csrf, content)
    assert page.status_code == 201, alert(page.text)
    rows = _tokens_csv(page.text)
    assert rows[0] == ["name", "token"]
    assert [name for name, _ in rows[1:]] == ["Ada", "Bob", "'=Cmd"]  # no formula in a spreadsheet
    competitions = client.app.state.competitions
    assert [t.name for t in competitions.teams("demo")] == ["Ada", "Bob", "=Cmd"]
    with Session(competitions.engine) as session:
        stored = dict(session.execute(select(TeamRow.name, TeamRow.token_hash)).all())
    for name, token in rows[1:]:
        assert stored[name.lstrip("'")] == hash_token(token) != token
        assert (
            client.get("/api/competitions/demo/submissions", headers=bearer(token)).status_code
            == 200
        )
    desk = client.get("/organiser/c/demo").text
    assert all(token not in desk for _, token in rows[1:])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"name\nAda\nBob,Extra\n", "Line 3 has 2 columns"),
        (b"Ada\nBob\n\nada\n", "Line 4: 'ada' repeats the team on line 1"),
        (b"name\nAda\nalpha\n", "Line 3: 'alpha' repeats a team already registered"),
        (b"name\nAda\nB\x00b\n", "Line 3: the name contains the control character U+0000"),
        (b"name\nAda\n" + b"x" * 101 + b"\n", "Line 3: the name is 101 characters long"),
        (b"name\n\n", "The file names no team"),
        (b"Ada\n\xff\xfe\n", "Line 2: the file must be UTF-8 text"),
        (b'Ada\n"Bo"b\n', "Line 2: not a readable CSV line"),
    ],
    ids=["columns", "repeat", "taken", "control", "long", "empty", "encoding", "quotes"],
)
@pytest.mark.slow
def test_desk_import_refuses_a_bad_line_by_number_and_adds_none(client, solution, content, message):
    create(client, solution)
    add_team(client, "alpha")
    csrf = sign_in(client)
    before = state(client)
    page = _import(client, csrf, content)
    assert page.status_code == 422
    assert message in alert(page.text), alert(page.text)
    assert "data:text/csv" not in page.text
    assert state(client) == before


def test_desk_import_into_a_closed_competition_adds_none(client, solution):
    create(client, solution)
    csrf = sign_in(client)
    client.app.state.competitions.close("demo")
    before = state(client)
    page = _import(client, csrf, b"Ada\n")
    assert page.status_code == 409 and "closed" in alert(page.text)
    assert state(client) == before
    assert _import(client, csrf, b"Ada\n", slug="nope").status_code == 404


# ------------------------------------------------------- disable and enable
def test_desk_disables_and_enables_a_team(client, solution):
    create(client, solution)
    alpha = add_team(client, "alpha")
    add_team(client, "beta")
    csrf = sign_in(client)
    page = client.get("/organiser/c/demo").text
    assert 'Disable<span class="visually-hidden"> team alpha</span>' in page
    off = client.post(
        "/organiser/c/demo/teams/disable",
        data={"csrf": csrf, "name": "alpha", "sort": "team", "dir": "desc", "page": "1"},
    )
    assert off.status_code == 200 and "Team alpha disabled" in status(off.text)
    assert _team_rows(off.text) == ["beta", "alpha"]  # the view it was sent from
    assert 'Enable<span class="visually-hidden"> team alpha</span>' in off.text
    assert client.app.state.competitions.team("demo", "alpha").disabled
    assert submit(client, alpha, predictions(solution, 0)).status_code == 403
    on = client.post("/organiser/c/demo/teams/enable", data={"csrf": csrf, "name": "alpha"})
    assert on.status_code == 200 and "enabled again" in status(on.text)
    assert submit(client, alpha, predictions(solution, 0)).status_code == 201
    before = state(client)
    missing = client.post("/organiser/c/demo/teams/disable", data={"csrf": csrf, "name": "zed"})
    assert missing.status_code == 404 and alert(missing.text)
    assert state(client) == before


# ------------------------------------------------------ texts and deadline
def test_desk_edits_title_overview_and_rules(client, solution):
    create(client, solution)
    csrf = sign_in(client)
    saved = client.post(
        "/organiser/c/demo/details",
        data={"csrf": csrf, "title": "Flowers", "description": "# Hi\n*all*", "rules": "- one"},
    )
    assert saved.status_code == 200 and "saved" in status(saved.text)
    info = client.app.state.competitions.competition("demo")
    assert (info.title, info.description, info.rules) == ("Flowers", "# Hi\n*all*", "- one")
    before = state(client)
    refused = client.post(
        "/organiser/c/demo/details",
        data={"csrf": csrf, "title": "Bad\x07", "description": "kept", "rules": "kept too"},
    )
    assert refused.status_code == 422 and "control character" in alert(refused.text)
    assert ">kept</textarea>" in refused.text and ">kept too</textarea>" in refused.text
    assert state(client) == before


def test_desk_moves_the_deadline_in_the_zone_chosen(client, solution):
    create(client, solution)
    csrf = sign_in(client)
    year = datetime.now(UTC).year + 2
    moved = client.post(
        "/organiser/c/demo/deadline",
        data={"csrf": csrf, "deadline": f"{year}-07-01T12:00", "zone": "Europe/Paris"},
    )
    assert moved.status_code == 200, alert(moved.text)
    assert f"{year}-07-01 10:00 UTC" in status(moved.text)
    deadline = client.app.state.competitions.competition("demo").deadline
    assert deadline == datetime(year, 7, 1, 10, 0, tzinfo=UTC)
    cleared = client.post("/organiser/c/demo/deadline", data={"csrf": csrf, "no_deadline": "1"})
    assert cleared.status_code == 200
    assert client.app.state.competitions.competition("demo").deadline is None


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"deadline": "2001-01-01T00:00", "zone": "UTC"}, "is in the past"),
        ({"deadline": "{spring}T02:30", "zone": "Europe/Paris"}, "does not exist"),
        ({"deadline": "tomorrow", "zone": "UTC"}, "must be a date and a time"),
        ({"deadline": "{year}-01-01T00:00", "zone": "Mars/Olympus"}, "is not a time zone"),
        ({"deadline": "", "zone": "UTC"}, "Choose the new deadline"),
    ],
    ids=["past", "skipped", "not-a-time", "zone", "empty"],
)
@pytest.mark.slow
def test_desk_refuses_a_bad_deadline_and_keeps_the_old(client, solution, fields, message):
    year = datetime.now(UTC).year + 3
    create(client, solution, deadline=f"{year + 1}-01-01T00:00:00Z")
    csrf = sign_in(client)
    before = state(client)
    march_31 = datetime(year, 3, 31)
    spring = march_31 - timedelta(days=(march_31.weekday() + 1) % 7)  # Europe's clocks go forward
    data = {
        key: value.format(year=year, spring=f"{spring:%Y-%m-%d}") for key, value in fields.items()
    }
    refused = client.post("/organiser/c/demo/deadline", data={"csrf": csrf, **data})
    assert refused.status_code == 422
    assert message in alert(refused.text), alert(refused.text)
    assert state(client) == before


# ------------------------------------------------------------------- files
@pytest.mark.slow
def test_desk_uploads_replaces_and_removes_data_files(client, solution):
    create(client, solution)
    csrf = sign_in(client)
    competitions = client.app.state.competitions

    def upload(*files, replace=False):
        data = {"csrf": csrf, **({"replace": "1"} if replace else {})}
        return client.post(
            "/organiser/c/demo/files",
            data=data,
            files=[("files", (name, content, "text/csv")) for name, content in files],
        )

    done = upload(("train.csv", b"a,b\n1,2\n"), ("notes.txt", b"hello"))
    assert done.status_code == 200 and "Uploaded train.csv, notes.txt" in status(done.text)
    assert competitions.file("demo", "train.csv")[1] == b"a,b\n1,2\n"
    before = state(client)
    for files, message in (
        ([("train.csv", b"new")], "already a file here"),
        ([("my data.csv", b"x")], "A file name is"),
        ([("ok.csv", b"x"), ("sample_submission.csv", b"x")], "is generated from the solution"),
        ([("a.csv", b"x"), ("a.csv", b"y")], "Two data files are named 'a.csv'"),
    ):
        refused = upload(*files)
        assert refused.status_code in (409, 422), refused.status_code
        assert message in alert(refused.text), alert(refused.text)
        assert state(client) == before  # nothing of a refused upload is stored
    assert upload(("train.csv", b"new"), replace=True).status_code == 200
    assert competitions.file("demo", "train.csv")[1] == b"new"
    gone = client.post("/organiser/c/demo/files/remove", data={"csrf": csrf, "name": "notes.txt"})
    assert gone.status_code == 200 and "Removed notes.txt" in status(gone.text)
    assert [f.name for f in competitions.files("demo")][1:] == ["train.csv"]
    missing = client.post("/organiser/c/demo/files/remove", data={"csrf": csrf, "name": "x.csv"})
    assert missing.status_code == 404


# ------------------------------------------------------ closing, publishing
def test_desk_closes_after_a_confirmation_then_previews_and_publishes(client, solution):
    create(client, solution, title="Flower challenge")
    alpha = add_team(client, "alpha")
    submit(client, alpha, predictions(solution, 0))
    csrf = sign_in(client)
    competitions = client.app.state.competitions

    desk = client.get("/organiser/c/demo").text
    assert 'href="/organiser/c/demo/close"' in desk and "Private board" not in desk
    confirm = client.get("/organiser/c/demo/close")
    assert confirm.status_code == 200
    assert "<h1>Close Flower challenge?</h1>" in confirm.text
    assert "Teams can no longer submit." in confirm.text
    assert re.search(r'<form method="post" action="/organiser/c/demo/close"', confirm.text)
    assert ">Confirm<" in confirm.text and 'href="/organiser/c/demo">Cancel</a>' in confirm.text
    assert not competitions.competition("demo").is_closed()  # looking at it closes nothing

    not_yet = client.get("/organiser/c/demo/publish")
    assert not_yet.status_code == 409 and "close it before publishing" in alert(not_yet.text)
    before = state(client)
    early = client.post("/organiser/c/demo/publish", data={"csrf": csrf})
    assert early.status_code == 409 and "close it before publishing" in alert(early.text)
    assert state(client) == before and competitions.competition("demo").published_at is None

    closed = client.post("/organiser/c/demo/close", data={"csrf": csrf})
    assert closed.status_code == 200 and "is closed" in status(closed.text)
    assert "Private board (only you see it)" in closed.text
    preview = closed.text.split('aria-label="Private board table"', 1)[1].split("</table>", 1)[0]
    assert '<th scope="row" class="name" title="alpha">alpha</th>' in preview
    assert 'href="/organiser/c/demo/publish"' in closed.text
    info = competitions.competition("demo")
    assert info.is_closed() and not info.is_published()
    with pytest.raises(CompetitionClosed):  # nobody else sees it yet
        competitions.leaderboard("demo", "private")

    again = client.get("/organiser/c/demo/close")
    assert "is closed already" in status(again.text) and ">Confirm<" not in again.text
    confirm = client.get("/organiser/c/demo/publish").text
    assert "Publish the private board of Flower challenge?" in confirm
    published = client.post("/organiser/c/demo/publish", data={"csrf": csrf})
    assert published.status_code == 200 and "are public" in status(published.text)
    assert competitions.competition("demo").is_published()
    assert competitions.leaderboard("demo", "private")[0].team == "alpha"
    assert 'href="/organiser/c/demo/publish"' not in published.text
    assert "published already" in status(client.get("/organiser/c/demo/publish").text)


def test_desk_after_the_deadline_previews_and_publishes(client, solution, monkeypatch):
    deadline = (datetime.now(UTC) + timedelta(days=1)).replace(microsecond=0)
    create(client, solution, deadline=deadline.isoformat())
    alpha = add_team(client, "alpha")
    submit(client, alpha, predictions(solution, 0))
    csrf = sign_in(client)
    competitions = client.app.state.competitions
    after = deadline + timedelta(hours=1)
    monkeypatch.setattr(results, "now_utc", lambda: after)
    monkeypatch.setattr(competitions.context, "clock", lambda: after)
    monkeypatch.setattr(competitions.context, "store_clock", lambda: after)  # the store decides
    page = client.get("/organiser/c/demo").text
    assert 'href="/organiser/c/demo/close"' not in page  # closed by its deadline
    assert "Private board (only you see it)" in page
    assert 'href="/organiser/c/demo/publish"' in page
    assert client.post("/organiser/c/demo/publish", data={"csrf": csrf}).status_code == 200
    assert competitions.competition("demo").published_at == after


# ------------------------------------------------------------- protection
DESK_FORMS = [
    ("/organiser/c/demo/teams", {"name": "x"}),
    ("/organiser/c/demo/teams/disable", {"name": "alpha"}),
    ("/organiser/c/demo/teams/enable", {"name": "alpha"}),
    ("/organiser/c/demo/details", {"title": "Changed"}),
    ("/organiser/c/demo/deadline", {"no_deadline": "1"}),
    ("/organiser/c/demo/files/remove", {"name": "train.csv"}),
    ("/organiser/c/demo/close", {}),
    ("/organiser/c/demo/publish", {}),
]


@pytest.mark.parametrize(
    ("path", "fields"), DESK_FORMS, ids=[p.split("demo/")[1] for p, _ in DESK_FORMS]
)
def test_desk_forms_need_the_session_the_origin_and_the_csrf_value(client, solution, path, fields):
    create(client, solution, deadline=f"{datetime.now(UTC).year + 2}-01-01T00:00:00Z")
    add_team(client, "alpha")
    client.app.state.competitions.add_file("demo", "train.csv", b"x")
    before = state(client)
    assert client.post(path, data={"csrf": "0" * 64, **fields}).status_code == 401
    csrf = sign_in(client)
    assert client.post(path, data={"csrf": "0" * 64, **fields}).status_code == 403
    other = client.post(
        path, data={"csrf": csrf, **fields}, headers={"Origin": "https://evil.example"}
    )
    assert other.status_code == 403
    assert state(client) == before


@pytest.mark.parametrize(
    ("local", "zone"), [("9999-12-31T23:59", "America/Adak"), ("0001-01-01T00:00", "Asia/Tokyo")]
)
def test_organiser_a_deadline_past_the_calendars_ends_is_a_sentence(local, zone):
    with pytest.raises(ApiError) as refused:
        deadline_in_utc(local, zone)
    assert refused.value.status == 422 and "out of range" in refused.value.message
