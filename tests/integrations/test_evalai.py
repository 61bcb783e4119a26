"""The EvalAI template (integrations/evalai): a phase's competition made from
a bundle by the script's own command, then three teams' files evaluated
one at a time through both of EvalAI's conventions, with the arguments and
metadata EvalAI passes (the hosted worker's ``evaluate(annotation,
user_file, codename, submission_metadata=...)`` and the remote starter's
``evaluate(user_file, codename, annotation, ...)``) and checked against
the answer shapes EvalAI reads. The public split is the engine's release,
the host split the exact private score; a submission evaluated twice is
decided once; a refused file costs nothing; and the store verifies."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine_helpers import csv_for, make_solution, noisy
from ladderboard.engine import Competitions
from ladderboard.engine.audit import verify

pytest.importorskip("sqlalchemy")

TEMPLATE = Path(__file__).resolve().parents[2] / "integrations" / "evalai"


def _module():
    spec = importlib.util.spec_from_file_location("evalai_main", TEMPLATE / "main.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def phase(tmp_path, monkeypatch):
    """A phase ``dev`` made by the template's command, and the module as
    EvalAI imports it, on a store of its own."""
    solution = make_solution(n=400, seed=3)
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "solution.csv").write_bytes(solution.to_csv())
    (bundle / "competition.yaml").write_text(
        "format: 1\nslug: ignored\nsolution: solution.csv\nscore: zero_one\n"
        "mechanism: parameter-free-ladder\ndaily_quota: 4\ninvalid_quota: 2\n"
    )
    url = f"sqlite:///{tmp_path / 'ladderboard.db'}"
    made = subprocess.run(
        [sys.executable, str(TEMPLATE / "main.py"), "create", "dev", "--from", str(bundle),
         "--db", url],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "created 'dev'" in made.stdout
    monkeypatch.setenv("LADDERBOARD_DATABASE_URL", url)
    annotation = tmp_path / "test_annotations.csv"
    annotation.write_bytes(solution.to_csv())
    module = _module()
    yield module, solution, annotation, url, tmp_path
    module._engine.cache_clear()


def _metadata(pk: int, team: int) -> dict:
    """The fields of EvalAI's ``SubmissionSerializer`` the script reads, with
    some it does not, as the worker passes them."""
    return {
        "id": pk,
        "participant_team": team,
        "participant_team_name": f"Team {team}",
        "challenge_phase": 1,
        "status": "running",
        "method_name": "",
        "is_public": True,
    }


def _exact_private(solution, predictions) -> float:
    rows = solution.private_rows
    return float(np.mean(predictions[rows] != solution.targets[rows].astype(int)))


@pytest.mark.slow
def test_evalai_phase_releases_the_engines_scores_and_keeps_the_truth_for_the_host(phase):
    module, solution, annotation, url, tmp_path = phase
    plays = []  # (team, predictions, answer)
    pk = 100
    for round_ in range(4):
        for t, team in enumerate((5, 7, 9)):
            pk += 1
            predictions = noisy(solution, 0.45 - 0.09 * round_ - 0.02 * t, 31 * pk)
            path = tmp_path / f"upload-{pk}.csv"
            path.write_bytes(csv_for(solution, predictions))
            if team == 9:  # this team's host runs the remote convention
                answer = module.evaluate_remote(
                    str(path), "dev", str(annotation), submission_metadata=_metadata(pk, team)
                )
                splits = {entry["split"]: entry for entry in answer["result"]}
                assert set(splits) == {"public", "host"}
                assert splits["public"]["show_to_participant"] is True
                assert splits["host"]["show_to_participant"] is False
                release = splits["public"]["accuracies"]["score"]
                private = splits["host"]["accuracies"]["score"]
            else:
                answer = module.evaluate(
                    str(annotation), str(path), "dev", submission_metadata=_metadata(pk, team)
                )
                assert [list(split) for split in answer["result"]] == [["public"], ["host"]]
                assert answer["submission_result"] == answer["result"][0]
                release = answer["result"][0]["public"]["score"]
                private = answer["result"][1]["host"]["score"]
            assert type(release) is float and type(private) is float  # EvalAI refuses others
            plays.append((team, pk, path, predictions, release, private))

    engine = Competitions.open(url)
    try:
        for team in (5, 7, 9):
            mine = [p for p in plays if p[0] == team]
            stored = engine.submissions("dev", f"team-{team}", organiser=True)
            assert [s.public_score for s in stored] == [p[4] for p in mine]
            for *_, predictions, _, private in mine:
                assert private == _exact_private(solution, predictions)

        # Evaluated again (a worker restarted): the same answer, nothing counted.
        team, pk, path, *_, release, private = plays[4]
        again = module.evaluate(
            str(annotation), str(path), "dev", submission_metadata=_metadata(pk, team)
        )
        assert again["result"] == [{"public": {"score": release}}, {"host": {"score": private}}]
        assert len(engine.submissions("dev", f"team-{team}")) == 4
        engine.close("dev")
        engine.publish("dev")
        report = verify(engine, "dev")
        assert report.submissions == 12
    finally:
        engine.dispose()


@pytest.mark.slow
def test_evalai_refusals_fail_the_submission_and_count_nothing(phase):
    module, solution, annotation, url, tmp_path = phase
    first = tmp_path / "first.csv"
    first.write_bytes(csv_for(solution, noisy(solution, 0.3, 1)))
    module.evaluate(str(annotation), str(first), "dev", submission_metadata=_metadata(1, 5))

    def refused(path, pk=2, team=5, codename="dev", annotation_file=annotation, **extra):
        metadata = extra.get("metadata", _metadata(pk, team))
        with pytest.raises(module.Refused) as caught:
            module.evaluate(str(annotation_file), str(path), codename, submission_metadata=metadata)
        return str(caught.value)

    # The same file again under another submission: the engine's duplicate refusal.
    assert "identical to submission 1" in refused(first)
    unreadable = tmp_path / "bad.csv"
    unreadable.write_text("id,target\n1,0\n")
    assert "missing" in refused(unreadable, pk=4).lower()
    assert "create it once" in refused(first, codename="final")
    assert "metadata" in refused(first, metadata={"id": 9})
    other = tmp_path / "other_annotations.csv"
    other.write_bytes(make_solution(n=400, seed=4).to_csv())
    assert "not the solution" in refused(first, pk=5, annotation_file=other)

    engine = Competitions.open(url)
    try:
        assert len(engine.submissions("dev", "team-5")) == 1
        assert engine.invalid_count("dev", "team-5") == 1  # the unreadable file alone
    finally:
        engine.dispose()
