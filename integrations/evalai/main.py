"""A ladderboard mechanism as an EvalAI challenge's evaluation script, for
remote evaluation: the host's machine scores each file, and a ladderboard
store there (SQLite by default) keeps every team's mechanism, quota and
history, so the host also has ladderboard's desk, export, audit bundle and
``verify`` for the challenge.

Each EvalAI phase is a ladderboard competition of the same slug as the
phase's codename, made once from a ladderboard bundle (its solution is the
phase's test annotation file, its settings the mechanism and score)::

    python main.py create dev --from bundle/ --db sqlite:///ladderboard.db

Each submission is then a file of the team named by EvalAI's participant
team id (``team-5`` for team 5), sent to the engine with the submission's
id as its idempotency key, so that a submission evaluated twice (a worker
restarted, a message delivered again) is decided once and gets the same
answer. What is returned has two splits:

- ``public`` (visibility 3, everyone): the mechanism's release, what the
  team's file is shown as on the leaderboard;
- ``host`` (visibility 1, hosts only): the file's exact score on the
  private rows, the one the final ranking is made of, which the teams
  never see before the host publishes.

Two conventions call it (``Cloud-CV/EvalAI``):

- :func:`evaluate`, with the hosted worker's arguments
  (``scripts/workers/submission_worker.py`` calls ``evaluate(annotation,
  user_file, phase_codename, submission_metadata=...)``, the metadata being
  the ``SubmissionSerializer`` fields: ``id``, ``participant_team`` (the
  team's integer key), ``participant_team_name``, ...) and its answer,
  ``{"result": [{split: {metric: value}}], "submission_result": ...}``;
- :func:`evaluate_remote`, with the remote evaluation starter's arguments
  (``EvalAI-Starters/remote_challenge_evaluation/evaluate.py``:
  ``evaluate(user_file, phase_codename, test_annotation_file=None,
  **kwargs)``) and the answer the host's ``update_submission`` call sends
  (``[{"split", "show_to_participant", "accuracies"}]``). The starter's
  ``main.py`` passes no metadata: give it the submission it fetched,
  ``evaluate_remote(path, codename, annotation, submission_metadata=submission)``.

A file the engine refuses (unreadable, a duplicate, over a quota, after the
close) raises :class:`Refused` with the engine's reason, and EvalAI marks
the submission failed with that message; nothing is counted for it.

Settings, from the environment: ``LADDERBOARD_DATABASE_URL`` (default
``sqlite:///ladderboard.db`` in the working folder), the split codenames
``LADDERBOARD_EVALAI_PUBLIC_SPLIT`` and ``LADDERBOARD_EVALAI_HOST_SPLIT``
(default ``public`` and ``host``) and the leaderboard's metric label
``LADDERBOARD_EVALAI_METRIC`` (default ``score``), which must be among the
labels of the phase's leaderboard schema.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from functools import cache
from pathlib import Path
from typing import Any

from ladderboard.engine import Competitions
from ladderboard.engine.errors import CompetitionError, NotFound
from ladderboard.engine.judge import scored_file
from ladderboard.files.solution import Solution
from ladderboard.files.submission import SubmissionError

DEFAULT_URL = "sqlite:///ladderboard.db"


class Refused(Exception):
    """The file is not scored; the message says why (EvalAI shows it)."""


def _setting(name: str, default: str) -> str:
    return os.environ.get(name, "").strip() or default


@cache
def _engine(url: str) -> Competitions:
    return Competitions.open(url)


def _team(metadata: dict[str, Any] | None) -> tuple[str, str]:
    """The team's name in the store, and the submission's id, from EvalAI's
    submission metadata."""
    if not metadata or metadata.get("participant_team") is None or metadata.get("id") is None:
        raise Refused(
            "the submission's metadata is missing: pass submission_metadata=submission "
            "(EvalAI's submission, with its id and participant_team)"
        )
    return f"team-{int(metadata['participant_team'])}", str(metadata["id"])


_MATCHED: set[tuple[str, str, str]] = set()
"""(store, slug, SHA-256) of the annotation files found to be the solution."""


def _same_solution(engine: Competitions, url: str, slug: str, annotation: Path | None) -> None:
    """Refuse a test annotation file other than the competition's solution:
    the releases would be decided on one gold standard and the host's score
    computed on another. A file is read and compared once (by its hash)."""
    if annotation is None:
        return
    data = annotation.read_bytes()
    seen = (url, slug, hashlib.sha256(data).hexdigest())
    if seen in _MATCHED:
        return
    if Solution.from_csv(data).to_csv() != engine.solution(slug).to_csv():
        raise Refused(
            f"the test annotation file is not the solution of ladderboard competition {slug!r}; "
            "correct the competition's solution with `ladderboard competition correct`"
        )
    _MATCHED.add(seen)


def decide(
    phase_codename: str,
    user_submission_file: str | os.PathLike[str],
    metadata: dict[str, Any] | None,
    test_annotation_file: str | os.PathLike[str] | None = None,
) -> tuple[float, float]:
    """The release shown for the file and its exact private score."""
    url = _setting("LADDERBOARD_DATABASE_URL", DEFAULT_URL)
    engine = _engine(url)
    slug = phase_codename
    try:
        info = engine.competition(slug)
    except NotFound:
        raise Refused(
            f"no ladderboard competition {slug!r} for this phase: create it once with "
            f"`python main.py create {slug} --from BUNDLE`"
        ) from None
    annotation = None if test_annotation_file is None else Path(test_annotation_file)
    _same_solution(engine, url, slug, annotation)
    team, submission_id = _team(metadata)
    data = Path(user_submission_file).read_bytes()
    try:
        engine.team(slug, team)
    except NotFound:
        try:
            engine.add_team(slug, team)
        except CompetitionError:
            engine.team(slug, team)  # another worker added it meanwhile
    try:
        result = engine.submit(
            slug, team, data, idempotency_key=f"evalai-{submission_id}",
            filename=Path(user_submission_file).name,
        )  # fmt: skip
    except (SubmissionError, CompetitionError) as exc:
        raise Refused(str(exc)) from None
    private = scored_file(engine.solution(slug), info.config, data).private
    return float(result.public_score), float(private)


def evaluate(test_annotation_file, user_submission_file, phase_codename, **kwargs):
    """EvalAI's hosted convention: the answer its submission worker reads."""
    release, private = decide(
        phase_codename, user_submission_file, kwargs.get("submission_metadata"),
        test_annotation_file,
    )  # fmt: skip
    metric = _setting("LADDERBOARD_EVALAI_METRIC", "score")
    public = {_setting("LADDERBOARD_EVALAI_PUBLIC_SPLIT", "public"): {metric: release}}
    host = {_setting("LADDERBOARD_EVALAI_HOST_SPLIT", "host"): {metric: private}}
    return {"result": [public, host], "submission_result": public}


def evaluate_remote(user_submission_file, phase_codename, test_annotation_file=None, **kwargs):
    """EvalAI's remote convention: the ``result`` the host's
    ``update_submission`` call sends."""
    release, private = decide(
        phase_codename, user_submission_file, kwargs.get("submission_metadata"),
        test_annotation_file,
    )  # fmt: skip
    metric = _setting("LADDERBOARD_EVALAI_METRIC", "score")
    return {
        "result": [
            {
                "split": _setting("LADDERBOARD_EVALAI_PUBLIC_SPLIT", "public"),
                "show_to_participant": True,
                "accuracies": {metric: release},
            },
            {
                "split": _setting("LADDERBOARD_EVALAI_HOST_SPLIT", "host"),
                "show_to_participant": False,
                "accuracies": {metric: private},
            },
        ]
    }


def create(slug: str, bundle_path: Path, url: str) -> str:
    """Make the phase's competition in the store from a ladderboard bundle."""
    from ladderboard.bundle import read_bundle

    bundle = read_bundle(bundle_path)
    solution = Solution.from_csv(bundle.solution)
    engine = Competitions.open(url)
    try:
        info = engine.create(
            slug,
            solution,
            bundle.config().explicit(solution.n_public),
            title=bundle.title,
            description=bundle.overview,
            rules=bundle.rules,
            files=bundle.data_files,
        )
    finally:
        engine.dispose()
    return info.commitment


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Make a phase's ladderboard competition.")
    sub = parser.add_subparsers(dest="command", required=True)
    made = sub.add_parser("create", help="make the competition of a phase from a bundle")
    made.add_argument("phase_codename")
    made.add_argument("--from", dest="bundle", type=Path, required=True)
    made.add_argument("--db", default=_setting("LADDERBOARD_DATABASE_URL", DEFAULT_URL))
    args = parser.parse_args(argv)
    commitment = create(args.phase_codename, args.bundle, args.db)
    print(f"created {args.phase_codename!r} in {args.db}; commitment {commitment}")
    print("publish the commitment to the teams before the first submission")
    return 0


if __name__ == "__main__":
    sys.exit(main())
