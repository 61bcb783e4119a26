"""A competition's boards run again from what an audit holds, with no store:
the solution file, the configuration, the revealed key and the commitment, and
the submissions with their files, each in its board's order.

Both audits use it: the organiser's over the store
(:func:`ladderboard.engine.audit.verify`) and anyone's over a published audit
bundle (:mod:`ladderboard.engine.audit_bundle`). A board is run again only
when every one of its files is at hand, since each release depends on all the
earlier ones of its board (Blum & Hardt 2015, Algorithm 1: the ladder's
release is a function of the best score so far); a board with a file missing
is reported as not run, never as verified.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ladderboard.encoding import canonical_state
from ladderboard.engine import instances
from ladderboard.engine.results import BOARD_SCOPE, commitment_of
from ladderboard.files.solution import Solution
from ladderboard.files.submission import parse_submission
from ladderboard.rules.boards import same_score
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.scoring import Scored, score_predictions

__all__ = [
    "AuditedSubmission",
    "Outcome",
    "Rerun",
    "check_commitment",
    "draws_note",
    "rerun",
    "run_boards",
    "scores_of_file",
]


@dataclass(frozen=True)
class AuditedSubmission:
    """One submission as the audit holds it: where it stands in which board,
    its file (``None`` when the audit holds only its hash) and what was
    stored of it. ``label`` names it in a difference."""

    label: str
    scope: str
    sequence: int
    team_id: int
    file: bytes | None
    released: float
    improved: bool
    public_raw: float
    private: float

    @classmethod
    def stored(
        cls, sub: Any, file: bytes, *, scores: Any = None, label: str = ""
    ) -> AuditedSubmission:
        """The audit's record of a stored submission row ``sub`` (its
        ``id``, ``scope``, ``sequence``, ``team_id``) with its ``file``
        bytes, and what was stored of it: the row's own scores, or those of
        ``scores`` (a row with ``public_score``, ``improved``,
        ``public_raw``, ``private_score``: a release a correction replaced).
        ``label`` goes before the submission's name in a difference."""
        kept = sub if scores is None else scores
        return cls(
            label=f"{label}submission {sub.id}",
            scope=sub.scope,
            sequence=sub.sequence,
            team_id=sub.team_id,
            file=file,
            released=kept.public_score,
            improved=kept.improved,
            public_raw=kept.public_raw,
            private=kept.private_score,
        )


@dataclass(frozen=True)
class Rerun:
    """What :func:`rerun` ran and found: the differences, the boards run again
    and their submissions, and the boards not run (a file missing)."""

    problems: list[str] = field(default_factory=list)
    scopes: list[str] = field(default_factory=list)
    submissions: int = 0
    not_run: dict[str, int] = field(default_factory=dict)  # scope → its submissions


def scores_of_file(solution: Solution, config: CompetitionConfig, data: bytes) -> Scored:
    """The scores of one submitted file, computed as the live engine does."""
    scoring = config.scoring()
    predictions = parse_submission(
        data, solution, max_bytes=2**62, probabilities=scoring.requires_probabilities
    )
    return score_predictions(
        scoring, solution.targets, predictions, solution.public_rows, solution.private_rows
    )


def draws_note(
    config: CompetitionConfig, recorded: Sequence[str | None], *, failed: bool
) -> tuple[str, bool] | None:
    """What the versions the draws were made with mean for an audit run
    here, whose rerun ``failed`` or not: a sentence, and whether it explains
    a failure (else it states a fact), or ``None`` when there is nothing to
    say. ``recorded`` holds each submission's versions
    (:data:`ladderboard.random.DRAW_VERSIONS` as stored; ``None`` or ``""``
    when not recorded)."""
    from ladderboard.mechanisms import MECHANISMS
    from ladderboard.mechanisms.traits import traits_of
    from ladderboard.random import DRAW_VERSIONS

    if not traits_of(MECHANISMS[config.mechanism]).stochastic:
        return None
    counts = Counter(versions or "versions not recorded" for versions in recorded)
    other = {v: n for v, n in counts.items() if v != DRAW_VERSIONS}
    if not other:
        return (
            (f"the draws were made with {DRAW_VERSIONS}, the versions here", False)
            if counts
            else None
        )
    made = "; ".join(f"{n} submission(s) with {v}" for v, n in sorted(other.items()))
    if not failed:
        return (
            f"the draws were made with {made}; this check made the same with {DRAW_VERSIONS}",
            False,
        )
    return (
        f"the draws were made with {made}, this check with {DRAW_VERSIONS}: numpy may change "
        "how it draws between releases (NEP 19), so a difference in a noisy or bootstrapped "
        "release may come from the versions; run the check again with the versions recorded",
        True,
    )


def check_commitment(solution_file: bytes, key_hex: str, commitment: str, where: str) -> str | None:
    """The difference between the published ``commitment`` and the one of the
    solution file, its split and the key, or ``None`` when they agree.
    ``where`` says where the solution and key came from."""
    solution = Solution.from_csv(solution_file)
    expected = commitment_of(
        hashlib.sha256(solution_file).hexdigest(), solution.split_sha256, key_hex
    )
    if expected == commitment:
        return None
    return f"commitment mismatch: published {commitment}, recomputed {expected} from {where}"


@dataclass(frozen=True)
class Outcome:
    """What a board's mechanism gives one submission: its release and
    decision, and the submission's raw public and private scores."""

    released: float
    improved: bool
    public_raw: float
    private: float


def run_boards(
    solution: Solution,
    config: CompetitionConfig,
    key_hex: str,
    submissions: Sequence[AuditedSubmission],
    *,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[Outcome], dict[str, Any]]:
    """Run each board of ``submissions`` (every file at hand, each board in
    its order) through a fresh mechanism keyed by ``key_hex`` as the live
    one is: each submission's :class:`Outcome`, in the order given, and each
    board's final state by scope. What :func:`rerun` compares with what was
    stored, and what a correction of the solution writes."""
    fresh, load = instances.factory(key_hex, config, solution)
    states: dict[str, Any] = {}
    mechanisms: dict[str, Any] = {}
    outcomes = []
    for done, sub in enumerate(submissions, 1):
        if sub.file is None:
            raise ValueError(f"{sub.label}: its file is not at hand")
        scored = scores_of_file(solution, config, sub.file)
        if sub.scope == BOARD_SCOPE:
            score, improved, states[BOARD_SCOPE] = instances.submit_per_rank(
                states.get(BOARD_SCOPE),
                fresh,
                load,
                sub.team_id,
                sub.sequence,
                scored.public_input,
                size=config.ranks,
            )
        else:
            mechanism = mechanisms.get(sub.scope) or fresh(sub.scope)
            mechanisms[sub.scope] = mechanism
            release = mechanism.submit(scored.public_input)
            score, improved = release.score, release.improved
            states[sub.scope] = instances.dump(mechanism)
        outcomes.append(Outcome(score, bool(improved), scored.public_raw, scored.private))
        if progress is not None:
            progress(done, len(submissions))
    return outcomes, states


def rerun(
    solution: Solution,
    config: CompetitionConfig,
    key_hex: str,
    submissions: Sequence[AuditedSubmission],
    *,
    states: Mapping[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Rerun:
    """Run each board of ``submissions`` again through a fresh mechanism keyed
    as the live one was, in the board's order, and compare every release,
    decision, public and private score bit for bit; with ``states``, each
    board's final state too. ``submissions`` come board by board, each board
    in its order (``sequence`` 1, 2, ...)."""
    boards: dict[str, list[AuditedSubmission]] = {}
    for sub in submissions:
        boards.setdefault(sub.scope, []).append(sub)
    result = Rerun()
    for scope, subs in boards.items():
        numbers = [s.sequence for s in subs]
        if numbers != list(range(1, len(subs) + 1)):
            result.problems.append(
                f"{scope}: the submissions are numbered {numbers[:10]}, not 1, 2, ... in order"
            )
        if any(s.file is None for s in subs):
            result.not_run[scope] = len(subs)
    runnable = [s for s in submissions if s.scope not in result.not_run]
    outcomes, again = run_boards(solution, config, key_hex, runnable, progress=progress)
    for sub, outcome in zip(runnable, outcomes, strict=True):
        for name, stored, recomputed in (
            ("released score", sub.released, outcome.released),
            ("public score", sub.public_raw, outcome.public_raw),
            ("private score", sub.private, outcome.private),
        ):
            if not same_score(stored, recomputed):
                result.problems.append(
                    f"{sub.label}: {name} stored {stored!r}, recomputed {recomputed!r}"
                )
        if bool(sub.improved) != bool(outcome.improved):
            result.problems.append(
                f"{sub.label}: improved stored {sub.improved}, recomputed {outcome.improved}"
            )
    if states is not None:
        for scope, state in again.items():
            # As JSON holds it, each array by the values it holds, not by
            # its compressed bytes (ladderboard.encoding.canonical_state).
            try:
                stored = canonical_state(states.get(scope))
            except ValueError as exc:  # a bundle's state that cannot be read
                result.problems.append(f"{scope}: the stored mechanism state is unreadable: {exc}")
                continue
            if stored != canonical_state(json.loads(json.dumps(state))):
                result.problems.append(
                    f"{scope}: the stored mechanism state differs from the re-run"
                )
        for scope, state in states.items():
            if state is not None and scope not in boards:
                result.problems.append(f"{scope}: a board with a stored state and no submissions")
    return Rerun(result.problems, list(again), len(runnable), result.not_run)
