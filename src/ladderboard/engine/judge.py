"""One decision of a competition's mechanism with no store: what a platform
that keeps its own submissions (Synapse, Hugging Face, EvalAI, a GitHub
workflow) calls for each file, through ``ladderboard judge``.

A team's board is its mechanism run over the team's files in order, each
mechanism keyed by the competition's key and the team's label as the
server keys it (:func:`ladderboard.engine.instances.factory`). A mechanism's
state between two files is small but for one array: the lead file's
public losses (or predictions), which the platform holds already as the
lead file. So the state a platform keeps (:attr:`Judgement.state`) is the
mechanism's state with each such array replaced by the SHA-256 of its
values, and the next decision takes that state with the lead file back:
the array is made from the lead file again and checked against the hash
(a wrong lead file is refused, never used). What the state keeps beside the
lead is the mechanism's own: the lead's unrounded score and number, a
ladder's step count, the Shaky Ladder's released value, threshold noise and
update count (Hardt 2017, Algorithm 1). It holds no per-sample loss, and the
lead's array is named by its HMAC under the key, not a plain hash (which a
guess of a small holdout's labels could be checked against); but an
unrounded score and a threshold's noise tell more than the releases do, so
the state is kept as secret as the key, never shown to the teams.

For the same files in the same order, with the same key and label, the
releases and decisions are bit for bit those of the server's per-team board
(``tests/engine/test_judge.py`` plays every competition mechanism both ways).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

import numpy as np

from ladderboard.encoding import decode_array, encode_array, payload
from ladderboard.engine import instances
from ladderboard.engine.results import team_scope
from ladderboard.engine.scorable import refuse_unscorable
from ladderboard.files.solution import Solution
from ladderboard.files.submission import parse_submission
from ladderboard.mechanisms import Mechanism
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.scoring import Scored, check_targets, score_predictions

__all__ = ["JUDGE_FORMAT", "Judgement", "LeadMismatch", "judge", "portable_state", "scored_file"]

JUDGE_FORMAT = 1
"""The version of :attr:`Judgement.state`'s form (its ``"judge"`` key)."""


class LeadMismatch(ValueError):
    """The lead file given is not the one the state was made with."""


@dataclass(frozen=True)
class Judgement:
    """One decision.

    Attributes
    ----------
    release : float
        The score to show the team.
    met_cutoff : bool
        Whether the file is the team's new lead: the organiser's record (a
        noisy board's decision is not derivable from its releases, and is
        not the team's to see). The next decision takes this file as
        ``lead`` when true, else the lead before it.
    index : int
        The file's number in the team's sequence, 1, 2, ...
    state : dict
        What the platform keeps for the team's next decision (JSON).
    """

    release: float
    met_cutoff: bool
    index: int
    state: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "release": self.release,
            "met_cutoff": self.met_cutoff,
            "index": self.index,
            "state": self.state,
        }


def scored_file(solution: Solution, config: CompetitionConfig, data: bytes) -> Scored:
    """``data``'s scores as the server computes them, with the server's
    refusals (:class:`SubmissionError`, each with its code): a file it
    cannot read, and one whose score of all the scored rows is not a
    finite number."""
    scoring = config.scoring()
    predictions = parse_submission(
        data,
        solution,
        max_bytes=config.max_bytes,
        probabilities=scoring.requires_probabilities,
        classes=solution.classes if scoring.takes_labels else None,
    )
    scored = score_predictions(
        scoring, solution.targets, predictions, solution.public_rows, solution.private_rows
    )
    refuse_unscorable(scoring, scored)
    return scored


def _digest(array: np.ndarray, key_hex: str) -> str:
    """The lead array's HMAC-SHA-256 under the competition's key: a plain
    hash of 0/1 losses could be matched by guessing them on a small holdout."""
    raw = np.ascontiguousarray(array).tobytes()
    return hmac.new(
        bytes.fromhex(key_hex), b"ladderboard/judge/lead|" + raw, hashlib.sha256
    ).hexdigest()


def _swap_arrays(state: Any, swap: Any) -> Any:
    """``state`` with each ``{"array": encoded}`` replaced by ``swap(encoded)``
    and each ``{"lead_sha256": digest}`` by ``swap(digest)``."""
    if isinstance(state, dict):
        if len(state) == 1 and ("array" in state or "lead_sha256" in state):
            return swap(state)
        return {key: _swap_arrays(value, swap) for key, value in state.items()}
    if isinstance(state, list):
        return [_swap_arrays(value, swap) for value in state]
    return state


def portable_state(state: dict[str, Any], key_hex: str) -> dict[str, Any]:
    """A mechanism's state as the server stores it, as a platform keeps it:
    each array by its HMAC under the competition's key ``key_hex`` (the lead
    file gives the array back)."""

    def to_digest(entry: dict) -> dict:
        if "lead_sha256" in entry:
            return entry
        if payload(entry["array"]) is None:
            raise ValueError("a state whose arrays are stored apart: fill them first")
        return {"lead_sha256": _digest(decode_array(entry["array"]), key_hex)}

    # _swap_arrays builds every dict and list anew: ``state`` is left as it is.
    return {"judge": JUDGE_FORMAT, **_swap_arrays(state, to_digest)}


def _loaded(
    state: dict[str, Any], lead: Scored | None, fresh: Any, load: Any, label: str, key_hex: str
) -> Mechanism:
    """The mechanism of ``state`` with the lead's arrays made from ``lead``
    again, each checked against the hash the state keeps."""
    if state.get("judge") != JUDGE_FORMAT:
        raise ValueError(f"not a judge state of format {JUDGE_FORMAT}: {state.get('judge')!r}")
    kept = {key: value for key, value in state.items() if key != "judge"}
    arrays: dict[str, np.ndarray] | None = None

    def from_lead(entry: dict) -> dict:
        nonlocal arrays
        if lead is None:
            raise LeadMismatch("this state needs the team's lead file (--lead)")
        if arrays is None:
            # The lead's arrays as the mechanism keeps them: those of a fresh
            # mechanism that took the lead as its first file, which it keeps
            # as its best whatever it releases.
            probe = fresh(label)
            probe.submit(lead.public_input)
            arrays = {}
            for value in probe.get_state()["vars"].values():
                if isinstance(value, dict) and "array" in value:
                    array = decode_array(value["array"])
                    arrays[_digest(array, key_hex)] = array
        found = arrays.get(entry["lead_sha256"])
        if found is None:
            raise LeadMismatch(
                "the lead file is not the one this state was made with: give the file of the "
                "team's last submission whose met_cutoff was true"
            )
        return {"array": encode_array(found)}

    return load(_swap_arrays(kept, from_lead), label)


def judge(
    solution: Solution,
    config: CompetitionConfig,
    key_hex: str,
    team: str | int,
    submission: bytes,
    *,
    lead: bytes | None = None,
    state: dict[str, Any] | None = None,
) -> Judgement:
    """Decide the team's next file: ``submission``, after the files that
    left ``state`` (``None`` for the team's first), whose lead file is
    ``lead``. ``team`` labels the team's stream of the key as the server's
    per-team board labels it (its team id there). ``config`` is the
    competition's, every mechanism parameter written out
    (:meth:`CompetitionConfig.explicit`).

    Raises :class:`SubmissionError` for a file the server would refuse
    (nothing is decided), :class:`LeadMismatch` for a lead file that is not
    the state's, ``ValueError`` for a state or a setting that cannot be used."""
    if config.board != "per-team":
        raise ValueError("judge decides for per-team boards: a per-rank board is shared")
    check_targets(config.scoring(), solution.targets)
    fresh, load = instances.factory(key_hex, config, solution)
    label = team_scope(team)  # type: ignore[arg-type]  # any label keys a stream
    scored = scored_file(solution, config, submission)
    lead_scored = None if lead is None else scored_file(solution, config, lead)
    mechanism = (
        fresh(label) if state is None else _loaded(state, lead_scored, fresh, load, label, key_hex)
    )
    release = mechanism.submit(scored.public_input)
    return Judgement(
        release=float(release.score),
        met_cutoff=bool(release.improved),
        index=int(release.index),
        state=portable_state(instances.dump(mechanism), key_hex),
    )
