"""The Synapse template (integrations/synapse): its CWL tool run by
``cwltool`` for each submission of a queue, after ``ladder_step.prepare``
(the ``previous`` step) has read the queue, simulated from synapseclient's
shapes: ``getSubmission`` (a ``Submission``, with ``filePath`` once
downloaded) and ``getSubmissionBundles`` (``(Submission,
SubmissionStatus)`` pairs, the status's old-style ``annotations``); and the
annotations kept as ``challengeutils annotate-submission`` keeps a flat
JSON file (``annotations.annotate_submission_with_json``): strings, floats
and integers, booleans as ``"true"``/``"false"``, ``None`` left out, every
key private unless ``--to_public``.

Three teams' files give the judge's releases, and the lead recorded is the
one ``challengeutils``' lead query would find (``prediction_file_status ==
'SCORED'`` and ``met_cutoff == 'true'``, the latest); a file that is not
validated is passed through and an unreadable one is annotated INVALID,
and neither moves the ladder; a submission waits while an earlier one of
its team is being decided; and a workflow run again decides nothing."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine_helpers import csv_for, make_solution, noisy
from ladderboard.engine.judge import judge
from ladderboard.rules.config import CompetitionConfig
from system import require

pytestmark = pytest.mark.slow

TEMPLATE = Path(__file__).resolve().parents[2] / "integrations" / "synapse"
KEY = "00112233445566778899aabbccddeeff"
EVALUATION = "9614112"
cwltool = shutil.which("cwltool", path=str(Path(sys.executable).parent)) or shutil.which("cwltool")


def _step():
    spec = importlib.util.spec_from_file_location("ladder_step", TEMPLATE / "ladder_step.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["ladder_step"] = module
    spec.loader.exec_module(module)
    return module


step = _step()


class Queue:
    """An evaluation queue's submissions and statuses, as Synapse keeps them."""

    def __init__(self) -> None:
        self.submissions: list[dict] = []
        self.statuses: dict[str, dict] = {}
        self.files: dict[str, Path] = {}

    def submit(self, path: Path, user: str, team: str | None) -> str:
        sid = str(9700000 + len(self.submissions))
        self.submissions.append({
            "id": sid, "evaluationId": EVALUATION, "userId": user, "teamId": team,
            "createdOn": f"2026-11-29T08:{len(self.submissions):02}:00.000Z",
        })  # fmt: skip
        self.statuses[sid] = {"id": sid, "status": "RECEIVED", "annotations": {}}
        self.files[sid] = path
        return sid

    # synapseclient's calls, as ladder_step.prepare makes them
    def getSubmission(self, sid, downloadFile=True, downloadLocation=None):
        found = dict(next(s for s in self.submissions if s["id"] == str(sid)))
        if downloadFile and downloadLocation is not None:
            path = Path(downloadLocation) / self.files[found["id"]].name
            shutil.copyfile(self.files[found["id"]], path)
            found["filePath"] = str(path)
        return found

    def getSubmissionBundles(self, evaluation):
        return [
            (s, self.statuses[s["id"]]) for s in self.submissions if s["evaluationId"] == evaluation
        ]

    def annotate(self, sid: str, values: dict, to_public: bool) -> None:
        """challengeutils annotate-submission of a flat JSON object."""
        annotations = self.statuses[sid]["annotations"]
        for key, value in values.items():
            if value is None or value == []:
                continue
            if isinstance(value, bool):
                kind, value = "stringAnnos", str(value).lower()
            elif isinstance(value, int):
                kind = "longAnnos"
            elif isinstance(value, float):
                kind = "doubleAnnos"
            else:
                kind, value = "stringAnnos", str(value)
            entries = [e for e in annotations.get(kind, []) if e["key"] != key]
            entries.append({"key": key, "value": value, "isPrivate": not to_public})
            annotations[kind] = entries

    def value(self, sid: str, key: str):
        for entries in self.statuses[sid]["annotations"].values():
            for entry in entries:
                if entry["key"] == key:
                    return entry["value"], entry["isPrivate"]
        return None, None

    def lead(self, sid: str) -> Path | None:
        """download-current-lead-submission, run just after ``sid`` was
        decided: the submitter's latest submission annotated SCORED and
        met_cutoff 'true', by createdOn."""
        current = self.getSubmission(sid)
        submitter = step.submitter_of(current)
        found = [
            s for s in self.submissions
            if step.submitter_of(s) == submitter and s["createdOn"] <= current["createdOn"]
            and self.value(s["id"], "prediction_file_status")[0] == "SCORED"
            and self.value(s["id"], "met_cutoff")[0] == "true"
        ]  # fmt: skip
        return self.files[max(found, key=lambda s: s["createdOn"])["id"]] if found else None


def _run_step(queue: Queue, sid: str, gold: Path, key_file: Path, work: Path, status="VALIDATED"):
    folder = work / f"previous-{sid}-{len(list(work.glob(f'previous-{sid}*')))}"
    folder.mkdir()
    submitter = step.prepare(queue, sid, folder)
    job = {
        "submissionid": int(sid),
        "inputfile": {"class": "File", "path": str(queue.files[sid])},
        "goldstandard": {"class": "File", "path": str(gold)},
        "key_file": {"class": "File", "path": str(key_file)},
        "status": status,
        "submitter": submitter,
        "score": "zero_one",
        "mechanism": "ladder-boot",
    }
    for name, key in (("previous_state.json", "previous_state"), ("decided.json", "decided")):
        if (folder / name).exists():
            job[key] = {"class": "File", "path": str(folder / name)}
    lead = list(folder.glob("previous_submission*"))
    if lead:
        job["previousfile"] = {"class": "File", "path": str(lead[0])}
        job["lead_id"] = (folder / "lead_id.txt").read_text()
    (folder / "job.json").write_text(json.dumps(job))
    out = folder / "out"
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(
        [cwltool, "--quiet", "--no-container", "--outdir", str(out),
         str(TEMPLATE / "score_ladder.cwl"), str(folder / "job.json")],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    results = json.loads((out / "results.json").read_text())
    private = json.loads((out / "private.json").read_text())
    queue.annotate(sid, results, to_public=True)  # as the templates wire it
    queue.annotate(sid, private, to_public=False)
    return results, private


def test_the_synapse_ladder_step_releases_the_judges_scores(tmp_path):
    require(cwltool is not None, "cwltool runs the CWL tool: pip install -e '.[test]'")
    solution = make_solution(n=400, seed=12)
    gold = tmp_path / "goldstandard.csv"
    gold.write_bytes(solution.to_csv())
    key_file = tmp_path / "key.txt"
    key_file.write_text(KEY + "\n")
    queue = Queue()
    sent: dict[str, list[tuple[str, bytes]]] = {"3401": [], "3402": [], "3403": []}
    answers: dict[str, dict] = {}
    for round_ in range(3):
        for t, team in enumerate(sent):
            path = tmp_path / f"{team}-{round_}.csv"
            path.write_bytes(
                csv_for(solution, noisy(solution, 0.42 - 0.1 * round_ + 0.03 * t, 5 * round_ + t))
            )
            sid = queue.submit(path, user=f"27{t}", team=team)
            sent[team].append((sid, path.read_bytes()))
            answers[sid], _ = _run_step(queue, sid, gold, key_file, tmp_path)
    # Not validated, then unreadable: passed through, and the ladder does not move.
    bad = tmp_path / "bad.csv"
    bad.write_text("id,target\n1,0\n")
    skipped = queue.submit(bad, user="270", team="3401")
    results, private = _run_step(queue, skipped, gold, key_file, tmp_path, status="INVALID")
    assert results == {"submission_status": "INVALID", "prediction_file_status": "INVALID"}
    assert private == {}
    refused = queue.submit(bad, user="270", team="3401")
    results, private = _run_step(queue, refused, gold, key_file, tmp_path)
    assert results["submission_status"] == "INVALID" and "submission_errors" in results
    last = tmp_path / "3401-last.csv"
    last.write_bytes(csv_for(solution, noisy(solution, 0.1, 99)))
    final = queue.submit(last, user="270", team="3401")
    answers[final], _ = _run_step(queue, final, gold, key_file, tmp_path)
    sent["3401"].append((final, last.read_bytes()))

    config = CompetitionConfig(score="zero_one", mechanism="ladder-boot").explicit(
        solution.n_public
    )
    for team, files in sent.items():
        state = lead = None
        for index, (sid, data) in enumerate(files, 1):
            decided = judge(solution, config, KEY, team, data, lead=lead, state=state)
            assert answers[sid]["score"] == decided.release
            assert (
                answers[sid]["submission_status"]
                == answers[sid]["prediction_file_status"]
                == "SCORED"
            )
            assert queue.value(sid, "score") == (decided.release, False)
            assert queue.value(sid, "met_cutoff") == (str(decided.met_cutoff).lower(), True)
            assert queue.value(sid, "ladderboard_index") == (index, True)
            assert queue.value(sid, "ladderboard_state")[1] is True
            state, lead = decided.state, data if decided.met_cutoff else lead
            lead_sid = queue.value(sid, "ladderboard_lead")[0]
            assert queue.files[lead_sid].read_bytes() == lead
            assert queue.lead(sid) == queue.files[lead_sid]  # challengeutils' lead, then

    # The workflow of a decided submission run again: what was recorded, nothing decided.
    before = {sid: dict(queue.statuses[sid]["annotations"]) for sid in queue.statuses}
    results, private = _run_step(queue, final, gold, key_file, tmp_path)
    assert results["score"] == answers[final]["score"]
    assert queue.value(final, "ladderboard_index") == (len(sent["3401"]), True)
    assert {sid: dict(queue.statuses[sid]["annotations"]) for sid in queue.statuses} == before


def test_a_submission_waits_for_the_earlier_ones_of_its_team(tmp_path):
    require(cwltool is not None, "cwltool runs the CWL tool: pip install -e '.[test]'")
    solution = make_solution(n=400, seed=12)
    gold = tmp_path / "goldstandard.csv"
    gold.write_bytes(solution.to_csv())
    key_file = tmp_path / "key.txt"
    key_file.write_text(KEY)
    queue = Queue()
    sids = []
    for i in range(3):
        path = tmp_path / f"f{i}.csv"
        path.write_bytes(csv_for(solution, noisy(solution, 0.4 - 0.1 * i, i)))
        sids.append(queue.submit(path, user="270", team="3401" if i < 2 else "3409"))
    # Two workflows run at once: the second of team 3401 waits for the first.
    with pytest.raises(step.EarlierPending, match=sids[0]):
        step.prepare(queue, sids[1], tmp_path)
    _run_step(queue, sids[2], gold, key_file, tmp_path)  # another team is not held up
    _run_step(queue, sids[0], gold, key_file, tmp_path)
    _run_step(queue, sids[1], gold, key_file, tmp_path)
    assert [queue.value(s, "ladderboard_index")[0] for s in sids] == [1, 2, 1]
