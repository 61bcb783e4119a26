"""The simulated competition directory: layout, parsable files, defects, honest behaviour.

One small Caravan run (10 teams, 60 submissions, 2 adversaries, a high defect
rate so that every defect kind appears) feeds most assertions.
"""

from __future__ import annotations

import csv
import gzip
import math
import re
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from ladderboard.files import Solution, SubmissionError, parse_submission
from ladderboard.losses import get_loss
from ladderboard.simulation import ADVERSARIES, DEFECTS, simulate_competition

pytestmark = pytest.mark.slow  # the shared simulation takes about a second

NAME = re.compile(r"^(?P<team>[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*)__(?P<time>\d{8}T\d{6}Z)\.csv(\.gz)?$")
REFUSED = {
    "header_case": "missing_column",
    "index_column": "extra_column",
    "missing_rows": "missing_ids",
    "duplicate_id": "duplicate_ids",
    "nan_value": "not_finite",
    "out_of_range": "probability_out_of_range",
    "semicolon": "missing_column",
    "empty": "empty",
}
ACCEPTED = {"bom", "crlf", "gzip"}


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("sim") / "competition"
    summary = simulate_competition(
        out=out, teams=10, submissions=60, adversaries=2, defect_rate=0.2, seed=3
    )
    solution = Solution.from_csv(out / "solution.csv")
    return summary, out, solution


@pytest.fixture(scope="module")
def scores(run):
    """Each readable file's exact public and private log loss, computed here from the files."""
    _, out, solution = run
    loss = get_loss("log_loss")
    result = {}
    for row in read_csv(out / "submissions.csv"):
        data = (out / "submissions" / row["file"]).read_bytes()
        try:
            values = parse_submission(data, solution, probabilities=True)
        except SubmissionError:
            result[row["file"]] = None
            continue
        losses = loss(solution.targets, values)
        result[row["file"]] = (
            float(np.mean(losses[solution.public_mask])),
            float(np.mean(losses[solution.private_mask])),
        )
    return result


def test_layout_index_names_and_times(run):
    summary, out, _ = run
    assert {p.name for p in out.iterdir()} == {
        "solution.csv",
        "sample_submission.csv",
        "submissions.csv",
        "submissions",
        "teams.csv",
        "defects.csv",
        "README.md",
    }
    index = read_csv(out / "submissions.csv")
    assert list(index[0]) == ["file", "team", "submitted_at"]
    assert len(index) == 60 == summary.n_submissions
    files = [row["file"] for row in index]
    assert sorted(files) == sorted(p.name for p in (out / "submissions").iterdir())
    assert [row["submitted_at"] for row in index] == sorted(row["submitted_at"] for row in index)
    last: dict[str, str] = {}
    for row in index:
        match = NAME.match(row["file"])
        assert match, row["file"]
        assert match["team"] == row["team"]
        stamp = row["submitted_at"]
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp)
        assert match["time"] == stamp.replace("-", "").replace(":", "")
        assert stamp > last.get(row["team"], "")  # strictly increasing per team
        last[row["team"]] = stamp
    teams = read_csv(out / "teams.csv")
    assert list(teams[0]) == ["team", "kind", "strategy"]
    assert {t["team"] for t in teams} == {row["team"] for row in index}
    assert len(teams) == 10
    kinds = [t["kind"] for t in teams]
    assert kinds.count("adversary") == 2 and kinds.count("honest") == 8
    assert {t["strategy"] for t in teams if t["kind"] == "adversary"} == set(ADVERSARIES[:2])
    readme = (out / "README.md").read_text()
    assert "ladderboard simulate-competition --dataset caravan --teams 10" in readme
    assert "--submission-count " in readme and "--submissions " not in readme


def test_solution_and_sample_submission(run):
    summary, out, solution = run
    assert (solution.n, solution.n_public) == (summary.n_test, summary.n_public)
    assert solution.n == round(0.5 * 5822) and solution.n_public == round(0.3 * solution.n)
    assert solution.target_columns == ("Purchase",)
    assert set(np.unique(solution.targets)) == {0.0, 1.0}
    assert (out / "sample_submission.csv").read_bytes() == solution.sample_submission_csv()


def test_clean_files_parse_and_releases_match_them(run, scores):
    summary, out, solution = run
    defective = {row["file"] for row in read_csv(out / "defects.csv")}
    for record in summary.records:
        if record.file in defective:
            continue
        assert record.defect is None
        assert scores[record.file] is not None, record.file
        public, private = scores[record.file]
        assert record.release == pytest.approx(round(public / 1e-5) * 1e-5, abs=1e-12)
        assert record.private_loss == pytest.approx(private, rel=1e-12)
        data = (out / "submissions" / record.file).read_bytes()
        values = parse_submission(data, solution, probabilities=True)
        assert ((values > 0) & (values < 1)).all()


def test_defects_are_recorded_and_really_present(run):
    summary, out, solution = run
    defects = read_csv(out / "defects.csv")
    assert list(defects[0]) == ["file", "defect"]
    assert {d["defect"] for d in defects} == set(DEFECTS)  # 12 defects: every kind once
    kind_of = {t["team"]: t["kind"] for t in read_csv(out / "teams.csv")}
    index = {row["file"]: row for row in read_csv(out / "submissions.csv")}
    for entry in defects:
        file, kind = entry["file"], entry["defect"]
        assert kind_of[index[file]["team"]] == "honest"
        data = (out / "submissions" / file).read_bytes()
        assert file.endswith(".csv.gz") == (kind == "gzip")
        if kind in ACCEPTED:
            parse_submission(data, solution, probabilities=True)
        else:
            with pytest.raises(SubmissionError) as caught:
                parse_submission(data, solution, probabilities=True)
            assert caught.value.code == REFUSED[kind]
        text = gzip.decompress(data) if kind == "gzip" else data
        header = text.split(b"\n", 1)[0]
        checks = {
            "bom": data.startswith(b"\xef\xbb\xbf"),
            "crlf": text.count(b"\r\n") == solution.n + 1,
            "header_case": header == b"ID,PURCHASE",
            "index_column": header == b",id,Purchase",
            "missing_rows": 0 < solution.n + 1 - len(text.splitlines()) <= 5,
            "duplicate_id": len(text.splitlines()) == solution.n + 2,
            "nan_value": b",nan\n" in text,
            "out_of_range": b",1.0000001\n" in text,
            "semicolon": header == b"id;Purchase",
            "empty": data == b"",
            "gzip": data[:2] == b"\x1f\x8b" and text.startswith(b"id,Purchase\n"),
        }
        assert checks[kind], (file, kind)
    clean = [r for r in summary.records if r.defect is None]
    assert len(clean) == 60 - len(defects)


def test_honest_teams_keep_their_best_public_score(run, scores):
    """Each honest submission is built on the team's best earlier submission by the public
    score it was shown (recomputed here from the files), so the kept score never worsens."""
    summary, out, _ = run
    kind_of = {t["team"]: t["kind"] for t in read_csv(out / "teams.csv")}
    by_team = defaultdict(list)
    for record in summary.records:
        by_team[record.team].append(record)
    n_checked = 0
    for team, records in by_team.items():
        if kind_of[team] != "honest":
            continue
        assert [r.number for r in records] == list(range(len(records)))
        shown = []
        kept = []
        for record in records:
            best = min(shown, default=None)
            assert record.parent == (None if best is None else best[1])
            if best is not None:
                kept.append(best[0])
            if scores[record.file] is not None:
                shown.append((round(scores[record.file][0] / 1e-5) * 1e-5, record.number))
            n_checked += 1
        assert kept == sorted(kept, reverse=True)
    assert n_checked == sum(kind == "honest" for kind in (r.kind for r in summary.records))


def test_honest_teams_beat_the_base_rate_privately(run, scores):
    """The private loss of each honest team's best public submission beats the best
    constant prediction (the private rows' own base rate) for most teams and at the median.
    A team with one or two submissions of a poor first model can be far worse than the
    constant, so the mean is not a stable summary. Over seeds 0-4 of this run the median
    was 0.008-0.020 below the constant's loss (0.218-0.235) and 71-100 % of the teams beat
    it; seed 3, used here, gives 0.011 and 75 %."""
    summary, _, solution = run
    y = solution.targets[solution.private_mask]
    rate = y.mean()
    constant = float(-np.mean(y * math.log(rate) + (1 - y) * math.log(1 - rate)))
    best: dict[str, tuple[float, float]] = {}
    for record in summary.records:
        if record.kind == "honest" and scores[record.file] is not None:
            public, private = scores[record.file]
            if record.team not in best or public < best[record.team][0]:
                best[record.team] = (public, private)
    private = np.array([p for _, p in best.values()])
    assert np.median(private) < constant - 0.005
    assert np.mean(private < constant) >= 0.6
