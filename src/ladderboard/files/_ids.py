"""Finding a solution's rows by id, fast enough to cost less than reading the file.

:class:`IdIndex` is built once per solution (every ``Solution`` holds one)
and maps a submission's id column to solution row positions. Three ways, the
cheapest that applies:

1. the ids are the solution's, in the solution's order (participants who start
   from the sample submission): one comparison of the two arrays, no lookup;
2. the solution's ids are integers written canonically (``"0"``, ``"17"``, no
   sign or leading zero) in a range at most a few times the row count: the
   submission's ids are cast to integers and looked up in a dense table, and
   the candidate rows are then checked by string equality, so ``"017"`` or
   ``"17.0"`` never pass for ``"17"``;
3. the ids all have one length (zero-padded numbers, hashes, UUIDs) and the
   submission holds each of the solution's ids once, in any order: each id's
   bytes are hashed to 64 bits with numpy and looked up in a table of the
   solution's hashes (:class:`_HashTable`); every pair found is then compared
   byte for byte, and anything else (a missing, repeated or unknown id, a
   collision) goes to the general way;
4. otherwise a hash lookup of the strings (``pyarrow.compute.index_in``).

Every way gives the exact answer: position of each submitted id in the
solution, or -1 for an id the solution does not have.
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["IdIndex"]

_INTEGER = re.compile(r"-?[1-9][0-9]{0,18}|0")
_DENSE_SPAN = 8  # a table of up to this many slots per row (plus a constant)


class IdIndex:
    """Positions of ids among ``ids``, the solution's ids in solution order.

    ``unique`` tells whether ``ids`` has no repeated id (found while building).

    >>> index = IdIndex(pa.array(["10", "11", "12"]))
    >>> index.unique
    True
    >>> index.positions(pa.chunked_array([["10", "11", "12"]])) is None  # same order
    True
    >>> index.positions(pa.chunked_array([["12", "011", "10", "x"]])).tolist()
    [2, -1, 0, -1]
    >>> IdIndex(pa.array(["a", "b", "a"])).unique
    False
    """

    def __init__(self, ids: pa.Array) -> None:
        self.ids = ids
        self.n = len(ids)
        self._chunked = pa.chunked_array([ids])
        self._dense: tuple[int, np.ndarray] | None = None
        self._fixed: tuple[int, np.ndarray, _HashTable] | None = None
        ints = _canonical_integers(ids)
        if ints is None:
            found = _words(ids)
            if found is not None:
                table = _HashTable(_hash(found[1]))
                self._fixed = (*found, table)
                if table.distinct:
                    self.unique = True  # distinct hashes: distinct ids
                    return
            # A hash table of every string: the slow part of reading a large solution.
            self.unique = len(pc.dictionary_encode(ids).dictionary) == self.n
            return
        lo, hi = int(ints.min()), int(ints.max())
        if hi - lo + 1 <= _DENSE_SPAN * self.n + 1024:
            slots = np.full(hi - lo + 1, -1, dtype=np.int64)
            rows = np.arange(self.n)
            slots[ints - lo] = rows  # the last of repeated ids wins its slot
            self.unique = bool((slots[ints - lo] == rows).all())
            self._dense = (lo, slots)
        else:
            ordered = np.sort(ints)
            self.unique = not bool((ordered[1:] == ordered[:-1]).any())

    def positions(self, submitted: pa.ChunkedArray) -> np.ndarray | None:
        """Solution row of each submitted id (-1 if absent); ``None`` if they are the
        solution's ids in solution order."""
        if len(submitted) == self.n and submitted.equals(self._chunked):
            return None
        if self._dense is not None:
            found = self._dense_positions(submitted, *self._dense)
            if found is not None:
                return found
        elif len(submitted) == self.n and self.unique:
            found = self._permutation_positions(submitted)
            if found is not None:
                return found
        looked_up = pc.index_in(submitted, value_set=self.ids)
        return pc.fill_null(looked_up, -1).to_numpy().astype(np.int64, copy=False)

    def _dense_positions(
        self, submitted: pa.ChunkedArray, lo: int, table: np.ndarray
    ) -> np.ndarray | None:
        try:
            values = pc.cast(submitted, pa.int64()).to_numpy()
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None  # some id is not an integer: the hash lookup decides
        offset = values - lo  # wraps for extreme values; the string check catches them
        inside = (offset >= 0) & (offset < len(table))
        found = table[np.where(inside, offset, 0)]
        found[~inside] = -1
        known = found >= 0
        if known.all():
            same = pc.equal(pc.take(self.ids, found), submitted)
            if pc.all(same).as_py():
                return found
            found[~same.to_numpy(zero_copy_only=False)] = -1
            return found
        rows = np.flatnonzero(known)
        same = pc.equal(pc.take(self.ids, found[rows]), pc.take(submitted, rows))
        found[rows[~same.to_numpy(zero_copy_only=False)]] = -1
        return found

    def _permutation_positions(self, submitted: pa.ChunkedArray) -> np.ndarray | None:
        """Positions when ``submitted`` holds each solution id once, in any
        order, all of one length; ``None`` otherwise (the general way decides)."""
        if self._fixed is None:
            return None
        width, words, table = self._fixed
        found_theirs = _words(submitted.combine_chunks())
        # The lengths must agree, not only the padded words: "ab" and "ab\0" pad alike.
        if found_theirs is None or found_theirs[0] != width:
            return None
        theirs = found_theirs[1]
        found = table.rows(_hash(theirs))
        if (found < 0).any():
            return None  # an id unknown
        seen = np.zeros(self.n, dtype=bool)
        seen[found] = True
        if not seen.all():
            return None  # an id repeated, so another missing
        if not np.array_equal(np.take(words, found, axis=0), theirs):
            return None  # a hash collision paired two different ids
        return found


class _HashTable:
    """Rows by 64-bit hash: a table indexed by the hashes' top bits, four to
    eight slots a row (int32: 16-32 bytes a row, kept with the solution). A
    slot holds its row when the row is alone there (four rows in five or
    more), ``-1`` when empty, and for a slot several rows share, where their
    run starts among the shared rows, which are kept sorted by hash (so each
    slot's rows are contiguous). Sorting every hash, or every submitted one,
    would cost several times a read of the file.

    ``distinct`` tells whether no two rows share a hash.

    >>> t = _HashTable(np.array([5, 9, 2**63 + 1], dtype=np.uint64))
    >>> t.distinct, t.rows(np.array([2**63 + 1, 7, 5], dtype=np.uint64)).tolist()
    (True, [2, -1, 0])
    """

    def __init__(self, hashes: np.ndarray) -> None:
        n = hashes.size
        self.bits = min(30, max(8, (4 * n).bit_length()))
        slot = self._slot(hashes)
        alone = np.bincount(slot, minlength=1 << self.bits)[slot] == 1
        shared = np.flatnonzero(~alone)
        order = np.argsort(hashes[shared])
        self.shared_hashes, self.shared_rows = hashes[shared][order], shared[order]
        self.shared_slots = self._slot(self.shared_hashes)
        self.table = np.full(1 << self.bits, -1, dtype=np.int32 if n < 2**30 else np.int64)
        self.table[slot[alone]] = np.flatnonzero(alone)
        if shared.size:
            starts = np.flatnonzero(np.r_[True, self.shared_slots[1:] != self.shared_slots[:-1]])
            self.table[self.shared_slots[starts]] = _SHARED - starts
        self.hashes = hashes
        self.distinct = not bool((self.shared_hashes[1:] == self.shared_hashes[:-1]).any())

    def _slot(self, hashes: np.ndarray) -> np.ndarray:
        return (hashes >> np.uint64(64 - self.bits)).astype(np.intp)

    def rows(self, hashes: np.ndarray) -> np.ndarray:
        """The row of each hash (one of them if rows share it), -1 if none has it."""
        slot = self._slot(hashes)
        found = np.take(self.table, slot).astype(np.int64)
        alone = np.flatnonzero(found >= 0)  # its slot's one row: is it this hash's?
        found[alone[np.take(self.hashes, found[alone]) != hashes[alone]]] = -1
        asked = np.flatnonzero(found <= _SHARED)
        if asked.size:
            # Walk each shared slot's run, all at once: a run is a few rows long.
            wanted, where, at = hashes[asked], slot[asked], _SHARED - found[asked]
            answer = np.full(asked.size, -1, dtype=np.int64)
            pending = np.arange(asked.size)
            last = self.shared_hashes.size - 1
            while pending.size:
                i = np.minimum(at[pending], last)
                in_run = (at[pending] <= last) & (self.shared_slots[i] == where[pending])
                hit = in_run & (self.shared_hashes[i] == wanted[pending])
                answer[pending[hit]] = self.shared_rows[i[hit]]
                pending = pending[in_run & ~hit]
                at[pending] += 1
            found[asked] = answer
        return found


_SHARED = -2  # a table value at most this: a slot several rows share, its run at _SHARED - value


def _words(ids: pa.Array) -> tuple[int, np.ndarray] | None:
    """Strings of one length ``L`` bytes: ``L`` and an ``(n, ceil(L / 8))``
    array of 64-bit words (zero-padded, so only strings of the same ``L`` may
    be compared by them), or ``None`` if their lengths differ or one is null."""
    if ids.null_count or len(ids) == 0 or not pa.types.is_string(ids.type):
        return None
    n = len(ids)
    _, offsets_buffer, data_buffer = ids.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int32, count=n + 1, offset=4 * ids.offset)
    width = int(offsets[1] - offsets[0])
    if width == 0 or int(offsets[-1] - offsets[0]) != width * n:
        return None
    if not (np.diff(offsets) == width).all():
        return None
    data = np.frombuffer(data_buffer, dtype=np.uint8, count=width * n, offset=int(offsets[0]))
    padded = np.zeros((n, -(-width // 8) * 8), dtype=np.uint8)
    padded[:, :width] = data.reshape(n, width)
    return width, padded.view(np.uint64)


_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # 2^64 / golden ratio, odd


def _hash(words: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row of ``words`` (multiply-xorshift over the words)."""
    out = np.zeros(words.shape[0], dtype=np.uint64)
    for column in words.T:
        out ^= column
        out *= _MULTIPLIER
        out ^= out >> np.uint64(29)
    return out


_POWERS_OF_TEN = 10 ** np.arange(1, 19, dtype=np.int64)


def _canonical_integers(ids: pa.Array) -> np.ndarray | None:
    """``ids`` as int64 if every one is an integer written canonically, else ``None``.

    Canonical (no sign but ``-``, no leading zero, ``"0"`` not ``"-0"``) means
    one string per integer: the strings are unique exactly when the integers are.
    An id that casts to an integer and is made of digits and ``-`` only is
    canonical exactly when it is as long as the integer's decimal form: any
    other spelling (``"+7"``, ``"007"``, ``"-0"``) has more characters.
    """
    if ids.null_count or not _INTEGER.fullmatch(ids[0].as_py()):
        return None  # a failing cast of a large array is slow: look at one id first
    try:
        ints = pc.cast(ids, pa.int64()).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    _, offsets_buffer, data_buffer = ids.buffers()
    offsets = np.frombuffer(
        offsets_buffer, dtype=np.int32, count=len(ids) + 1, offset=4 * ids.offset
    )
    text = np.frombuffer(data_buffer, dtype=np.uint8)[offsets[0] : offsets[-1]]
    if not ((text - np.uint8(ord("0")) < 10) | (text == ord("-"))).all():
        return None  # "0x1F" casts too
    negative = ints < 0
    magnitude = np.where(negative, -ints, ints)  # -2**63 stays negative: 1 digit, refused
    digits = 1 + np.searchsorted(_POWERS_OF_TEN, magnitude, side="right")
    if not np.array_equal(np.diff(offsets), digits + negative):
        return None
    return ints
