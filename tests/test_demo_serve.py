"""``ladderboard demo --serve``: the closed competitions are published, and one
competition stays open for a newcomer to download, submit and select.

The server's ``wait`` (where the command blocks until Ctrl-C) is replaced by
a visit: it does what a newcomer would, over HTTP, while the server is up.
"""

from __future__ import annotations

import io

import httpx2
import pytest
from typer.testing import CliRunner

import ladderboard.demo as demo_module
from ladderboard.cli import app
from ladderboard.client import Client
from ladderboard.demo import ATTACKER, BOARDS, NEWCOMER, OPEN_DAILY_QUOTA, OPEN_SLUG
from ladderboard.server.local import LocalServer

runner = CliRunner()


@pytest.fixture(scope="module")
def visit(tmp_path_factory):
    """The command's output, and what a newcomer saw while the server was up."""
    monkeypatch = pytest.MonkeyPatch()
    seen: dict = {}
    opened_by_demo = demo_module.open_competition

    def record(*args, **kwargs):
        seen["opened"] = opened_by_demo(*args, **kwargs)
        return seen["opened"]

    def newcomer_visits(server: LocalServer) -> None:
        opened = seen["opened"]
        folder = tmp_path_factory.mktemp("newcomer")
        with Client(server.url, opened.token) as team, Client(server.url, "") as anyone:
            seen["competitions"] = {c["slug"]: c for c in anyone.competitions()}
            seen["files"] = [f["name"] for f in anyone.files(OPEN_SLUG)]
            seen["private"] = {s: anyone.leaderboard(s, "private")["rows"] for s in BOARDS}
            seen["page"] = httpx2.get(opened.url, timeout=30).status_code
            seen["status_before"] = team.team_status(OPEN_SLUG)
            test = io.BytesIO()
            anyone.download_file(OPEN_SLUG, "test.csv", test)
            (folder / "test.csv").write_bytes(test.getvalue())
            ids = [line.split(",")[0] for line in test.getvalue().decode().splitlines()[1:]]
            seen["submitted"] = team.submit(
                OPEN_SLUG, ("id,target\n" + "".join(f"{i},1\n" for i in ids)).encode()
            )
            seen["selected"] = team.select(OPEN_SLUG, [seen["submitted"]["id"]])
            seen["status_after"] = team.team_status(OPEN_SLUG)

    monkeypatch.setattr(demo_module, "open_competition", record)
    monkeypatch.setattr(LocalServer, "wait", newcomer_visits)
    try:
        result = runner.invoke(
            app, ["demo", "--budget", "40", "--teams", "2", "--serve"], env={"COLUMNS": "160"}
        )
    finally:
        monkeypatch.undo()
    assert result.exit_code == 0, result.output
    return result.output, seen


@pytest.mark.slow
def test_demo_serve_prints_the_open_competition_and_an_unused_token(visit):
    output, seen = visit
    opened = seen["opened"]
    assert opened.slug == OPEN_SLUG and opened.team == NEWCOMER
    assert opened.url in output and opened.token in output
    assert f"ladderboard submit {OPEN_SLUG}" in output
    assert "Kaggle public" in output and ATTACKER in output  # the comparison is still shown
    status = seen["status_before"]
    assert status["rank"] is None and status["quota"]["remaining_today"] == OPEN_DAILY_QUOTA


@pytest.mark.slow
def test_demo_serve_leaves_one_competition_open_and_publishes_the_others(visit):
    _, seen = visit
    states = {slug: (c["closed"], c["published"]) for slug, c in seen["competitions"].items()}
    assert states == {**dict.fromkeys(BOARDS, (True, True)), OPEN_SLUG: (False, False)}
    for slug in BOARDS:
        assert ATTACKER in [row["team"] for row in seen["private"][slug]]
    for info in seen["competitions"].values():
        assert "**malignant (0)**" in info["description"] and "1. " in info["rules"]
    assert seen["files"] == ["sample_submission.csv", "test.csv", "train.csv"]
    assert seen["page"] == 200


@pytest.mark.slow
def test_demo_serve_newcomer_can_submit_see_an_explanation_and_select(visit):
    _, seen = visit
    submitted = seen["submitted"]
    assert 0.3 < submitted["public_score"] < 0.5  # all "benign": the share of malignant
    assert submitted["previous_score"] is None and "explanation" in submitted
    assert seen["selected"]["selected"] == [submitted["id"]]
    after = seen["status_after"]
    assert after["rank"] is not None
    assert after["quota"]["remaining_today"] == OPEN_DAILY_QUOTA - 1
