"""The files of a competition: the holdout (solution file) and submissions.

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
``gunzip_limited``                 a gzip member, decompressed up to a limit
``BOM``, ``GZIP_MAGIC``            the bytes a UTF-8 byte-order mark and gzip start with
``DEFAULT_MAX_BYTES``              the largest file by default (50 MiB)
=================================  ================================================
"""

from ladderboard.files._csv import BOM, GZIP_MAGIC, CsvProblem, gunzip_limited
from ladderboard.files.solution import USAGE_VALUES, Solution, SolutionError
from ladderboard.files.submission import (
    DEFAULT_MAX_BYTES,
    SubmissionError,
    canonical_predictions_hash,
    parse_submission,
    submission_sha256,
)

__all__ = [
    "BOM",
    "DEFAULT_MAX_BYTES",
    "GZIP_MAGIC",
    "USAGE_VALUES",
    "CsvProblem",
    "Solution",
    "SolutionError",
    "SubmissionError",
    "canonical_predictions_hash",
    "gunzip_limited",
    "parse_submission",
    "submission_sha256",
]
