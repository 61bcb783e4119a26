"""A ladderboard mechanism as a Hugging Face Competitions custom metric.

For a competition whose teams upload prediction files (``"COMPETITION_TYPE":
"generic"``). Put this file in the competition's private dataset repository
as ``metric.py`` and set ``"EVAL_METRIC": "custom"``, ``"SCORING_METRIC":
"score"`` and ``"EVAL_HIGHER_IS_BETTER"`` to the direction of ``SCORE``
(``false`` for a loss) in its ``conf.json``. The competition's backend
Space, which evaluates each submission in turn, then imports it and calls
``compute(params)`` (``huggingface/competitions``, ``compute_metrics.py``),
``params`` carrying ``competition_id``, ``team_id``, ``submission_id`` and
the organiser's ``token``, which can write that repository. The Space needs
ladderboard beside the backend: add ``RUN pip install "ladderboard[audit]"``
to its ``Dockerfile``, after its ``FROM huggingface/competitions``.

Script competitions are refused: each of their submissions is evaluated in
a Space that first runs the team's own code, where the key would be within
the team's reach. It answers
``{"public_score": {"score": release}, "private_score": {"score": exact}}``:
the public board shows the mechanism's release, never the file's exact
public score, and the private board (shown when the competition ends) the
file's exact score on the private rows.

What it keeps, in the private repository beside the submissions:
``ladderboard/teams/TEAM_ID.json``, each team's record: every decision by
submission id (its release, its number in the team's sequence, its exact
private score), the team's lead submission, and the state of its last
decision (:func:`ladderboard.engine.judge.judge`; as secret as the key, in
a repository the teams cannot read). The lead's file is the team's own
submission already in the repository, so nothing else is stored.

The key is never in the repository: it is the ``LADDERBOARD_JUDGE_KEY``
secret of the competition's backend Space (32 hexadecimal digits, made once
with ``python -c 'import secrets; print(secrets.token_hex(16))'``). Settings
are this file's constants, ``SCORE`` and ``MECHANISM``.

Concurrent writes: the backend writes the same repository while a decision
is made (each new submission's file and the teams' ``submission_info``),
and an organiser may run more than one backend. Each decision reads the
team's record at one commit of the repository and writes it back with that
commit as ``parent_commit``; the Hub refuses the write (HTTP 412) if the
repository moved meanwhile, and the decision is made again from the record
as it is now, so that no decision is lost or made twice. A submission decided before (an
evaluation run twice) gets the answer recorded, and nothing is decided.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Protocol

from ladderboard.engine.judge import judge, scored_file
from ladderboard.files.solution import Solution
from ladderboard.recommended import RECOMMENDED
from ladderboard.rules.config import CompetitionConfig

SCORE = "zero_one"
"""The loss or metric (``ladderboard scores`` lists them)."""
MECHANISM = RECOMMENDED.mechanism
"""A registered mechanism (``ladder``, ``ladder-boot``, ``shaky-ladder``, ...); ladderboard's
recommended one unless changed, with its parameters at the solution's number
of public rows."""
METRIC = "score"
"""The key of the scores: ``SCORING_METRIC`` in ``conf.json``."""
RECORDS = "ladderboard/teams"
ATTEMPTS = 20


class Moved(Exception):
    """The repository changed since the commit a write was based on."""


class Repository(Protocol):
    """The three things the metric asks of the competition's repository."""

    def head(self) -> str:
        """The current commit of the main branch."""

    def read(self, path: str, revision: str) -> bytes | None:
        """The file at ``path`` as of ``revision``; ``None`` if absent."""

    def write(self, path: str, data: bytes, parent: str, message: str) -> None:
        """Commit ``data`` at ``path`` on top of ``parent``; :class:`Moved`
        if the branch is no longer at ``parent``."""


@dataclass
class HubRepository:
    """The competition's dataset repository on the Hub (``huggingface_hub``)."""

    repo_id: str
    token: str

    def head(self) -> str:
        from huggingface_hub import HfApi

        return HfApi(token=self.token).repo_info(self.repo_id, repo_type="dataset").sha

    def read(self, path: str, revision: str) -> bytes | None:
        from huggingface_hub import hf_hub_download
        from huggingface_hub.utils import EntryNotFoundError

        try:
            local = hf_hub_download(
                repo_id=self.repo_id, filename=path, repo_type="dataset",
                revision=revision, token=self.token,
            )  # fmt: skip
        except EntryNotFoundError:
            return None
        with open(local, "rb") as handle:
            return handle.read()

    def write(self, path: str, data: bytes, parent: str, message: str) -> None:
        from huggingface_hub import CommitOperationAdd, HfApi
        from huggingface_hub.utils import HfHubHTTPError

        try:
            HfApi(token=self.token).create_commit(
                repo_id=self.repo_id,
                repo_type="dataset",
                operations=[CommitOperationAdd(path_in_repo=path, path_or_fileobj=data)],
                commit_message=message,
                parent_commit=parent,
            )
        except HfHubHTTPError as exc:
            # The Hub answers 412 when the branch is no longer at the parent;
            # its message has changed between versions, its status has not.
            if exc.response is not None and exc.response.status_code == 412:
                raise Moved(str(exc)) from None
            raise


def _key() -> str:
    key = os.environ.get("LADDERBOARD_JUDGE_KEY", "").strip().lower()
    if len(key) != 32 or any(c not in "0123456789abcdef" for c in key):
        raise RuntimeError(
            "set the Space secret LADDERBOARD_JUDGE_KEY to the competition's key (32 hex digits)"
        )
    return key


def _file(repo: Repository, revision: str, team_id: str, submission_id: str) -> bytes:
    path = f"submissions/{team_id}-{submission_id}.csv"
    data = repo.read(path, revision)
    if data is None:
        raise FileNotFoundError(f"{path} is not in the competition's repository")
    return data


def _check_direction(conf: bytes | None, config: CompetitionConfig) -> None:
    """Refuse a ``conf.json`` whose boards would rank the other way than the
    score: the Competitions backend sorts by ``EVAL_HIGHER_IS_BETTER``,
    ``true`` unless set."""
    settings = json.loads(conf) if conf else {}
    higher = settings.get("EVAL_HIGHER_IS_BETTER", True)
    higher = higher if isinstance(higher, bool) else str(higher).lower() in ("1", "true")
    wanted = config.scoring().direction.greater_is_better
    if higher != wanted:
        raise RuntimeError(
            f"conf.json ranks with EVAL_HIGHER_IS_BETTER={str(higher).lower()}, but {SCORE} is "
            f"better {'higher' if wanted else 'lower'}: set it to {str(wanted).lower()}"
        )


def decide(repo: Repository, team_id: str, submission_id: str, key_hex: str) -> dict[str, Any]:
    """The team's record's entry for ``submission_id``, decided now if it
    was not before, and the record written back under optimistic
    concurrency."""
    record_path = f"{RECORDS}/{team_id}.json"
    for _ in range(ATTEMPTS):
        revision = repo.head()
        raw = repo.read(record_path, revision)
        record = json.loads(raw) if raw else {"decisions": {}, "lead": None, "state": None}
        if submission_id in record["decisions"]:
            return record["decisions"][submission_id]
        solution_bytes = repo.read("solution.csv", revision)
        if solution_bytes is None:
            raise FileNotFoundError("solution.csv is not in the competition's repository")
        solution = Solution.from_csv(solution_bytes)
        config = CompetitionConfig(score=SCORE, mechanism=MECHANISM).explicit(solution.n_public)
        _check_direction(repo.read("conf.json", revision), config)
        data = _file(repo, revision, team_id, submission_id)
        lead = None if record["lead"] is None else _file(repo, revision, team_id, record["lead"])
        decided = judge(solution, config, key_hex, team_id, data, lead=lead, state=record["state"])
        entry = {
            "release": decided.release,
            "index": decided.index,
            "private": scored_file(solution, config, data).private,
        }
        record["decisions"][submission_id] = entry
        record["state"] = decided.state
        if decided.met_cutoff:
            record["lead"] = submission_id
        body = json.dumps(record, sort_keys=True, indent=1).encode()
        try:
            repo.write(record_path, body, revision, f"ladderboard: decide {submission_id}")
        except Moved:
            continue
        return entry
    raise RuntimeError(f"the repository kept moving: {ATTEMPTS} attempts to record a decision")


def compute(params: Any, repo: Repository | None = None) -> dict[str, dict[str, float]]:
    """The Competitions backend's call: the release for the public board,
    the exact private score for the private one."""
    if getattr(params, "competition_type", "generic") != "generic":
        raise RuntimeError(
            "ladderboard's metric judges uploaded prediction files (a generic competition): a "
            "script competition runs the team's code where the key would be"
        )
    if repo is None:
        repo = HubRepository(params.competition_id, params.token)
    entry = decide(repo, str(params.team_id), str(params.submission_id), _key())
    return {
        "public_score": {METRIC: float(entry["release"])},
        "private_score": {METRIC: float(entry["private"])},
    }
