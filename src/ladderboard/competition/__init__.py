"""Competitions: the holdout (solution file), submission parsing, and the engine on top.

=================================  ================================================
``Solution``                       the holdout: ids, targets, the public/private
                                   split; read from a Kaggle-style solution.csv
                                   or drawn from labels; writes the sample
                                   submission and the canonical file the audit
                                   commitment hashes
``parse_submission``               a submission file (CSV or gzip) as predictions
                                   aligned with the solution, or a
                                   ``SubmissionError`` with a stable ``code``
``submission_sha256``              hash of the bytes received
``canonical_predictions_hash``     hash of the aligned predictions (identical
                                   resubmissions)
=================================  ================================================
"""

from ladderboard.competition.solution import USAGE_VALUES, Solution, SolutionError
from ladderboard.competition.submission import (
    SubmissionError,
    canonical_predictions_hash,
    parse_submission,
    submission_sha256,
)

__all__ = [
    "USAGE_VALUES",
    "Solution",
    "SolutionError",
    "SubmissionError",
    "canonical_predictions_hash",
    "parse_submission",
    "submission_sha256",
]
