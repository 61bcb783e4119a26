"""The ladder step of a Synapse challenge workflow: a ladderboard mechanism
deciding one submission, in place of the scoring step of a ladder
workflow (``Sage-Bionetworks/ChallengeWorkflowTemplates``,
``score_ladder.cwl``).

Two commands, each a CWL tool beside this file:

``previous`` (``ladder_previous.cwl``)
    Finds, with the workflow's Synapse credentials, the submitter of the
    submission (the team, else the user) and the ``ladderboard_state``
    annotation of its latest submission decided before this one in the same
    queue; writes ``submitter.txt`` and, when there is one,
    ``previous_state.json``. The lead file itself comes from the usual step,
    ``challengeutils download-current-lead-submission``, which downloads the
    submitter's latest submission annotated ``prediction_file_status`` =
    ``SCORED`` and ``met_cutoff`` = ``true`` as ``previous_submission.csv``.

``score`` (``score_ladder.cwl``)
    Decides the file (:func:`ladderboard.engine.judge.judge`) and writes two
    flat JSON files for ``challengeutils annotate-submission``:

    - ``results.json``, public: ``score`` (the release), and
      ``submission_status`` and ``prediction_file_status`` (``SCORED``, or
      ``INVALID`` with ``submission_errors`` for a refused file; both names,
      as today's templates read the first and the lead query the second);
    - ``private.json``, the organiser's only (annotate it without
      ``--to_public``): ``met_cutoff`` (which the lead query reads; a noisy
      board's decision is not derivable from its releases), the file's
      number ``ladderboard_index`` and the state ``ladderboard_state``.

A submission whose validation status is not ``VALIDATED`` is passed through
unscored, as the templates' scoring steps do. The key is a file the
workflow downloads from a private Synapse entity, like the gold standard
(``--key-file``), never an argument. The state is as secret as the key: it
holds a lead's unrounded score and a threshold's noise.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

STATE = "ladderboard_state"
STRING_LIMIT = 500
"""The longest string a Synapse annotation holds."""


def _write(path: Path, values: dict[str, Any]) -> None:
    path.write_text(json.dumps(values, sort_keys=True, indent=1) + "\n")


def score(args: argparse.Namespace) -> int:
    from ladderboard.engine.judge import judge
    from ladderboard.files.solution import Solution
    from ladderboard.files.submission import SubmissionError
    from ladderboard.rules.config import CompetitionConfig

    if args.status != "VALIDATED":
        _write(args.results, {"submission_status": args.status,
                              "prediction_file_status": args.status})  # fmt: skip
        _write(args.private_results, {})
        return 0
    key = args.key_file.read_text().strip().lower()
    solution = Solution.from_csv(args.goldstandard.read_bytes())
    params = dict(json.loads(args.params)) if args.params else {}
    config = CompetitionConfig(
        score=args.score, mechanism=args.mechanism, mechanism_params=params
    ).explicit(solution.n_public)
    state = None if args.state is None else json.loads(args.state.read_text())
    lead = None if args.previousfile is None else args.previousfile.read_bytes()
    if state is None:
        lead = None  # a lead without a state was not decided by this step
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
    _write(args.results, {"score": decided.release, "submission_status": "SCORED",
                          "prediction_file_status": "SCORED"})  # fmt: skip
    _write(args.private_results, {"met_cutoff": decided.met_cutoff,
                                  "ladderboard_index": decided.index, STATE: text})  # fmt: skip
    return 0


def _annotation(status: Any, key: str) -> str | None:
    """A string annotation of a ``SubmissionStatus`` (synapseclient's old
    style: ``annotations["stringAnnos"]``, each ``{key, value, isPrivate}``)."""
    for entry in (status.get("annotations") or {}).get("stringAnnos", []):
        if entry.get("key") == key:
            return entry.get("value")
    return None


def submitter_of(submission: Any) -> str:
    """The submitter's id: the team's for a team submission, else the user's."""
    return str(submission.get("teamId") or submission["userId"])


def previous_state(syn: Any, submission_id: str) -> tuple[str, str | None]:
    """The submitter of ``submission_id`` and the state of its latest
    submission decided before it in the same queue."""
    current = syn.getSubmission(submission_id, downloadFile=False)
    submitter = submitter_of(current)
    latest: tuple[str, str] | None = None
    for submission, status in syn.getSubmissionBundles(current["evaluationId"]):
        if submitter_of(submission) != submitter or str(submission["id"]) == str(submission_id):
            continue
        state = _annotation(status, STATE)
        if state is None or submission["createdOn"] > current["createdOn"]:
            continue
        if latest is None or submission["createdOn"] > latest[0]:
            latest = (submission["createdOn"], state)
    return submitter, None if latest is None else latest[1]


def previous(args: argparse.Namespace) -> int:
    import synapseclient

    syn = synapseclient.Synapse(configPath=str(args.synapse_config))
    syn.login(silent=True)
    submitter, state = previous_state(syn, args.submissionid)
    Path("submitter.txt").write_text(submitter)
    if state is not None:
        Path("previous_state.json").write_text(state)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    scoring = commands.add_parser("score", help="decide one submission")
    scoring.add_argument("-f", "--submissionfile", type=Path, required=True)
    scoring.add_argument("-p", "--previousfile", type=Path, help="the lead's file, if any")
    scoring.add_argument("--state", type=Path, help="the state of the last decision, if any")
    scoring.add_argument("-g", "--goldstandard", type=Path, required=True)
    scoring.add_argument("-s", "--status", required=True, help="the validation's status")
    scoring.add_argument("-t", "--team", required=True, help="the submitter's id")
    scoring.add_argument("-k", "--key-file", type=Path, required=True)
    scoring.add_argument("--score", required=True)
    scoring.add_argument("--mechanism", required=True)
    scoring.add_argument("--params", help="the mechanism's parameters as a JSON object")
    scoring.add_argument("-r", "--results", type=Path, default=Path("results.json"))
    scoring.add_argument("--private-results", type=Path, default=Path("private.json"))
    before = commands.add_parser("previous", help="the submitter and the last decision's state")
    before.add_argument("-i", "--submissionid", required=True)
    before.add_argument("-c", "--synapse-config", type=Path, required=True)
    args = parser.parse_args(argv)
    return score(args) if args.command == "score" else previous(args)


if __name__ == "__main__":
    sys.exit(main())
