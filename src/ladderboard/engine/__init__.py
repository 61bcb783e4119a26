"""The competition engine: :class:`Competitions` over a store, the refusals it
raises, and the frozen results it returns
(:mod:`~ladderboard.engine.results`). The web edge and the CLI call it;
:mod:`ladderboard.engine.audit` runs a store's files again to check it.

The names below are imported when first used, not with the package: the
audit of a published bundle (:mod:`ladderboard.engine.audit_bundle`) runs
without the store, and so without SQLAlchemy installed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_MODULE_OF = {
    **dict.fromkeys(
        ("DEFAULT_URL", "Competitions", "StoreUnavailable", "migrate_store"), "competitions"
    ),
    **dict.fromkeys(
        (
            "CompetitionClosed",
            "CompetitionError",
            "Conflict",
            "DuplicateSubmission",
            "NotFound",
            "QuotaExceeded",
            "TeamDisabled",
            "VerificationError",
        ),
        "errors",
    ),
    **dict.fromkeys(
        ("CompetitionInfo", "DuplicateFlag", "SubmissionResult", "SubmissionView", "TeamInfo"),
        "results",
    ),
}

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


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # found once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
