"""What a submission borrows while it is read: the engine's worker threads,
which hash and compress a file while it is parsed, and scoring scratch
memory kept between submissions (:class:`ScratchPool`)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from ladderboard.files.solution import Solution
from ladderboard.files.submission import submission_sha256
from ladderboard.rules.scoring import ScoringScratch
from ladderboard.store.blobs import pack

__all__ = ["ScratchPool", "background", "hash_and_pack"]

T = TypeVar("T")
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def background(function: Callable[..., T], *args: Any) -> Future[T]:
    """Run ``function(*args)`` on the engine's worker threads (hashing and
    compression release the GIL, so they overlap with parsing)."""
    global _POOL
    if _POOL is None:
        with _POOL_LOCK:
            if _POOL is None:
                workers = min(4, os.cpu_count() or 1)
                _POOL = ThreadPoolExecutor(workers, thread_name_prefix="ladderboard-submit")
    return _POOL.submit(function, *args)


def hash_and_pack(data: bytes) -> tuple[str, bytes]:
    """A submission file's SHA-256 and its stored (compressed) form."""
    return submission_sha256(data), pack(data)


class ScratchPool:
    """Scoring scratch (:class:`~ladderboard.rules.scoring.ScoringScratch`)
    lent to one submission at a time and kept between submissions, for
    holdouts of ``smallest`` rows or more.

    A submission to a holdout of ten million rows would otherwise ask the
    system for 160 MB of fresh pages and give them back when it ends; the
    next one faults them in again (several times the scoring's own time on
    a virtual machine that reclaims freed memory). Concurrent submissions
    each get their own scratch. While nobody uses them, the last one given
    back is kept, and older ones while all together take at most
    ``idle_bytes`` (the least recently returned given up first): a holdout
    larger than that keeps one scratch, a few times smaller than what one of
    its submissions needs anyway.
    """

    def __init__(self, idle_bytes: int = 2**28, smallest: int = 2**17) -> None:
        self.idle_bytes = idle_bytes
        self.smallest = smallest
        self._lock = threading.Lock()
        self._idle: list[ScoringScratch] = []  # least recently returned first

    def lend(self, solution: Solution) -> ScoringScratch | None:
        """Scratch of ``solution``'s shape, not lent to anyone else until
        :meth:`give_back`; None for a holdout too small to need one."""
        if solution.n < self.smallest:
            return None
        shape = (solution.n, solution.public_rows.size, solution.private_rows.size)
        with self._lock:
            for k in range(len(self._idle) - 1, -1, -1):
                if self._idle[k].fits(*shape):
                    return self._idle.pop(k)
        return ScoringScratch(*shape)

    def give_back(self, scratch: ScoringScratch | None) -> None:
        """Keep ``scratch`` for the next submission (its contents may be overwritten from now)."""
        if scratch is None:
            return
        with self._lock:
            self._idle.append(scratch)
            total = sum(kept.nbytes for kept in self._idle)
            while len(self._idle) > 1 and total > self.idle_bytes:
                total -= self._idle.pop(0).nbytes

    @contextmanager
    def lent(self, solution: Solution) -> Iterator[ScoringScratch | None]:
        """:meth:`lend`, given back when the block ends, however it ends."""
        scratch = self.lend(solution)
        try:
            yield scratch
        finally:
            self.give_back(scratch)

    @property
    def idle(self) -> int:
        """How many scratches are kept for the next submissions."""
        with self._lock:
            return len(self._idle)
