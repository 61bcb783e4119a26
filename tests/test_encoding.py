"""The mechanisms' state encoding: one codec (Zstandard) whatever is
installed, readable without pyarrow, the bytes pyarrow wrote before, old
zlib encodings read as ever, a hostile encoding refused, and states compared
by what they hold."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import zlib

import numpy as np
import pytest

from ladderboard.encoding import canonical_state, decode_array, encode_array

ARRAYS = [
    np.array([0.0, 1.0, 0.0, 1.0]),
    (np.random.default_rng(0).random(50_000) < 0.3).astype(float),
    np.random.default_rng(1).random(10_000),
    np.arange(1000, dtype=np.int64),
    np.array([True, False, True]),
    np.array([], dtype=float),
]


def _encoded(array: np.ndarray, key: str, packed: bytes) -> dict:
    return {
        "dtype": array.dtype.name,
        "shape": list(array.shape),
        key: base64.b64encode(packed).decode("ascii"),
    }


@pytest.mark.parametrize("array", ARRAYS, ids=lambda a: f"{a.dtype}-{a.size}")
def test_encoding_is_zstd_and_gives_the_bytes_pyarrow_wrote(array):
    """States written before by the server (pyarrow's Zstandard at its
    default level) and now are the same bytes, so a kept encoding and a new
    one agree wherever both are written."""
    pa = pytest.importorskip("pyarrow")
    encoded = encode_array(array)
    assert set(encoded) == {"dtype", "shape", "zstd"}
    raw = array.astype(array.dtype.newbyteorder("<")).tobytes()
    by_pyarrow = pa.compress(raw, codec="zstd", asbytes=True) if raw else b""
    assert encoded == _encoded(array, "zstd", by_pyarrow)
    decoded = decode_array(encoded)
    assert decoded.dtype == array.dtype and np.array_equal(decoded, array)


def test_encoding_a_core_install_reads_the_servers_states_and_back():
    """A process in which pyarrow cannot be imported (a core install) decodes
    a state pyarrow wrote, and what it writes decodes where pyarrow is."""
    pa = pytest.importorskip("pyarrow")
    array = (np.random.default_rng(2).random(20_000) < 0.4).astype(float)
    raw = array.tobytes()
    server = _encoded(array, "zstd", pa.compress(raw, codec="zstd", asbytes=True))
    script = (
        "import json, sys\n"
        "sys.modules['pyarrow'] = None  # import pyarrow now fails\n"
        "import numpy as np\n"
        "from ladderboard.encoding import decode_array, encode_array\n"
        "state = json.loads(sys.stdin.read())\n"
        "array = decode_array(state)\n"
        "print(json.dumps({'sum': float(array.sum()), 'mine': encode_array(array * 2)}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(server),
        capture_output=True,
        text=True,
        check=True,
    )
    answer = json.loads(done.stdout)
    assert answer["sum"] == float(array.sum())
    mine = answer["mine"]
    size = array.size * 8
    back = pa.decompress(base64.b64decode(mine["zstd"]), decompressed_size=size, codec="zstd")
    assert np.array_equal(np.frombuffer(back.to_pybytes(), dtype="<f8"), array * 2)


def test_encoding_old_zlib_states_read_as_ever():
    array = np.random.default_rng(3).random(100)
    old = _encoded(array, "zlib", zlib.compress(array.tobytes()))
    assert np.array_equal(decode_array(old), array)


def test_encoding_refuses_an_array_that_decompresses_past_its_shape():
    big = np.zeros(1_000_000)
    bomb = encode_array(big) | {"shape": [10]}  # 8 MB of zeros under a shape of ten
    with pytest.raises(ValueError, match="more than the 80 bytes its shape needs"):
        decode_array(bomb)
    garbage = {"dtype": "float64", "shape": [2], "zstd": base64.b64encode(b"not zstd").decode()}
    with pytest.raises(ValueError, match="not valid Zstandard"):
        decode_array(garbage)


def test_canonical_state_compares_what_states_hold_not_their_bytes():
    array = np.random.default_rng(4).random(500)
    zstd_state = {"format": 1, "vars": {"best": {"array": encode_array(array)}, "t": 3}}
    zlib_state = {
        "format": 1,
        "vars": {
            "best": {"array": _encoded(array, "zlib", zlib.compress(array.tobytes(), 9))},
            "t": 3,
        },
    }
    assert zstd_state != zlib_state
    assert canonical_state(zstd_state) == canonical_state(zlib_state)
    other = array.copy()
    other[7] = np.nextafter(other[7], 2.0)  # one bit of one value
    changed = {"format": 1, "vars": {"best": {"array": encode_array(other)}, "t": 3}}
    assert canonical_state(changed) != canonical_state(zstd_state)
