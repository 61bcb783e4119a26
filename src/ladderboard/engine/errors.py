"""What the engine refuses, and why. The web edge maps each class to an HTTP
status; nothing below it knows HTTP."""

from __future__ import annotations

__all__ = [
    "CompetitionClosed",
    "CompetitionError",
    "Conflict",
    "DuplicateSubmission",
    "NotFound",
    "QuotaExceeded",
    "TeamDisabled",
    "VerificationError",
]


class CompetitionError(Exception):
    """Base class of the engine's refusals; ``code`` is short and stable."""

    code = "error"


class NotFound(CompetitionError, LookupError):
    code = "not_found"


class Conflict(CompetitionError):
    code = "conflict"


class DuplicateSubmission(Conflict):
    """A team resubmitted predictions identical to one of its own."""

    code = "duplicate"


class QuotaExceeded(CompetitionError):
    code = "quota"


class CompetitionClosed(CompetitionError):
    code = "closed"


class TeamDisabled(CompetitionError):
    """The organiser disabled the team: it may not submit or select."""

    code = "disabled"


class VerificationError(CompetitionError):
    """A stored release is not what running its file again gives, bit for bit."""

    code = "verification"
