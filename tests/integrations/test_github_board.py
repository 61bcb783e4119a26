"""The GitHub template (integrations/github): its script run on an example
repository in a temporary folder, as the workflow runs it after a merge:
three teams and thirteen files, one refused; the board and the releases
are the judge's, nothing else is written, a second run gives the same
bytes, and a new file leaves every earlier release as it was. The workflow
never runs on a pull request, where a fork could reach the secrets."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from engine_helpers import csv_for, make_solution, noisy
from ladderboard.engine.judge import judge
from ladderboard.recommended import RECOMMENDED
from ladderboard.rules.config import CompetitionConfig

TEMPLATE = Path(__file__).resolve().parents[2] / "integrations" / "github"
KEY = "89abcdef0123456789abcdef01234567"


def _run(repo: Path, gold: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(TEMPLATE / "score.py"), "--repo", str(repo), "--solution",
         str(gold), "--score", "zero_one"],
        env=os.environ | {"LADDERBOARD_JUDGE_KEY": KEY},
        capture_output=True,
        text=True,
        check=True,
    )  # fmt: skip


def _repository(tmp_path: Path):
    solution = make_solution(n=400, seed=6)
    repo = tmp_path / "course"
    gold = tmp_path / "secret" / "gold.csv"  # outside the repository, as the workflow keeps it
    gold.parent.mkdir()
    gold.write_bytes(solution.to_csv())
    flips = {"ants": (0.4, 0.3, 0.35, 0.2), "bees": (0.45, 0.25, 0.3, 0.15), "cats": (0.3,) * 4}
    for t, (team, team_flips) in enumerate(flips.items()):
        folder = repo / "submissions" / team
        folder.mkdir(parents=True)
        for i, flip in enumerate(team_flips, 1):
            (folder / f"{i:03}.csv").write_bytes(
                csv_for(solution, noisy(solution, flip, 10 * t + i))
            )
    (repo / "submissions" / "cats" / "005.csv").write_text("id,target\n1,0\n")  # refused
    return solution, repo, gold


@pytest.mark.slow
def test_the_github_board_is_the_judges_and_writes_releases_only(tmp_path):
    solution, repo, gold = _repository(tmp_path)
    before = {p for p in repo.rglob("*")}
    out = _run(repo, gold)
    assert "judged 13 files of 3 teams; 1 refused" in out.stdout
    assert {p for p in repo.rglob("*")} - before == {repo / "leaderboard.md", repo / "releases.csv"}
    rows = list(csv.DictReader((repo / "releases.csv").open()))
    assert list(rows[0]) == ["team", "file", "release", "refused"]
    assert len(rows) == 13
    refused = [r for r in rows if r["refused"]]
    assert [r["file"] for r in refused] == ["submissions/cats/005.csv"]
    assert refused[0]["refused"].startswith("missing_ids: ")
    # The releases are the judge's, one team at a time from its first file.
    config = CompetitionConfig(score="zero_one", mechanism=RECOMMENDED.mechanism).explicit(
        solution.n_public
    )
    for team in ("ants", "bees", "cats"):
        state = lead = None
        mine = [r for r in rows if r["team"] == team and not r["refused"]]
        for row in mine:
            data = (repo / row["file"]).read_bytes()
            decided = judge(solution, config, KEY, team, data, lead=lead, state=state)
            assert float(row["release"]) == decided.release, row
            state, lead = decided.state, data if decided.met_cutoff else lead
    board = (repo / "leaderboard.md").read_text()
    assert board.count("\n") == 2 + 3 and "| 1 |" in board
    # Judged again, the same bytes; a new file leaves the earlier releases.
    first = (repo / "releases.csv").read_text()
    _run(repo, gold)
    assert (repo / "releases.csv").read_text() == first
    (repo / "submissions" / "ants" / "005.csv").write_bytes(
        csv_for(solution, noisy(solution, 0.1, 99))
    )
    _run(repo, gold)
    again = (repo / "releases.csv").read_text().splitlines()
    assert [line for line in again if "ants/005" not in line] == first.splitlines()


def test_the_github_workflow_never_runs_on_a_pull_request():
    workflow = yaml.safe_load((TEMPLATE / "leaderboard.yml").read_text())
    triggers = workflow[True]  # YAML reads the key "on" as true
    assert set(triggers) == {"push"}
    action = yaml.safe_load((TEMPLATE / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) == {"solution", "score", "mechanism", "key"}
