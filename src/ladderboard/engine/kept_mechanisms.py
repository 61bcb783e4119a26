"""The mechanisms this process advanced last, kept so that the next
submission to the same board continues from them rather than from the
stored state (the contract: :mod:`~ladderboard.engine.caches`)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

import numpy as np

from ladderboard.encoding import codec, decode_array, encode_array, payload
from ladderboard.mechanisms import Mechanism

__all__ = ["Cached", "CachedMechanism", "CachedRanks", "MechanismCache"]


class CachedMechanism:
    """A scope's mechanism as advanced by this process's last commit, with
    the encodings of its learned arrays.

    :meth:`encoded` is the ``encode_vars`` of
    :meth:`~ladderboard.mechanisms.Mechanism.get_state`: it reuses an array's
    encoding while the array is bit-for-bit what it was (a ladder's best
    losses change only when a submission is accepted), comparing against its
    own copy, since a mechanism may overwrite its buffers in place.
    """

    __slots__ = ("_arrays", "key", "mechanism")

    def __init__(self, key: Hashable, mechanism: Mechanism) -> None:
        self.key = key
        self.mechanism = mechanism
        self._arrays: dict[str, tuple[np.ndarray, dict]] = {}

    @classmethod
    def loaded(cls, key: Hashable, mechanism: Mechanism, state: dict[str, Any]) -> CachedMechanism:
        """``mechanism`` as just rebuilt from the stored ``state`` (its arrays
        filled in), keeping the state's encodings of its learned arrays: the
        next dump encodes again only an array its submission changed (another
        process's submission left this process's copy stale, and encoding a
        best's losses costs more than loading them). An encoding by another
        codec than the one written now (zlib, which installs without pyarrow
        wrote before) is not kept: the next state is written in the one codec
        (:mod:`ladderboard.encoding`)."""
        entry = cls(key, mechanism)
        written = codec()
        for name, value in state.get("vars", {}).items():
            encoded = value.get("array") if isinstance(value, dict) and len(value) == 1 else None
            if isinstance(encoded, dict) and written in encoded:
                # What the encoding decodes to, bit for bit: reused only for those bits.
                entry._arrays[name] = (decode_array(encoded), encoded)
        return entry

    def encoded(self, name: str, array: np.ndarray) -> dict:
        kept = self._arrays.get(name)
        if kept is not None and _same_bits(kept[0], array):
            return kept[1]
        encoding = encode_array(array)
        self._arrays[name] = (np.array(array, copy=True), encoding)
        return encoding

    @property
    def nbytes(self) -> int:
        """About the memory this entry holds: the mechanism's own arrays (its
        learned ones, a metric mechanism's copy of the labels), and the
        copies and encodings of the learned ones kept here."""
        held = [value for value in vars(self.mechanism).values() if isinstance(value, np.ndarray)]
        kept = [array for array, _ in self._arrays.values()]
        encodings = [len(payload(encoding) or "") for _, encoding in self._arrays.values()]
        return sum(array.nbytes for array in held + kept) + sum(encodings)


class CachedRanks:
    """A per-rank board's instances as advanced by this process's last
    commit, by instance number (see
    :func:`~ladderboard.engine.instances.submit_per_rank`)."""

    __slots__ = ("instances", "key")

    def __init__(self, key: Hashable) -> None:
        self.key = key
        self.instances: dict[int, CachedMechanism] = {}

    @property
    def nbytes(self) -> int:
        return sum(entry.nbytes for entry in self.instances.values())


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a`` and ``b`` hold the same bytes (so ``-0.0`` differs from ``0.0``).

    >>> _same_bits(np.array([0.0, 1.0]), np.array([-0.0, 1.0]))
    False
    >>> _same_bits(np.array([np.nan]), np.array([np.nan]))
    True
    """
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return bool(np.array_equal(a.view(np.uint8), b.view(np.uint8)))


Cached = CachedMechanism | CachedRanks


class MechanismCache:
    """The mechanisms of the scopes this process submitted to last: at most
    ``size`` of them, and those last used up to ``max_bytes`` (about: see
    :attr:`CachedMechanism.nbytes`) but the last one put, which its
    submission held in memory anyway.

    :meth:`take` hands an entry over only when the stored state has seen
    exactly as many submissions as the entry (another process may have
    submitted since), and removes it: if the transaction then fails, the
    advanced mechanism is gone with it, and the next submission loads the
    stored state. :meth:`put` returns it after the commit.
    """

    def __init__(self, size: int = 64, max_bytes: int = 2**30) -> None:
        self.size, self.max_bytes = size, max_bytes
        self._lock = threading.Lock()
        self._items: OrderedDict[Hashable, tuple[int, Cached, int]] = OrderedDict()
        self._bytes = 0

    def take(self, key: Hashable, n_submissions: int) -> Cached | None:
        with self._lock:
            found = self._items.pop(key, None)
            if found is not None:
                self._bytes -= found[2]
        if found is None or found[0] != n_submissions:
            return None
        return found[1]

    def put(self, entry: Cached, n_submissions: int) -> None:
        if self.size <= 0:
            return
        nbytes = entry.nbytes
        with self._lock:
            replaced = self._items.pop(entry.key, None)
            if replaced is not None:
                self._bytes -= replaced[2]
            self._items[entry.key] = (n_submissions, entry, nbytes)
            self._bytes += nbytes
            while len(self._items) > self.size or (
                len(self._items) > 1 and self._bytes > self.max_bytes
            ):
                _, (_, _, dropped) = self._items.popitem(last=False)
                self._bytes -= dropped

    @property
    def nbytes(self) -> int:
        """About the memory the kept mechanisms hold."""
        with self._lock:
            return self._bytes

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0
