"""The ``ladderboard`` verbs for running a competition and taking part in it
(publish, edit, data files, download, teams imported and disabled, flags, a
team's status and selection) against a live server on a loopback port.

Each refusal is checked for its exit status, its one line, and that nothing
changed on the server or on disk.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import stat
from datetime import UTC, datetime, timedelta

import pytest
from server_helpers import LABELS
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.client import Client
from ladderboard.client import http as client_http
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer

runner = CliRunner()
SOLUTION = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)
TRAIN = b"id,x,target\n1,0.5,1\n2,0.25,0\n"
RULES = "# Rules\n\n1. One account per person.\n2. Select two submissions.\n"
OVERVIEW = "Predict **the target** of each id.\n"


@pytest.fixture(scope="module", autouse=True)
def no_stored_credentials(tmp_path_factory):
    """A configuration folder of the tests' own: the user's stored tokens stay out."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
        yield


@pytest.fixture(scope="module")
def desk_server(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('desk') / 'ladderboard.db'}"
    with LocalServer(url) as live:
        yield live


@pytest.fixture(scope="module")
def admin(desk_server):
    with Client(desk_server.url, desk_server.admin_token) as client:
        yield client


def run(server, token, *args):
    env = {"LADDERBOARD_SERVER": server.url, "LADDERBOARD_TOKEN": token or "", "COLUMNS": "200"}
    return runner.invoke(app, [str(a) for a in args], env=env)


def refused(result, status: int, *words: str) -> None:
    """A failure: the exit status, one line, and the words of its message."""
    assert result.exit_code == status, result.output
    assert result.output.startswith("error: ") and result.output.count("\n") == 1, result.output
    for word in words:
        assert word in result.output, result.output


def labels_with_errors(every: int) -> bytes:
    """The labels with every ``every``-th one wrong."""
    rows = "".join(
        f"{i},{1 - y if j % every == 0 else y}\n"
        for j, (i, y) in enumerate(zip(SOLUTION.ids, LABELS, strict=True))
    )
    return f"id,target\n{rows}".encode()


def create(server, folder, slug, *extra):
    solution = folder / "solution.csv"
    solution.write_bytes(SOLUTION.to_csv())
    result = run(
        server, server.admin_token,
        "competition", "create", slug, "--solution", solution, "--score", "zero_one",
        "--mechanism", "parameter-free-ladder", "--daily-quota", "none", *extra,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return result


def new_team(server, slug: str, name: str) -> str:
    result = run(server, server.admin_token, "team", "add", slug, name)
    assert result.exit_code == 0, result.output
    return result.output.split("token (shown once): ")[1].split()[0]


@pytest.fixture(scope="module")
def desk(desk_server, tmp_path_factory):
    """Competition ``desk``, made by the CLI with an overview, rules and two data files."""
    folder = tmp_path_factory.mktemp("desk-files")
    (folder / "overview.md").write_text(OVERVIEW)
    (folder / "rules.md").write_text(RULES)
    (folder / "train.csv").write_bytes(TRAIN)
    (folder / "notes.md").write_text("Some notes.\n")
    result = create(
        desk_server, folder, "desk",
        "--overview-file", folder / "overview.md", "--rules-file", folder / "rules.md",
        "--data-file", folder / "train.csv", "--data-file", folder / "notes.md",
    )  # fmt: skip
    return {"folder": folder, "created": result.output}


# ------------------------------------------------------------------- creation
@pytest.mark.slow
def test_desk_create_takes_overview_rules_and_data_files(admin, desk):
    info = admin.competition("desk")
    assert info["rules"] == RULES and info["description"] == OVERVIEW
    names = [f["name"] for f in admin.files("desk")]
    assert names == ["sample_submission.csv", "notes.md", "train.csv"]
    assert "state" in desk["created"] and "open" in desk["created"]


def test_desk_create_per_rank_board_with_ranks_and_auto_publish(desk_server, admin, tmp_path):
    deadline = (datetime.now(UTC) + timedelta(days=30)).isoformat()
    result = create(
        desk_server, tmp_path, "desk-ranks", "--board", "per-rank", "--ranks", "4",
        "--auto-publish", "--deadline", deadline,
    )  # fmt: skip
    assert "per-rank" in result.output and "at the deadline" in result.output
    info = admin.competition("desk-ranks")
    assert (info["board"], info["ranks"], info["auto_publish"]) == ("per-rank", 4, True)
    assert info["deadline"] is not None


def test_desk_create_refusals_change_nothing(desk_server, admin, tmp_path):
    solution = tmp_path / "solution.csv"
    solution.write_bytes(SOLUTION.to_csv())
    base = ["competition", "create", "desk-bad", "--solution", solution, "--score", "zero_one",
            "--mechanism", "parameter-free-ladder"]  # fmt: skip
    bad_name = tmp_path / ".hidden"
    bad_name.write_bytes(b"x")
    refused(run(desk_server, desk_server.admin_token, *base, "--data-file", bad_name), 1, "422")
    no_zone = run(desk_server, desk_server.admin_token, *base, "--deadline", "2030-01-01T00:00")
    refused(no_zone, 2, "--deadline", "time zone")
    refused(run(desk_server, desk_server.admin_token, *base, "--param", "eta"), 2, "KEY=VALUE")
    wrong_board = run(desk_server, desk_server.admin_token, *base, "--board", "per-day")
    assert wrong_board.exit_code == 2
    assert "desk-bad" not in [c["slug"] for c in admin.competitions()]


# ------------------------------------------------------------------ data files
def test_desk_file_list_shows_each_size_and_sha256(desk_server, desk):
    result = run(desk_server, "", "file", "list", "desk")
    assert result.exit_code == 0, result.output
    assert hashlib.sha256(TRAIN).hexdigest() in result.output
    assert "sample_submission.csv" in result.output and str(len(TRAIN)) in result.output


def test_desk_download_writes_every_file_checked_then_leaves_equal_ones(
    desk_server, admin, desk, tmp_path
):
    target = tmp_path / "data"
    result = run(desk_server, "", "download", "desk", "--path", target)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in target.iterdir()) == [
        "notes.md", "sample_submission.csv", "train.csv",
    ]  # fmt: skip
    assert (target / "train.csv").read_bytes() == TRAIN
    listed = {f["name"]: f["sha256"] for f in admin.files("desk")}
    for name, sha256 in listed.items():
        assert hashlib.sha256((target / name).read_bytes()).hexdigest() == sha256
        assert f"SHA-256 {sha256} as listed" in result.output
    assert stat.S_IMODE((target / "train.csv").stat().st_mode) & 0o044  # not a private file

    again = run(desk_server, "", "download", "desk", "--path", target, "--file", "train.csv")
    assert again.exit_code == 0 and "already there" in again.output


def test_desk_download_refuses_to_replace_a_different_file_unless_forced(
    desk_server, desk, tmp_path
):
    (tmp_path / "train.csv").write_bytes(b"my own work\n")
    kept = run(desk_server, "", "download", "desk", "--path", tmp_path)
    refused(kept, 2, "train.csv exists and differs", "--force")
    assert (tmp_path / "train.csv").read_bytes() == b"my own work\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.csv"]  # nothing else either

    forced = run(desk_server, "", "download", "desk", "--path", tmp_path, "--force")
    assert forced.exit_code == 0, forced.output
    assert (tmp_path / "train.csv").read_bytes() == TRAIN


def test_desk_download_refuses_a_file_whose_hash_differs_from_the_listing(
    desk_server, desk, tmp_path, monkeypatch
):
    real = client_http.Client.files

    def tampered(self, slug):
        listing = real(self, slug)
        for entry in listing:
            if entry["name"] == "train.csv":
                entry["sha256"] = hashlib.sha256(b"something else").hexdigest()
        return listing

    monkeypatch.setattr(client_http.Client, "files", tampered)
    target = tmp_path / "data"
    result = run(desk_server, "", "download", "desk", "--path", target)
    refused(result, 1, "train.csv arrived with SHA-256", "nothing was written")
    assert not target.exists()  # the files checked before it are not left either


def test_desk_download_refuses_a_name_with_a_path_separator(
    desk_server, desk, tmp_path, monkeypatch
):
    real = client_http.Client.files

    def hostile(self, slug):
        listing = real(self, slug)
        listing[-1]["name"] = "../escaped.csv"
        return listing

    monkeypatch.setattr(client_http.Client, "files", hostile)
    target = tmp_path / "data"
    result = run(desk_server, "", "download", "desk", "--path", target)
    refused(result, 1, "'../escaped.csv'", "not a plain file name")
    assert not target.exists() and not (tmp_path / "escaped.csv").exists()


def test_desk_download_of_an_unknown_file_is_refused(desk_server, desk, tmp_path):
    result = run(desk_server, "", "download", "desk", "--path", tmp_path, "--file", "test.csv")
    refused(result, 1, "no file 'test.csv'", "train.csv")
    assert not any(tmp_path.iterdir())


def test_desk_file_add_replace_and_remove(desk_server, admin, desk, tmp_path):
    slug = "desk"
    extra = tmp_path / "extra.csv"
    extra.write_bytes(b"a,b\n1,2\n")
    added = run(desk_server, desk_server.admin_token, "file", "add", slug, extra)
    assert added.exit_code == 0 and hashlib.sha256(b"a,b\n1,2\n").hexdigest() in added.output

    extra.write_bytes(b"a,b\n3,4\n")
    kept = run(desk_server, desk_server.admin_token, "file", "add", slug, extra)
    refused(kept, 2, "already has a file 'extra.csv'", "--replace")
    listed = {f["name"]: f["sha256"] for f in admin.files(slug)}
    assert listed["extra.csv"] == hashlib.sha256(b"a,b\n1,2\n").hexdigest()

    replaced = run(desk_server, desk_server.admin_token, "file", "add", slug, extra, "--replace")
    assert replaced.exit_code == 0, replaced.output
    renamed = run(
        desk_server, desk_server.admin_token, "file", "add", slug, extra, "--name", "copy.csv"
    )
    assert renamed.exit_code == 0 and "attached copy.csv" in renamed.output
    listed = {f["name"]: f["sha256"] for f in admin.files(slug)}
    assert listed["extra.csv"] == listed["copy.csv"] == hashlib.sha256(b"a,b\n3,4\n").hexdigest()

    for name in ("extra.csv", "copy.csv"):
        removed = run(desk_server, desk_server.admin_token, "file", "remove", slug, name)
        assert removed.exit_code == 0 and f"removed {name}" in removed.output
    assert "extra.csv" not in {f["name"] for f in admin.files(slug)}
    refused(run(desk_server, desk_server.admin_token, "file", "remove", slug, "extra.csv"), 1,
            "404")  # fmt: skip


def test_desk_file_refusals_by_the_server_change_nothing(desk_server, admin, desk, tmp_path):
    before = admin.files("desk")
    team = new_team(desk_server, "desk", "file-thief")
    extra = tmp_path / "extra.csv"
    extra.write_bytes(b"x\n")
    refused(run(desk_server, team, "file", "add", "desk", extra), 1, "403")
    refused(run(desk_server, team, "file", "remove", "desk", "train.csv"), 1, "403")
    refused(
        run(desk_server, desk_server.admin_token, "file", "add", "desk", extra, "--name", ".env"),
        1,
        "422",
    )
    refused(
        run(
            desk_server, desk_server.admin_token, "file", "remove", "desk", "sample_submission.csv"
        ),
        1,
        "404",
    )
    assert admin.files("desk") == before


# ------------------------------------------------------------------------ teams
def test_desk_team_import_writes_the_tokens_to_a_new_file_of_mode_0600(
    desk_server, admin, tmp_path
):
    create(desk_server, tmp_path, "desk-import")
    names = tmp_path / "names.csv"
    names.write_text("name,email\nalpha,a@example.org\nbeta/gamma,b@example.org\nZoë,z@x.org\n")
    out = tmp_path / "tokens.csv"
    result = run(
        desk_server, desk_server.admin_token, "team", "import", "desk-import", names,
        "--tokens-out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "registered 3 teams" in result.output and "shown once" in result.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [r["name"] for r in rows] == ["alpha", "beta/gamma", "Zoë"]
    assert all(r["token"] not in result.output for r in rows)
    status = run(desk_server, rows[2]["token"], "status", "desk-import")
    assert status.exit_code == 0 and "team\tZoë" in status.output.splitlines()


def test_desk_team_import_refusals_register_nobody(desk_server, admin, tmp_path):
    create(desk_server, tmp_path, "desk-import-none")
    out = tmp_path / "tokens.csv"
    out.write_text("earlier tokens\n")
    names = tmp_path / "names.csv"
    names.write_text("name\nalpha\nbeta\n")
    kept = run(
        desk_server, desk_server.admin_token, "team", "import", "desk-import-none", names,
        "--tokens-out", out,
    )  # fmt: skip
    refused(kept, 2, "tokens.csv exists")
    assert out.read_text() == "earlier tokens\n" and admin.teams("desk-import-none") == []

    names.write_text("name\nalpha\nALPHA\n")
    fresh = tmp_path / "fresh.csv"
    repeated = run(
        desk_server, desk_server.admin_token, "team", "import", "desk-import-none", names,
        "--tokens-out", fresh,
    )  # fmt: skip
    refused(repeated, 1, "422", "repeats")
    assert not fresh.exists() and admin.teams("desk-import-none") == []

    names.write_text("name\nalpha\n")
    team_token = new_team(desk_server, "desk", "not-an-organiser")
    refused(run(desk_server, team_token, "team", "import", "desk-import-none", names), 1, "401")
    assert admin.teams("desk-import-none") == []


def test_desk_team_import_without_a_file_shows_the_tokens_once(desk_server, admin, tmp_path):
    create(desk_server, tmp_path, "desk-import-screen")
    names = tmp_path / "names.csv"
    names.write_text("solo\n")
    result = run(
        desk_server, desk_server.admin_token, "team", "import", "desk-import-screen", names
    )
    assert result.exit_code == 0 and "shown once" in result.stderr
    (row,) = csv.DictReader(io.StringIO(result.stdout), delimiter="\t")
    assert row["team"] == "solo" and len(row["token"]) > 20
    assert [t["name"] for t in admin.teams("desk-import-screen")] == ["solo"]


@pytest.mark.slow
def test_desk_team_list_disable_enable_and_flags(desk_server, admin, tmp_path):
    slug = "desk-teams"
    create(desk_server, tmp_path, slug)
    first, second = new_team(desk_server, slug, "first"), new_team(desk_server, slug, "second")
    predictions = tmp_path / "p.csv"
    predictions.write_bytes(labels_with_errors(5))
    assert run(desk_server, first, "submit", slug, "-f", predictions).exit_code == 0
    assert run(desk_server, second, "submit", slug, "-f", predictions).exit_code == 0
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"id,target\n")
    refused(run(desk_server, second, "submit", slug, "-f", bad), 1, "400")

    desk_table = run(desk_server, desk_server.admin_token, "team", "list", slug)
    assert desk_table.exit_code == 0, desk_table.output
    line = next(x for x in desk_table.output.splitlines() if x.startswith("second\t"))
    cells = line.split("\t")
    assert cells[0] == "second" and cells[1] == "1" and cells[3] == "1" and cells[5] == "1"
    as_csv = run(desk_server, desk_server.admin_token, "team", "list", slug, "--csv")
    by_team = {r["team"]: r for r in csv.DictReader(io.StringIO(as_csv.stdout))}
    assert (by_team["second"]["invalid"], by_team["second"]["flags"]) == ("1", "1")
    as_json = run(desk_server, desk_server.admin_token, "team", "list", slug, "--json")
    assert json.loads(as_json.stdout) == admin.teams(slug)

    flags = run(desk_server, desk_server.admin_token, "flags", slug)
    assert flags.exit_code == 0 and "second" in flags.output and "first" in flags.output
    refused(run(desk_server, first, "flags", slug), 1, "403")

    disabled = run(desk_server, desk_server.admin_token, "team", "disable", slug, "second")
    assert disabled.exit_code == 0 and "disabled" in disabled.output
    assert admin.teams(slug)[1]["disabled"] is True
    refused(run(desk_server, second, "submit", slug, "-f", bad), 1, "disabled")
    assert "second" not in [r["team"] for r in admin.leaderboard(slug)["rows"]]
    enabled = run(desk_server, desk_server.admin_token, "team", "enable", slug, "second")
    assert enabled.exit_code == 0 and "enabled" in enabled.output
    assert "second" in [r["team"] for r in admin.leaderboard(slug)["rows"]]

    refused(run(desk_server, desk_server.admin_token, "team", "disable", slug, "nobody"), 1, "404")
    refused(run(desk_server, first, "team", "disable", slug, "second"), 1, "403")
    refused(run(desk_server, first, "team", "list", slug), 1, "403")
    assert [t["disabled"] for t in admin.teams(slug)] == [False, False]


def test_desk_team_reissue_gives_a_new_token_and_refuses_the_old(desk_server, admin, tmp_path):
    slug = "desk-reissue"
    create(desk_server, tmp_path, slug)
    old = new_team(desk_server, slug, "leaky")
    predictions = tmp_path / "p.csv"
    predictions.write_bytes(labels_with_errors(5))
    assert run(desk_server, old, "submit", slug, "-f", predictions).exit_code == 0
    refused(run(desk_server, old, "team", "reissue", slug, "leaky"), 1, "403")
    refused(run(desk_server, desk_server.admin_token, "team", "reissue", slug, "nobody"), 1, "404")
    result = run(desk_server, desk_server.admin_token, "team", "reissue", slug, "leaky")
    assert result.exit_code == 0, result.output
    assert "the old one is refused" in result.output
    new = result.output.split("token (shown once): ")[1].split()[0]
    second = tmp_path / "q.csv"
    second.write_bytes(labels_with_errors(7))
    refused(run(desk_server, old, "submit", slug, "-f", second), 1, "401")
    sent = run(desk_server, new, "submit", slug, "-f", second)
    assert sent.exit_code == 0, sent.output
    assert admin.teams(slug)[0]["submissions"] == 2
    as_json = run(desk_server, desk_server.admin_token, "team", "reissue", slug, "leaky", "--json")
    assert json.loads(as_json.stdout)["token"] not in (old, new)


# ------------------------------------------------------------- a team's verbs
def test_desk_submit_prints_the_previous_score_and_the_explanation(
    desk_server, tmp_path, monkeypatch
):
    slug = "desk-submit"
    create(desk_server, tmp_path, slug)
    token = new_team(desk_server, slug, "solo")
    answers = []
    real = client_http.Client.submit

    def recorded(self, *args, **kwargs):
        answers.append(real(self, *args, **kwargs))
        return answers[-1]

    monkeypatch.setattr(client_http.Client, "submit", recorded)
    outputs = []
    for every in (4, 10):
        predictions = tmp_path / f"p{every}.csv"
        predictions.write_bytes(labels_with_errors(every))
        result = run(desk_server, token, "submit", slug, "-f", predictions)
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    assert answers[0]["previous_score"] is None
    assert answers[1]["previous_score"] == answers[0]["public_score"]
    shown = f"{answers[0]['public_score']:.{answers[1]['decimals']}f}"  # as the sentence says it
    assert "\tbefore\t" in outputs[1] and f"\t{shown}\t" in outputs[1]
    for answer, output in zip(answers, outputs, strict=True):
        assert " ".join(answer["explanation"].split()) in " ".join(output.split())


def test_desk_submit_prints_the_server_s_explanation_sentence(desk_server, tmp_path, monkeypatch):
    sentence = "Your public score went from 0.25 to 0.1: the board took the improvement."
    answer = {"id": 2, "public_score": 0.1, "previous_score": 0.25, "explanation": sentence,
              "status": "scored", "remaining_today": 3}  # fmt: skip
    monkeypatch.setattr(client_http.Client, "submit", lambda self, *a, **k: answer)
    predictions = tmp_path / "p.csv"
    predictions.write_bytes(b"id,target\n")
    result = run(desk_server, "any", "submit", "anything", "-f", predictions)
    assert result.exit_code == 0 and sentence in " ".join(result.output.split())


def test_desk_status_shows_rank_quota_reset_and_refused_files(desk_server, tmp_path):
    slug = "desk-status"
    create(desk_server, tmp_path, slug, "--daily-quota", "3")
    token = new_team(desk_server, slug, "solo")
    before = run(desk_server, token, "status", slug)
    assert (
        before.exit_code == 0
        and "none yet" in before.output
        and "no refused files" in before.output
    )
    predictions = tmp_path / "p.csv"
    predictions.write_bytes(labels_with_errors(4))
    assert run(desk_server, token, "submit", slug, "-f", predictions).exit_code == 0
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"id,guess\n1,0\n")
    refused(run(desk_server, token, "submit", slug, "-f", bad), 1, "400")
    after = run(desk_server, token, "status", slug)
    assert after.exit_code == 0, after.output
    assert "1 of 3 used, 2 left" in after.output and "UTC" in after.output
    assert "refused files" in after.output and "1 of 20 used" in after.output
    refused(run(desk_server, desk_server.admin_token, "status", slug), 1, "403")


def test_desk_select_chooses_the_final_submissions(desk_server, admin, tmp_path):
    slug = "desk-select"
    create(desk_server, tmp_path, slug)
    token = new_team(desk_server, slug, "solo")
    for every in (4, 10, 20):
        predictions = tmp_path / f"p{every}.csv"
        predictions.write_bytes(labels_with_errors(every))
        assert run(desk_server, token, "submit", slug, "-f", predictions).exit_code == 0
    chosen = run(desk_server, token, "select", slug, "1", "3")
    assert chosen.exit_code == 0 and "final submissions in desk-select: 1, 3" in chosen.output
    refused(run(desk_server, token, "select", slug, "9"), 1, "404")
    with Client(desk_server.url, token) as client:
        assert [s["number"] for s in client.submissions(slug) if s["selected"]] == [1, 3]


# ------------------------------------------------------ edit, close, publish
def test_desk_edit_changes_what_it_is_given_and_refusals_change_nothing(
    desk_server, admin, tmp_path
):
    slug = "desk-edit"
    create(desk_server, tmp_path, slug)
    rules = tmp_path / "rules.md"
    rules.write_text(RULES)
    later = (datetime.now(UTC) + timedelta(days=7)).replace(microsecond=0)
    edited = run(
        desk_server, desk_server.admin_token, "competition", "edit", slug, "--title",
        "A new title", "--rules-file", rules, "--deadline", later.isoformat(),
    )  # fmt: skip
    assert edited.exit_code == 0, edited.output
    info = admin.competition(slug)
    assert (info["title"], info["rules"]) == ("A new title", RULES)
    assert datetime.fromisoformat(info["deadline"].replace("Z", "+00:00")) == later

    past = (datetime.now(UTC) - timedelta(days=1)).isoformat()
    refused(run(desk_server, desk_server.admin_token, "competition", "edit", slug,
                "--deadline", past), 1, "422", "past")  # fmt: skip
    team = new_team(desk_server, slug, "solo")
    refused(run(desk_server, team, "competition", "edit", slug, "--title", "Mine"), 1, "403")
    refused(run(desk_server, desk_server.admin_token, "competition", "edit", slug), 2,
            "nothing to change")  # fmt: skip
    no_zone = run(desk_server, desk_server.admin_token, "competition", "edit", slug,
                  "--deadline", "2031-01-01 12:00")  # fmt: skip
    refused(no_zone, 2, "time zone")
    not_a_time = run(desk_server, desk_server.admin_token, "competition", "edit", slug,
                     "--deadline", "next friday")  # fmt: skip
    refused(not_a_time, 2, "not an ISO 8601 time")
    assert admin.competition(slug) == info

    cleared = run(desk_server, desk_server.admin_token, "competition", "edit", slug,
                  "--deadline", "none")  # fmt: skip
    assert cleared.exit_code == 0 and admin.competition(slug)["deadline"] is None


def test_desk_publish_waits_for_the_close_and_reveals_the_key(desk_server, admin, tmp_path):
    slug = "desk-publish"
    create(desk_server, tmp_path, slug)
    token = new_team(desk_server, slug, "solo")
    predictions = tmp_path / "p.csv"
    predictions.write_bytes(labels_with_errors(4))
    assert run(desk_server, token, "submit", slug, "-f", predictions).exit_code == 0

    refused(run(desk_server, desk_server.admin_token, "publish", slug), 1, "409", "close it")
    assert admin.competition(slug)["published"] is False
    refused(run(desk_server, token, "close", slug), 1, "403")
    assert admin.competition(slug)["closed"] is False

    closed = run(desk_server, desk_server.admin_token, "close", slug)
    assert closed.exit_code == 0 and f"ladderboard publish {slug}" in closed.output
    refused(run(desk_server, token, "leaderboard", slug, "--private"), 1, "403 private_board")
    refused(run(desk_server, token, "publish", slug), 1, "403")

    published = run(desk_server, desk_server.admin_token, "publish", slug)
    assert published.exit_code == 0, published.output
    key = admin.commitment(slug)["key"]
    assert key and f"audit key: {key}" in published.output
    private = run(desk_server, token, "leaderboard", slug, "--private")
    assert private.exit_code == 0 and "solo" in private.output


# ------------------------------------------------------------ exit statuses
def test_desk_a_server_out_of_reach_exits_3_in_one_line(tmp_path):
    env = {"LADDERBOARD_SERVER": "http://127.0.0.1:9", "LADDERBOARD_TOKEN": "x"}
    for args in (["status", "any"], ["download", "any", "--path", str(tmp_path / "d")]):
        result = runner.invoke(app, args, env=env)
        refused(result, 3, "cannot reach http://127.0.0.1:9")
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize(
    "verb",
    [
        [],
        ["login"],
        ["competitions"],
        ["submit"],
        ["leaderboard"],
        ["download"],
        ["publish"],
        ["competition", "create"],
        ["team", "import"],
        ["file", "add"],
    ],
)
def test_desk_help_states_the_exit_statuses(verb):
    result = runner.invoke(app, [*verb, "--help"], env={"COLUMNS": "200"})
    text = " ".join(result.output.split())
    assert "Exit status: 0 done; 1 refused" in text and "3 the server" in text


@pytest.mark.slow
def test_desk_names_are_shown_as_text_not_as_markup(desk_server, tmp_path):
    slug = "desk-markup"
    create(desk_server, tmp_path, slug)
    name = "[/] [bold red]loud[/]"
    token = new_team(desk_server, slug, name)
    predictions = tmp_path / "p.csv"
    predictions.write_bytes(labels_with_errors(4))
    submitted = run(desk_server, token, "submit", slug, "-f", predictions, "-m", "[blink]x[/]")
    assert submitted.exit_code == 0, submitted.output
    for args, token_used in (
        (["leaderboard", slug], ""),
        (["submissions", slug], token),
        (["status", slug], token),
        (["team", "list", slug], desk_server.admin_token),
    ):
        result = run(desk_server, token_used, *args)
        assert result.exit_code == 0, result.output
        shown = "[blink]x[/]" if args[0] == "submissions" else name
        assert shown in " ".join(result.output.split())  # a title may wrap
