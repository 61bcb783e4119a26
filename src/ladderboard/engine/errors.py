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
    """A team's quota is spent. ``daily`` says that it is the daily quota,
    which resets at the next UTC midnight; the total quota and the cap on
    invalid files never reset, so asking again later cannot help."""

    code = "quota"

    def __init__(self, message: str, *, daily: bool = False) -> None:
        super().__init__(message)
        self.daily = daily

    def __reduce__(self):  # keep ``daily`` through pickling (worker processes)
        return _quota_exceeded, (str(self), self.daily)


def _quota_exceeded(message: str, daily: bool) -> QuotaExceeded:
    return QuotaExceeded(message, daily=daily)


class CompetitionClosed(CompetitionError):
    code = "closed"


class TeamDisabled(CompetitionError):
    """The organiser disabled the team: it may not submit or select."""

    code = "disabled"


class VerificationError(CompetitionError):
    """A stored release is not what running its file again gives, bit for bit."""

    code = "verification"
