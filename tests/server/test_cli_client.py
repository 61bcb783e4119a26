"""The ``ladderboard`` client verbs against a live server on a loopback port."""

from __future__ import annotations

import csv
import io

import pytest
from server_helpers import LABELS
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.client import Client, ServerError
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer

runner = CliRunner()
SOLUTION = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('cli') / 'ladderboard.db'}"
    with LocalServer(url) as live:
        yield live


def invoke(args, server, token, **env):
    env = {"LADDERBOARD_SERVER": server.url, "LADDERBOARD_TOKEN": token, "COLUMNS": "120", **env}
    return runner.invoke(app, args, env=env)


def predictions(flip_every: int) -> bytes:
    """The labels with every ``flip_every``-th one wrong."""
    rows = "".join(
        f"{i},{1 - y if j % flip_every == 0 else y}\n"
        for j, (i, y) in enumerate(zip(SOLUTION.ids, LABELS, strict=True))
    )
    return f"id,target\n{rows}".encode()


@pytest.fixture(scope="module")
def competition(server, tmp_path_factory):
    """A competition created, a team added and two submissions made, all by the CLI."""
    folder = tmp_path_factory.mktemp("files")
    solution = folder / "solution.csv"
    solution.write_bytes(SOLUTION.to_csv())
    created = invoke(
        [
            "competition", "create", "cli-demo", "--solution", str(solution),
            "--metric", "zero_one", "--mechanism", "ladder",
            "--param", "eta=0.01", "--daily-quota", "none",
        ],
        server, server.admin_token,
    )  # fmt: skip
    assert created.exit_code == 0, created.output
    assert "ladder" in created.output and "'eta': 0.01" in created.output
    added = invoke(["team", "add", "cli-demo", "alpha"], server, server.admin_token)
    assert added.exit_code == 0, added.output
    token = added.output.split("token (shown once): ")[1].split()[0]
    outputs = []
    for flip in (4, 10):
        path = folder / f"flip{flip}.csv"
        path.write_bytes(predictions(flip))
        result = invoke(
            ["submit", "cli-demo", "-f", str(path), "-m", f"flip {flip}"], server, token
        )
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    return {"token": token, "submits": outputs, "folder": folder}


def test_create_and_submit(competition):
    first, second = competition["submits"]
    assert "submission" in first and "0.2" in first and "no limit" in first
    assert "0.1" in second


def test_submissions_lists_the_team_s_own(server, competition):
    result = invoke(["submissions", "cli-demo"], server, competition["token"])
    assert result.exit_code == 0, result.output
    assert "flip 4" in result.output and "flip 10" in result.output


def test_leaderboard_private_is_refused_until_published_after_the_close(server, competition):
    public = invoke(["leaderboard", "cli-demo"], server, "")
    assert public.exit_code == 0, public.output
    assert "alpha" in public.output and "public board (open)" in public.output

    refused = invoke(["leaderboard", "cli-demo", "--private"], server, competition["token"])
    assert refused.exit_code == 1
    assert "403 private_board" in refused.output

    closed = invoke(["close", "cli-demo"], server, server.admin_token)
    assert closed.exit_code == 0 and "closed cli-demo" in closed.output
    assert "ladderboard publish cli-demo" in closed.output
    still = invoke(["leaderboard", "cli-demo", "--private"], server, competition["token"])
    assert still.exit_code == 1 and "403 private_board" in still.output

    published = invoke(["publish", "cli-demo"], server, server.admin_token)
    assert published.exit_code == 0 and "published cli-demo" in published.output
    private = invoke(["leaderboard", "cli-demo", "--private"], server, competition["token"])
    assert private.exit_code == 0, private.output
    assert "private board (closed)" in private.output

    target = competition["folder"] / "private.csv"
    saved = invoke(["leaderboard", "cli-demo", "--private", "--download", str(target)], server, "")
    assert saved.exit_code == 0, saved.output
    rows = list(csv.DictReader(io.StringIO(target.read_text())))
    assert [r["team"] for r in rows] == ["alpha"]


def test_errors_print_the_server_s_message_and_exit_1(server, competition):
    result = invoke(["team", "add", "cli-demo", "beta"], server, competition["token"])
    assert result.exit_code == 1
    assert "403 forbidden: only the organiser may register teams" in result.output.lower()
    missing = invoke(["submissions", "no-such-slug"], server, competition["token"])
    assert missing.exit_code == 1 and "404" in missing.output


def test_bad_param_is_refused_before_any_request(server, tmp_path):
    solution = tmp_path / "s.csv"
    solution.write_bytes(SOLUTION.to_csv())
    result = invoke(
        ["competition", "create", "x", "--solution", str(solution), "--metric", "zero_one",
         "--mechanism", "ladder", "--param", "eta"],
        server, server.admin_token,
    )  # fmt: skip
    assert result.exit_code != 0 and "KEY=VALUE" in result.output


def test_client_raises_a_server_error_with_status_and_message(server):
    with Client(server.url, "not-a-token") as client, pytest.raises(ServerError) as caught:
        client.close("cli-demo")
    assert caught.value.status == 401 and caught.value.message
    with pytest.raises(ServerError) as unreachable:
        Client("http://127.0.0.1:9", timeout=2).competitions()
    assert unreachable.value.status == 0
