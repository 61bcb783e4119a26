"""Compact, exact JSON encodings for mechanism state.

Arrays are stored as base64 of their Zstandard-compressed little-endian bytes
(key ``"zstd"``), so a state of a holdout of a million losses stays small and
round-trips bit for bit; encodings written with zlib (key ``"zlib"``) still
decode. Zstandard (through pyarrow) encodes a vector of 50000 float losses in
0.4 ms against zlib's 11 ms, which a competition pays whenever a state is
rewritten. Non-finite floats (JSON has none) are stored as strings.

Decoding is remembered: the engine hands the same encoding (the same payload
string, which cannot change) to every rebuild of a mechanism from its stored
state, and decoding half a megabyte of base64 and Zstandard costs about 1 ms
where a copy of the decoded array costs 0.05 ms.
"""

from __future__ import annotations

import base64
import math
import threading
import zlib
from collections import OrderedDict
from typing import Any

import numpy as np
import pyarrow as pa

__all__ = ["decode_array", "decode_float", "encode_array", "encode_float", "payload"]

_DTYPES = {"float64": "<f8", "int64": "<i8", "bool": "|b1"}
_PAYLOAD_KEYS = ("zstd", "zlib")


def encode_array(array: np.ndarray) -> dict[str, Any]:
    """Encode a 1-D float64, int64 or bool array as a JSON-serialisable dict.

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
    packed = pa.compress(raw, codec="zstd", asbytes=True) if raw else b""
    return {
        "dtype": name,
        "shape": list(array.shape),
        "zstd": base64.b64encode(packed).decode("ascii"),
    }


def payload(data: Any) -> str | None:
    """The base64 payload of an encoded array (either codec), else None."""
    if isinstance(data, dict) and "dtype" in data:
        for key in _PAYLOAD_KEYS:
            if isinstance(data.get(key), str):
                return data[key]
    return None


_DECODED_BYTES = 128 << 20
_decoded: OrderedDict[int, tuple[str, str, tuple, np.ndarray]] = OrderedDict()
_decoded_bytes = 0
_decoded_lock = threading.Lock()


def decode_array(data: dict[str, Any]) -> np.ndarray:
    """Inverse of :func:`encode_array`; also reads the zlib encodings.

    The result is a new array the caller may change: a payload decoded
    recently (the same string object, with the same dtype and shape) is
    copied from the last decoding instead of decoded again.

    >>> old = {"dtype": "float64", "shape": [2], "zlib": "eAFjYEAFAAAQAAE="}
    >>> decode_array(old).tolist()
    [0.0, 0.0]
    """
    body = payload(data)
    try:
        key = (data["dtype"], tuple(data["shape"]))
    except (KeyError, TypeError):
        body = None
    if body is None:  # not an encoding: say so
        return _decode_array(data)
    with _decoded_lock:
        found = _decoded.get(id(body))
        if found is not None and found[0] is body and found[1:3] == key:
            _decoded.move_to_end(id(body))
            return found[3].copy()
    array = _decode_array(data)
    _remember(body, key, array.copy())
    return array


def _remember(body: str, key: tuple, array: np.ndarray) -> None:
    global _decoded_bytes
    if array.nbytes > _DECODED_BYTES // 8:
        return
    with _decoded_lock:
        old = _decoded.pop(id(body), None)
        if old is not None:
            _decoded_bytes -= old[3].nbytes
        _decoded[id(body)] = (body, *key, array)  # holds body: its id stays unique
        _decoded_bytes += array.nbytes
        while _decoded_bytes > _DECODED_BYTES:
            _decoded_bytes -= _decoded.popitem(last=False)[1][3].nbytes


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
        raw = (
            pa.decompress(packed, decompressed_size=size, codec="zstd", asbytes=True)
            if packed
            else b""
        )
    elif isinstance(data.get("zlib"), str):
        raw = zlib.decompress(base64.b64decode(data["zlib"]))
    else:
        raise ValueError(f"not an encoded array: {data!r:.80}")
    if len(raw) != size:
        raise ValueError(f"encoded array holds {len(raw)} bytes, its shape needs {size}")
    array = np.frombuffer(raw, dtype=_DTYPES[name]).astype(name)
    return array.reshape(shape)


def encode_float(value: float) -> float | str:
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
