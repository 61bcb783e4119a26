"""The participant's pages in-process, on SQLite and PostgreSQL: the tabs of a
competition, Markdown that cannot carry a script, the data files without the
solution, the team's sign-in and the forms it authorises, what a team's page
and a submission's result say, closed competitions, long boards, and HTML
error pages beside the API's JSON ones."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime, timedelta
from html import unescape

import numpy as np
import pytest
from fastapi.testclient import TestClient
from server_helpers import ADMIN, add_team, bearer, create, predictions, send_file, submit

from ladderboard.files.solution import Solution
from ladderboard.mechanisms import COMPETITION_MECHANISMS
from ladderboard.rules.config import CompetitionConfig
from ladderboard.server.deps import hash_token
from ladderboard.server.pages import BOARD_PAGE
from ladderboard.server.rendering import human_size, markdown, plain_text
from ladderboard.server.team_pages import COOKIE

HOSTILE = """# Title

<script>alert('script')</script>
<img src=x onerror="alert('img')">
<a href="https://example.org" onclick="alert('click')">raw link</a>
<div style="position:fixed">styled</div>
[js](javascript:alert('js')) [JS](JaVaScRiPt:alert(1)) [spaced]( javascript:alert(1))
[entity](&#106;avascript:alert(1)) [vb](vbscript:msgbox(1))
[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)
![pixel](data:image/png;base64,iVBORw0KGgo=)
[quote](https://example.org/"onmouseover="alert(1))
[ok](https://example.org/rules) and https://example.org/bare
"""


def _inert(html: str) -> None:
    """No executable or external-loading markup in ``html``: raw HTML from the
    organiser may show as escaped text, never as a tag or an attribute."""
    assert "<script" not in html.lower()
    tags = re.findall(r"<[a-zA-Z][^>]*>", html)
    assert not [tag for tag in tags if re.search(r"\s(on\w+|style)\s*=", tag, re.I)], tags
    assert not [tag for tag in tags if tag.lower().startswith(("<img src=x", "<div style"))]
    for url in re.findall(r'(?:href|src)="([^"]*)"', html):
        scheme = unescape(url).strip().lower()
        assert not scheme.startswith(("javascript:", "vbscript:", "data:")), url


def _csrf(html: str) -> str:
    return re.search(r'name="csrf" value="([0-9a-f]+)"', html).group(1)


def _alert(html: str) -> str:
    found = re.search(r'role="alert"><strong>Refused:</strong> (.*?)</div>', html, re.S)
    return unescape(found.group(1)) if found else ""


def _sign_in(client, token: str, slug: str = "demo"):
    return client.post(f"/c/{slug}/team", data={"token": token})


# ----------------------------------------------------------------- Markdown
def test_participant_markdown_neutralises_hostile_input():
    html = str(markdown(HOSTILE))
    _inert(html)
    assert html.count("<h2>Title</h2>") == 1  # below the page's own h1
    assert '<a href="https://example.org/rules" rel="nofollow noopener">ok</a>' in html
    assert '<a href="https://example.org/bare" rel="nofollow noopener">' in html  # linkified
    # Raw HTML is shown as text, not dropped silently: the organiser sees what went wrong.
    assert "&lt;script&gt;" in html


def test_participant_markdown_keeps_what_an_overview_needs():
    html = str(markdown("## Data\n\n| a | b |\n|--:|:-:|\n| 1 | 2 |\n\n1. x\n2. y\n\n`code` **b**"))
    assert "<h2>Data</h2>" in html  # the first level used becomes h2
    assert '<div class="scroll" role="region" aria-label="Table" tabindex="0"><table>' in html
    assert '<th class="right">a</th>' in html and '<td class="center">2</td>' in html
    assert "<ol>" in html and "<code>code</code>" in html and "<strong>b</strong>" in html
    assert str(markdown("# A\n\n## B", top=3)).startswith("<h3>A</h3>\n<h4>B</h4>")


def test_participant_plain_text_summary_has_no_markup():
    text = plain_text("# Predict *churn*\n\nUse [the data](/x). <b>raw</b>\n\n" + "word " * 80)
    assert text.startswith("Predict churn. Use the data. <b>raw</b> word")
    assert "*" not in text and "](" not in text and len(text) <= 201 and text.endswith("…")


def test_participant_pages_render_hostile_markdown_inert(client, solution):
    create(client, solution, description=HOSTILE, title="Hostile")
    client.app.state.competitions.update("demo", rules=HOSTILE)
    for url in ("/c/demo", "/c/demo/rules"):
        page = client.get(url)
        assert page.status_code == 200
        _inert(page.text)
        assert 'rel="nofollow noopener">ok</a>' in page.text
    card = client.get("/").text
    assert "Title" in card and "<h2>Title" not in card and "&lt;script&gt;" in card
    _inert(card)


# ----------------------------------------------------------------- overview
def test_participant_overview_states_the_facts(client, solution):
    deadline = (datetime.now(UTC) + timedelta(days=3)).replace(microsecond=0)
    create(
        client,
        solution,
        title="Flowers",
        description="Predict **the class**.",
        deadline=deadline.isoformat(),
        daily_quota=3,
        total_quota=20,
        n_selections=2,
    )
    page = client.get("/c/demo")
    assert page.status_code == 200
    text = unescape(page.text)
    assert "<strong>the class</strong>" in page.text
    assert "zero_one</code>: lower is better" in text
    assert "<code>id</code>, <code>target</code>" in text  # the columns a file must have
    assert "parameter-free Ladder" in text
    words = re.sub(r"<[^>]+>", "", text)
    assert f"{deadline:%Y-%m-%d %H:%M:%S} UTC (in 2 days 23 h" in words
    assert "3 valid files a day per team" in text and "20 in all" in text
    assert "up to 2 submissions you select" in text
    info = client.app.state.competitions.competition("demo")
    assert info.commitment in text and "Open: submissions are taken" in text
    for tab in ("", "/data", "/rules", "/leaderboard", "/submit", "/team"):
        html = client.get(f"/c/demo{tab}").text
        assert '<a href="/how?competition=demo">How this leaderboard works</a>' in html, tab
        tabs = re.search(r'<nav aria-label="Competition" class="tabs">(.*?)</nav>', html, re.S)
        assert tabs.group(1).count('aria-current="page"') == 1, tab
    # The index card: the overview as plain words, not Markdown or HTML.
    card = client.get("/").text
    assert "Predict the class." in card and "**" not in card


def test_participant_overview_says_higher_is_better_for_a_metric(client):
    labels = np.random.default_rng(0).integers(0, 2, size=200)
    solution = Solution.from_labels(labels, public_fraction=0.5, random_state=0)
    create(client, solution, score="auc", mechanism="bayes-boot-ladder")
    assert "auc</code>: higher is better" in client.get("/c/demo").text


def test_participant_how_page_has_a_section_per_mechanism(client):
    page = client.get("/how")
    assert page.status_code == 200
    for name in COMPETITION_MECHANISMS:
        assert f'<section id="{name}"' in page.text, name


def test_participant_how_page_from_a_competition_starts_with_its_mechanism(client, solution):
    create(client, solution, mechanism="ladder", mechanism_params='{"eta": 0.02}', title="Irises")
    page = client.get("/how", params={"competition": "demo"})
    assert page.status_code == 200
    sections = re.findall(r'<section id="([\w-]+)"', page.text)
    assert sections[:3] == ["ladder", "final-ranking", "other-mechanisms"]
    assert sorted(sections[3:]) == sorted(set(COMPETITION_MECHANISMS) - {"ladder"})
    assert '<a href="/c/demo">Irises</a>' in page.text
    assert "more than 0.02" in page.text  # the competition's own step, from its settings
    assert page.text.count("The private board decides the competition.") == 1
    # The overview's link leads here.
    assert '<a href="/how?competition=demo">' in client.get("/c/demo").text


@pytest.mark.parametrize("slug", ["nope", "x" * 200, "a\x00b", "../c/demo", "<b>"])
def test_participant_how_page_for_an_unknown_competition_explains_every_mechanism(client, slug):
    page = client.get("/how", params={"competition": slug})
    assert page.status_code == 200
    assert "There is no competition" in page.text
    for name in COMPETITION_MECHANISMS:
        assert f'<section id="{name}"' in page.text, name


def test_participant_how_page_refuses_an_overlong_slug_as_a_page(client):
    page = client.get("/how", params={"competition": "x" * 201})
    assert page.status_code == 422 and page.headers["content-type"].startswith("text/html")


# --------------------------------------------------------------------- data
def test_participant_data_lists_files_and_never_the_solution(client):
    values = 0.1 + np.arange(200) * 0.0012345  # labels no other file would contain
    solution = Solution.from_labels(values, public_fraction=0.5, random_state=0)
    create(client, solution, score="squared", mechanism="ladder", mechanism_params='{"eta": 0.01}')
    competitions = client.app.state.competitions
    train = b"id,x\n" + b"".join(f"t{i},{i % 5}\n".encode() for i in range(300))
    competitions.add_file("demo", "train.csv", train)
    page = client.get("/c/demo/data")
    assert page.status_code == 200
    names = re.findall(r'/api/competitions/demo/files/([^"]+)" download>', page.text)
    assert names == ["sample_submission.csv", "train.csv"]  # the sample first
    assert "made from the ids, never the labels" in page.text
    assert hashlib.sha256(train).hexdigest() in page.text
    assert f"{human_size(len(train))} · added" in page.text
    labels = {repr(float(v)) for v in solution.targets.ravel()} | {
        f"{v:.6f}" for v in solution.targets.ravel()
    }
    for info in competitions.files("demo"):
        _, data = competitions.file("demo", info.name)
        assert info.sha256 in page.text and hashlib.sha256(data).hexdigest() == info.sha256
        text = data.decode()
        assert not any(label in text for label in labels), info.name
        assert solution.to_csv().decode() not in text


# ------------------------------------------------------------- team session
def test_participant_sign_in_sets_a_scoped_http_only_cookie(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    form = client.get("/c/demo/team")
    assert 'name="token"' in form.text and "Sign in" in form.text
    response = client.post("/c/demo/team", data={"token": token}, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/c/demo/team"
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and token not in cookie
    for part in ("HttpOnly", "SameSite=lax", "Path=/c/demo", "Max-Age=604800"):
        assert part in cookie, part
    assert "Secure" not in cookie  # plain http here; set over https
    page = client.get("/c/demo/team")
    assert "Team <span" in page.text and "Sign out" in page.text
    # The submit form no longer asks for the token; it carries the CSRF value instead.
    submit_form = client.get("/c/demo/submit").text
    assert 'name="token"' not in submit_form and 'name="csrf"' in submit_form
    assert "Submitting as team" in submit_form


def test_participant_sign_in_refuses_bad_tokens_and_other_sites(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    wrong = _sign_in(client, "not-a-token")
    assert wrong.status_code == 401 and "not valid" in _alert(wrong.text)
    assert _sign_in(client, ADMIN).status_code == 403
    forged = client.post(
        "/c/demo/team", data={"token": token}, headers={"Origin": "https://evil.example"}
    )
    assert forged.status_code == 403 and COOKIE not in forged.headers.get("set-cookie", "")
    client.app.state.competitions.set_team_disabled("demo", "alpha", True)
    disabled = _sign_in(client, token)
    assert disabled.status_code == 403 and "disabled" in _alert(disabled.text)


def test_participant_session_forms_need_the_csrf_value_and_this_site(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    csrf = _csrf(_sign_in(client, token).text)
    upload = {"file": ("p.csv", predictions(solution, 0), "text/csv")}
    assert client.post("/c/demo/submit", data={"csrf": "0" * 64}, files=upload).status_code == 403
    cross = client.post(
        "/c/demo/submit",
        data={"csrf": csrf},
        files=upload,
        headers={"Origin": "https://evil.example"},
    )
    assert cross.status_code == 403
    assert client.post("/c/demo/team/selection", data={"submission_ids": ["1"]}).status_code == 403
    assert client.app.state.competitions.submissions("demo", "alpha") == []
    done = client.post("/c/demo/submit", data={"csrf": csrf, "message": "m"}, files=upload)
    assert done.status_code == 201
    saved = client.post("/c/demo/team/selection", data={"csrf": csrf, "submission_ids": ["1"]})
    assert saved.status_code == 200 and "Your final selection is saved" in saved.text


def test_participant_sign_out_revokes_the_session_everywhere(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    csrf = _csrf(_sign_in(client, token).text)
    copy = client.cookies.get(COOKIE)
    assert copy
    assert client.post("/c/demo/team/sign-out", data={"csrf": "0" * 64}).status_code == 200
    assert client.app.state.competitions.team_sessions.team_of(copy) is not None  # not revoked
    out = client.post("/c/demo/team/sign-out", data={"csrf": csrf})
    assert out.status_code == 200 and "Sign in as your team" in out.text
    assert client.app.state.competitions.team_sessions.team_of(copy) is None
    client.cookies.set(COOKIE, copy, path="/c/demo")  # a copy kept elsewhere is dead too
    page = client.get("/c/demo/team").text
    assert "has ended" in page and "Sign in as your team" in page


def test_participant_a_disabled_team_is_signed_out(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    _sign_in(client, token)
    client.app.state.competitions.set_team_disabled("demo", "alpha", True)
    assert "Sign in as your team" in client.get("/c/demo/team").text
    assert 'name="token"' in client.get("/c/demo/submit").text


# ------------------------------------------------------------------- submit
@pytest.mark.slow
def test_participant_submit_says_what_happened_with_the_board_decimals(client, solution):
    competitions = client.app.state.competitions
    config = CompetitionConfig(score="zero_one", mechanism="full-disclosure", precision=3)
    competitions.create("demo", solution, config, title="Three decimals")
    token = "alpha-token-0123456789"
    competitions.add_team("demo", "alpha", token_hash=hash_token(token))
    first = client.post(
        "/c/demo/submit",
        data={"token": token},
        files={"file": ("p.csv", predictions(solution, 0), "text/csv")},
    )
    assert first.status_code == 201
    released = re.search(r'class="released">([0-9.]+)<', first.text).group(1)
    assert len(released.split(".")[1]) == 3
    explanation = re.search(r'class="explanation">(.*?)</p>', first.text, re.S).group(1)
    assert "first public score" in explanation and released in explanation
    second = client.post(
        "/c/demo/submit",
        data={"token": token},
        files={"file": ("p.csv", predictions(solution, 1), "text/csv")},
    )
    explanation = re.search(r'class="explanation">(.*?)</p>', second.text, re.S).group(1)
    assert released in explanation  # against the previous score
    assert "Before this file</dt><dd>" + released in second.text
    for url in ("/c/demo/leaderboard",):
        scores = re.findall(r'<td class="num">(\d+\.\d+)</td>', client.get(url).text)
        assert scores and all(len(s.split(".")[1]) == 3 for s in scores)


def test_participant_submit_refusals_keep_the_form(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    bad = client.post(
        "/c/demo/submit", data={"token": token}, files={"file": ("p.csv", b"x\n1\n", "text/csv")}
    )
    assert bad.status_code == 400 and _alert(bad.text) and 'name="file"' in bad.text
    nobody = client.post(
        "/c/demo/submit", files={"file": ("p.csv", predictions(solution, 0), "text/csv")}
    )
    assert nobody.status_code == 401 and "sign in" in _alert(nobody.text).lower()


# --------------------------------------------------------------- team page
def test_participant_team_page_explains_the_teams_numbers(client, solution):
    create(client, solution, daily_quota=4, n_selections=2)
    alpha, beta = add_team(client, "alpha"), add_team(client, "beta")
    for seed in (0, 1, 2):
        assert submit(client, alpha, predictions(solution, seed)).status_code == 201
    assert submit(client, beta, predictions(solution, 9)).status_code == 201
    assert submit(client, alpha, b"name,guess\n1,2\n").status_code == 400
    page = unescape(_sign_in(client, alpha).text)
    rows = client.app.state.competitions.leaderboard("demo", "public")
    rank = next(r.rank for r in rows if r.team == "alpha")
    words = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page))
    assert f"Public board rank {rank} of 2" in words
    assert '3 <span class="of">of 4</span>' in page and "1 left; resets in" in page
    assert "19 more allowed" in page
    midnight = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%d 00:00:00 UTC")
    assert midnight in page
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", page)  # to the second
    # A ladder's automatic choice is the mechanism's, kept from the team until the close.
    assert "the board took as your team's best will count" in words
    assert "ranked by the earlier submission" in page
    assert "<svg" in page and "board score after this file (lower is better)" in page
    assert "Refused files" in page and "<code>" in page and "the header must be" in page
    views = client.app.state.competitions.submissions("demo", "alpha")
    final = [s.number for s in views if s.final]
    assert final == []  # until the close, only the team's own selection is marked
    csrf = _csrf(page)
    saved = unescape(
        client.post("/c/demo/team/selection", data={"csrf": csrf, "submission_ids": ["3"]}).text
    )
    assert "submission 3, as you selected" in saved and "yes, selected" in saved
    assert "beta" not in saved  # nothing of another team


def test_participant_refused_files_show_each_file_s_name_and_first_line(client, solution):
    """A refused file is listed under the name it was sent under, whichever
    way it was sent: the page's form, a multipart form to the API, or the
    file as the body with its name in the query (as the ``ladderboard``
    client sends it); a body sent without a name is listed without one."""
    create(client, solution)
    token = add_team(client, "alpha")
    page = client.post(
        "/c/demo/submit", data={"token": token}, files={"file": ("form.csv", b"x\n1\n", "text/csv")}
    )
    assert page.status_code == 400
    api = client.post(
        "/api/competitions/demo/submissions",
        files={"file": ("api.csv", b"nonsense\n", "text/csv")},
        headers=bearer(token),
    )
    assert api.status_code == 400 and api.json()["error"] == "missing_column"
    raw = client.post(
        "/api/competitions/demo/submissions",
        content=b"id,target\n",
        params={"filename": "body.csv.gz"},
        headers=bearer(token) | {"Content-Type": "text/csv"},
    )
    assert raw.status_code == 400 and raw.json()["error"] == "header_only"
    assert send_file(client, token, b"id,target\n").status_code == 400
    standing = client.get("/api/competitions/demo/team", headers=bearer(token)).json()
    assert [r["filename"] for r in standing["rejections"]] == [
        None, "body.csv.gz", "api.csv", "form.csv",
    ]  # fmt: skip
    html = unescape(_sign_in(client, token).text)
    refused = html.split('aria-label="Refused files"', 1)[1].split("</table>", 1)[0]
    cells = re.findall(r'<td class="file">(.*?)</td>', refused)
    assert cells == ["—", "body.csv.gz", "api.csv", "form.csv"]
    first = client.app.state.competitions.rejections("demo", "alpha")[-1]
    assert f"<code>{first.code}</code>: {first.first_line}" in refused
    # A name in the query is checked as the message is; a form carries its own.
    bad = client.post(
        "/api/competitions/demo/submissions",
        content=b"id,target\n",
        params={"filename": "x" * 256},
        headers=bearer(token) | {"Content-Type": "text/csv"},
    )
    assert bad.status_code == 422 and "filename is 256" in bad.json()["message"].lower()
    both = submit(client, token, b"id,target\n", params={"filename": "q.csv"})
    assert both.status_code == 422 and "query" in both.json()["message"]
    assert len(client.app.state.competitions.rejections("demo", "alpha")) == 4


def test_participant_team_page_links_each_file_as_it_was_received(client, solution):
    create(client, solution)
    alpha, beta = add_team(client, "alpha"), add_team(client, "beta")
    sent = [predictions(solution, 0).replace(b"\n", b"\r\n"), predictions(solution, 1)]
    for data in sent:
        assert submit(client, alpha, data).status_code == 201
    page = _sign_in(client, alpha).text
    links = re.findall(r'href="(/c/demo/team/submissions/\d+/file)" download', page)
    assert links == ["/c/demo/team/submissions/1/file", "/c/demo/team/submissions/2/file"]
    for link, data in zip(links, sent, strict=True):
        answer = client.get(link)
        assert answer.status_code == 200 and answer.content == data
        assert answer.headers["content-type"].startswith("text/csv")
        assert "attachment" in answer.headers["content-disposition"]
    assert client.get("/c/demo/team/submissions/3/file").status_code == 404
    client.cookies.clear()
    _sign_in(client, beta)  # beta has no submission: alpha's numbers are not its own
    assert client.get(links[0]).status_code == 404
    client.cookies.clear()
    refused = client.get(links[0])
    assert refused.status_code == 401 and "sign in" in refused.text.lower()
    assert "text/html" in refused.headers["content-type"]


# ------------------------------------------------------------------- closed
def test_participant_closed_competition_disables_submitting_and_says_why(client, solution):
    create(client, solution)
    token = add_team(client, "alpha")
    assert submit(client, token, predictions(solution, 0)).status_code == 201
    competitions = client.app.state.competitions
    competitions.close("demo")
    form = client.get("/c/demo/submit").text
    assert "<fieldset disabled>" in form and "Submissions are closed" in form
    assert "The competition closed at" in form and "waiting for the organiser" in form
    refused = client.post(
        "/c/demo/submit",
        data={"token": token},
        files={"file": ("p.csv", predictions(solution, 1), "text/csv")},
    )
    assert refused.status_code == 409 and "closed" in _alert(refused.text)
    board = client.get("/c/demo/leaderboard?board=private").text
    assert "waiting for the organiser" in board and "Private board, " not in board
    competitions.publish("demo")
    form = client.get("/c/demo/submit").text
    assert "<fieldset disabled>" in form and "was published at" in form
    team = _sign_in(client, token).text
    assert "Private score" in team and "Final rank" in team
    board = client.get("/c/demo/leaderboard").text
    assert "Private board, 1 team" in board
    assert "/api/competitions/demo/leaderboard.csv?board=private" in board


# ------------------------------------------------------------------- boards
@pytest.mark.slow
def test_participant_long_boards_are_paginated_and_find_a_team(client, solution):
    competitions = client.app.state.competitions
    create(client, solution, mechanism="full-disclosure")
    names = [f"team-{i:03d}" for i in range(BOARD_PAGE + 20)]
    long_name = "A team whose name goes on and on " * 3
    names.append(long_name.strip())
    for seed, name in enumerate(names):
        competitions.add_team("demo", name)
        competitions.submit("demo", name, predictions(solution, seed))
    rows = competitions.leaderboard("demo", "public")
    first = client.get("/c/demo/leaderboard").text
    assert first.count('<td class="rank">') == BOARD_PAGE and "page 1 of 2" in first
    second = client.get("/c/demo/leaderboard?page=2").text
    assert second.count('<td class="rank">') == len(names) - BOARD_PAGE
    assert f'<td class="rank">{BOARD_PAGE + 1}</td>' in second
    assert client.get("/c/demo/leaderboard?page=nine").status_code == 200  # the first page

    last = rows[-1]
    found = client.get("/c/demo/leaderboard", params={"team": last.team.upper()}).text
    assert "page 2 of 2" in found and 'class="marked" aria-current="true" id="found"' in found
    assert f"is ranked {last.rank} of {len(names)}" in unescape(found)
    partial = client.get("/c/demo/leaderboard", params={"team": "goes on and"}).text
    assert 'id="found"' in partial
    missing = unescape(client.get("/c/demo/leaderboard", params={"team": "nobody"}).text)
    assert "No team named “nobody” is on this board." in missing
    # A long name is cut by CSS, whole in its title and its text.
    full = long_name.strip()
    assert f'<span class="name" title="{full}">{full}</span>' in first + second


def test_participant_board_marks_the_signed_in_team(client, solution):
    create(client, solution)
    alpha, beta = add_team(client, "alpha"), add_team(client, "beta")
    submit(client, alpha, predictions(solution, 0))
    submit(client, beta, predictions(solution, 1))
    _sign_in(client, beta)
    board = client.get("/c/demo/leaderboard").text
    assert re.search(r'class="marked" aria-current="true">\s*<td class="rank">\d</td>\s*'
                     r'<th scope="row"><span class="name" title="beta">beta</span> '
                     r'<span class="tag">you</span>', board)  # fmt: skip
    assert "Your team is ranked" in board


# ------------------------------------------------------------------- errors
def test_participant_pages_answer_errors_in_html_and_the_api_in_json(client, solution):
    create(client, solution)
    for url in ("/nope", "/c/demo/nope", "/c/nope", "/c/nope/leaderboard"):
        page = client.get(url)
        assert page.status_code == 404, url
        assert page.headers["content-type"].startswith("text/html"), url
        assert "<h1>Not found</h1>" in page.text and 'href="/"' in page.text
    wrong = client.post("/c/demo")
    assert wrong.status_code == 405 and wrong.headers["content-type"].startswith("text/html")
    assert "POST is not allowed at /c/demo" in unescape(wrong.text)
    assert wrong.headers["allow"] == "GET"
    api = client.get("/api/nope")
    assert api.status_code == 404 and api.json()["error"] == "not_found"
    assert client.post("/healthz").json()["error"] == "method_not_allowed"
    assert client.delete("/api/competitions/demo").headers["content-type"] == "application/json"


def test_participant_a_server_error_is_a_page_and_json_for_the_api(client, solution, monkeypatch):
    create(client, solution)

    def fail(slug):
        raise RuntimeError("the disk is on fire")

    monkeypatch.setattr(client.app.state.competitions, "competition", fail)
    quiet = TestClient(client.app, raise_server_exceptions=False)
    page = quiet.get("/c/demo")
    assert page.status_code == 500 and page.headers["content-type"].startswith("text/html")
    assert "Something went wrong" in page.text and "fire" not in page.text
    api = quiet.get("/api/competitions/demo")
    assert api.status_code == 500 and api.json()["error"] == "internal"
