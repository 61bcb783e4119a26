"""``ladderboard import-history``: exports of Codabench and EvalAI, made by
hand in the forms their code writes (``codalab/codabench``:
``SubmissionViewSet``'s CSV and ``download_many``'s entry names, zipped as
its submissions page zips them; ``Cloud-CV/EvalAI``:
``download_all_submissions``'s host CSV), turned into a replay folder that
``ladderboard replay`` runs on to the full report; the submissions a
platform did not score are listed apart, and a bad export writes nothing."""

from __future__ import annotations

import csv
import io
import zipfile
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from ladderboard.files import Solution
from ladderboard.replay.cli import register
from replay.test_replay_support import read_csv, submission_bytes

TEAMS = ("red_team", "blue", "green", "gold")  # a Codabench username may hold "_"
START = datetime(2026, 3, 1, 9, tzinfo=UTC)


def _cli(*args: str):
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """ladderboard"""

    register(app)
    return CliRunner().invoke(app, list(args))


def _solution() -> Solution:
    y = np.random.default_rng(4).integers(0, 2, 300)
    return Solution.from_labels(y, public_fraction=0.5, random_state=4)


def _history(solution: Solution):
    """(id, team, time, file bytes): each team's three files, getting better."""
    rng = np.random.default_rng(5)
    y = solution.targets.astype(float)
    out = []
    for k in range(3):
        for t, team in enumerate(TEAMS):
            p = np.clip(y + rng.normal(0, 0.45 - 0.1 * k + 0.02 * t, y.size), 0.02, 0.98)
            pid = str(4100 + len(out))
            out.append(
                (pid, team, START + timedelta(hours=len(out)), submission_bytes(solution, p))
            )
    return out


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _codabench(tmp_path, solution, history):
    """Codabench's two downloads: the list (CSV) and bulk_submissions.zip."""
    listing = tmp_path / "codabench-submissions.csv"
    bulk: dict[str, bytes] = {}
    with listing.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Submission ID", "File Name", "Owner", "Created When", "Status", "Phase"])
        for pid, team, when, data in history:
            stored = f"{pid[-2:]}ab12cd34ef56predictions.zip"
            writer.writerow(
                [pid, stored, team, when.isoformat().replace("+00:00", "Z"), "Finished", "Final"]
            )
            # download_many's name, ':' replaced by '_' as the page's zip does
            name = f"{pid}_{team}_PhaseId7_{when:%Y-%m-%d}_{when:%M-%S}_{stored}"
            bulk[name] = _zip({"predictions.csv": data, "README.txt": b"my model"})
        writer.writerow(["4190", "x.zip", "blue", "2026-03-02T10:00:00Z", "Failed", "Final"])
        writer.writerow(["4191", "y.zip", "blue", "2026-03-02T11:00:00Z", "Finished", "Warm-up"])
    bulk["failed.txt"] = b"Failed to download: none\n"
    archive = tmp_path / "bulk_submissions.zip"
    archive.write_bytes(_zip(bulk))
    return listing, archive


def _evalai(tmp_path, history):
    """EvalAI's host CSV (every field, QUOTE_ALL) and the files downloaded
    from its 'Submitted File' addresses."""
    listing = tmp_path / "all_submissions_challenge_1_test_2.csv"
    files = tmp_path / "downloaded"
    files.mkdir()
    header = [
        "id", "Team Name", "Team Members", "Team Members Email Id", "Team Members Affiliaton",
        "Challenge Phase", "Status", "Created By", "Execution Time(sec.)", "Submission Number",
        "Submitted File", "Stdout File", "Stderr File", "Environment Log File", "Submitted At",
        "Submission Result File", "Submission Metadata File", "Method Name",
        "Method Description", "Publication URL", "Project URL", "Submission Meta Attributes",
    ]  # fmt: skip
    with listing.open("w", newline="") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL)
        writer.writerow(header)
        rows = [(pid, team, when, data, "finished") for pid, team, when, data in history]
        rows.append(("4190", "blue", START, b"", "failed"))
        rows.append(("4192", "gold", START, b"", "finished"))  # its file was not downloaded
        for pid, team, when, data, status in reversed(rows):  # newest first, as EvalAI orders
            uuid = f"{int(pid):08x}-1111-4222-8333-444455556666"
            url = f"https://evalai.s3.amazonaws.com/media/submission_files/challenge_1/phase_2/submission_{pid}/{uuid}.csv"
            if data:
                (files / f"{uuid}.csv").write_bytes(data)
            stamp = str(when + timedelta(microseconds=250))
            writer.writerow([pid, team, "a,b", "a@x,b@x", "U,U", "Test", status, "a", "1.2", "1",
                             url, "", "", "", stamp, "", "", "", "", "", "", "{}"])  # fmt: skip
    return listing, files


def _replay(solution_path, folder, out):
    result = _cli(
        "replay", "--solution", str(solution_path),
        "--submissions-dir", str(folder / "submissions"), "--out", str(out),
        "--mechanism", "full-disclosure", "--mechanism", "parameter-free-ladder",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("platform", ["codabench", "evalai"])
def test_an_imported_export_replays_to_the_full_report(tmp_path, platform):
    solution = _solution()
    (tmp_path / "solution.csv").write_bytes(solution.to_csv())
    history = _history(solution)
    folder = tmp_path / "imported"
    if platform == "codabench":
        listing, archive = _codabench(tmp_path, solution, history)
        made = _cli("import-history", "codabench", "--list", str(listing), "--bulk", str(archive),
                    "--phase", "Final", "--out", str(folder))  # fmt: skip
        assert made.exit_code == 0, made.output
        skipped = {row["id"]: row["reason"] for row in read_csv(folder / "skipped.csv")}
        assert set(skipped) == {"4190"} and "Failed" in skipped["4190"]
    else:
        listing, files = _evalai(tmp_path, history)
        made = _cli("import-history", "evalai", "--list", str(listing), "--files", str(files),
                    "--out", str(folder))  # fmt: skip
        assert made.exit_code == 0, made.output
        skipped = {row["id"]: row["reason"] for row in read_csv(folder / "skipped.csv")}
        assert set(skipped) == {"4190", "4192"} and "not in the folder" in skipped["4192"]
    assert f"imported {len(history)} submissions" in made.output

    index = read_csv(folder / "submissions.csv")
    assert [(r["team"], r["file"]) for r in index] == [
        (team, f"{pid}.csv") for pid, team, *_ in history
    ]
    for pid, _, when, data in history:
        assert (folder / "submissions" / f"{pid}.csv").read_bytes() == data
        row = next(r for r in index if r["file"] == f"{pid}.csv")
        parsed = datetime.fromisoformat(row["submitted_at"].replace("Z", "+00:00"))
        assert abs(parsed - when) < timedelta(seconds=1)

    out = _replay(tmp_path / "solution.csv", folder, tmp_path / "report")
    assert f"replayed {len(history)} submissions of {len(TEAMS)} teams" in out
    report = (tmp_path / "report" / "report.md").read_text()
    headings = ("Top-10 perturbations (Table 1)", "Kendall's tau", "half-splits (Figs. 4 and 5)")
    for heading in (*headings, "Paired t-tests"):
        assert heading in report


def test_the_member_option_picks_the_prediction_file_of_a_zip(tmp_path):
    solution = _solution()
    history = _history(solution)[:2]
    listing, archive = _codabench(tmp_path, solution, history)
    # Two CSV files in each zip: the one to take must be named.
    with zipfile.ZipFile(archive) as source:
        entries = {i.filename: source.read(i) for i in source.infolist()}
    rebuilt = {
        name: _zip({"predictions.csv": zipfile.ZipFile(io.BytesIO(data)).read("predictions.csv"),
                    "train_scores.csv": b"a,b\n1,2\n"}) if name != "failed.txt" else data
        for name, data in entries.items()
    }  # fmt: skip
    archive.write_bytes(_zip(rebuilt))
    unnamed = _cli("import-history", "codabench", "--list", str(listing), "--bulk", str(archive),
                   "--phase", "Final", "--out", str(tmp_path / "a"))  # fmt: skip
    assert unnamed.exit_code == 0
    reasons = [row["reason"] for row in read_csv(tmp_path / "a" / "skipped.csv")]
    assert sum("--member" in r for r in reasons) == 2
    named = _cli("import-history", "codabench", "--list", str(listing), "--bulk", str(archive),
                 "--member", "predictions.csv", "--out", str(tmp_path / "b"))  # fmt: skip
    assert named.exit_code == 0 and "imported 2 submissions" in named.output
    skipped = {row["id"]: row["reason"] for row in read_csv(tmp_path / "b" / "skipped.csv")}
    assert "no entry" in skipped["4191"]  # every phase without --phase: Warm-up's is listed
    assert (tmp_path / "b" / "submissions" / f"{history[0][0]}.csv").read_bytes() == history[0][3]


def test_evalai_custom_field_times_are_read_as_utc(tmp_path):
    files = tmp_path / "files"
    files.mkdir()
    (files / "77.csv").write_bytes(b"id,target\n1,0.5\n")
    listing = tmp_path / "custom.csv"
    listing.write_text(
        "id,Team Name,Status,Submitted At (mm/dd/yyyy hh:mm:ss)\n"
        "77,blue,finished,03/02/2026 14:05:09\n"
    )
    made = _cli("import-history", "evalai", "--list", str(listing), "--files", str(files),
                "--out", str(tmp_path / "out"))  # fmt: skip
    assert made.exit_code == 0, made.output
    assert read_csv(tmp_path / "out" / "submissions.csv") == [
        {"file": "77.csv", "team": "blue", "submitted_at": "2026-03-02T14:05:09Z"}
    ]


def test_a_bad_export_or_call_writes_nothing(tmp_path):
    listing = tmp_path / "list.csv"
    listing.write_text("Submission ID,Owner,Status\n1,a,Finished\n")  # no Created When
    archive = tmp_path / "bulk.zip"
    archive.write_bytes(_zip({}))
    out = tmp_path / "out"
    missing = _cli("import-history", "codabench", "--list", str(listing), "--bulk", str(archive),
                   "--out", str(out))  # fmt: skip
    assert missing.exit_code == 2 and "Created When" in missing.output
    assert not out.exists()
    assert (
        _cli("import-history", "kaggle", "--list", str(listing), "--out", str(out)).exit_code == 2
    )
    wrong = _cli("import-history", "evalai", "--list", str(listing), "--bulk", str(archive),
                 "--out", str(out))  # fmt: skip
    assert wrong.exit_code == 2 and "--files" in wrong.output
    (out / "submissions").mkdir(parents=True)
    (out / "submissions" / "old.csv").write_text("x")
    good = tmp_path / "good.csv"
    good.write_text("Submission ID,Owner,Created When,Status\n")
    full = _cli("import-history", "codabench", "--list", str(good), "--bulk", str(archive),
                "--out", str(out))  # fmt: skip
    assert full.exit_code == 2 and "already holds files" in full.output
    assert sorted(p.name for p in out.rglob("*")) == ["old.csv", "submissions"]


def test_an_import_is_bounded_and_keeps_ids_inside_the_folder(tmp_path):
    from ladderboard.replay.imports import UnreadableExport, import_evalai

    files = tmp_path / "files"
    files.mkdir()
    body = b"id,target\n" + b"1,0.5\n" * 1000
    for pid in ("1", "2", "3"):
        # as `wget -i` saves a signed address: the query stays in the name
        (files / f"{pid}.csv?Signature=abc&Expires=1").write_bytes(body)
    listing = tmp_path / "list.csv"
    rows = "".join(f"{pid},t,finished,2026-03-02 14:05:0{pid}+00:00\n" for pid in ("1", "2", "3"))
    head = "id,Team Name,Status,Submitted At\n"
    odd = "../../escaped,t,finished,2026-03-02 14:05:00+00:00\n"
    again = "1,t,finished,2026-03-02 14:05:00+00:00\n"
    listing.write_text(head + odd + again + rows)
    done = import_evalai(listing, files, tmp_path / "out")
    assert done.taken == 3
    assert {r[0]: r[2] for r in done.skipped} == {
        "../../escaped": "its id is not a whole number",
        "1": "listed twice: its first row is taken",
    }
    assert not any(p.name.startswith("escaped") for p in tmp_path.rglob("*"))
    # More than the import may write: nothing is left behind, not even the folder's files.
    with pytest.raises(UnreadableExport, match="more than its"):
        import_evalai(listing, files, tmp_path / "small", max_total=2 * len(body))
    assert sorted(p.name for p in (tmp_path / "small").iterdir()) == []
