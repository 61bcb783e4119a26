"""Compact, exact JSON encodings for mechanism state.

Arrays are stored as base64 of their zlib-compressed little-endian bytes, so a
state of a holdout of a million losses stays small and round-trips bit for bit;
non-finite floats (JSON has none) are stored as strings.
"""

from __future__ import annotations

import base64
import math
import zlib
from typing import Any

import numpy as np

__all__ = ["decode_array", "decode_float", "encode_array", "encode_float"]

_DTYPES = {"float64": "<f8", "int64": "<i8", "bool": "|b1"}


def encode_array(array: np.ndarray) -> dict[str, Any]:
    """Encode a 1-D float64, int64 or bool array as a JSON-serialisable dict.

    >>> a = np.array([0.1, 1 / 3, -2.5])
    >>> b = decode_array(encode_array(a))
    >>> bool((a == b).all()) and b.dtype == a.dtype
    True
    """
    array = np.asarray(array)
    name = array.dtype.name
    if name not in _DTYPES:
        raise TypeError(f"cannot encode an array of dtype {name}")
    raw = np.ascontiguousarray(array, dtype=_DTYPES[name]).tobytes()
    return {
        "dtype": name,
        "shape": list(array.shape),
        "zlib": base64.b64encode(zlib.compress(raw, 1)).decode("ascii"),
    }


def decode_array(data: dict[str, Any]) -> np.ndarray:
    """Inverse of :func:`encode_array`."""
    try:
        name, shape, payload = data["dtype"], data["shape"], data["zlib"]
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not an encoded array: {data!r:.80}") from exc
    if name not in _DTYPES:
        raise ValueError(f"unknown array dtype {name!r}")
    raw = zlib.decompress(base64.b64decode(payload))
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
