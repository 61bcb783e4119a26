"""The organiser's pages in-process, on SQLite and PostgreSQL: the list of
competitions, each competition's desk (teams sorted and paginated, duplicate
flags, teams imported with their tokens once, disabled and enabled, texts,
deadline and data files edited, the close and the publication each
confirmed), and the form that creates a competition. Every refusal is a
sentence and leaves the store as it was."""

from __future__ import annotations

import base64
import csv
import io
import re
from datetime import UTC, datetime, timedelta
from html import unescape

import pytest
from server_helpers import ADMIN, add_team, bearer, create, predictions, submit
from sqlalchemy import select
from sqlalchemy.orm import Session

from ladderboard.engine import CompetitionClosed, Competitions, views
from ladderboard.files.solution import Solution
from ladderboard.mechanisms import MECHANISMS, parameters_of
from ladderboard.mechanisms.parameters import REQUIRED
from ladderboard.rules.config import CompetitionConfig
from ladderboard.server.deps import hash_token
from ladderboard.server.organiser_advice import ADVICE, advice_for
from ladderboard.store import TeamRow


def _sign_in(client) -> str:
    """Sign in as the organiser; the CSRF value of the organiser's forms."""
    response = client.post("/organiser/login", data={"token": ADMIN}, follow_redirects=False)
    assert response.status_code == 303
    page = client.get("/organiser")
    return re.search(r'name="csrf" value="([0-9a-f]+)"', page.text).group(1)


def _alert(html: str) -> str:
    found = re.search(r'role="alert"><strong>Refused:</strong> (.*?)</div>', html, re.S)
    return unescape(found.group(1)) if found else ""


def _status(html: str) -> str:
    found = re.search(r'class="alert success" role="status"[^>]*>(.*?)</div>', html, re.S)
    return unescape(re.sub(r"<[^>]+>", "", found.group(1))).strip() if found else ""


def _team_rows(html: str) -> list[str]:
    """The team names of the desk's teams table, in the order shown."""
    table = html.split('aria-label="Teams table"', 1)[1].split("</table>", 1)[0]
    return [
        unescape(n)
        for n in re.findall(r'<th scope="row" class="name" title="[^"]*">([^<]*)<', table)
    ]


def _state(client) -> tuple:
    """What a refused form must leave unchanged: the competition and its teams and files."""
    competitions = client.app.state.competitions
    info = competitions.competition("demo")
    teams = [(t.name, t.disabled) for t in competitions.teams("demo")]
    files = [(f.name, f.sha256) for f in competitions.files("demo")]
    return info, teams, files


# ------------------------------------------------------------------ landing
def test_organiser_landing_lists_competitions_as_a_table_of_desks(client, solution):
    assert "Organiser token" in client.get("/organiser").text
    create(client, solution, title="Flower challenge")
    create(client, solution, slug="other", title="Other")
    add_team(client, "alpha")
    _sign_in(client)
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
def test_desk_sorts_teams_by_each_column_with_aria_sort(client, solution):
    create(client, solution, daily_quota="none")
    tokens = {name: add_team(client, name) for name in ("carol", "alpha", "bob")}
    for seed, name in enumerate(["bob", "bob", "carol"]):
        assert submit(client, tokens[name], predictions(solution, seed)).status_code == 201
    assert submit(client, tokens["alpha"], predictions(solution, 0)).status_code == 201  # flag
    assert submit(client, tokens["alpha"], b"bad\n").status_code == 400
    _sign_in(client)

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
    _sign_in(client)
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
    _sign_in(client)
    page = client.get("/organiser/c/demo").text
    flags = page.split('aria-label="Duplicate flags table"', 1)[1].split("</table>", 1)[0]
    cells = [unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", flags)]
    assert cells == ["beta", "1", "alpha", "2"]


def test_desk_adds_one_team_and_shows_its_token_once(client, solution):
    create(client, solution)
    csrf = _sign_in(client)
    added = client.post("/organiser/c/demo/teams", data={"csrf": csrf, "name": " Gang "})
    assert added.status_code == 201
    token = re.search(r'id="team-token">([^<]+)<', added.text).group(1)
    assert (
        client.get("/api/competitions/demo/submissions", headers=bearer(token)).status_code == 200
    )
    assert token not in client.get("/organiser/c/demo").text
    again = client.post("/organiser/c/demo/teams", data={"csrf": csrf, "name": "gang"})
    assert again.status_code == 409 and "already exists" in _alert(again.text)
    assert 'value="gang"' in again.text  # the name typed stays in the field


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
    csrf = _sign_in(client)
    page = _import(client, csrf, content)
    assert page.status_code == 201, _alert(page.text)
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
    ],
    ids=["columns", "repeat", "taken", "control", "long", "empty", "encoding"],
)
def test_desk_import_refuses_a_bad_line_by_number_and_adds_none(client, solution, content, message):
    create(client, solution)
    add_team(client, "alpha")
    csrf = _sign_in(client)
    before = _state(client)
    page = _import(client, csrf, content)
    assert page.status_code == 422
    assert message in _alert(page.text), _alert(page.text)
    assert "data:text/csv" not in page.text
    assert _state(client) == before


def test_desk_import_into_a_closed_competition_adds_none(client, solution):
    create(client, solution)
    csrf = _sign_in(client)
    client.app.state.competitions.close("demo")
    before = _state(client)
    page = _import(client, csrf, b"Ada\n")
    assert page.status_code == 409 and "closed" in _alert(page.text)
    assert _state(client) == before
    assert _import(client, csrf, b"Ada\n", slug="nope").status_code == 404


# ------------------------------------------------------- disable and enable
def test_desk_disables_and_enables_a_team(client, solution):
    create(client, solution)
    alpha = add_team(client, "alpha")
    add_team(client, "beta")
    csrf = _sign_in(client)
    page = client.get("/organiser/c/demo").text
    assert 'Disable<span class="visually-hidden"> team alpha</span>' in page
    off = client.post(
        "/organiser/c/demo/teams/disable",
        data={"csrf": csrf, "name": "alpha", "sort": "team", "dir": "desc", "page": "1"},
    )
    assert off.status_code == 200 and "Team alpha disabled" in _status(off.text)
    assert _team_rows(off.text) == ["beta", "alpha"]  # the view it was sent from
    assert 'Enable<span class="visually-hidden"> team alpha</span>' in off.text
    assert client.app.state.competitions.team("demo", "alpha").disabled
    assert submit(client, alpha, predictions(solution, 0)).status_code == 403
    on = client.post("/organiser/c/demo/teams/enable", data={"csrf": csrf, "name": "alpha"})
    assert on.status_code == 200 and "enabled again" in _status(on.text)
    assert submit(client, alpha, predictions(solution, 0)).status_code == 201
    before = _state(client)
    missing = client.post("/organiser/c/demo/teams/disable", data={"csrf": csrf, "name": "zed"})
    assert missing.status_code == 404 and _alert(missing.text)
    assert _state(client) == before


# ------------------------------------------------------ texts and deadline
def test_desk_edits_title_overview_and_rules(client, solution):
    create(client, solution)
    csrf = _sign_in(client)
    saved = client.post(
        "/organiser/c/demo/details",
        data={"csrf": csrf, "title": "Flowers", "description": "# Hi\n*all*", "rules": "- one"},
    )
    assert saved.status_code == 200 and "saved" in _status(saved.text)
    info = client.app.state.competitions.competition("demo")
    assert (info.title, info.description, info.rules) == ("Flowers", "# Hi\n*all*", "- one")
    before = _state(client)
    refused = client.post(
        "/organiser/c/demo/details",
        data={"csrf": csrf, "title": "Bad\x07", "description": "kept", "rules": "kept too"},
    )
    assert refused.status_code == 422 and "control character" in _alert(refused.text)
    assert ">kept</textarea>" in refused.text and ">kept too</textarea>" in refused.text
    assert _state(client) == before


def test_desk_moves_the_deadline_in_the_zone_chosen(client, solution):
    create(client, solution)
    csrf = _sign_in(client)
    year = datetime.now(UTC).year + 2
    moved = client.post(
        "/organiser/c/demo/deadline",
        data={"csrf": csrf, "deadline": f"{year}-07-01T12:00", "zone": "Europe/Paris"},
    )
    assert moved.status_code == 200, _alert(moved.text)
    assert f"{year}-07-01 10:00 UTC" in _status(moved.text)
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
def test_desk_refuses_a_bad_deadline_and_keeps_the_old(client, solution, fields, message):
    year = datetime.now(UTC).year + 3
    create(client, solution, deadline=f"{year + 1}-01-01T00:00:00Z")
    csrf = _sign_in(client)
    before = _state(client)
    march_31 = datetime(year, 3, 31)
    spring = march_31 - timedelta(days=(march_31.weekday() + 1) % 7)  # Europe's clocks go forward
    data = {
        key: value.format(year=year, spring=f"{spring:%Y-%m-%d}") for key, value in fields.items()
    }
    refused = client.post("/organiser/c/demo/deadline", data={"csrf": csrf, **data})
    assert refused.status_code == 422
    assert message in _alert(refused.text), _alert(refused.text)
    assert _state(client) == before


# ------------------------------------------------------------------- files
def test_desk_uploads_replaces_and_removes_data_files(client, solution):
    create(client, solution)
    csrf = _sign_in(client)
    competitions = client.app.state.competitions

    def upload(*files, replace=False):
        data = {"csrf": csrf, **({"replace": "1"} if replace else {})}
        return client.post(
            "/organiser/c/demo/files",
            data=data,
            files=[("files", (name, content, "text/csv")) for name, content in files],
        )

    done = upload(("train.csv", b"a,b\n1,2\n"), ("notes.txt", b"hello"))
    assert done.status_code == 200 and "Uploaded train.csv, notes.txt" in _status(done.text)
    assert competitions.file("demo", "train.csv")[1] == b"a,b\n1,2\n"
    before = _state(client)
    for files, message in (
        ([("train.csv", b"new")], "already a file here"),
        ([("my data.csv", b"x")], "A file name is"),
        ([("ok.csv", b"x"), ("sample_submission.csv", b"x")], "is generated from the solution"),
        ([("a.csv", b"x"), ("a.csv", b"y")], "Two data files are named 'a.csv'"),
    ):
        refused = upload(*files)
        assert refused.status_code in (409, 422), refused.status_code
        assert message in _alert(refused.text), _alert(refused.text)
        assert _state(client) == before  # nothing of a refused upload is stored
    assert upload(("train.csv", b"new"), replace=True).status_code == 200
    assert competitions.file("demo", "train.csv")[1] == b"new"
    gone = client.post("/organiser/c/demo/files/remove", data={"csrf": csrf, "name": "notes.txt"})
    assert gone.status_code == 200 and "Removed notes.txt" in _status(gone.text)
    assert [f.name for f in competitions.files("demo")][1:] == ["train.csv"]
    missing = client.post("/organiser/c/demo/files/remove", data={"csrf": csrf, "name": "x.csv"})
    assert missing.status_code == 404


# ------------------------------------------------------ closing, publishing
def test_desk_closes_after_a_confirmation_then_previews_and_publishes(client, solution):
    create(client, solution, title="Flower challenge")
    alpha = add_team(client, "alpha")
    submit(client, alpha, predictions(solution, 0))
    csrf = _sign_in(client)
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

    before = _state(client)
    early = client.post("/organiser/c/demo/publish", data={"csrf": csrf})
    assert early.status_code == 409 and "close it before publishing" in _alert(early.text)
    assert _state(client) == before and competitions.competition("demo").published_at is None

    closed = client.post("/organiser/c/demo/close", data={"csrf": csrf})
    assert closed.status_code == 200 and "is closed" in _status(closed.text)
    assert "Private board (only you see it)" in closed.text
    preview = closed.text.split('aria-label="Private board table"', 1)[1].split("</table>", 1)[0]
    assert '<th scope="row" class="name" title="alpha">alpha</th>' in preview
    assert 'href="/organiser/c/demo/publish"' in closed.text
    info = competitions.competition("demo")
    assert info.is_closed() and not info.is_published()
    with pytest.raises(CompetitionClosed):  # nobody else sees it yet
        competitions.leaderboard("demo", "private")

    confirm = client.get("/organiser/c/demo/publish").text
    assert "Publish the private board of Flower challenge?" in confirm
    published = client.post("/organiser/c/demo/publish", data={"csrf": csrf})
    assert published.status_code == 200 and "are public" in _status(published.text)
    assert competitions.competition("demo").is_published()
    assert competitions.leaderboard("demo", "private")[0].team == "alpha"
    assert 'href="/organiser/c/demo/publish"' not in published.text


def test_desk_after_the_deadline_previews_and_publishes(client, solution, monkeypatch):
    deadline = (datetime.now(UTC) + timedelta(days=1)).replace(microsecond=0)
    create(client, solution, deadline=deadline.isoformat())
    alpha = add_team(client, "alpha")
    submit(client, alpha, predictions(solution, 0))
    csrf = _sign_in(client)
    competitions = client.app.state.competitions
    after = deadline + timedelta(hours=1)
    monkeypatch.setattr(views, "now_utc", lambda: after)
    monkeypatch.setattr(competitions, "_clock", lambda: after)
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
    before = _state(client)
    assert client.post(path, data={"csrf": "0" * 64, **fields}).status_code == 401
    csrf = _sign_in(client)
    assert client.post(path, data={"csrf": "0" * 64, **fields}).status_code == 403
    other = client.post(
        path, data={"csrf": csrf, **fields}, headers={"Origin": "https://evil.example"}
    )
    assert other.status_code == 403
    assert _state(client) == before


# ------------------------------------------------------------- create form
def _create_form(**fields) -> dict[str, str]:
    return {
        "slug": "demo",
        "title": "Flower challenge",
        "description": "# Overview\nPredict the flowers.",
        "rules": "- One account a team.",
        "mechanism": "parameter-free-ladder",
        "score": "zero_one",
        "zone": "UTC",
        **fields,
    }


def _post_create(client, csrf, fields, solution_csv: bytes | None, files=()):
    uploads = [("files", (name, content, "text/csv")) for name, content in files]
    if solution_csv is not None:
        uploads.append(("solution", ("solution.csv", solution_csv, "text/csv")))
    return client.post(
        "/organiser/competitions", data={"csrf": csrf, **fields}, files=uploads or None
    )


def test_create_form_offers_every_mechanism_parameter_with_default_and_help(client):
    _sign_in(client)
    page = client.get("/organiser/new")
    assert page.status_code == 200
    html = unescape(page.text)
    for name, klass in MECHANISMS.items():
        assert f'<option value="{name}" data-kind="{klass.input_kind}"' in html
        assert f'id="params-{name}" data-mechanism="{name}"' in html
        for info in parameters_of(name):
            field = f"param-{name}-{info.name}"
            assert f'name="{field}"' in html, field
            assert info.help and info.help in html, field
            if info.kind in ("float", "int") and info.default not in (None, REQUIRED):
                assert f'name="{field}" type="text" value="{info.default}"' in html, field
    assert 'name="param-ladder-eta" type="text" value=""' in html
    assert "eta (required)" in html
    assert '<optgroup label="Losses' in html and '<optgroup label="Metrics' in html
    assert '<option value="parameter-free-ladder" data-kind="losses" selected>' in html
    assert 'type="datetime-local"' in html and '<option value="Europe/Paris">' in html
    assert '<option value="UTC" selected>' in html
    assert 'name="auto_publish" type="checkbox"' in html and 'name="ranks"' in html
    assert 'name="files" type="file" multiple' in html
    assert 'id="advice-data">{"rows": [' in html


def test_create_makes_the_competition_with_its_files_board_and_deadline(client, solution):
    csrf = _sign_in(client)
    year = datetime.now(UTC).year + 2
    fields = _create_form(
        mechanism="ladder-boot",
        **{"param-ladder-boot-b": "50", "param-ladder-boot-alpha": "0.1"},
        **{"param-ladder-eta": "not read", "param-shaky-ladder-step": "2"},
        board="per-rank",
        ranks="3",
        daily_quota="none",
        total_quota="40",
        invalid_quota="7",
        n_selections="1",
        deadline=f"{year}-01-15T18:30",
        zone="America/New_York",
        auto_publish="1",
    )
    files = [("train.csv", b"x,y\n1,2\n"), ("README.txt", b"hello")]
    created = _post_create(client, csrf, fields, solution.to_csv(), files)
    assert created.status_code == 201, _alert(created.text)
    assert "Competition Flower challenge created" in _status(created.text)
    assert "Data files: train.csv, README.txt" in _status(created.text)
    assert "<h1>Flower challenge" in created.text  # the new competition's desk
    competitions = client.app.state.competitions
    info = competitions.competition("demo")
    config = info.config
    assert (config.mechanism, config.mechanism_params) == ("ladder-boot", {"alpha": 0.1, "b": 50})
    assert (config.board, config.ranks, config.daily_quota, config.total_quota) == (
        "per-rank",
        3,
        None,
        40,
    )
    assert (config.invalid_quota, config.n_selections, config.auto_publish) == (7, 1, True)
    assert info.deadline == datetime(year, 1, 15, 23, 30, tzinfo=UTC)  # EST is UTC-5
    assert (info.description, info.rules) == (fields["description"], fields["rules"])
    assert [f.name for f in competitions.files("demo")][1:] == ["README.txt", "train.csv"]


def test_create_keeps_a_parameter_left_empty_to_the_mechanisms_default(client, solution):
    csrf = _sign_in(client)
    fields = _create_form(
        mechanism="shaky-ladder",
        **{"param-shaky-ladder-noise_scale": "", "param-shaky-ladder-noise": "gaussian"},
        **{"param-shaky-ladder-snap": "no", "param-shaky-ladder-max_updates": " "},
    )
    created = _post_create(client, csrf, fields, solution.to_csv())
    assert created.status_code == 201, _alert(created.text)
    params = client.app.state.competitions.competition("demo").config.mechanism_params
    assert params == {"noise": "gaussian", "snap": False}


TECHNICAL = ("__init__", "Traceback", "keyword", "argument")
FUTURE = f"{datetime.now(UTC).year + 2}-06-01T12:00"
BAD_CREATIONS = {
    "eta-missing": ({"mechanism": "ladder"}, "The Ladder needs its step eta: give a number"),
    "eta-text": (
        {"mechanism": "ladder", "param-ladder-eta": "big"},
        "The Ladder's eta must be a number, got 'big'",
    ),
    "eta-negative": ({"mechanism": "ladder", "param-ladder-eta": "-1"}, "The Ladder's eta must"),
    "b-fraction": (
        {"mechanism": "ladder-boot", "param-ladder-boot-b": "2.5"},
        "The LadderBoot's b must be a whole number, got '2.5'",
    ),
    "alpha-range": (
        {"mechanism": "significance-ladder", "param-significance-ladder-alpha": "3"},
        "The Significance Ladder's alpha must be",
    ),
    "noise-choice": (
        {"mechanism": "shaky-ladder", "param-shaky-ladder-noise": "cauchy"},
        "The Shaky Ladder's noise must be one of 'laplace', 'gaussian'",
    ),
    "baseline-shape": (
        {
            "mechanism": "bayes-boot-ladder",
            "score": "auc",
            "param-bayes-boot-ladder-baseline": "1,2",
        },
        "The BayesBoot Ladder's baseline must have shape",
    ),
    "metric-for-a-loss": (
        {"mechanism": "ladder", "score": "pearson"},
        "The Ladder scores per-sample losses",
    ),
    "loss-for-a-metric": (
        {"mechanism": "bayes-boot-ladder", "score": "zero_one"},
        "The BayesBoot Ladder scores predictions with a metric",
    ),
    "unknown-mechanism": ({"mechanism": "oracle"}, "Choose a mechanism from the list"),
    "unknown-score": ({"score": "vibes"}, "Choose a loss or a metric from the list"),
    "loss-params-json": (
        {"score": "log_loss", "score_params": "{clip: 1}"},
        "Loss parameters must be written like",
    ),
    "loss-params-unknown": (
        {"score": "log_loss", "score_params": '{"clop": 1}'},
        "The loss log_loss does not take the parameters clop",
    ),
    "loss-params-for-a-metric": (
        {"mechanism": "bayes-boot-ladder", "score": "auc", "score_params": '{"clip": 1}'},
        "Loss parameters apply to a loss",
    ),
    "deadline-past": ({"deadline": "2001-01-01T00:00"}, "is in the past: choose a later one"),
    "deadline-zone": ({"deadline": FUTURE, "zone": "Atlantis/Capital"}, "is not a time zone"),
    "auto-publish-no-deadline": ({"auto_publish": "1"}, "needs a deadline"),
    "daily-zero": ({"daily_quota": "0"}, "Submissions a day must be at least 1, got 0"),
    "ranks-text": ({"board": "per-rank", "ranks": "many"}, "Ranks must be a whole number"),
    "selections-none": (
        {"n_selections": "none"},
        "Final submissions a team selects must be a whole number",
    ),
    "board": ({"board": "sideways"}, "Choose a per-team or a per-rank board"),
    "slug": ({"slug": "a b/c"}, "The slug (the competition's address) is 1 to 64"),
    "title-long": ({"title": "t" * 201}, "Title is 201 characters long"),
}


@pytest.mark.parametrize(("fields", "message"), BAD_CREATIONS.values(), ids=BAD_CREATIONS.keys())
def test_create_refuses_in_a_plain_sentence_and_keeps_every_value(
    client, solution, fields, message
):
    csrf = _sign_in(client)
    sent = _create_form(**fields)
    page = _post_create(client, csrf, sent, solution.to_csv())
    assert page.status_code == 422, _alert(page.text)
    said = _alert(page.text)
    assert message in said, said
    assert not any(word in said for word in TECHNICAL), said
    assert said.endswith(".") and "\n" not in said
    assert client.app.state.competitions.competitions() == []
    html = unescape(page.text)
    for name, value in sent.items():
        if name in ("mechanism", "score", "zone", "board", "auto_publish") or "noise" in name:
            continue  # selects and boxes: checked below
        assert f'value="{value}"' in html or f">{value}</textarea>" in html, name
    assert "Choose the solution file again" in html
    mechanism = sent["mechanism"]
    if mechanism in MECHANISMS:
        assert (
            f'<option value="{mechanism}" data-kind="{MECHANISMS[mechanism].input_kind}" selected>'
            in html
        )
    if sent.get("auto_publish"):
        assert 'value="1" checked' in html


def test_create_refuses_a_bad_file_and_stores_nothing(client, solution):
    csrf = _sign_in(client)
    fields = _create_form()
    for files, solution_csv, message in (
        ((), None, "Choose the solution file"),
        ((), b"id,target\n1,0\n2,1\n", "The solution has no Usage column"),
        ([("my data.csv", b"x")], solution.to_csv(), "A file name is"),
        ([("a.csv", b"x"), ("a.csv", b"y")], solution.to_csv(), "Two data files are named 'a.csv'"),
    ):
        page = _post_create(client, csrf, fields, solution_csv, files)
        assert page.status_code in (400, 422), page.status_code
        said = _alert(page.text)
        assert message in said and not any(word in said for word in TECHNICAL), said
        assert client.app.state.competitions.competitions() == []
        if files:
            assert "Choose the data files again too" in page.text
    create(client, solution)
    before = _state(client)
    taken = _post_create(client, csrf, fields, solution.to_csv(), [("new.csv", b"x")])
    assert taken.status_code == 409 and "already exists" in _alert(taken.text)
    assert _state(client) == before


def test_create_needs_the_session_and_the_csrf_value(client, solution):
    page = client.get("/organiser/new")
    assert page.status_code == 401 and 'name="next" value="/organiser/new"' in page.text
    fields = _create_form()
    assert _post_create(client, "0" * 64, fields, solution.to_csv()).status_code == 401
    _sign_in(client)
    assert _post_create(client, "0" * 64, fields, solution.to_csv()).status_code == 403
    assert client.app.state.competitions.competitions() == []


def test_create_advice_rows_set_up_competitions_the_engine_accepts(tmp_path):
    competitions = Competitions.open(f"sqlite:///{tmp_path / 'advice.db'}")
    try:
        for number, row in enumerate(ADVICE):
            holdout = Solution.from_labels([0, 1] * row.n, public_fraction=0.5, random_state=0)
            assert holdout.n_public == row.n
            config = CompetitionConfig(
                score=row.score, mechanism=row.mechanism, mechanism_params=row.values()
            )
            competitions.create(f"advice-{number}", holdout, config)
            assert advice_for(row.score, row.n) == row
    finally:
        competitions.dispose()
