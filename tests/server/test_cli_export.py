"""``ladderboard export``, ``audit publish``, ``audit download`` and ``verify
--bundle`` against a live server: the organiser's export unpacked and
replayed, and a team checking the bundle of hashes with its own files."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from server_helpers import LABELS
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.client.archive import ArchiveRefused, unpack_archive
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer

runner = CliRunner()
SOLUTION = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)


@pytest.fixture(autouse=True)
def no_stored_credentials(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def invoke(args, server, token=""):
    env = {"LADDERBOARD_SERVER": server.url, "LADDERBOARD_TOKEN": token, "COLUMNS": "200"}
    return runner.invoke(app, [str(a) for a in args], env=env)


def predictions(flip_every: int) -> bytes:
    rows = "".join(
        f"{i},{1 - y if j % flip_every == 0 else y}\n"
        for j, (i, y) in enumerate(zip(SOLUTION.ids, LABELS, strict=True))
    )
    return f"id,target\n{rows}".encode()


@pytest.mark.slow
def test_export_and_audit_through_the_cli(tmp_path):
    solution = tmp_path / "solution.csv"
    solution.write_bytes(SOLUTION.to_csv())
    with LocalServer(f"sqlite:///{tmp_path / 'lb.db'}") as server:
        admin = server.admin_token
        created = invoke(
            ["competition", "create", "c", "--solution", solution, "--score", "zero_one",
             "--mechanism", "ladder", "--daily-quota", "none"],
            server, admin,
        )  # fmt: skip
        assert created.exit_code == 0, created.output
        tokens = {}
        for team in ("alpha", "beta"):
            added = invoke(["team", "add", "c", team], server, admin)
            tokens[team] = added.output.split("token (shown once): ")[1].split()[0]
        for flip in (3, 5, 9):
            for team, token in tokens.items():
                path = tmp_path / f"{team}{flip}.csv"
                path.write_bytes(predictions(flip + (team == "beta")))
                sent = invoke(["submit", "c", "-f", path], server, token)
                assert sent.exit_code == 0, sent.output

        out = tmp_path / "export"
        as_team = invoke(["export", "c", "--out", out], server, tokens["alpha"])
        assert as_team.exit_code == 1 and "organiser" in as_team.output
        done = invoke(["export", "c", "--out", out], server, admin)
        assert done.exit_code == 0, done.output
        assert "wrote 6 submitted file(s)" in done.output and "ladderboard replay" in done.output
        index = list(csv.DictReader((out / "submissions.csv").open(encoding="utf-8")))
        assert len(index) == 6 and all((out / "submissions" / r["file"]).is_file() for r in index)
        again = invoke(["export", "c", "--out", out], server, admin)
        assert again.exit_code == 2 and "not empty" in again.output
        assert invoke(["export", "c", "--out", out, "--force"], server, admin).exit_code == 0
        replayed = invoke(
            ["replay", "--solution", out / "solution.csv", "--submissions-dir",
             out / "submissions", "--mechanism", "ladder", "--loss", "zero_one",
             "--out", tmp_path / "replay"],
            server,
        )  # fmt: skip
        assert replayed.exit_code == 0, replayed.output
        assert "replayed 6 submissions of 2 teams" in replayed.output

        early = invoke(["audit", "publish", "c"], server, admin)
        assert early.exit_code == 1 and "not published" in early.output
        assert invoke(["close", "c"], server, admin).exit_code == 0
        published = invoke(["publish", "c"], server, admin)
        assert "ladderboard audit publish c" in published.output
        hashes = invoke(["audit", "publish", "c", "--hashes-only"], server, admin)
        assert hashes.exit_code == 0, hashes.output
        assert "SHA-256 only" in hashes.output

        bundle = tmp_path / "c-audit.zip"
        fetched = invoke(["audit", "download", "c", "--out", bundle], server)  # no token
        assert fetched.exit_code == 0, fetched.output
        mine = tmp_path / "mine"
        own = invoke(["submissions", "c", "--download", mine], server, tokens["alpha"])
        assert own.exit_code == 0, own.output

    # The server is gone: the bundle and the team's own files are enough.
    alone = invoke(["verify", "--bundle", bundle], server)
    assert alone.exit_code == 0, alone.output
    assert "not proven" in alone.output and "6 submission(s) on 2 board(s) not run" in alone.output
    with_files = invoke(["verify", "--bundle", bundle, "--files", mine], server)
    assert with_files.exit_code == 0, with_files.output
    assert "3 submission(s) on 1 board(s) run again bit for bit" in with_files.output
    assert "3 submission(s) on 1 board(s) not run" in with_files.output
    usage = invoke(["verify", "c", "--bundle", bundle], server)
    assert usage.exit_code == 2
    stored = runner.invoke(
        app,
        ["verify", "--bundle", str(bundle)],
        env={"LADDERBOARD_DATABASE_URL": f"sqlite:///{tmp_path / 'lb.db'}"},
    )
    assert stored.exit_code == 0, stored.output  # the store's URL in the environment is unread


@pytest.mark.parametrize(
    "name", ["../escape.txt", "/etc/evil", "a/../../b", "C:/x", "a\\..\\b", "ok/\x1b[31m"]
)
def test_an_archive_with_a_path_leaving_the_folder_writes_nothing(tmp_path, name):
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        archive.writestr("solution.csv", b"id,y\n")
        archive.writestr(name, b"x")
    data.seek(0)
    with pytest.raises(ArchiveRefused, match="unsafe name"):
        unpack_archive(data, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "escape.txt").exists()


def test_unpacking_refuses_a_folder_that_is_not_empty(tmp_path):
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        archive.writestr("a/b.csv", b"1")
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "mine.txt").write_text("keep")
    data.seek(0)
    with pytest.raises(ArchiveRefused, match="not empty"):
        unpack_archive(data, folder)
    data.seek(0)
    assert unpack_archive(data, folder, force=True) == [folder / "a" / "b.csv"]
    assert (folder / "mine.txt").read_text() == "keep"


def test_a_name_both_file_and_folder_writes_nothing(tmp_path):
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        archive.writestr("solution.csv", b"id,y\n")
        archive.writestr("a", b"a file")
        archive.writestr("a/b.csv", b"and a folder")
    data.seek(0)
    with pytest.raises(ArchiveRefused, match="both as a file and as a folder"):
        unpack_archive(data, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_forcing_into_a_folder_does_not_follow_its_links_out(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "data").symlink_to(elsewhere, target_is_directory=True)
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        archive.writestr("solution.csv", b"id,y\n")
        archive.writestr("data/evil.txt", b"x")
    data.seek(0)
    with pytest.raises(ArchiveRefused, match="outside"):
        unpack_archive(data, folder, force=True)
    assert list(elsewhere.iterdir()) == [] and not (folder / "solution.csv").exists()
