"""Large arrays of mechanism states, stored once and referred to by hash.

A ladder's state holds the loss vector of its best submission (and a
per-rank board one per rank): half a megabyte for 1e5 rows of log loss. It
changes only when a submission is accepted, yet the state row is rewritten
by every submission, and on PostgreSQL rewriting it was most of a
submission's time (benchmarks/bench_engine.py).
So before a state is stored, each encoded array longer than
:data:`SPILL_CHARS` is replaced by ``{"array_ref": SHA256}`` and kept in
``mechanism_arrays`` under that hash, written only the first time it is
seen; a state is filled back in before a mechanism is rebuilt from it.

The hash covers the encoded array (dtype, shape and payload), so equal
arrays share one row and the stored state still commits to every bit.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.dialects import postgresql, sqlite

from ladderboard.encoding import PayloadMemo, payload
from ladderboard.store import MechanismArrayRow

__all__ = ["SPILL_CHARS", "StoredArrays", "array_refs", "fill", "spill"]

SPILL_CHARS = 4096
"""Encoded arrays longer than this (base64 characters) are stored apart."""

_ARRAYS = MechanismArrayRow.__table__
_SELECT = select(_ARRAYS.c.sha256, _ARRAYS.c.data).where(
    _ARRAYS.c.competition_id == bindparam("competition"),
    _ARRAYS.c.sha256.in_(bindparam("hashes", expanding=True)),
)


def _digest(encoded: dict, body: str) -> str:
    head = json.dumps(
        {k: v for k, v in encoded.items() if k not in ("zstd", "zlib")}, sort_keys=True
    )
    return hashlib.sha256(f"{head}|{body}".encode("ascii")).hexdigest()


def spill(
    state: Any,
    arrays: dict[str, dict],
    *,
    chars: int | None = None,
    digest: Callable[[dict, str], str] | None = None,
) -> Any:
    """``state`` with each large ``{"array": encoded}`` replaced by
    ``{"array_ref": sha256}``; the encodings go to ``arrays`` by hash.

    >>> import numpy as np
    >>> from ladderboard.encoding import encode_array
    >>> state = {"vars": {"best": {"array": encode_array(np.arange(3.0))}}, "t": 1}
    >>> arrays = {}
    >>> small = spill(state, arrays, chars=8)
    >>> list(small["vars"]["best"]), len(arrays)
    (['array_ref'], 1)
    >>> fill(small, arrays) == state
    True
    """
    chars = SPILL_CHARS if chars is None else chars
    digest = _digest if digest is None else digest
    if isinstance(state, dict):
        inner = state.get("array")
        body = payload(inner) if len(state) == 1 else None
        if body is not None and len(body) > chars:
            assert isinstance(inner, dict)  # payload() finds one in an encoded array only
            key = digest(inner, body)
            arrays.setdefault(key, inner)
            return {"array_ref": key}
        return {k: spill(v, arrays, chars=chars, digest=digest) for k, v in state.items()}
    if isinstance(state, list):
        return [spill(v, arrays, chars=chars, digest=digest) for v in state]
    return state


def array_refs(state: Any) -> set[str]:
    """The hashes ``state`` refers to."""
    if isinstance(state, dict):
        if len(state) == 1 and isinstance(state.get("array_ref"), str):
            return {state["array_ref"]}
        return set().union(*(array_refs(v) for v in state.values())) if state else set()
    if isinstance(state, list):
        return set().union(*(array_refs(v) for v in state)) if state else set()
    return set()


def fill(state: Any, arrays: dict[str, dict]) -> Any:
    """Inverse of :func:`spill`, given the encodings by hash."""
    if isinstance(state, dict):
        if len(state) == 1 and isinstance(state.get("array_ref"), str):
            try:
                return {"array": arrays[state["array_ref"]]}
            except KeyError:
                raise LookupError(
                    f"mechanism state refers to array {state['array_ref']}, which is not stored"
                ) from None
        return {k: fill(v, arrays) for k, v in state.items()}
    if isinstance(state, list):
        return [fill(v, arrays) for v in state]
    return state


class StoredArrays:
    """Reads and writes ``mechanism_arrays`` for the engine, remembering
    (at most ``size``) which arrays are known to be stored, so that an
    unchanged best costs no write. A hash is remembered only once the
    transaction that wrote it has committed (:meth:`committed`).

    It also keeps the encodings it read or wrote last (up to
    ``encoding_chars`` of payload), which never change under their hash:
    :meth:`fill` reads only the others, and hands out the same payload
    strings each time, which lets :func:`~ladderboard.encoding.decode_array`
    and the digests here skip the work they did the last time.
    """

    def __init__(self, size: int = 4096, encoding_chars: int = 64 << 20) -> None:
        self.size, self.encoding_chars = size, encoding_chars
        self._lock = threading.Lock()
        self._known: OrderedDict[Hashable, None] = OrderedDict()
        self._encodings: OrderedDict[Hashable, dict] = OrderedDict()
        self._encoding_chars = 0
        # The hash of a payload seen again (the engine's mechanism cache
        # reuses the encoding of an array that has not changed, and fill
        # hands out the same strings) is not hashed again.
        self._digests = PayloadMemo(256)

    def _digest(self, encoded: dict, body: str) -> str:
        key = self._digests.get(encoded)
        if key is None:
            key = _digest(encoded, body)
            self._digests.put(encoded, key)
        return key

    def _keep(self, key: Hashable, encoded: dict) -> None:
        """Remember an encoding known to be stored (under the lock)."""
        if key in self._encodings:
            self._encodings.move_to_end(key)
            return
        size = len(payload(encoded) or "")
        if self.encoding_chars <= 0 or size > self.encoding_chars // 4:
            return
        self._encodings[key] = encoded
        self._encoding_chars += size
        while self._encoding_chars > self.encoding_chars:
            _, dropped = self._encodings.popitem(last=False)
            self._encoding_chars -= len(payload(dropped) or "")

    def spill(self, connection: Any, competition_id: int, state: Any) -> tuple[Any, list]:
        """Store ``state``'s large arrays not yet known to be stored; return the
        state to store and what to pass to :meth:`committed`."""
        arrays: dict[str, dict] = {}
        small = spill(state, arrays, digest=self._digest)
        keys = [(competition_id, digest) for digest in arrays]
        with self._lock:
            new = [key for key in keys if key not in self._known]
        if new:
            rows = [
                {"competition_id": c, "sha256": d, "data": json.dumps(arrays[d], sort_keys=True)}
                for c, d in new
            ]
            connection.execute(_insert_ignoring_duplicates(connection), rows)
        return small, [(key, arrays[key[1]]) for key in keys]

    def committed(self, stored: list) -> None:
        """The arrays :meth:`spill` returned are in the committed store."""
        with self._lock:
            for key, encoded in stored:
                self._known[key] = None
                self._known.move_to_end(key)
                self._keep(key, encoded)
            while len(self._known) > self.size:
                self._known.popitem(last=False)

    def fill(self, connection: Any, competition_id: int, state: Any) -> Any:
        """``state`` with its referred arrays read back in (those not kept here)."""
        hashes = sorted(array_refs(state))
        if not hashes:
            return state
        found: dict[str, dict] = {}
        with self._lock:
            for digest in hashes:
                encoded = self._encodings.get((competition_id, digest))
                if encoded is not None:
                    self._encodings.move_to_end((competition_id, digest))
                    found[digest] = encoded
        missing = [digest for digest in hashes if digest not in found]
        if missing:
            read = {
                digest: json.loads(data)
                for digest, data in connection.execute(
                    _SELECT, {"competition": competition_id, "hashes": missing}
                )
            }
            with self._lock:
                for digest, encoded in read.items():
                    self._keep((competition_id, digest), encoded)
            found.update(read)
        return fill(state, found)


def _insert_ignoring_duplicates(connection: Any) -> Any:
    # Another process may have stored the same array since: equal hashes are
    # equal arrays, so its row is as good as ours.
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(_ARRAYS)
    return statement.on_conflict_do_nothing(index_elements=["competition_id", "sha256"])
