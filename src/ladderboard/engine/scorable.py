"""The refusals of a file whose scores no board can rank, shared by the
server's submissions (:mod:`ladderboard.engine.targets`) and
``ladderboard judge`` (:mod:`ladderboard.engine.judge`), which runs with no
store."""

from __future__ import annotations

import math

from ladderboard.files.submission import SubmissionError
from ladderboard.rules.config import Scoring
from ladderboard.rules.scoring import Scored

__all__ = ["refuse_unscorable"]


def refuse_unscorable(scoring: Scoring, scored: Scored) -> None:
    """Refuse (:class:`SubmissionError`) a file whose scores no board can
    rank: whether a file is scored is decided on all its scored rows
    together, never on one part, so that no refusal tells a public row from
    a private one (see :meth:`ladderboard.engine.targets.Target.score`)."""
    name = scoring.name
    if math.isnan(scored.overall):
        raise SubmissionError(
            "undefined_score",
            f"the {name} of these predictions is undefined (for example, a correlation "
            "of predictions that are all the same): vary the predictions",
        )
    if not math.isfinite(scored.overall):
        kind = "loss" if scoring.kind == "loss" else "score"
        raise SubmissionError(
            "score_not_finite",
            f"the {name} {kind} of these predictions is too large to compute (a prediction "
            "far outside the targets' range): bring the predictions near the targets",
        )
    # What is left is a part the metric is undefined on and has no finite worst
    # value for (r2 of a part whose targets are all the same), whatever the file.
    if not (math.isfinite(scored.public_raw) and math.isfinite(scored.private)):
        raise SubmissionError(
            "undefined_score",
            f"the {name} of these predictions is undefined on the rows this "
            "competition scores: tell the organiser",
        )
