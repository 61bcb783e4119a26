"""The ``ladderboard`` client verbs against a live server on a loopback port."""

from __future__ import annotations

import csv
import io
import json

import pytest
from server_helpers import LABELS
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.client import Client, ServerError
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer

runner = CliRunner()
SOLUTION = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)


@pytest.fixture(scope="module", autouse=True)
def no_stored_credentials(tmp_path_factory):
    """A configuration folder of the tests' own: the user's stored tokens stay out."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
        yield


def rows(output: str) -> list[dict[str, str]]:
    """A table printed to a pipe: tab-separated values under a header line."""
    return list(csv.DictReader(io.StringIO(output), delimiter="\t"))


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
            "--score", "zero_one", "--mechanism", "ladder",
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


@pytest.mark.slow
def test_create_and_submit(competition):
    first, second = competition["submits"]
    (row,) = rows("\n".join(first.splitlines()[:2]))  # the table, then the explanation
    assert row["submission"] == "1" and row["board score after file"].startswith("0.2")
    assert row["left today"] == "no limit"
    (again,) = rows("\n".join(second.splitlines()[:2]))
    assert again["submission"] == "2" and again["board score after file"][:3] == "0.1"


def test_a_refused_file_is_listed_under_its_name(server, competition):
    """``submit`` sends the file's name with it: the team's refused files
    (``status``, as on its page) say which file each refusal was about."""
    bad = competition["folder"] / "no-rows.csv"
    bad.write_bytes(b"id,target\n")
    refused = invoke(["submit", "cli-demo", "-f", str(bad)], server, competition["token"])
    assert refused.exit_code == 1 and "header_only" in refused.output
    standing = invoke(["status", "cli-demo", "--json"], server, competition["token"])
    (rejection,) = json.loads(standing.stdout)["rejections"]
    assert (rejection["filename"], rejection["code"]) == ("no-rows.csv", "header_only")
    table = invoke(["status", "cli-demo"], server, competition["token"])
    assert "no-rows.csv" in table.output


def test_submissions_lists_the_team_s_own(server, competition):
    result = invoke(["submissions", "cli-demo"], server, competition["token"])
    assert result.exit_code == 0, result.output
    assert [(r["number"], r["message"]) for r in rows(result.output)] == [
        ("1", "flip 4"), ("2", "flip 10"),
    ]  # fmt: skip


def test_submissions_download_saves_each_file_as_it_was_sent(server, competition, tmp_path):
    folder = tmp_path / "mine"
    saved = invoke(
        ["submissions", "cli-demo", "--download", str(folder)], server, competition["token"]
    )
    assert saved.exit_code == 0, saved.output
    assert "saved 2 files" in saved.output
    assert sorted(p.name for p in folder.iterdir()) == [
        "cli-demo-submission-1.csv", "cli-demo-submission-2.csv",
    ]  # fmt: skip
    for number, flip in ((1, 4), (2, 10)):
        sent = (competition["folder"] / f"flip{flip}.csv").read_bytes()
        assert (folder / f"cli-demo-submission-{number}.csv").read_bytes() == sent
    both = invoke(
        ["submissions", "cli-demo", "--download", str(folder), "--json"],
        server, competition["token"],
    )  # fmt: skip
    assert both.exit_code == 2


def test_piped_tables_are_whole_tab_separated_values(server, competition):
    result = invoke(["submissions", "cli-demo"], server, competition["token"], COLUMNS="20")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split("\t") == [
        "number",
        "when",
        "message",
        "board score after file",
        "private",
        "selected",
        "final",
        "held best",
    ]
    assert all(line.count("\t") == 7 for line in lines) and len(lines) == 3
    assert "│" not in result.output and "flip 10" in result.output  # not cut to 20 columns


def test_competitions_lists_them_as_a_table_and_as_json(server, competition):
    table = invoke(["competitions"], server, "")
    assert table.exit_code == 0, table.output
    (row,) = [r for r in rows(table.output) if r["slug"] == "cli-demo"]
    assert (row["score"], row["mechanism"]) == ("zero_one", "ladder")
    assert row["state"] in ("open", "closed", "published") and row["deadline"] == "none"
    as_json = invoke(["competitions", "--json"], server, "")
    assert as_json.exit_code == 0, as_json.output
    listed = json.loads(as_json.stdout)
    with Client(server.url) as client:
        assert listed == client.competitions()
    both = invoke(["competitions", "--json", "--csv"], server, "")
    assert both.exit_code == 2


def test_leaderboard_csv_and_json(server, competition):
    as_csv = invoke(["leaderboard", "cli-demo", "--csv"], server, "")
    assert as_csv.exit_code == 0, as_csv.output
    (row,) = csv.DictReader(io.StringIO(as_csv.stdout))
    assert (row["rank"], row["team"], row["entries"]) == ("1", "alpha", "2")
    with Client(server.url) as client:
        board = client.leaderboard("cli-demo")
    assert float(row["score"]) == pytest.approx(board["rows"][0]["score"], abs=1e-5)
    as_json = invoke(["leaderboard", "cli-demo", "--json"], server, "")
    assert json.loads(as_json.stdout) == board


def test_every_release_is_printed_with_the_board_s_decimals(server, competition):
    """The Ladder with eta = 0.01 releases scores on a grid of 0.01: the
    submit table, its sentence, the submissions, the board and the board's
    CSV all print them with the two decimals the server's pages use, never
    one precision in the table and another in the sentence."""
    with Client(server.url, competition["token"]) as client:
        decimals = client.competition("cli-demo")["decimals"]
        own = client.submissions("cli-demo")
        board = client.leaderboard("cli-demo")
    assert decimals == 2 and board["decimals"] == 2

    def shown(value: float) -> str:
        return f"{value:.2f}"

    for output, submission in zip(competition["submits"], own, strict=True):
        table, sentence = output.splitlines()[:2], " ".join(output.splitlines()[2:])
        (row,) = rows("\n".join(table))
        assert row["board score after file"] == shown(submission["public_score"])
        assert row["board score after file"] in sentence
    listed = rows(invoke(["submissions", "cli-demo"], server, competition["token"]).output)
    assert [r["board score after file"] for r in listed] == [shown(s["public_score"]) for s in own]
    (entry,) = rows(invoke(["leaderboard", "cli-demo"], server, "").output)
    assert entry["score"] == shown(board["rows"][0]["score"])
    target = competition["folder"] / "public.csv"
    saved = invoke(["leaderboard", "cli-demo", "--download", str(target)], server, "")
    assert saved.exit_code == 0, saved.output
    (exported,) = csv.DictReader(io.StringIO(target.read_text()))
    assert exported["score"] == shown(board["rows"][0]["score"])


def test_leaderboard_private_is_refused_until_published_after_the_close(server, competition):
    public = invoke(["leaderboard", "cli-demo"], server, "")
    assert public.exit_code == 0, public.output
    assert [r["team"] for r in rows(public.output)] == ["alpha"]

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
    private = invoke(
        ["leaderboard", "cli-demo", "--private", "--json"], server, competition["token"]
    )
    assert private.exit_code == 0, private.output
    shown = json.loads(private.stdout)
    assert (shown["board"], shown["closed"]) == ("private", True)
    assert [r["team"] for r in shown["rows"]] == ["alpha"]

    target = competition["folder"] / "private.csv"
    saved = invoke(["leaderboard", "cli-demo", "--private", "--download", str(target)], server, "")
    assert saved.exit_code == 0, saved.output
    saved_rows = list(csv.DictReader(io.StringIO(target.read_text())))
    assert [r["team"] for r in saved_rows] == ["alpha"]


@pytest.mark.slow
def test_errors_print_the_server_s_message_and_exit_1(server, competition):
    result = invoke(["team", "add", "cli-demo", "beta"], server, competition["token"])
    assert result.exit_code == 1
    said = result.output.lower()
    assert "403 forbidden: this action is for the organiser, not for a team" in said
    missing = invoke(["submissions", "no-such-slug"], server, competition["token"])
    assert missing.exit_code == 1 and "404" in missing.output


def test_bad_param_is_refused_before_any_request(server, tmp_path):
    solution = tmp_path / "s.csv"
    solution.write_bytes(SOLUTION.to_csv())
    result = invoke(
        ["competition", "create", "x", "--solution", str(solution), "--score", "zero_one",
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


def test_create_without_a_mechanism_runs_the_default_with_its_params_stored(server, tmp_path):
    from ladderboard.mechanisms import parameters_of
    from ladderboard.recommended import RECOMMENDED

    solution = tmp_path / "s.csv"
    solution.write_bytes(SOLUTION.to_csv())
    result = invoke(
        ["competition", "create", "cli-default", "--solution", str(solution),
         "--score", "zero_one", "--json"],
        server, server.admin_token,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    created = json.loads(result.stdout)
    params = created["mechanism_params"]
    assert created["mechanism"] == RECOMMENDED.mechanism
    assert params == {**params, **RECOMMENDED.params_at(SOLUTION.n_public)}
    assert set(params) == {p.name for p in parameters_of(RECOMMENDED.mechanism)}
    with Client(server.url, server.admin_token) as client:
        assert client.competition("cli-default")["mechanism_params"] == params
    helped = invoke(["competition", "create", "--help"], server, server.admin_token)
    assert f"ladderboard's default, {RECOMMENDED.label}" in " ".join(helped.output.split())


def test_a_param_without_its_mechanism_is_refused_before_any_request(server, tmp_path):
    solution = tmp_path / "s.csv"
    solution.write_bytes(SOLUTION.to_csv())
    result = invoke(
        ["competition", "create", "x", "--solution", str(solution), "--score", "zero_one",
         "--param", "b=10"],
        server, server.admin_token,
    )  # fmt: skip
    assert result.exit_code == 2 and "name the mechanism too" in result.output
    with Client(server.url, server.admin_token) as client:
        assert "x" not in [c["slug"] for c in client.competitions()]


def test_the_corrected_column_shows_only_when_a_score_was_corrected():
    from ladderboard.client.tables import submissions_table

    row = {"number": 1, "created_at": "2026-01-01T00:00:00+00:00", "message": "", "selected": False,
           "public_score": 0.25, "private_score": None, "best": True}  # fmt: skip
    plain = submissions_table("demo", [row, {**row, "number": 2}])
    assert [c.header for c in plain.columns][-1] == "held best"
    marked = submissions_table("demo", [row, {**row, "number": 2, "corrected": True}])
    assert [c.header for c in marked.columns][-1] == "corrected"
    assert list(marked.columns[-1].cells) == ["", "yes"]
