"""The competition engine: :class:`Competitions` over a store, the refusals it
raises, and the frozen results it returns
(:mod:`~ladderboard.engine.results`). The web edge and the CLI call it;
:mod:`ladderboard.engine.audit` runs a store's files again to check it.
"""

from ladderboard.engine.competitions import (
    DEFAULT_URL,
    Competitions,
    StoreUnavailable,
    migrate_store,
)
from ladderboard.engine.errors import (
    CompetitionClosed,
    CompetitionError,
    Conflict,
    DuplicateSubmission,
    NotFound,
    QuotaExceeded,
    TeamDisabled,
    VerificationError,
)
from ladderboard.engine.results import (
    CompetitionInfo,
    DuplicateFlag,
    SubmissionResult,
    SubmissionView,
    TeamInfo,
)

__all__ = [
    "DEFAULT_URL",
    "CompetitionClosed",
    "CompetitionError",
    "CompetitionInfo",
    "Competitions",
    "Conflict",
    "DuplicateFlag",
    "DuplicateSubmission",
    "NotFound",
    "QuotaExceeded",
    "StoreUnavailable",
    "SubmissionResult",
    "SubmissionView",
    "TeamDisabled",
    "TeamInfo",
    "VerificationError",
    "migrate_store",
]
