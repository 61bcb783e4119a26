"""The export and the audit bundle, on both stores: a competition played
through the engine (several teams, refused files, selections, closed and
published), exported and replayed, its audit bundle verified with no store,
and the verify failing on any file, release or key missing or altered."""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.engine import Competitions
from ladderboard.engine.archives import FolderSink
from ladderboard.engine.audit_bundle import verify_bundle
from ladderboard.engine.errors import CompetitionClosed
from ladderboard.files.solution import Solution
from ladderboard.files.submission import SubmissionError
from ladderboard.rules.config import CompetitionConfig

TEAMS = ("alpha", "Beta team", "gamma/δ")


def _played(store: Competitions, *, board: str = "per-team", late: bool = False) -> Solution:
    """A competition ``c`` played through: three teams, a gzipped file, a
    refused file, selections, a disabled team, closed (``late``: taking
    late files once published)."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 120)
    solution = Solution.from_labels(y, public_fraction=0.5, random_state=0)
    store.create(
        "c",
        solution,
        CompetitionConfig(
            score="zero_one",
            mechanism="ladder-boot",
            board=board,
            daily_quota=None,
            late_submissions=late,
        ),
    )
    store.add_file("c", "train.csv", b"x,y\n1,0\n")
    for team in TEAMS:
        store.add_team("c", team)
    for round_ in range(3):
        for i, team in enumerate(TEAMS):
            predictions = (rng.random(120) < 0.5 + 0.1 * i).astype(int)
            data = solution.sample_submission_csv(fill=0.0)
            lines = data.decode().splitlines()
            rows = [
                f"{line.split(',')[0]},{p}" for line, p in zip(lines[1:], predictions, strict=True)
            ]
            body = "\n".join([lines[0], *rows]).encode() + b"\n"
            if round_ == 1 and i == 0:
                body = gzip.compress(body)
            store.submit("c", team, body, message=f"round {round_}")
    with pytest.raises(SubmissionError):
        store.submit("c", "alpha", b"nonsense\n", filename="bad.csv")
    store.select("c", "alpha", [1, 2])
    store.set_team_disabled("c", "gamma/δ", True)
    store.close("c")
    return solution


def _bundle(store: Competitions, folder: Path) -> Path:
    folder.mkdir()
    store.audit_bundle("c", FolderSink(folder))
    return folder


@pytest.mark.slow
def test_export_holds_what_replay_reads_and_replay_runs_on_it(store, tmp_path):
    _played(store)
    out = tmp_path / "export"
    written = store.export("c", FolderSink(out))
    assert {"solution.csv", "submissions.csv", "refused.csv", "teams.csv"} <= set(written)
    assert (
        "data/train.csv" in written and (out / "data" / "train.csv").read_bytes() == b"x,y\n1,0\n"
    )
    index = list(csv.DictReader((out / "submissions.csv").open(encoding="utf-8")))
    assert len(index) == 9
    for row in index:
        data = (out / "submissions" / row["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == row["file_sha256"]
    assert sum(row["file"].endswith(".csv.gz") for row in index) == 1
    assert {row["team"] for row in index} == set(TEAMS)
    assert [r["selected"] for r in index if r["team"] == "alpha"] == ["yes", "yes", "no"]
    assert {r["status"] for r in index if r["team"] == "gamma/δ"} == {"team disabled"}
    # Closed but not published: no private score, no key.
    assert all(row["private_score"] == "" for row in index)
    meta = json.loads((out / "competition.json").read_text())
    assert meta["key"] is None and meta["closed_at"] and meta["published_at"] is None
    refused = list(csv.DictReader((out / "refused.csv").open(encoding="utf-8")))
    assert [(r["team"], r["file_name"]) for r in refused] == [("alpha", "bad.csv")]
    assert refused[0]["file_sha256"] == hashlib.sha256(b"nonsense\n").hexdigest()

    store.publish("c")
    again = tmp_path / "published"
    store.export("c", FolderSink(again))
    meta = json.loads((again / "competition.json").read_text())
    assert meta["key"] == store.reveal_key("c")
    index = list(csv.DictReader((again / "submissions.csv").open(encoding="utf-8")))
    assert all(float(row["private_score"]) >= 0 for row in index)

    result = CliRunner().invoke(
        app,
        [
            "replay",
            "--solution",
            str(again / "solution.csv"),
            "--submissions-dir",
            str(again / "submissions"),
            "--mechanism",
            "ladder",
            "--loss",
            "zero_one",
            "--out",
            str(tmp_path / "replayed"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "replayed 9 submissions of 3 teams" in result.output and "skipped 0" in result.output


def test_export_holds_the_late_files_apart_from_what_replay_reads(store, tmp_path):
    solution = _played(store, late=True)
    empty = tmp_path / "before"
    store.export("c", FolderSink(empty))
    assert (empty / "late.csv").read_text().startswith("file,team,")
    assert len(list(csv.DictReader((empty / "late.csv").open()))) == 0
    store.publish("c")
    sent = solution.sample_submission_csv(fill=1.0)
    late = store.submit("c", "Beta team", sent, message="after the end")
    assert late.late
    store.submit("c", "alpha", solution.sample_submission_csv(fill=0.0))
    store.set_team_disabled("c", "alpha", True)  # off the late board; in the export
    out = tmp_path / "export"
    written = store.export("c", FolderSink(out))
    rows = list(csv.DictReader((out / "late.csv").open(encoding="utf-8")))
    assert [(r["team"], r["status"]) for r in rows] == [
        ("Beta team", "scored late"),
        ("alpha", "team disabled"),
    ]
    row = rows[0]
    assert f"late/{row['file']}" in written
    assert (out / "late" / row["file"]).read_bytes() == sent
    assert (row["number"], row["message"]) == ("1", "after the end")
    [mine] = store.late_submissions("c", "Beta team")
    assert float(row["public_score"]) == mine.public_score
    assert float(row["private_score"]) == mine.private_score
    assert row["file_sha256"] == hashlib.sha256(sent).hexdigest()
    # The competition as it ran: the late files are in no index replay reads.
    index = list(csv.DictReader((out / "submissions.csv").open(encoding="utf-8")))
    assert len(index) == 9 and not {r["file"] for r in rows} & {r["file"] for r in index}


def test_audit_bundle_is_refused_until_published(store, tmp_path):
    _played(store)
    with pytest.raises(CompetitionClosed, match="not published"):
        store.publish_audit("c", "full")
    assert store.audit_publication("c") is None
    with pytest.raises(CompetitionClosed, match="not published"):
        store.audit_bundle("c", FolderSink(tmp_path / "b"))
    store.publish("c")
    with pytest.raises(ValueError, match="files must be one of"):
        store.publish_audit("c", "some")  # type: ignore[arg-type]
    assert store.audit_publication("c") is None
    published = store.publish_audit("c", "hashes")
    assert published.files == "hashes"
    assert store.audit_publication("c").files == "hashes"


@pytest.mark.parametrize("board", ["per-team", "per-rank"])
def test_a_full_bundle_verifies_with_no_store(store, tmp_path, board):
    _played(store, board=board)
    store.publish("c")
    store.publish_audit("c", "full")
    folder = _bundle(store, tmp_path / "bundle")
    store.engine.dispose()  # the bundle alone
    report = verify_bundle(folder)
    assert report.verified, report.problems
    assert report.submissions == 9
    assert any("bit for bit" in line for line in report.proven)
    assert any("commitment" in line for line in report.proven)
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zipped.write(path, path.relative_to(folder).as_posix())
    assert verify_bundle(archive).verified


def _alter_file(folder: Path) -> None:
    path = sorted((folder / "submissions").iterdir())[0]
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    path.write_bytes(data.replace(b",0\n", b",1\n", 1))


def _remove_file(folder: Path) -> None:
    sorted((folder / "submissions").iterdir())[-1].unlink()


def _edit_index(folder: Path, change) -> None:
    path = folder / "submissions.csv"
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    change(rows)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _alter_release(folder: Path) -> None:
    def change(rows):
        rows[1]["released"] = repr(float(rows[1]["released"]) + 2**-30)

    _edit_index(folder, change)


def _drop_release(folder: Path) -> None:
    _edit_index(folder, lambda rows: rows.pop(1))


def _drop_board(folder: Path) -> None:
    def change(rows):
        scope = rows[-1]["scope"]
        rows[:] = [row for row in rows if row["scope"] != scope]

    _edit_index(folder, change)


def _alter_decision(folder: Path) -> None:
    def change(rows):
        rows[0]["improved"] = "no" if rows[0]["improved"] == "yes" else "yes"

    _edit_index(folder, change)


def _alter_meta(folder: Path, change) -> None:
    path = folder / "competition.json"
    meta = json.loads(path.read_text())
    change(meta)
    path.write_text(json.dumps(meta))


def _alter_key(folder: Path) -> None:
    _alter_meta(folder, lambda meta: meta.update(key="0" * len(meta["key"])))


def _remove_key(folder: Path) -> None:
    _alter_meta(folder, lambda meta: meta.pop("key"))


def _alter_solution(folder: Path) -> None:
    path = folder / "solution.csv"
    lines = path.read_text().splitlines(keepends=True)
    cells = lines[1].split(",")
    cells[1] = "1" if cells[1] == "0" else "0"  # one label flipped
    lines[1] = ",".join(cells)
    path.write_text("".join(lines))


def _file_outside(folder: Path) -> None:
    """The index points a file outside ``submissions/``: the audit must not read it."""
    (folder.parent / "outside.csv").write_bytes((folder / "solution.csv").read_bytes())

    def change(rows):
        rows[0]["file"] = "../../outside.csv"

    _edit_index(folder, change)


@pytest.mark.parametrize(
    ("alteration", "said"),
    [
        (_alter_file, "SHA-256"),
        (_file_outside, "not a plain file name"),
        (_remove_file, "is not in the bundle"),
        (_alter_release, "released score"),
        (_drop_release, "not 1, 2"),
        (_drop_board, "stored state and no submissions"),
        (_alter_decision, "improved"),
        (_alter_key, "commitment mismatch"),
        (_remove_key, "no key"),
        (_alter_solution, "commitment mismatch"),
    ],
)
def test_a_bundle_altered_or_incomplete_fails_to_verify(store, tmp_path, alteration, said):
    _played(store)
    store.publish("c")
    store.publish_audit("c", "full")
    pristine = _bundle(store, tmp_path / "pristine")
    folder = tmp_path / "altered"
    shutil.copytree(pristine, folder)
    alteration(folder)
    report = verify_bundle(folder)
    assert not report.verified
    assert any(said in problem for problem in report.problems), report.problems
    result = CliRunner().invoke(app, ["verify", "--bundle", str(folder)])
    assert result.exit_code == 1, result.output
    assert said in result.output


def test_a_bundle_of_hashes_reruns_a_team_board_from_its_own_files(store, tmp_path):
    _played(store)
    store.publish("c")
    store.publish_audit("c", "full")
    full = _bundle(store, tmp_path / "full")
    store.publish_audit("c", "hashes")
    hashes = _bundle(store, tmp_path / "hashes")
    assert not (hashes / "submissions").exists()
    report = verify_bundle(hashes)
    assert report.verified, report.problems
    assert not any("bit for bit" in line for line in report.proven)
    assert any("9 submission(s) on 3 board(s) not run" in line for line in report.not_proven)

    index = list(csv.DictReader((full / "submissions.csv").open(encoding="utf-8")))
    own = tmp_path / "own"
    own.mkdir()
    for row in index:
        if row["team"] == "alpha":
            shutil.copy(full / "submissions" / row["file"], own / row["file"])
    report = verify_bundle(hashes, own_files=own)
    assert report.verified, report.problems
    assert any("3 submission(s) on 1 board(s)" in line for line in report.proven)
    assert any("6 submission(s) on 2 board(s) not run" in line for line in report.not_proven)


@pytest.mark.parametrize("name", ["../out.csv", "/tmp/out.csv", "a/../../out.csv", ""])
def test_a_folder_sink_writes_nothing_outside_its_folder(tmp_path, name):
    sink = FolderSink(tmp_path / "inside")
    with pytest.raises(ValueError, match="inside the folder"):
        sink.write(name, b"x")
    assert [p.name for p in tmp_path.rglob("*")] == ["inside"]


def test_the_versions_of_the_draws_are_recorded_and_checked(store, tmp_path):
    """Each submission records the numpy and randomgen versions its draws
    were made with; verify says when its own differ, and, when a release
    then differs, that the versions may be why (numpy's samplers may change
    between releases)."""
    from ladderboard.random import DRAW_VERSIONS

    _played(store)
    store.publish("c")
    store.publish_audit("c", "full")
    from ladderboard.engine.audit import verify

    assert (
        verify(store, "c").draws == f"the draws were made with {DRAW_VERSIONS}, the versions here"
    )
    pristine = _bundle(store, tmp_path / "pristine")
    rows = list(csv.DictReader((pristine / "submissions.csv").open(encoding="utf-8")))
    assert {row["draw_versions"] for row in rows} == {DRAW_VERSIONS}
    report = verify_bundle(pristine)
    assert report.verified
    assert f"the draws were made with {DRAW_VERSIONS}, the versions here" in report.proven

    older = "numpy 1.26.4; randomgen 1.26.1"
    other = tmp_path / "other"
    shutil.copytree(pristine, other)
    _edit_index(other, lambda rows: [row.update(draw_versions=older) for row in rows])
    report = verify_bundle(other)
    assert report.verified  # these draws happen to be the same
    assert any(f"9 submission(s) with {older}; this check made" in p for p in report.proven)
    _alter_release(other)
    report = verify_bundle(other)
    assert not report.verified
    assert any("NEP 19" in p and older in p for p in report.problems), report.problems

    # A bundle written before the versions were recorded verifies as before.
    bare = tmp_path / "bare"
    shutil.copytree(pristine, bare)
    _edit_index(bare, lambda rows: [row.pop("draw_versions") for row in rows])
    report = verify_bundle(bare)
    assert report.verified
    assert any("versions not recorded" in p for p in report.proven)
