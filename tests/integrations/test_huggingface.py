"""The Hugging Face template (integrations/huggingface/metric.py), called as
the Competitions backend calls a custom metric: ``compute(params)`` with the
fields of its ``EvalParams`` (``huggingface/competitions``, ``params.py``),
after the app has committed the file as
``submissions/{team_id}-{submission_id}.csv`` (``submissions.py``), and
answered as ``compute_metrics.py`` checks (``public_score`` and
``private_score``, the same keys). The repository is a folder of commits
that refuses a write whose parent is not the branch's head, as the Hub
refuses ``create_commit(parent_commit=...)`` with HTTP 412.

Three teams' files give the judge's releases; two of one team's files
evaluated at once (script competitions run a Space per submission) are
both recorded, the later write decided again; an evaluation run twice
decides nothing; a refused file leaves the record as it was; and the
record holds no key and no per-sample loss."""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine_helpers import csv_for, make_solution, noisy
from ladderboard.engine.judge import judge
from ladderboard.files.submission import SubmissionError
from ladderboard.rules.config import CompetitionConfig

TEMPLATE = Path(__file__).resolve().parents[2] / "integrations" / "huggingface"
KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"


def _module():
    """The metric imported as ``compute_metrics.py`` imports it: its folder on
    ``sys.path``, then ``importlib.import_module("metric")``."""
    sys.path.append(str(TEMPLATE))
    try:
        module = importlib.import_module("metric")
    finally:
        sys.path.remove(str(TEMPLATE))
    assert Path(module.__file__) == TEMPLATE / "metric.py"
    return module


metric = _module()


class CommitRepository:
    """A branch of commits, each a whole snapshot, named by a hash."""

    def __init__(self) -> None:
        self.commits: dict[str, dict[str, bytes]] = {}
        self.history: list[str] = []
        self.before_write = None  # called once, before the next write lands
        self._commit({}, "initial")

    def _commit(self, files: dict[str, bytes], message: str) -> None:
        sha = hashlib.sha1(f"{len(self.history)}{message}".encode()).hexdigest()
        self.commits[sha] = files
        self.history.append(sha)

    def head(self) -> str:
        return self.history[-1]

    def read(self, path: str, revision: str) -> bytes | None:
        return self.commits[revision].get(path)

    def write(self, path: str, data: bytes, parent: str, message: str) -> None:
        hook, self.before_write = self.before_write, None
        if hook is not None:
            hook()
        if parent != self.head():
            raise metric.Moved("412: the branch was updated since")
        self.upload(path, data, message)

    def upload(self, path: str, data: bytes, message: str = "upload") -> None:
        """A commit on the head with no parent check (the app's own uploads)."""
        self._commit({**self.commits[self.head()], path: data}, message)


def _params(team_id: str, submission_id: str) -> SimpleNamespace:
    return SimpleNamespace(
        competition_id="org/private-competition",
        competition_type="generic",
        metric="custom",
        token="hf_organiser_token",
        team_id=team_id,
        submission_id=submission_id,
        submission_id_col="id",
        submission_cols=["id", "target"],
        submission_rows=400,
        output_path="",
        submission_repo="",
        time_limit=3600,
        dataset="",
        submission_filenames=["submission.csv"],
    )


@pytest.fixture
def hub(monkeypatch):
    monkeypatch.setenv("LADDERBOARD_JUDGE_KEY", KEY)
    solution = make_solution(n=400, seed=8)
    repo = CommitRepository()
    repo.upload("solution.csv", solution.to_csv())
    # zero_one is a loss: the boards must rank lower first
    repo.upload("conf.json", json.dumps({"EVAL_METRIC": "custom", "SCORING_METRIC": "score",
                                         "EVAL_HIGHER_IS_BETTER": False}).encode())  # fmt: skip
    return solution, repo


def _send(repo, solution, team, sid, flip, seed) -> bytes:
    data = csv_for(solution, noisy(solution, flip, seed))
    repo.upload(f"submissions/{team}-{sid}.csv", data)
    return data


def _reference(solution, team, files) -> list[tuple[float, bool]]:
    """The judge's releases for the team's files in this order."""
    config = CompetitionConfig(score=metric.SCORE, mechanism=metric.MECHANISM).explicit(
        solution.n_public
    )
    out, state, lead = [], None, None
    for data in files:
        decided = judge(solution, config, KEY, team, data, lead=lead, state=state)
        out.append((decided.release, decided.met_cutoff))
        state = decided.state
        lead = data if decided.met_cutoff else lead
    return out


def _record(repo, team) -> dict:
    return json.loads(repo.read(f"ladderboard/teams/{team}.json", repo.head()))


def test_the_hub_metric_releases_the_judges_scores_for_each_team(hub):
    solution, repo = hub
    teams = ("a1b2", "c3d4", "e5f6")
    sent: dict[str, list[bytes]] = {team: [] for team in teams}
    answers: dict[str, list[dict]] = {team: [] for team in teams}
    for round_ in range(4):
        for t, team in enumerate(teams):
            sid = f"{team}-sub{round_}"
            sent[team].append(
                _send(repo, solution, team, sid, 0.45 - 0.08 * round_, 10 * t + round_)
            )
            answer = metric.compute(_params(team, sid), repo)
            assert set(answer) == {"public_score", "private_score"}
            assert answer["public_score"].keys() == answer["private_score"].keys() == {"score"}
            answers[team].append(answer)
    for team in teams:
        expected = _reference(solution, team, sent[team])
        assert [a["public_score"]["score"] for a in answers[team]] == [e[0] for e in expected]
        record = _record(repo, team)
        lead_index = max(i for i, (_, met) in enumerate(expected) if met)
        assert record["lead"] == f"{team}-sub{lead_index}"
        text = json.dumps(record)
        assert KEY not in text and '"array"' not in text  # the lead by its keyed hash only


def test_two_evaluations_of_one_team_at_once_are_both_recorded(hub):
    solution, repo = hub
    files = [_send(repo, solution, "t1", f"s{i}", 0.4 - 0.1 * i, i) for i in range(3)]
    metric.compute(_params("t1", "s0"), repo)
    # s1's Space is about to write when s2's Space decides and writes first.
    later = {}
    repo.before_write = lambda: later.update(metric.compute(_params("t1", "s2"), repo))
    first = metric.compute(_params("t1", "s1"), repo)
    expected = _reference(solution, "t1", [files[0], files[2], files[1]])
    record = _record(repo, "t1")
    assert [record["decisions"][s]["index"] for s in ("s0", "s2", "s1")] == [1, 2, 3]
    assert later["public_score"]["score"] == expected[1][0]
    assert first["public_score"]["score"] == expected[2][0]


def test_an_evaluation_run_twice_or_a_refused_file_decides_nothing(hub, monkeypatch):
    solution, repo = hub
    _send(repo, solution, "t1", "s0", 0.3, 1)
    first = metric.compute(_params("t1", "s0"), repo)
    commits = len(repo.history)
    assert metric.compute(_params("t1", "s0"), repo) == first
    assert len(repo.history) == commits
    repo.upload("submissions/t1-s1.csv", b"id,target\n1,0\n")
    before = _record(repo, "t1")
    with pytest.raises(SubmissionError):
        metric.compute(_params("t1", "s1"), repo)
    assert _record(repo, "t1") == before
    monkeypatch.delenv("LADDERBOARD_JUDGE_KEY")
    with pytest.raises(RuntimeError, match="LADDERBOARD_JUDGE_KEY"):
        metric.compute(_params("t1", "s0"), repo)


def test_a_board_ranked_the_wrong_way_or_a_script_competition_is_refused(hub):
    solution, repo = hub
    _send(repo, solution, "t1", "s0", 0.3, 1)
    repo.upload("conf.json", json.dumps({"EVAL_METRIC": "custom"}).encode())  # higher is better
    with pytest.raises(RuntimeError, match=r"EVAL_HIGHER_IS_BETTER=true.*set it to false"):
        metric.compute(_params("t1", "s0"), repo)
    script = _params("t1", "s0")
    script.competition_type = "script"
    with pytest.raises(RuntimeError, match="script competition"):
        metric.compute(script, repo)
    assert repo.read("ladderboard/teams/t1.json", repo.head()) is None
