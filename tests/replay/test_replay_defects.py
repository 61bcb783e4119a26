"""The catalogue of file defects: each tolerated one reads as the clean file, each
refused one is skipped with its reason and changes nothing else; and the
history's own refusals (names, times, index, teams)."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from test_replay_support import at, file_name, read_csv, submission_bytes, write_competition

from ladderboard.files import Solution, SubmissionError
from ladderboard.replay import replay_competition, write_outputs
from ladderboard.replay.history import discover
from ladderboard.replay.loading import load_submission

N = 30
RNG = np.random.default_rng(4)
LABELS = (RNG.random(N) < 0.5).astype(float)
SOLUTION = Solution.from_labels(LABELS, public_fraction=0.4, random_state=1)
PREDICTIONS = np.round(RNG.uniform(0.05, 0.95, N), 6)
CLEAN = submission_bytes(SOLUTION, PREDICTIONS)


def with_value(row: int, text: str) -> bytes:
    lines = CLEAN.decode().splitlines(keepends=True)
    ident = lines[row + 1].split(",")[0]
    lines[row + 1] = f"{ident},{text}\n"
    return "".join(lines).encode()


def pandas_with_index() -> bytes:
    frame = pd.DataFrame({"id": SOLUTION.ids, "target": PREDICTIONS})
    return frame.to_csv().encode()  # a leading unnamed index column


def semicolons(data: bytes) -> bytes:
    return data.replace(b",", b";").replace(b".", b",")


TOLERATED = {
    "gzip": (gzip.compress(CLEAN), ("gzip",)),
    "bom": (b"\xef\xbb\xbf" + CLEAN, ("bom",)),
    "crlf": (CLEAN.replace(b"\n", b"\r\n"), ("crlf",)),
    "header_whitespace": (
        CLEAN.replace(b"id,target", b" id ,  target ", 1),
        ("header_whitespace",),
    ),
    "header_case": (CLEAN.replace(b"id,target", b"ID,Target", 1), ("header_case",)),
    "index_column": (pandas_with_index(), ("index_column",)),
    "semicolon": (semicolons(CLEAN), ("semicolon",)),
    "shuffled rows": (
        submission_bytes(SOLUTION, PREDICTIONS, RNG.permutation(N).tolist()),
        (),
    ),
    "all at once": (
        gzip.compress(b"\xef\xbb\xbf" + semicolons(pandas_with_index()).replace(b"\n", b"\r\n")),
        ("gzip", "bom", "crlf", "semicolon", "index_column"),
    ),
}


@pytest.mark.parametrize("defect", sorted(TOLERATED))
def test_a_tolerated_defect_reads_as_the_clean_file(defect):
    data, repairs = TOLERATED[defect]
    loaded = load_submission(data, SOLUTION, probabilities=True)
    assert np.array_equal(loaded.predictions, PREDICTIONS)
    assert loaded.repairs == repairs


@pytest.mark.parametrize(("written", "clipped"), [("1.0000000001", 1.0), ("-1e-9", 0.0)])
def test_probabilities_just_outside_the_unit_interval_are_clipped(written, clipped):
    loaded = load_submission(with_value(3, written), SOLUTION, probabilities=True)
    expected = load_submission(with_value(3, repr(clipped)), SOLUTION, probabilities=True)
    assert np.array_equal(loaded.predictions, expected.predictions)
    assert loaded.repairs == ("clipped_probabilities",)
    unclipped = load_submission(with_value(3, written), SOLUTION, probabilities=False)
    assert unclipped.repairs == ()  # only probabilities are clipped


def drop_row(data: bytes, row: int) -> bytes:
    lines = data.decode().splitlines(keepends=True)
    del lines[row + 1]
    return "".join(lines).encode()


REFUSED = {
    "missing_ids": drop_row(CLEAN, 5),
    "duplicate_ids": CLEAN + CLEAN.decode().splitlines(keepends=True)[4].encode(),
    "extra_ids": CLEAN + b"not-an-id,0.5\n",
    "not_finite": with_value(2, "nan"),
    "not_finite ": with_value(7, "inf"),
    "not_a_number": with_value(2, "abc"),
    "probability_out_of_range": with_value(2, "1.5"),
    "empty": b"",
    "header_only": b"id,target\n",
    "bad_gzip": b"\x1f\x8b" + b"this is not gzip" * 4,
    "bad_gzip ": gzip.compress(CLEAN)[:-30],
    "not_utf8": CLEAN.replace(b"id,target", b"id,t\xffrget", 1),
    "missing_column": CLEAN.replace(b"id,target", b"id,prediction", 1),
    "bad_csv": CLEAN + b"1,2,3\n",
}


@pytest.mark.parametrize("code", sorted(REFUSED))
def test_a_refused_defect_raises_its_code(code):
    with pytest.raises(SubmissionError) as info:
        load_submission(REFUSED[code], SOLUTION, probabilities=True)
    assert info.value.code == code.strip()


@pytest.fixture(scope="module")
def messy_and_clean(tmp_path_factory):
    """The same history twice: once with defective files among the clean ones, once
    clean (tolerated defects written cleanly, refused files left out)."""
    rng = np.random.default_rng(8)
    honest = []
    for t in range(4):
        for s in range(3):
            p = np.clip(np.where(LABELS == 1, 0.7, 0.3) + rng.normal(0, 0.1 + 0.05 * t, N), 0, 1)
            honest.append((f"team_{t}", at(1 + s, 8 + t), np.round(p, 6)))
    tolerated = []
    for k, (name, (data, _)) in enumerate(sorted(TOLERATED.items())):
        tolerated.append((f"team_{k % 4}", at(10, k), data, name))
    refused = [
        (f"team_{k % 4}", at(11, k), data, code.strip())
        for k, (code, data) in enumerate(sorted(REFUSED.items()))
    ]
    messy = honest + [(t, w, d) for t, w, d, _ in tolerated] + [(t, w, d) for t, w, d, _ in refused]
    clean = honest + [(t, w, PREDICTIONS) for t, w, _, _ in tolerated]
    root = tmp_path_factory.mktemp("defects")
    out = {}
    for label, history in (("messy", messy), ("clean", clean)):
        folder = write_competition(root / label, SOLUTION, history)
        result = replay_competition(
            folder / "solution.csv",
            folder / "submissions",
            mechanisms=["full-disclosure", "parameter-free-ladder"],
        )
        write_outputs(result, folder / "out", command="", figures=False)
        out[label] = folder / "out"
    return out, tolerated, refused


def without_file(rows):
    return [{k: v for k, v in row.items() if k != "file"} for row in rows]


def test_refused_files_are_listed_with_their_reason(messy_and_clean):
    out, _, refused = messy_and_clean
    skipped = read_csv(out["messy"] / "skipped.csv")
    got = sorted((r["file"], r["team"], r["code"]) for r in skipped)
    want = sorted(
        (file_name(t, w) + (".gz" if d[:2] == b"\x1f\x8b" else ""), t, code)
        for t, w, d, code in refused
    )
    assert got == want
    assert all(r["message"] for r in skipped)
    assert read_csv(out["clean"] / "skipped.csv") == []


def test_defects_change_nothing_else(messy_and_clean):
    out, _, _ = messy_and_clean
    for name in ("releases.csv", "boards.csv", "kendall.csv", "ttests.csv", "half_splits.csv"):
        messy = without_file(read_csv(out["messy"] / name))
        clean = without_file(read_csv(out["clean"] / name))
        assert messy == clean, name


def test_repairs_are_reported_per_file(messy_and_clean):
    out, tolerated, _ = messy_and_clean
    repaired = read_csv(out["messy"] / "repaired.csv")
    for team, when, data, name in tolerated:
        file = file_name(team, when) + (".gz" if data[:2] == b"\x1f\x8b" else "")
        listed = tuple(r["repair"] for r in repaired if r["file"] == file)
        assert listed == TOLERATED[name][1]
    report = (out["messy"] / "report.md").read_text()
    assert "`missing_ids` 1" in report and "`not_finite` 2" in report


# ------------------------------------------------------------------ history
def test_the_history_refuses_what_it_cannot_place(tmp_path):
    history = [("alpha", at(1), PREDICTIONS), ("beta", at(2), PREDICTIONS)]
    root = write_competition(tmp_path, SOLUTION, history, teams=["alpha", "beta"])
    folder = root / "submissions"
    for name in (
        file_name("ghost", at(3)),
        file_name("ghost", at(8)),
        "alpha_final.csv",
        file_name("alpha", at(4)),
        file_name("beta", at(7)),
    ):
        (folder / name).write_bytes(CLEAN)
    (folder / "notes.txt").write_text("not a submission")
    index = (root / "submissions.csv").read_text()
    index += f"{file_name('alpha', at(5))},alpha,2026-03-05T12:00:00Z\n"  # no such file
    index += f"{file_name('alpha', at(1))},alpha,2026-03-01T12:00:00Z\n"  # listed twice
    index += f"{file_name('ghost', at(3))},ghost,yesterday\n"
    index += f"{file_name('ghost', at(8))},ghost,2026-03-08T12:00:00Z\n"
    index += "alpha_final.csv,beta,2026-03-06T12:00:00Z\n"  # any name, given a team
    index += f"{file_name('alpha', at(4))},beta,2026-03-04T12:00:00Z\n"
    (root / "submissions.csv").write_text(index)

    entries, skipped = discover(folder, root / "submissions.csv")
    assert [(e.team, e.submitted_at.day) for e in entries] == [
        ("alpha", 1),
        ("beta", 2),
        ("beta", 6),
    ]
    assert sorted((s.file, s.code) for s in skipped) == sorted(
        [
            (file_name("alpha", at(5)), "missing_file"),
            (file_name("alpha", at(1)), "duplicate_entry"),
            (file_name("ghost", at(3)), "bad_time"),
            (file_name("ghost", at(8)), "unknown_team"),
            (file_name("alpha", at(4)), "team_mismatch"),
            (file_name("beta", at(7)), "not_in_index"),
        ]
    )

    entries, skipped = discover(folder)  # from the file names
    assert [(e.team, e.submitted_at.day) for e in entries] == [
        ("alpha", 1),
        ("beta", 2),
        ("alpha", 4),
        ("beta", 7),
    ]
    assert sorted((s.file, s.code) for s in skipped) == sorted(
        [
            ("alpha_final.csv", "bad_name"),
            (file_name("ghost", at(3)), "unknown_team"),
            (file_name("ghost", at(8)), "unknown_team"),
        ]
    )


def test_the_size_limit_grows_with_the_solution(tmp_path, monkeypatch):
    """A replayed file may hold the default limit or 32 bytes a solution row
    and target column, whichever is more (a history of ten million rows has files of 99 MB):
    here the default limit is made smaller than one file, and the rows'
    allowance decides."""
    from ladderboard.replay import replay as replay_module

    history = [("alpha", at(1), PREDICTIONS), ("beta", at(2), gzip.compress(CLEAN))]
    root = write_competition(tmp_path, SOLUTION, history, teams=["alpha", "beta"])
    monkeypatch.setattr(replay_module, "MAX_BYTES", len(CLEAN) // 2)

    def replayed() -> list[tuple[str, str]]:
        result = replay_competition(root / "solution.csv", root / "submissions")
        return [(s.file, s.code) for s in result.history.skipped]

    assert len(CLEAN) < replay_module.ROW_BYTES * N * 2
    assert replayed() == []
    monkeypatch.setattr(replay_module, "ROW_BYTES", 1)  # both files over the limit now
    with pytest.raises(ValueError, match="could be read"):
        replayed()
