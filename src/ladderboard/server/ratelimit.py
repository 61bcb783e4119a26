"""A token-bucket rate limit per bearer token, in memory.

Each server process keeps its own buckets: with ``--workers N`` (or several
hosts) a token may make up to N times the configured rate. Buckets are keyed
by the token's SHA-256, never the token itself, and the least recently used
are dropped beyond ``max_keys``.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

__all__ = ["TokenBuckets"]


class TokenBuckets:
    """``per_minute`` requests per key, in bursts of up to ``per_minute``.

    >>> clock = iter([0.0, 0.0, 0.0, 30.0]).__next__
    >>> buckets = TokenBuckets(per_minute=2, clock=clock)
    >>> buckets.take("k"), buckets.take("k"), buckets.take("k"), buckets.take("k")
    (0, 0, 30, 0)
    """

    def __init__(
        self,
        *,
        per_minute: int,
        max_keys: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(per_minute, bool) or not isinstance(per_minute, int):
            raise TypeError(f"per_minute must be an integer, got {type(per_minute).__name__}")
        if per_minute < 0:
            raise ValueError(f"per_minute must be >= 0, got {per_minute}")
        self.per_minute = per_minute
        self.max_keys = max_keys
        self._clock = clock
        self._lock = threading.Lock()
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str) -> int:
        """Spend one request of ``key``: 0 when allowed, else the seconds to wait."""
        if self.per_minute == 0:
            return 0
        rate = self.per_minute / 60.0
        now = self._clock()
        with self._lock:
            tokens, last = self._buckets.pop(key, (float(self.per_minute), now))
            tokens = min(float(self.per_minute), tokens + (now - last) * rate)
            wait = 0
            if tokens >= 1.0:
                tokens -= 1.0
            else:
                wait = max(1, math.ceil((1.0 - tokens) / rate))
            self._buckets[key] = (tokens, now)
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
            return wait
