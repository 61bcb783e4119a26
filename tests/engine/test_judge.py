"""``judge``, one decision with no store, against the server's per-team
boards: for every competition mechanism, two teams' files judged one at a
time (the state kept as JSON between them, the lead file given back) get
the releases and decisions the server gave, bit for bit; a judge taking over
from a state the server stored goes on as the server does; a wrong lead
file and a bad file are refused, and the state holds no per-sample value."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from engine_helpers import csv_for, make_solution
from ladderboard.engine.judge import LeadMismatch, judge, portable_state
from ladderboard.files.submission import SubmissionError
from ladderboard.mechanisms import COMPETITION_MECHANISMS
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import queries
from ladderboard.store.arrays import StoredArrays
from ladderboard.store.models import CompetitionRow, SubmissionRow

MECHANISMS = sorted(COMPETITION_MECHANISMS)


def _score(name: str) -> str:
    return "zero_one" if COMPETITION_MECHANISMS[name].input_kind == "losses" else "auc"


def _files(solution, count: int, seed: int, labels: bool = True) -> list[bytes]:
    """Files of varying skill, some better than the ones before, some worse:
    labels (for the 0/1 loss) or scores (for the AUC)."""
    rng = np.random.default_rng(seed)
    y = solution.targets.astype(float)
    files = []
    for i in range(count):
        wrong = [0.45, 0.35, 0.4, 0.25, 0.3, 0.2, 0.22, 0.1][i % 8]
        flip = rng.random(solution.n) < wrong
        noisy = np.where(flip, 1 - y, y)
        scores = np.clip(noisy * 0.8 + 0.1 + rng.normal(0, 0.05, y.size), 0, 1)
        files.append(csv_for(solution, noisy if labels else scores))
    return files


def _played(store, name: str, count: int = 7):
    """A competition of ``name`` with two teams' files sent to the server:
    the solution, the stored config and key, the teams' ids, their files,
    and each submission's (release, improved) by team."""
    solution = make_solution(n=300, seed=4)
    config = CompetitionConfig(score=_score(name), mechanism=name, daily_quota=None)
    store.create("comp", solution, config, random_state=13)
    teams = {team: store.add_team("comp", team).id for team in ("alpha", "beta")}
    labels = _score(name) == "zero_one"
    files = {team: _files(solution, count, seed, labels) for seed, team in enumerate(teams)}
    for i in range(count):
        for team in teams:
            store.submit("comp", team, files[team][i])
    with Session(store.engine) as session:
        row = session.scalars(select(CompetitionRow)).one()
        key = row.secret_key
        stored = {
            team: [
                (s.public_score, s.improved)
                for s in session.scalars(
                    select(SubmissionRow)
                    .where(SubmissionRow.team_id == team_id)
                    .order_by(SubmissionRow.number)
                )
            ]
            for team, team_id in teams.items()
        }
    return solution, store.competition("comp").config, key, teams, files, stored


def _judged(solution, config, key, team_id, files, *, state=None, lead=None):
    """Each file judged in turn, the state kept as JSON text between two."""
    out = []
    for data in files:
        decided = judge(solution, config, key, team_id, data, lead=lead, state=state)
        out.append((decided.release, decided.met_cutoff))
        state = json.loads(json.dumps(decided.state))
        if decided.met_cutoff:
            lead = data
    return out, state, lead


@pytest.mark.parametrize("name", MECHANISMS)
def test_judge_gives_the_servers_releases_bit_for_bit(store, name):
    solution, config, key, teams, files, stored = _played(store, name)
    for team, team_id in teams.items():
        judged, state, _ = _judged(solution, config, key, team_id, files[team])
        assert judged == stored[team], team
        assert [index for index, _ in enumerate(judged, 1)][-1] == state["n_submissions"]
    # The server's decisions vary: a test in which nothing or everything
    # improved would not tell the lead's handling apart.
    decisions = [improved for team in teams for _, improved in stored[team]]
    assert any(decisions) and (name.endswith("full-disclosure") or not all(decisions))


@pytest.mark.parametrize("name", MECHANISMS)
def test_judge_takes_over_from_the_servers_stored_state(store, name):
    """The state the server stored after seven files, with the lead file,
    decides the eighth as the server does (the Shaky Ladder's released
    value, noise and count come with the state)."""
    solution, config, key, teams, files, stored = _played(store, name)
    team_id = teams["alpha"]
    with Session(store.engine) as session:
        competition_id = session.scalars(select(CompetitionRow.id)).one()
        state = queries.state_of(session, competition_id, f"team:{team_id}")
        state = StoredArrays().fill(session.connection(), competition_id, state)
    lead = next(
        data
        for data, (_, improved) in zip(
            reversed(files["alpha"]), reversed(stored["alpha"]), strict=True
        )
        if improved
    )
    eighth = _files(solution, 9, seed=7, labels=_score(name) == "zero_one")[8]
    decided = judge(
        solution, config, key, team_id, eighth, lead=lead, state=portable_state(state, key)
    )
    answer = store.submit("comp", "alpha", eighth)
    with Session(store.engine) as session:
        improved = session.scalars(
            select(SubmissionRow.improved).where(
                SubmissionRow.team_id == team_id, SubmissionRow.number == 8
            )
        ).one()
    assert (decided.release, decided.met_cutoff, decided.index) == (
        answer.public_score,
        improved,
        8,
    )


def test_judge_refuses_a_wrong_lead_and_a_bad_file(store):
    solution, config, key, teams, files, _ = _played(store, "parameter-free-ladder", count=3)
    team_id = teams["alpha"]
    args = (solution, config, key, team_id)
    first = judge(*args, files["alpha"][0])
    assert first.met_cutoff and first.index == 1
    with pytest.raises(LeadMismatch, match="not the one this state was made with"):
        judge(
            solution,
            config,
            key,
            team_id,
            files["alpha"][1],
            lead=files["beta"][0],
            state=first.state,
        )
    with pytest.raises(LeadMismatch, match="needs the team's lead file"):
        judge(*args, files["alpha"][1], state=first.state)
    with pytest.raises(SubmissionError) as refused:
        judge(
            solution,
            config,
            key,
            team_id,
            b"id,target\n1,0.5\n",
            lead=files["alpha"][0],
            state=first.state,
        )
    assert refused.value.code in SubmissionError.CODES
    # The state keeps the lead by its hash only: no loss, prediction or label.
    text = json.dumps(first.state)
    assert "lead_sha256" in text and "zstd" not in text and "zlib" not in text
    assert set(first.state["vars"]) == {"multiple", "best", "best_losses"}


def test_an_unreadable_stored_state_is_a_difference_not_a_crash():
    """A bundle's state whose array cannot be decoded is reported as a
    difference of its board, as any other, and the audit goes on."""
    from ladderboard.engine.rerun import AuditedSubmission, rerun, run_boards

    solution = make_solution(n=200, seed=8)
    config = CompetitionConfig(score="zero_one", mechanism="parameter-free-ladder").explicit(
        solution.n_public
    )
    key = "00" * 16
    data = _files(solution, 1, seed=1)[0]
    probe = AuditedSubmission("#1", "team:1", 1, 1, data, 0.0, True, 0.0, 0.0)
    (outcome,), states = run_boards(solution, config, key, [probe])
    sub = AuditedSubmission(
        "#1", "team:1", 1, 1, data, outcome.released, outcome.improved, outcome.public_raw,
        outcome.private,
    )  # fmt: skip
    assert rerun(solution, config, key, [sub], states=states).problems == []
    broken = json.loads(json.dumps(states))
    broken["team:1"]["vars"]["best_losses"]["array"]["zstd"] = "bm90IHpzdGQ="  # "not zstd"
    problems = rerun(solution, config, key, [sub], states=broken).problems
    assert len(problems) == 1
    assert problems[0].startswith(
        "team:1: the stored mechanism state is unreadable: an encoded array is not valid Zstandard"
    )
