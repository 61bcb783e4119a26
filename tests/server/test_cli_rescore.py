"""``ladderboard rescore`` against a live server, on SQLite and PostgreSQL:
the what-if board beside the live one, for the organiser's token alone."""

from __future__ import annotations

import csv
import io
import json

import pytest
from server_helpers import LABELS, flipped
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.client import Client
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer

runner = CliRunner()
SOLUTION = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)


@pytest.fixture
def server(database_url, tmp_path, monkeypatch):
    """A live server over the test's database: a competition run with full
    disclosure, three teams and four submissions; no stored credentials."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    with LocalServer(database_url) as live:
        with Client(live.url, live.admin_token) as admin:
            admin.create_competition(
                "whatif",
                SOLUTION.to_csv(),
                score="zero_one",
                mechanism="full-disclosure",
                daily_quota="none",
            )
            tokens = {name: admin.add_team("whatif", name)["token"] for name in ("a", "b", "c")}
        for seed, (name, wrong) in enumerate((("a", 0.4), ("b", 0.3), ("c", 0.45), ("a", 0.2))):
            with Client(live.url, tokens[name]) as team:
                team.submit("whatif", flipped(SOLUTION, wrong, seed))
        live.team_token = tokens["a"]
        yield live


def run(server, token, *args):
    env = {"LADDERBOARD_SERVER": server.url, "LADDERBOARD_TOKEN": token, "COLUMNS": "200"}
    return runner.invoke(app, [str(a) for a in args], env=env)


def table(output: str) -> list[dict[str, str]]:
    """A table printed to a pipe: tab-separated values under a header line."""
    return list(csv.DictReader(io.StringIO(output), delimiter="\t"))


@pytest.mark.slow
def test_rescore_prints_the_what_if_board_beside_the_live_one(server):
    live = run(server, server.admin_token, "leaderboard", "whatif", "--json")
    live_rows = json.loads(live.stdout)["rows"]

    same = run(server, server.admin_token, "rescore", "whatif", "--mechanism", "full-disclosure")
    assert same.exit_code == 0, same.output
    shown = table(same.stdout)
    assert list(shown[0]) == ["rank", "team", "what-if score", "live score", "rank change"]
    assert [(r["rank"], r["team"]) for r in shown] == [
        (str(r["rank"]), r["team"]) for r in live_rows
    ]
    assert all(r["what-if score"] == r["live score"] for r in shown)
    assert {r["rank change"] for r in shown} == {"same"}

    ladder = run(
        server, server.admin_token,
        "rescore", "whatif", "--mechanism", "ladder", "--param", "eta=0.1", "--json",
    )  # fmt: skip
    assert ladder.exit_code == 0, ladder.output
    answer = json.loads(ladder.stdout)
    assert answer["mechanism_params"]["eta"] == 0.1
    live_places = {r["team"]: (r["rank"], r["score"]) for r in live_rows}
    for row in answer["rows"]:
        assert (row["live_rank"], row["live_score"]) == live_places[row["team"]]
        assert row["moved"] == row["live_rank"] - row["rank"]
        assert round(row["score"] * 10, 9) % 1 == 0  # on the Ladder's grid of eta

    per_rank = run(
        server, server.admin_token,
        "rescore", "whatif", "--mechanism", "parameter-free-ladder", "--mode", "per-rank",
        "--ranks", "2",
    )  # fmt: skip
    assert per_rank.exit_code == 0, per_rank.output
    assert [r["rank"] for r in table(per_rank.stdout)] == ["1", "2"]
    private = run(
        server, server.admin_token,
        "rescore", "whatif", "--mechanism", "full-disclosure", "--board", "private", "--json",
    )  # fmt: skip
    assert private.exit_code == 0, private.output
    rows = json.loads(private.stdout)["rows"]
    live_private = run(server, server.admin_token, "leaderboard", "whatif", "--private", "--json")
    assert [(r["team"], r["live_score"]) for r in rows] == [
        (r["team"], r["score"]) for r in json.loads(live_private.stdout)["rows"]
    ]  # the private board beside it
    assert all(r["score"] == r["live_score"] and r["moved"] == 0 for r in rows)

    # The live board is as it was.
    after = run(server, server.admin_token, "leaderboard", "whatif", "--json")
    assert json.loads(after.stdout)["rows"] == live_rows


@pytest.mark.slow
def test_rescore_refuses_teams_and_bad_input(server):
    team = run(server, server.team_token, "rescore", "whatif", "--mechanism", "ladder")
    assert team.exit_code == 1 and "403" in team.output
    pair = run(
        server, server.admin_token, "rescore", "whatif", "--mechanism", "ladder",
        "--score", "pearson",
    )  # fmt: skip
    assert pair.exit_code == 1 and "422" in pair.output and "pearson" in pair.output
    bad = run(server, server.admin_token, "rescore", "whatif", "--mechanism", "x", "--param", "=")
    assert bad.exit_code == 2 and "--param" in bad.output
    # With only a team's token stored, an organiser's verb says how to give one.
    login = runner.invoke(app, ["login", "--server", server.url, "--token", server.team_token])
    assert login.exit_code == 0, login.output
    stored = runner.invoke(
        app, ["rescore", "whatif", "--mechanism", "ladder", "--server", server.url]
    )
    assert stored.exit_code == 2 and "no organiser's token is stored" in stored.output
