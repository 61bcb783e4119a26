"""A team's quotas, decided in one place: the daily window, what is left,
the check, and when asking again can help.

Three limits bound a team's files (:class:`~ladderboard.rules.config.CompetitionConfig`):

- the **daily quota** counts its valid submissions in the current UTC day
  of the engine's clock (the clock a test injects), from midnight to the
  next midnight; it is the one limit time lifts, so its refusal carries the
  seconds to that midnight (``Retry-After``);
- the **total quota** counts its valid submissions in all; once spent it is
  spent for good, and its refusal carries no retry time;
- the **invalid-file cap** counts its refused files; final too.

The store counts the submissions inside the window this module gives it
(:func:`daily_window`), so that the counts, what a team is told is left and
the retry time all read the same day.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from ladderboard.engine.errors import QuotaExceeded
from ladderboard.rules.config import CompetitionConfig

__all__ = [
    "check_invalid",
    "check_quota",
    "daily_window",
    "remaining_today",
    "seconds_to_next_day",
]

_DAY = timedelta(days=1)


def daily_window(now: datetime) -> tuple[datetime, datetime]:
    """The UTC day ``now`` falls in, as ``(midnight, next midnight)``: the
    submissions the daily quota counts are those stamped inside it.

    >>> start, end = daily_window(datetime(2026, 1, 1, 23, 59, 30, tzinfo=UTC))
    >>> start.isoformat(), end.isoformat()
    ('2026-01-01T00:00:00+00:00', '2026-01-02T00:00:00+00:00')
    """
    start = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return start, start + _DAY


def seconds_to_next_day(now: datetime) -> int:
    """Whole seconds from ``now`` until the daily quota resets (the next UTC
    midnight), at least 1: the ``Retry-After`` of a spent daily quota.

    >>> seconds_to_next_day(datetime(2026, 1, 1, 23, 59, 30, tzinfo=UTC))
    30
    >>> seconds_to_next_day(datetime(2026, 1, 1, 23, 59, 59, 500000, tzinfo=UTC))
    1
    """
    _, end = daily_window(now)
    return max(1, int((end - now).total_seconds()))


def remaining_today(
    today: int, total: int, *, daily_quota: int | None, total_quota: int | None
) -> int | None:
    """How many more files a team may submit today: the tighter of the
    daily and the total quota, given its ``today`` and ``total`` valid
    submissions (``None`` when neither quota is set).

    >>> remaining_today(1, 9, daily_quota=5, total_quota=10)
    1
    >>> remaining_today(3, 3, daily_quota=None, total_quota=None) is None
    True
    """
    left = [
        quota - used
        for quota, used in ((daily_quota, today), (total_quota, total))
        if quota is not None
    ]
    return max(0, min(left)) if left else None


def check_invalid(config: CompetitionConfig, team: str, invalid: int) -> None:
    """Refuse (:class:`QuotaExceeded`, no retry time) a team that has sent
    as many invalid files as the cap allows."""
    if config.invalid_quota is not None and invalid >= config.invalid_quota:
        raise QuotaExceeded(
            f"team {team!r} has made {invalid} invalid submissions, the limit; ask the organiser"
        )


def check_quota(
    config: CompetitionConfig, team: str, today: int, total: int, now: datetime
) -> None:
    """Refuse (:class:`QuotaExceeded`) a team whose total or daily quota is
    spent, given its ``today`` and ``total`` valid submissions at ``now``
    (the engine's clock). The total is checked first: a team that has spent
    both cannot come back tomorrow, and is not told to. A spent daily quota
    carries the seconds to the next UTC midnight from ``now``."""
    if config.total_quota is not None and total >= config.total_quota:
        raise QuotaExceeded(f"team {team!r} has used all {config.total_quota} submissions")
    if config.daily_quota is not None and today >= config.daily_quota:
        raise QuotaExceeded(
            f"team {team!r} has used its {config.daily_quota} submissions for today (UTC)",
            retry_after=seconds_to_next_day(now),
        )
