"""Compact, exact JSON encodings for mechanism state.

Arrays are stored as base64 of their compressed little-endian bytes, so a
state of a holdout of a million losses stays small and round-trips bit for
bit. The codec is Zstandard (key ``"zstd"``) at level 1, the same whatever
else is installed: the standard library's ``compression.zstd`` (Python 3.14)
or its backport, ``backports.zstd``, a dependency of the core, so that a
core install, the server and an auditor write and read each other's states.
zlib encodings (key ``"zlib"``), which installs without pyarrow wrote before,
are read as ever. Non-finite floats (JSON has none) are stored as strings.

Two states are compared by what they hold (:func:`canonical_state`), never
by their compressed bytes: a Zstandard library of another version may
compress the same bytes differently.

Decoding is remembered: the engine hands the same encoding (the same payload
string, which cannot change) to every rebuild of a mechanism from its stored
state, and a copy of the decoded array is cheaper than decoding it again
(``benchmarks/`` measures both).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import math
import threading
import zlib
from collections import OrderedDict
from typing import Any

import numpy as np

__all__ = [
    "PayloadMemo",
    "canonical_state",
    "codec",
    "decode_array",
    "decode_float",
    "encode_array",
    "encode_float",
    "payload",
]

_DTYPES = {"float64": "<f8", "int64": "<i8", "bool": "|b1"}
_PAYLOAD_KEYS = ("zstd", "zlib")


ZSTD_LEVEL = 1
"""The Zstandard level every state is written at: the fastest, and the level
states were written at before (pyarrow's default), whose bytes it gives again."""


@functools.lru_cache(maxsize=1)
def _zstd() -> Any:
    """The standard library's Zstandard module (Python 3.14), else its backport."""
    try:
        from compression import zstd  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        from backports import zstd  # type: ignore[import-not-found,no-redef,unused-ignore]
    return zstd


def codec() -> str:
    """The codec :func:`encode_array` writes: ``"zstd"``, wherever it runs."""
    return "zstd"


def encode_array(array: np.ndarray) -> dict[str, Any]:
    """Encode a 1-D float64, int64 or bool array as a JSON-serialisable dict.

    Zstandard at :data:`ZSTD_LEVEL`, whatever is installed.

    >>> a = np.array([0.1, 1 / 3, -2.5])
    >>> sorted(encode_array(a))
    ['dtype', 'shape', 'zstd']
    >>> b = decode_array(encode_array(a))
    >>> bool((a == b).all()) and b.dtype == a.dtype
    True
    """
    array = np.asarray(array)
    name = array.dtype.name
    if name not in _DTYPES:
        raise TypeError(f"cannot encode an array of dtype {name}")
    raw = np.ascontiguousarray(array, dtype=_DTYPES[name]).tobytes()
    packed = _zstd().compress(raw, level=ZSTD_LEVEL) if raw else b""
    return {
        "dtype": name,
        "shape": list(array.shape),
        codec(): base64.b64encode(packed).decode("ascii"),
    }


def payload(data: Any) -> str | None:
    """The base64 payload of an encoded array (either codec), else None."""
    if isinstance(data, dict) and "dtype" in data:
        for key in _PAYLOAD_KEYS:
            if isinstance(data.get(key), str):
                return data[key]
    return None


class PayloadMemo:
    """Values worked out from encoded arrays, remembered by payload: the same
    payload string object (strings cannot change) with the same dtype and
    shape gets the value back. The string is held, so its id is not reused
    while it is here. At most ``capacity`` in total ``weight`` (default:
    each value weighs 1), the least recently used going first.
    """

    def __init__(self, capacity: int, weight: Any = None) -> None:
        self.capacity = capacity
        self._weight = weight or (lambda value: 1)
        self._lock = threading.Lock()
        self._items: OrderedDict[int, tuple[str, tuple, Any]] = OrderedDict()
        self._total = 0

    @staticmethod
    def _key(data: Any) -> tuple[str, tuple] | None:
        body = payload(data)
        if body is None:
            return None
        try:
            return body, (data["dtype"], tuple(data["shape"]))
        except (KeyError, TypeError):
            return None

    def get(self, data: Any) -> Any:
        """The value remembered for ``data``'s payload, else None."""
        key = self._key(data)
        if key is None:
            return None
        with self._lock:
            found = self._items.get(id(key[0]))
            if found is None or found[0] is not key[0] or found[1] != key[1]:
                return None
            self._items.move_to_end(id(key[0]))
            return found[2]

    def put(self, data: Any, value: Any) -> None:
        key = self._key(data)
        weight = self._weight(value)
        if key is None or weight > max(1, self.capacity // 8):
            return
        with self._lock:
            old = self._items.pop(id(key[0]), None)
            if old is not None:
                self._total -= self._weight(old[2])
            self._items[id(key[0])] = (key[0], key[1], value)
            self._total += weight
            while self._total > self.capacity:
                self._total -= self._weight(self._items.popitem(last=False)[1][2])


_DECODED = PayloadMemo(128 << 20, weight=lambda array: array.nbytes)


def decode_array(data: dict[str, Any]) -> np.ndarray:
    """Inverse of :func:`encode_array`; also reads the zlib encodings.

    The result is a new array the caller may change: a payload decoded
    recently (the same string object, with the same dtype and shape) is
    copied from the last decoding instead of decoded again.

    >>> old = {"dtype": "float64", "shape": [2], "zlib": "eAFjYEAFAAAQAAE="}
    >>> decode_array(old).tolist()
    [0.0, 0.0]
    """
    found = _DECODED.get(data)
    if found is not None:
        return found.copy()
    array = _decode_array(data)
    _DECODED.put(data, array.copy())
    return array


def _decode_array(data: dict[str, Any]) -> np.ndarray:
    try:
        name, shape = data["dtype"], data["shape"]
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not an encoded array: {data!r:.80}") from exc
    if name not in _DTYPES:
        raise ValueError(f"unknown array dtype {name!r}")
    size = int(np.prod(shape, dtype=np.int64)) * np.dtype(_DTYPES[name]).itemsize
    if isinstance(data.get("zstd"), str):
        packed = base64.b64decode(data["zstd"])
        raw = _zstd_decompress(packed, size) if packed else b""
    elif isinstance(data.get("zlib"), str):
        raw = _zlib_decompress(base64.b64decode(data["zlib"]), size)
    else:
        raise ValueError(f"not an encoded array: {data!r:.80}")
    if len(raw) != size:
        raise ValueError(f"encoded array holds {len(raw)} bytes, its shape needs {size}")
    array = np.frombuffer(raw, dtype=_DTYPES[name]).astype(name)
    return array.reshape(shape)


def _zstd_decompress(packed: bytes, size: int) -> bytes:
    """The ``size`` bytes ``packed`` holds, and no more: an encoding that
    would decompress past its shape (a hostile bundle's) stops there."""
    decompressor = _zstd().ZstdDecompressor()
    try:
        raw = decompressor.decompress(packed, max_length=size + 1)
    except _zstd().ZstdError as exc:
        raise ValueError(f"an encoded array is not valid Zstandard: {exc}") from None
    if len(raw) > size or not decompressor.eof:
        raise ValueError(f"an encoded array holds more than the {size} bytes its shape needs")
    return bytes(raw)


def _zlib_decompress(packed: bytes, size: int) -> bytes:
    """The ``size`` bytes a zlib encoding holds, and no more."""
    decompressor = zlib.decompressobj()
    try:
        raw = decompressor.decompress(packed, size + 1)
    except zlib.error as exc:
        raise ValueError(f"an encoded array is not valid zlib: {exc}") from None
    if len(raw) > size or not decompressor.eof:
        raise ValueError(f"an encoded array holds more than the {size} bytes its shape needs")
    return raw


def canonical_state(state: Any) -> Any:
    """``state`` with each encoded array replaced by what it holds (its
    dtype, shape and the SHA-256 of its bytes): two states hold the same
    values exactly when their canonical forms are equal, whichever codec,
    or version of one, wrote them.

    >>> a = np.array([0.5, 1.5])
    >>> raw = a.astype("<f8").tobytes()
    >>> old = {"dtype": "float64", "shape": [2],
    ...        "zlib": base64.b64encode(zlib.compress(raw)).decode()}
    >>> canonical_state({"vars": {"best": {"array": old}}}) == canonical_state(
    ...     {"vars": {"best": {"array": encode_array(a)}}})
    True
    """
    if isinstance(state, dict):
        if payload(state) is not None:
            array = decode_array(state)
            digest = hashlib.sha256(array.astype(_DTYPES[array.dtype.name]).tobytes())
            return {
                "dtype": state["dtype"],
                "shape": list(array.shape),
                "sha256": digest.hexdigest(),
            }
        return {key: canonical_state(value) for key, value in state.items()}
    if isinstance(state, list):
        return [canonical_state(value) for value in state]
    return state


def encode_float(value: float | np.floating) -> float | str:
    """A float for JSON: finite values as themselves, others as strings.

    >>> [encode_float(x) for x in (0.25, math.inf, -math.inf)]
    [0.25, 'inf', '-inf']
    >>> decode_float(encode_float(1 / 3)) == 1 / 3
    True
    """
    value = float(value)
    return value if math.isfinite(value) else repr(value)


def decode_float(value: float | str) -> float:
    """Inverse of :func:`encode_float`."""
    return float(value)
