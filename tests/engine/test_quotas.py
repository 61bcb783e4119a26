"""The quotas with an injected clock: a spent daily quota is refused with
the seconds from the engine's now to the next UTC midnight, on the
admission and on the submission alike; a spent total quota or invalid-file
cap is refused with none, as time does not lift them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine_helpers import create, csv_for, noisy
from ladderboard.engine import QuotaExceeded
from ladderboard.files.submission import SubmissionError


def _refusal(store, team: str, data: bytes) -> list[QuotaExceeded]:
    """The refusals of the admission and of the submission itself."""
    found = []
    for attempt in (lambda: store.admit("comp", team), lambda: store.submit("comp", team, data)):
        with pytest.raises(QuotaExceeded) as refused:
            attempt()
        found.append(refused.value)
    return found


def test_quotas_a_spent_daily_quota_retries_at_the_next_midnight_of_the_engines_clock(store, clock):
    solution, _ = create(store, daily_quota=1)
    store.add_team("comp", "alpha")
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 0)))
    clock.advance(hours=5, minutes=30, seconds=15)  # 14:30:15 UTC
    for exc in _refusal(store, "alpha", csv_for(solution, noisy(solution, 0.4, 1))):
        assert exc.retry_after == 9 * 3600 + 29 * 60 + 45, exc
    clock.advance(hours=9, minutes=29, seconds=45)  # midnight: a new day
    assert store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 1))).number == 2
    assert store.quota("comp", "alpha").resets_at == datetime(2026, 3, 3, tzinfo=UTC)


@pytest.mark.parametrize("quotas", [{"total_quota": 1}, {"daily_quota": 1, "total_quota": 1}])
def test_quotas_a_spent_total_quota_has_no_retry_time(store, quotas):
    solution, _ = create(store, **quotas)
    store.add_team("comp", "alpha")
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 0)))
    for exc in _refusal(store, "alpha", csv_for(solution, noisy(solution, 0.4, 1))):
        assert exc.retry_after is None and "all 1 submissions" in str(exc)


def test_quotas_a_spent_invalid_file_cap_has_no_retry_time(store):
    solution, _ = create(store, daily_quota=5, invalid_quota=1)
    store.add_team("comp", "alpha")
    with pytest.raises(SubmissionError):
        store.submit("comp", "alpha", b"not a csv")
    for exc in _refusal(store, "alpha", csv_for(solution, noisy(solution, 0.4, 0))):
        assert exc.retry_after is None and "invalid" in str(exc)


def test_quotas_what_a_team_is_shown_is_what_it_is_held_to_across_midnight(store, clock):
    """The quota view counts as the admission does: at each step, a team
    shown none left today is refused and one shown some is taken, the last
    second before midnight and the first after it included."""
    solution, _ = create(store, daily_quota=2, total_quota=5)
    store.add_team("comp", "alpha")
    sent = 0

    def step() -> None:
        nonlocal sent
        view = store.quota("comp", "alpha")
        left = min(view.daily_quota - view.used_today, view.total_quota - view.used_total)
        data = csv_for(solution, noisy(solution, 0.4, 100 + sent))
        if left > 0:
            store.submit("comp", "alpha", data)
            sent += 1
        else:
            assert len(_refusal(store, "alpha", data)) == 2

    start = clock()
    clock.advance(seconds=(datetime(2026, 3, 3, tzinfo=UTC) - start).total_seconds() - 1)
    for _ in range(3):  # 23:59:59: two taken, the third refused
        step()
    clock.advance(seconds=1)  # midnight
    assert store.quota("comp", "alpha").used_today == 0
    for _ in range(4):  # two more taken, then refused (the day's); the total stands at 4
        step()
    assert (sent, store.quota("comp", "alpha").used_total) == (4, 4)
