"""``ladderboard judge`` as a platform calls it: the key from the
environment, each answer kept as the next call's ``--state``, the lead file
given back; its releases are the library's, a refused file exits 1 with the
server's refusal as JSON, and a wrong call exits 2."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from engine_helpers import csv_for, make_solution, noisy
from ladderboard.cli import app
from ladderboard.engine.judge import judge
from ladderboard.rules.config import CompetitionConfig

KEY = "0123456789abcdef0123456789abcdef"


def _call(tmp_path, *args: str, env: dict | None = None):
    result = CliRunner().invoke(
        app,
        ["judge", "--solution", str(tmp_path / "gold.csv"), "--score", "zero_one", *args],
        env={"LADDERBOARD_JUDGE_KEY": KEY} if env is None else env,
    )
    return result


def test_judge_cli_plays_a_team_as_the_library_does(tmp_path):
    solution = make_solution(n=300, seed=2)
    (tmp_path / "gold.csv").write_bytes(solution.to_csv())
    config = CompetitionConfig(score="zero_one", mechanism="shaky-ladder").explicit(
        solution.n_public
    )
    files = [csv_for(solution, noisy(solution, flip, seed)) for seed, flip in enumerate(
        (0.4, 0.3, 0.35, 0.2, 0.25, 0.1)
    )]  # fmt: skip
    state = lead = None
    library_state = library_lead = None
    for i, data in enumerate(files):
        path = tmp_path / f"file{i}.csv"
        path.write_bytes(data)
        args = ["--team", "team-7", "--submission", str(path), "--mechanism", "shaky-ladder"]
        if state is not None:
            args += ["--state", str(state), "--lead", str(lead)]
        result = _call(tmp_path, *args)
        assert result.exit_code == 0, result.output
        answer = json.loads(result.stdout)
        expected = judge(
            solution, config, KEY, "team-7", data, lead=library_lead, state=library_state
        )
        assert (answer["release"], answer["met_cutoff"], answer["index"]) == (
            expected.release,
            expected.met_cutoff,
            i + 1,
        )
        assert set(answer) == {"release", "met_cutoff", "index", "state"}
        state = tmp_path / f"answer{i}.json"  # the whole answer is kept
        state.write_text(result.stdout)
        library_state = expected.state
        if answer["met_cutoff"]:
            lead, library_lead = path, data
    assert set(json.loads(state.read_text())["state"]["vars"]) == {
        "released",
        "threshold_noise",
        "best",
        "updates",
    }


@pytest.mark.slow
def test_judge_cli_refusals(tmp_path):
    solution = make_solution(n=200, seed=3)
    (tmp_path / "gold.csv").write_bytes(solution.to_csv())
    good = tmp_path / "good.csv"
    good.write_bytes(csv_for(solution, noisy(solution, 0.3, 0)))
    bad = tmp_path / "bad.csv"
    bad.write_text("id,target\n1,0\n")
    refused = _call(tmp_path, "--team", "a", "--submission", str(bad))
    assert refused.exit_code == 1
    answer = json.loads(refused.stdout)
    assert answer["refused"] is True and answer["error"] == "missing_ids"
    no_key = _call(tmp_path, "--team", "a", "--submission", str(good), env={})
    assert no_key.exit_code == 2 and "LADDERBOARD_JUDGE_KEY" in no_key.output
    pfl = ("--mechanism", "parameter-free-ladder")  # its state keeps the lead's losses
    first = _call(tmp_path, "--team", "a", "--submission", str(good), *pfl)
    assert first.exit_code == 0, first.output
    kept = tmp_path / "first.json"
    kept.write_text(first.stdout)
    other = tmp_path / "other.csv"
    other.write_bytes(csv_for(solution, noisy(solution, 0.1, 5)))
    wrong_lead = _call(
        tmp_path, "--team", "a", "--submission", str(good), "--state", str(kept), "--lead",
        str(other), *pfl,
    )  # fmt: skip
    assert wrong_lead.exit_code == 2
    assert "not the one this state was made with" in wrong_lead.output
    assert np.isfinite(json.loads(first.stdout)["release"])
