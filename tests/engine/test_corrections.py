"""Correcting a solution with a mistake, on both stores: a competition played
by several teams (per-team and per-rank boards), a label corrected, every
release equal to a fresh competition's over the corrected solution, the old
version kept and checked by ``verify`` and ``verify --bundle``, tampering
with it caught, and every refusal leaving the store as it was."""

from __future__ import annotations

import csv
import io
import json
import threading
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import select, update
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.engine import Competitions
from ladderboard.engine.archives import FolderSink
from ladderboard.engine.audit import verify
from ladderboard.engine.audit_bundle import verify_bundle
from ladderboard.engine.errors import CompetitionClosed, VerificationError
from ladderboard.files.solution import Solution
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import (
    CompetitionRow,
    CorrectionReleaseRow,
    SolutionCorrectionRow,
    SubmissionRow,
    TeamRow,
    pack,
)

TEAMS = ("alpha", "beta", "gamma")
N = 80


def _config(board: str) -> CompetitionConfig:
    return CompetitionConfig(
        score="zero_one", mechanism="ladder-boot", board=board, ranks=2, daily_quota=None
    )


def _files(solution: Solution, rounds: int = 3) -> list[tuple[str, bytes]]:
    """Each team's files, round by round: predictions better for later teams."""
    rng = np.random.default_rng(5)
    files = []
    for _ in range(rounds):
        for i, team in enumerate(TEAMS):
            right = rng.random(N) < 0.5 + 0.15 * i
            predictions = np.where(right, solution.targets, 1 - solution.targets).astype(int)
            body = "id,target\n" + "".join(
                f"{ident},{p}\n" for ident, p in zip(solution.ids, predictions, strict=True)
            )
            files.append((team, body.encode()))
    return files


def _play(
    store: Competitions, solution: Solution, board: str, files: list[tuple[str, bytes]]
) -> None:
    """Create ``c`` over ``solution`` and send ``files`` in order."""
    store.create("c", solution, _config(board), random_state=11)
    for team in TEAMS:
        store.add_team("c", team)
    for team, data in files:
        store.submit("c", team, data)


def _solution() -> Solution:
    y = np.random.default_rng(2).integers(0, 2, N)
    return Solution.from_labels(y, public_fraction=0.5, random_state=0)


def _edited(solution: Solution, edit) -> Solution:
    """``solution``'s file with ``edit`` applied to its rows (lists of cells)."""
    lines = solution.to_csv().decode().splitlines()
    rows = [line.split(",") for line in lines[1:]]
    edit(rows)
    text = "\n".join([lines[0], *(",".join(r) for r in rows)]) + "\n"
    return Solution.from_csv(text.encode())


def _flip(solution: Solution) -> Solution:
    """A label corrected in the public rows and one in the private rows."""
    public = int(solution.public_rows[0])
    private = int(solution.private_rows[0])

    def flip(rows):
        for i in (public, private):
            rows[i][1] = "0" if float(rows[i][1]) == 1.0 else "1"

    return _edited(solution, flip)


def _record(store: Competitions, slug: str = "c") -> dict:
    """Every team's releases and scores as the organiser reads them, and the boards."""
    query = (
        select(
            TeamRow.name,
            SubmissionRow.number,
            SubmissionRow.public_score,
            SubmissionRow.improved,
            SubmissionRow.public_raw,
            SubmissionRow.private_score,
        )
        .join(TeamRow, TeamRow.id == SubmissionRow.team_id)
        .join(CompetitionRow, CompetitionRow.id == SubmissionRow.competition_id)
        .where(CompetitionRow.slug == slug)
    )
    with store.engine.connect() as connection:
        rows = connection.execute(query).all()
    return {
        "releases": sorted((r[0], r[1], r[2], bool(r[3]), r[4], r[5]) for r in rows),
        "public": [(r.team, r.score) for r in store.leaderboard(slug, organiser=True)],
        "private": [(r.team, r.score) for r in store.leaderboard(slug, "private", organiser=True)],
        "commitment": store.competition(slug).commitment,
        "history": len(store.history(slug)),
        "solution": store.solution_file(slug),
    }


@pytest.mark.parametrize("board", ["per-team", "per-rank"])
def test_a_correction_scores_every_file_again_as_a_fresh_competition_would(store, board):
    solution = _solution()
    _play(store, solution, board, _files(solution))
    before = _record(store)
    corrected = _flip(solution)
    correction = store.correct_solution("c", corrected, "row 0 and a private row were swapped")
    after = _record(store)
    # A fresh store (the same team ids), the same key, the corrected solution
    # from the start, the same files in the same order.
    fresh = Competitions.open("sqlite://")
    _play(fresh, corrected, board, _files(solution))
    expected = _record(fresh)
    assert after["releases"] == expected["releases"]
    assert after["public"] == expected["public"] and after["private"] == expected["private"]
    assert after["commitment"] == expected["commitment"] == correction.new_commitment
    assert correction.old_commitment == before["commitment"] != after["commitment"]
    assert after["releases"] != before["releases"]
    assert correction.changed == sum(
        a[2] != b[2] for a, b in zip(after["releases"], before["releases"], strict=True)
    )
    assert after["solution"] == corrected.to_csv()
    # The old releases are kept, and verify checks both versions.
    assert store.corrections("c")[0].old_commitment == before["commitment"]
    report = verify(store, "c")
    assert (report.submissions, report.corrections) == (9, 1)
    # The history shows it, the teams see which scores changed.
    change = store.history("c")[-1]
    assert change.setting == "solution" and "swapped" in change.words
    assert before["commitment"] in change.words and after["commitment"] in change.words
    marked = [s for team in TEAMS for s in store.submissions("c", team) if s.corrected]
    assert len(marked) == correction.changed > 0
    fresh.dispose()


def test_submissions_after_a_correction_continue_the_corrected_boards(store):
    solution = _solution()
    _play(store, solution, "per-team", _files(solution))
    corrected = _flip(solution)
    store.correct_solution("c", corrected, "a wrong label")
    more = _files(solution, rounds=4)[9:]
    for team, data in more:
        store.submit("c", team, data)
    fresh = Competitions.open("sqlite://")
    _play(fresh, corrected, "per-team", _files(solution))
    for team, data in more:
        fresh.submit("c", team, data)
    assert _record(store)["releases"] == _record(fresh)["releases"]
    # A second correction back to the first labels: the chain of three versions verifies.
    store.correct_solution("c", solution, "the first labels were right after all")
    assert verify(store, "c").corrections == 2
    fresh.dispose()


def _corrected_and_published(store: Competitions, tmp_path: Path, board: str) -> Path:
    solution = _solution()
    _play(store, solution, board, _files(solution))
    store.correct_solution("c", _flip(solution), "a wrong label")
    store.close("c")
    store.publish("c")
    store.publish_audit("c", "full")
    folder = tmp_path / "bundle"
    folder.mkdir()
    store.audit_bundle("c", FolderSink(folder))
    return folder


@pytest.mark.parametrize("board", ["per-team", "per-rank"])
def test_the_bundle_carries_the_old_version_and_verifies_both(store, tmp_path, board):
    folder = _corrected_and_published(store, tmp_path, board)
    assert (folder / "corrections" / "1" / "solution.csv").is_file()
    record = json.loads((folder / "corrections" / "1" / "correction.json").read_bytes())
    assert record["reason"] == "a wrong label" and record["key"]
    report = verify_bundle(folder)
    assert report.verified, report.problems
    assert any("correction 1" in line and "bit for bit" in line for line in report.proven)
    # The export carries it too.
    export = tmp_path / "export"
    written = store.export("c", FolderSink(export))
    assert {"corrections/1/solution.csv", "corrections/1/releases.csv"} <= set(written)
    rows = list(csv.DictReader(io.StringIO((export / "corrections/1/releases.csv").read_text())))
    assert len(rows) == 9 and all(row["file"] for row in rows)


def test_a_tampered_old_release_or_old_solution_fails_verify_bundle(store, tmp_path):
    folder = _corrected_and_published(store, tmp_path, "per-team")
    releases = folder / "corrections" / "1" / "releases.csv"
    original = releases.read_text()
    rows = list(csv.DictReader(io.StringIO(original)))
    rows[0]["released"] = repr(float(rows[0]["released"]) + 0.01)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    releases.write_text(out.getvalue())
    report = verify_bundle(folder)
    assert not report.verified and any("released score" in p for p in report.problems)
    releases.write_text(original)
    assert verify_bundle(folder).verified
    old = folder / "corrections" / "1" / "solution.csv"
    old.write_bytes(old.read_bytes().replace(b",1.0,", b",0.0,", 1))
    report = verify_bundle(folder)
    assert not report.verified and any("commitment mismatch" in p for p in report.problems)
    old.write_bytes(b"not a solution")
    report = verify_bundle(folder)
    assert not report.verified and any("cannot be checked" in p for p in report.problems)


def test_a_tampered_old_release_or_old_solution_fails_verify(store):
    solution = _solution()
    _play(store, solution, "per-team", _files(solution))
    store.correct_solution("c", _flip(solution), "a wrong label")
    verify(store, "c")
    with store.engine.begin() as connection:
        connection.execute(
            update(CorrectionReleaseRow)
            .where(CorrectionReleaseRow.submission_id == 1)
            .values(public_score=CorrectionReleaseRow.public_score + 0.01)
        )
    with pytest.raises(VerificationError, match="correction 1, submission 1: released score"):
        verify(store, "c")
    with store.engine.begin() as connection:
        connection.execute(
            update(CorrectionReleaseRow)
            .where(CorrectionReleaseRow.submission_id == 1)
            .values(public_score=CorrectionReleaseRow.public_score - 0.01)
        )
    verify(store, "c")
    with store.engine.begin() as connection:
        connection.execute(
            update(SolutionCorrectionRow).values(
                old_file=pack(solution.to_csv().replace(b",1.0,", b",0.0,", 1))
            )
        )
    with pytest.raises(VerificationError):
        verify(store, "c")


def _refusals(solution: Solution) -> list[tuple[Solution | None, str, type, str]]:
    def other_id(rows):
        rows[3][0] = "999999"

    def other_split(rows):
        public, private = int(solution.public_rows[0]), int(solution.private_rows[0])
        rows[public][2], rows[private][2] = rows[private][2], rows[public][2]

    def other_order(rows):
        rows[0], rows[1] = rows[1], rows[0]

    return [
        (_edited(solution, other_id), "a reason", ValueError, "other ids"),
        (_edited(solution, other_split), "a reason", ValueError, "splits its rows otherwise"),
        (_edited(solution, other_order), "a reason", ValueError, "splits its rows otherwise"),
        (_flip(solution), "   ", ValueError, "needs a reason"),
        (solution, "a reason", ValueError, "nothing to correct"),
        (
            Solution.from_labels(np.r_[solution.targets, 0], public_fraction=0.5, random_state=0),
            "a reason",
            ValueError,
            "other ids",
        ),
    ]


def test_refusals_change_nothing(store):
    solution = _solution()
    _play(store, solution, "per-team", _files(solution))
    before = _record(store)
    for corrected, reason, error, words in _refusals(solution):
        with pytest.raises(error, match=words):
            store.correct_solution("c", corrected, reason)
        assert _record(store) == before
    assert store.corrections("c") == []


def test_a_correction_after_the_close_is_taken_and_after_publication_refused(store):
    solution = _solution()
    _play(store, solution, "per-team", _files(solution))
    store.close("c")
    store.correct_solution("c", _flip(solution), "seen on the private board before publishing")
    store.publish("c")
    before = _record(store)
    with pytest.raises(CompetitionClosed, match="published"):
        store.correct_solution("c", solution, "too late")
    assert _record(store) == before
    assert len(store.corrections("c")) == 1


def test_labels_the_score_cannot_use_are_refused(store):
    solution = _solution()
    store.create(
        "c", solution, CompetitionConfig(score="log_loss", mechanism="parameter-free-ladder")
    )
    before = _record(store)

    def three_classes(rows):
        rows[0][1] = "2"

    with pytest.raises(ValueError, match="cannot be scored by 'log_loss'"):
        store.correct_solution("c", _edited(solution, three_classes), "a third class")
    assert _record(store) == before and store.corrections("c") == []


def test_another_process_that_kept_the_old_solution_scores_on_the_corrected_one(
    store, database_url, clock
):
    """A second engine over the same store (another worker) kept the old
    solution, target and mechanisms in process: its next submission finds
    the new commitment under the lock and is scored on the corrected
    solution, continuing the corrected boards."""
    solution = _solution()
    files = _files(solution, rounds=4)
    _play(store, solution, "per-team", files[:9])
    other = Competitions.open(database_url, clock=clock, store_clock=clock)
    other.submit("c", *files[9])  # kept in its process
    corrected = _flip(solution)
    store.correct_solution("c", corrected, "a wrong label")
    for team, data in files[10:]:
        other.submit("c", team, data)
    fresh = Competitions.open("sqlite://")
    _play(fresh, corrected, "per-team", files)
    assert _record(store)["releases"] == _record(fresh)["releases"]
    assert _record(other)["public"] == _record(fresh)["public"]
    verify(store, "c")
    other.dispose()
    fresh.dispose()


def test_verify_and_the_export_name_the_correction_before_publication(
    store, database_url, tmp_path
):
    solution = _solution()
    _play(store, solution, "per-team", _files(solution))
    store.correct_solution("c", _flip(solution), "a wrong label")
    done = CliRunner().invoke(app, ["verify", "c", "--db", database_url, "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["corrections"] == 1
    export = tmp_path / "export"
    store.export("c", FolderSink(export))
    record = json.loads((export / "corrections/1/correction.json").read_bytes())
    assert record["key"] is None and record["reason"] == "a wrong label"
    rows = list(csv.DictReader(io.StringIO((export / "corrections/1/releases.csv").read_text())))
    assert rows and all(row["private_score"] == "" for row in rows)
    assert (export / "corrections/1/solution.csv").read_bytes() == solution.to_csv()


@pytest.mark.slow
def test_a_correction_among_concurrent_submissions_loses_none_and_mixes_no_solutions(
    store, database_url, clock
):
    """Teams submit from threads of their own engines (workers) while the
    organiser corrects the solution: no deadlock, no file lost, and every
    release is the corrected solution's, as a fresh competition gives it."""
    solution = _solution()
    files = _files(solution, rounds=5)
    _play(store, solution, "per-team", files[:3])
    workers = [Competitions.open(database_url, clock=clock, store_clock=clock) for _ in TEAMS]
    errors: list[BaseException] = []

    def send(worker: Competitions, team: str) -> None:
        try:
            for name, data in files[3:]:
                if name == team:
                    worker.submit("c", team, data)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=send, args=(w, t)) for w, t in zip(workers, TEAMS, strict=True)
    ]
    for thread in threads:
        thread.start()
    corrected = _flip(solution)
    store.correct_solution("c", corrected, "a wrong label")
    for thread in threads:
        thread.join()
    assert errors == []
    fresh = Competitions.open("sqlite://")
    _play(fresh, corrected, "per-team", files)
    assert _record(store)["releases"] == _record(fresh)["releases"]
    verify(store, "c")
    for worker in (*workers, fresh):
        worker.dispose()
