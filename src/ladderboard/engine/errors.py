"""What the engine refuses, and why. The web edge maps each class to an HTTP
status; nothing below it knows HTTP."""

from __future__ import annotations

__all__ = [
    "CompetitionClosed",
    "CompetitionError",
    "Conflict",
    "DuplicateSubmission",
    "InvitationRefused",
    "NotCaptain",
    "NotFound",
    "NotOpenYet",
    "QuotaExceeded",
    "RegistrationRefused",
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


class NotCaptain(CompetitionError):
    """A member asked for what only the team's captain may do (invite,
    hand over the captaincy, ask for or answer a merge)."""

    code = "forbidden"


class DuplicateSubmission(Conflict):
    """A team resubmitted predictions identical to one of its own."""

    code = "duplicate"


class QuotaExceeded(CompetitionError):
    """A team's quota is spent. ``retry_after`` is the seconds until asking
    again can help, by the engine's clock: set for the daily quota (until
    the next UTC midnight, :mod:`~ladderboard.engine.quotas`), ``None`` for
    the total quota and the cap on invalid files, which never reset."""

    code = "quota"

    def __init__(self, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after

    def __reduce__(self):  # keep ``retry_after`` through pickling (worker processes)
        return _quota_exceeded, (str(self), self.retry_after)


def _quota_exceeded(message: str, retry_after: int | None) -> QuotaExceeded:
    return QuotaExceeded(message, retry_after=retry_after)


class CompetitionClosed(CompetitionError):
    code = "closed"


class NotOpenYet(CompetitionClosed):
    """A submission before the competition's opening time: refused as a
    closed competition's, spending nothing."""

    code = "not_open"


class TeamDisabled(CompetitionError):
    """The organiser disabled the team: it may not submit or select."""

    code = "disabled"


class VerificationError(CompetitionError):
    """A stored release is not what running its file again gives, bit for bit."""

    code = "verification"


class RegistrationRefused(CompetitionError):
    """An account may not join the competition this way: its registration
    is by the organiser's list, or by invitation without a code."""

    code = "registration"


class InvitationRefused(RegistrationRefused):
    """An invitation code that admits no one now: none of the competition's,
    revoked, expired or used up."""

    code = "invitation"
