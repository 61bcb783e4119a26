"""The ladder step of a Synapse challenge workflow: a ladderboard mechanism
deciding one submission, in place of the scoring step of a ladder
workflow (``Sage-Bionetworks/ChallengeWorkflowTemplates``,
``score_ladder.cwl``).

Two commands, each a CWL tool beside this file:

``previous`` (``ladder_previous.cwl``)
    With the workflow's Synapse credentials, reads what the team's earlier
    decisions left in the queue (the submitter is the team, else the user):

    - it waits until every earlier submission of the submitter is settled
      (decided, or marked ``INVALID``), so that a submitter's files are
      decided one at a time in the order they were sent, whatever number
      of workflows the queue runs at once;
    - it writes ``previous_state.json``, the ``ladderboard_state`` of the
      submitter's latest decision, and downloads the lead that decision
      names (``ladderboard_lead``) as ``previous_submission`` (its own
      extension kept), with ``lead_id.txt``; nothing at first;
    - for a submission decided before (its workflow run again), it writes
      ``decided.json``, what was recorded, and nothing is decided again.

    It writes ``submitter.txt`` in every case.

``score`` (``score_ladder.cwl``)
    Decides the file (:func:`ladderboard.engine.judge.judge`) and writes two
    flat JSON files for ``challengeutils annotate-submission``:

    - ``results.json``, public: ``score`` (the release), and
      ``submission_status`` and ``prediction_file_status`` (``SCORED``, or
      ``INVALID`` with ``submission_errors`` for a refused file; both names,
      as today's templates read the first and ``challengeutils``' lead query
      the second);
    - ``private.json``, the organiser's (annotate it without
      ``--to_public``): ``met_cutoff`` (a noisy board's decision is not
      derivable from its releases), the file's number ``ladderboard_index``,
      the state ``ladderboard_state`` and the lead after this decision,
      ``ladderboard_lead``.

A submission whose validation status is not ``VALIDATED`` is passed through
unscored, as the templates' scoring steps do. The key is a file the
workflow downloads from a private Synapse entity, like the gold standard
(``--key-file``), never an argument. The state is as secret as the key (it
holds a lead's unrounded score and a threshold's noise): keep
``met_cutoff``, ``ladderboard_state`` and ``ladderboard_lead`` out of every
submission view the teams can read, as a view shows a status's annotations
whatever their old-style privacy.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

STATE = "ladderboard_state"
LEAD = "ladderboard_lead"
PUBLIC = ("score", "submission_status", "prediction_file_status", "submission_errors")
PRIVATE = ("met_cutoff", "ladderboard_index", STATE, LEAD)
STRING_LIMIT = 500
"""The longest string a Synapse annotation holds."""


class EarlierPending(RuntimeError):
    """An earlier submission of the submitter is not decided yet."""


def _write(path: Path, values: dict[str, Any]) -> None:
    path.write_text(json.dumps(values, sort_keys=True, indent=1) + "\n")


def score(args: argparse.Namespace) -> int:
    if args.decided is not None:  # decided before: what was recorded, again
        recorded = json.loads(args.decided.read_text())
        _write(args.results, {k: v for k, v in recorded.items() if k in PUBLIC})
        _write(args.private_results, {k: v for k, v in recorded.items() if k in PRIVATE})
        return 0
    if args.status != "VALIDATED":
        _write(args.results, {"submission_status": args.status,
                              "prediction_file_status": args.status})  # fmt: skip
        _write(args.private_results, {})
        return 0

    from ladderboard.engine.judge import judge
    from ladderboard.files.solution import Solution
    from ladderboard.files.submission import SubmissionError
    from ladderboard.rules.config import CompetitionConfig

    key = args.key_file.read_text().strip().lower()
    solution = Solution.from_csv(args.goldstandard.read_bytes())
    params = dict(json.loads(args.params)) if args.params else {}
    config = CompetitionConfig(
        score=args.score, mechanism=args.mechanism, mechanism_params=params
    ).explicit(solution.n_public)
    state = None if args.state is None else json.loads(args.state.read_text())
    lead = None if state is None or args.previousfile is None else args.previousfile.read_bytes()
    try:
        decided = judge(
            solution, config, key, args.team, args.submissionfile.read_bytes(),
            lead=lead, state=state,
        )  # fmt: skip
    except SubmissionError as exc:
        _write(args.results, {"submission_status": "INVALID", "prediction_file_status": "INVALID",
                              "submission_errors": f"{exc.code}: {exc}"})  # fmt: skip
        _write(args.private_results, {})
        return 0
    text = json.dumps(decided.state, separators=(",", ":"), sort_keys=True)
    if len(text) > STRING_LIMIT:
        raise SystemExit(f"the state is {len(text)} characters; an annotation holds {STRING_LIMIT}")
    lead_id = str(args.submissionid) if decided.met_cutoff else args.lead_id
    _write(args.results, {"score": decided.release, "submission_status": "SCORED",
                          "prediction_file_status": "SCORED"})  # fmt: skip
    _write(args.private_results, {"met_cutoff": decided.met_cutoff,
                                  "ladderboard_index": decided.index, STATE: text,
                                  LEAD: lead_id})  # fmt: skip
    return 0


def _annotations(status: Any) -> dict[str, Any]:
    """A ``SubmissionStatus``'s annotations (synapseclient's old style:
    ``annotations["stringAnnos"]``, ``["doubleAnnos"]``, ``["longAnnos"]``,
    each entry ``{key, value, isPrivate}``) as one dictionary."""
    found: dict[str, Any] = {}
    for entries in (status.get("annotations") or {}).values():
        if isinstance(entries, list):
            for entry in entries:
                found[entry["key"]] = entry["value"]
    return found


def submitter_of(submission: Any) -> str:
    """The submitter's id: the team's for a team submission, else the user's."""
    return str(submission.get("teamId") or submission["userId"])


def _recorded(values: dict[str, Any]) -> dict[str, Any]:
    """What a decided submission's annotations hold, as the score step wrote it."""
    out = {k: values[k] for k in PUBLIC + PRIVATE if k in values}
    if "met_cutoff" in out:
        out["met_cutoff"] = str(out["met_cutoff"]).lower() == "true"
    for key in ("score",):
        if key in out:
            out[key] = float(out[key])
    if "ladderboard_index" in out:
        out["ladderboard_index"] = int(out["ladderboard_index"])
    return out


def _settled(values: dict[str, Any]) -> bool:
    return STATE in values or "INVALID" in (
        values.get("submission_status"),
        values.get("prediction_file_status"),
    )


def prepare(syn: Any, submission_id: str, folder: Path) -> str:
    """Write in ``folder`` what the score step needs for ``submission_id``
    (module docstring); return the submitter. :class:`EarlierPending` if an
    earlier submission of the submitter is not settled yet."""
    current = syn.getSubmission(submission_id, downloadFile=False)
    submitter = submitter_of(current)
    (folder / "submitter.txt").write_text(submitter)
    latest: tuple[str, dict[str, Any]] | None = None
    pending = []
    for submission, status in syn.getSubmissionBundles(current["evaluationId"]):
        if submitter_of(submission) != submitter:
            continue
        values = _annotations(status)
        if str(submission["id"]) == str(submission_id):
            if STATE in values:
                _write(folder / "decided.json", _recorded(values))
                return submitter
            continue
        # Earlier: sent before, or at the same moment with a smaller id.
        if (submission["createdOn"], int(submission["id"])) > (
            current["createdOn"],
            int(current["id"]),
        ):
            continue
        if not _settled(values):
            pending.append(str(submission["id"]))
        elif STATE in values and (latest is None or submission["createdOn"] > latest[0]):
            latest = (submission["createdOn"], values)
    if pending:
        raise EarlierPending(f"earlier submissions of {submitter} not decided yet: {pending}")
    if latest is not None:
        values = latest[1]
        (folder / "previous_state.json").write_text(values[STATE])
        lead_id = values.get(LEAD)
        if lead_id:
            lead = syn.getSubmission(lead_id, downloadLocation=str(folder))
            downloaded = Path(lead["filePath"])
            target = folder / ("previous_submission" + "".join(downloaded.suffixes))
            downloaded.replace(target)
            (folder / "lead_id.txt").write_text(str(lead_id))
    return submitter


def previous(args: argparse.Namespace) -> int:
    import synapseclient

    syn = synapseclient.Synapse(configPath=str(args.synapse_config))
    syn.login(silent=True)
    deadline = time.monotonic() + args.wait
    while True:
        try:
            prepare(syn, args.submissionid, Path.cwd())
            return 0
        except EarlierPending as exc:
            if time.monotonic() > deadline:
                raise SystemExit(f"{exc}; waited {args.wait} s") from None
            time.sleep(args.poll)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    scoring = commands.add_parser("score", help="decide one submission")
    scoring.add_argument("-i", "--submissionid", required=True)
    scoring.add_argument("-f", "--submissionfile", type=Path, required=True)
    scoring.add_argument("-p", "--previousfile", type=Path, help="the lead's file, if any")
    scoring.add_argument("--lead-id", help="the lead's submission id, if any")
    scoring.add_argument("--state", type=Path, help="the state of the last decision, if any")
    scoring.add_argument("--decided", type=Path, help="what was recorded, for a decided one")
    scoring.add_argument("-g", "--goldstandard", type=Path, required=True)
    scoring.add_argument("-s", "--status", required=True, help="the validation's status")
    scoring.add_argument("-t", "--team", required=True, help="the submitter's id")
    scoring.add_argument("-k", "--key-file", type=Path, required=True)
    scoring.add_argument("--score", required=True)
    scoring.add_argument("--mechanism", required=True)
    scoring.add_argument("--params", help="the mechanism's parameters as a JSON object")
    scoring.add_argument("-r", "--results", type=Path, default=Path("results.json"))
    scoring.add_argument("--private-results", type=Path, default=Path("private.json"))
    before = commands.add_parser("previous", help="the submitter and the last decision")
    before.add_argument("-i", "--submissionid", required=True)
    before.add_argument("-c", "--synapse-config", type=Path, required=True)
    before.add_argument("--wait", type=float, default=3600.0, help="seconds to wait at most")
    before.add_argument("--poll", type=float, default=15.0, help="seconds between two looks")
    args = parser.parse_args(argv)
    return score(args) if args.command == "score" else previous(args)


if __name__ == "__main__":
    sys.exit(main())
