"""``ladderboard replay`` on a hand-built history whose answers are worked out below.

Twelve rows, all labelled 1: rows 0-3 public, 4-11 private. With the absolute
loss a prediction of 0 or 1 costs 1 or 0 per row, so each submission is given
by its loss vectors:

========  ===========  ==============================  =====  =======
file      public loss  private loss                    R pub  R priv
========  ===========  ==============================  =====  =======
A, day 1  1 1 1 0      1 1 0 0 0 0 0 0                 0.75   0.25
B, day 1  1 1 0 0      1 1 1 1 1 1 0 0                 0.50   0.75
A, day 2  1 1 0 0      1 1 1 1 0 0 0 0                 0.50   0.50
C, day 3  1 0 0 0      1 1 1 0 0 0 0 0                 0.25   0.375
========  ===========  ==============================  =====  =======

Kaggle (full disclosure) releases every risk: 0.75, 0.5, 0.5, 0.25. The Ladder
with ``eta = 0.25`` accepts A's second file only if ``0.5 < 0.75 - 0.25``,
which is false (strict), so it releases 0.75, 0.5, 0.75, 0.25. The
parameter-free Ladder tests A's second file with ``d = (0, 0, -1, 0)``,
``std(d) = 0.5``, threshold ``0.75 - 0.5/√4 = 0.5``: refused as well.

Boards. Kaggle public: C 0.25, then B and A tied at 0.5, B first (its file is
earlier); A's selection is its day-2 file. Ladder public: C, B, A (0.75), A's
selection its day-1 file. Private: Kaggle C 0.375, A 0.5, B 0.75; Ladder A
0.25, C 0.375, B 0.75: the top two swap (Table 1: ``Kaggle 1 2 / ladder 2 1``).
Kendall's tau-b, Kaggle: pairs (C,B), (C,A) concordant, (B,A) tied in public:
2/√(2·3) = 0.8165; Ladder: (C,B) concordant, (C,A), (B,A) discordant: -1/3.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_replay_support import at, read_csv, run_cli, write_competition

from ladderboard.files import Solution
from ladderboard.losses import LOSSES
from ladderboard.replay import replay_competition, write_outputs

PUBLIC = {"A1": "1110", "B1": "1100", "A2": "1100", "C1": "1000"}
PRIVATE = {"A1": "11000000", "B1": "11111100", "A2": "11110000", "C1": "11100000"}
WHEN = {"A1": at(1, 10), "B1": at(1, 11), "A2": at(2), "C1": at(3)}
ORDER = ["A1", "B1", "A2", "C1"]


def hand_solution() -> Solution:
    usage = np.array(["Public"] * 4 + ["Private"] * 8)
    return Solution(ids=np.array([str(i) for i in range(12)]), targets=np.ones(12), usage=usage)


def predictions(key: str) -> np.ndarray:
    losses = np.array([int(c) for c in PUBLIC[key] + PRIVATE[key]], dtype=float)
    return 1.0 - losses


def history() -> list:
    return [(key[0], WHEN[key], predictions(key)) for key in ORDER]


MECHANISMS = ["--mechanism", "full-disclosure", "--mechanism", "ladder"]
MECHANISMS += ["--mechanism", "parameter-free-ladder", "--param", "eta=0.25"]


def replay_args(root, out, *extra):
    return [
        "--solution",
        str(root / "solution.csv"),
        "--submissions-dir",
        str(root / "submissions"),
        *MECHANISMS,
        "--loss",
        "absolute",
        "--out",
        str(out),
        *extra,
    ]


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    root = write_competition(tmp_path_factory.mktemp("hand"), hand_solution(), history())
    out = root / "out"
    result = run_cli(replay_args(root, out))
    assert result.exit_code == 0, result.output
    return root, out


def releases(out, mechanism):
    rows = [r for r in read_csv(out / "releases.csv") if r["mechanism"] == mechanism]
    return [float(r["released"]) for r in rows], [r["improved"] == "True" for r in rows]


def test_submissions_are_replayed_in_time_order(replayed):
    _, out = replayed
    rows = [r for r in read_csv(out / "releases.csv") if r["mechanism"] == "full-disclosure"]
    assert [(r["team"], r["submitted_at"][:10]) for r in rows] == [
        ("A", "2026-03-01"),
        ("B", "2026-03-01"),
        ("A", "2026-03-02"),
        ("C", "2026-03-03"),
    ]
    assert [float(r["private"]) for r in rows] == [0.25, 0.75, 0.5, 0.375]


def test_releases_are_the_hand_computed_ones(replayed):
    _, out = replayed
    assert releases(out, "full-disclosure")[0] == [0.75, 0.5, 0.5, 0.25]
    assert releases(out, "ladder") == ([0.75, 0.5, 0.75, 0.25], [True, True, False, True])
    assert releases(out, "parameter-free-ladder") == (
        [0.75, 0.5, 0.75, 0.25],
        [True, True, False, True],
    )


def board(out, mechanism, kind):
    rows = [
        r
        for r in read_csv(out / "boards.csv")
        if r["mechanism"] == mechanism and r["board"] == kind
    ]
    return [(r["team"], float(r["score"]), r["submitted_at"][:10]) for r in rows]


def test_boards_rank_teams_by_their_selection(replayed):
    _, out = replayed
    assert board(out, "full-disclosure", "public") == [
        ("C", 0.25, "2026-03-03"),
        ("B", 0.5, "2026-03-01"),
        ("A", 0.5, "2026-03-02"),
    ]
    assert board(out, "full-disclosure", "private") == [
        ("C", 0.375, "2026-03-03"),
        ("A", 0.5, "2026-03-02"),
        ("B", 0.75, "2026-03-01"),
    ]
    assert board(out, "ladder", "public") == [
        ("C", 0.25, "2026-03-03"),
        ("B", 0.5, "2026-03-01"),
        ("A", 0.75, "2026-03-01"),
    ]
    assert board(out, "ladder", "private") == [
        ("A", 0.25, "2026-03-01"),
        ("C", 0.375, "2026-03-03"),
        ("B", 0.75, "2026-03-01"),
    ]


def test_rank_perturbations_against_kaggle(replayed):
    _, out = replayed
    rows = read_csv(out / "rank_perturbation.csv")
    private = [
        (r["rank"], r["team"], r["reference_rank"], r["moved"])
        for r in rows
        if r["board"] == "private" and r["mechanism"] == "ladder"
    ]
    assert private == [("1", "A", "2", "True"), ("2", "C", "1", "True"), ("3", "B", "3", "False")]
    public_moved = [r for r in rows if r["board"] == "public" and r["moved"] == "True"]
    assert public_moved == []
    report = (out / "report.md").read_text()
    assert "Kaggle 1 2 / ladder 2 1" in report


def test_kendall_tau_is_the_hand_computed_one(replayed):
    _, out = replayed
    tau = {r["mechanism"]: float(r["tau"]) for r in read_csv(out / "kendall.csv")}
    assert tau["full-disclosure"] == pytest.approx(2 / math.sqrt(6))
    assert tau["ladder"] == pytest.approx(-1 / 3)


def test_every_output_is_written(replayed):
    _, out = replayed
    for stem in ("rank_perturbation", "public_private", "half_splits", "ttests"):
        assert (out / f"{stem}.png").read_bytes()[:4] == b"\x89PNG"
        assert b"<svg" in (out / f"{stem}.svg").read_bytes()[:500]
    report = (out / "report.md").read_text()
    assert "--mechanism ladder" in report and "--param eta=0.25" in report
    assert read_csv(out / "skipped.csv") == []


def test_file_names_give_the_same_history_as_the_index(replayed, tmp_path):
    _, out = replayed
    bare = write_competition(tmp_path / "bare", hand_solution(), history(), index=False)
    assert not (bare / "submissions.csv").exists()
    result = replay_competition(
        bare / "solution.csv",
        bare / "submissions",
        mechanisms=["full-disclosure", "ladder", "parameter-free-ladder"],
        params=["eta=0.25"],
        loss="absolute",
    )
    assert result.index is None
    write_outputs(result, tmp_path / "out", command="", figures=False)
    for name in ("releases.csv", "boards.csv", "kendall.csv", "ttests.csv"):
        assert read_csv(tmp_path / "out" / name) == read_csv(out / name)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--mechanism", "kaggle"], "unknown 'kaggle'"),
        (["--param", "b=10"], "param 'b' is taken by none"),
        (["--param", "precision=-1"], "precision"),
        (["--param", "eta"], "KEY=VALUE"),
        (["--param", "n=5"], "supplied by the replay"),
        (["--loss", "hinge"], "Error: --loss: unknown loss 'hinge'; registered losses: zero_one,"),
        (["--loss", "accuracy"], "unknown loss 'accuracy'"),
        (["--mechanism", "bayes-boot-ladder", "--metric", "zero_one"], "registered metrics: mse,"),
        (["--param", "a=1", "--param", "a=2"], "Error: --param: the parameter 'a' is given twice"),
        (["--submissions", "x"], "No such option"),
        (["--seed", "-1"], "seed"),
        (["--threads", "0"], "--threads"),
        (["--clip", "0.01"], "takes no clip"),  # the loss here is absolute
    ],
)
def test_bad_options_fail_before_any_output(replayed, tmp_path, extra, message):
    root, _ = replayed
    out = tmp_path / "never"
    result = run_cli(replay_args(root, out, *extra))
    assert result.exit_code == 2
    assert message in result.output
    assert not out.exists()


def test_a_score_name_error_lists_every_registered_name_in_one_line(replayed, tmp_path):
    root, _ = replayed
    result = run_cli(replay_args(root, tmp_path / "never", "--loss", "log-loss"))
    (line,) = [line for line in result.output.splitlines() if "unknown loss" in line]
    assert all(name in line for name in LOSSES)


def test_a_missing_solution_fails_before_any_output(replayed, tmp_path):
    root, _ = replayed
    args = replay_args(root, tmp_path / "never")
    args[1] = str(tmp_path / "nothing.csv")
    result = run_cli(args)
    assert result.exit_code != 0 and "solution" in result.output
    assert not (tmp_path / "never").exists()
