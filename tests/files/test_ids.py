"""The id lookup gives every submitted id's solution row exactly, whichever
way it takes (``ladderboard.files._ids``)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from ladderboard.files import _ids
from ladderboard.files._ids import IdIndex

IDS = [f"id-{i:05d}" for i in range(500)]  # one length: the sorted-hash match


def expected(ids: list[str], submitted: list[str]) -> list[int]:
    where = {x: i for i, x in enumerate(ids)}
    return [where.get(x, -1) for x in submitted]


@pytest.mark.parametrize(
    "change",
    ["shuffled", "one missing", "one repeated", "one unknown", "longer id", "sliced"],
)
def test_fixed_width_ids_find_their_rows_or_go_the_general_way(change):
    rng = np.random.default_rng(3)
    submitted = [IDS[i] for i in rng.permutation(len(IDS))]
    if change == "one missing":
        submitted = submitted[:-1]
    elif change == "one repeated":
        submitted[7] = submitted[8]
    elif change == "one unknown":
        submitted[7] = "id-99999"
    elif change == "longer id":
        submitted[7] = "id-000001"
    index = IdIndex(pa.array(IDS))
    if change == "sliced":  # an array with an offset into shared buffers
        column = pa.chunked_array([pa.array(["x", *submitted, "y"]).slice(1, len(submitted))])
    else:
        column = pa.chunked_array([submitted[:100], submitted[100:]])
    assert index.positions(column).tolist() == expected(IDS, submitted)


def test_a_hash_collision_is_caught_by_the_byte_comparison(monkeypatch):
    """Two ids with one hash (here every id) must not be paired by it."""
    monkeypatch.setattr(_ids, "_hash", lambda words: np.zeros(len(words), dtype=np.uint64))
    submitted = [IDS[i] for i in np.random.default_rng(4).permutation(len(IDS))]
    index = IdIndex(pa.array(IDS))
    assert index.positions(pa.chunked_array([submitted])).tolist() == expected(IDS, submitted)


def test_ids_that_differ_only_by_trailing_nul_bytes_are_not_paired():
    """Zero padding makes "a" and "a\\0" the same words: the lengths decide."""
    index = IdIndex(pa.array(["abcde", "fghij", "klmno"]))
    submitted = pa.chunked_array([["fghij\x00", "abcde\x00", "klmno\x00"]])
    assert index.positions(submitted).tolist() == [-1, -1, -1]
    short = IdIndex(pa.array(["a\x00", "b\x00"]))
    assert short.positions(pa.chunked_array([["b", "a"]])).tolist() == [-1, -1]


def test_words_are_the_ids_bytes_padded_to_whole_words():
    width, words = _ids._words(pa.array(["abcdefghij", "0123456789"]))
    assert width == 10 and words.shape == (2, 2)
    assert words.view(np.uint8)[0, :12].tobytes() == b"abcdefghij\x00\x00"
    assert _ids._words(pa.array(["a", "bb"])) is None
    assert _ids._words(pa.array(["a", None])) is None


def test_hash_table_finds_every_row_among_shared_slots():
    """Rows alone in their slot, rows sharing one (runs of several), absent
    hashes on either side of a run, against a dict."""
    rng = np.random.default_rng(8)
    n = 3000
    hashes = rng.integers(0, 2**63, n, dtype=np.uint64) * np.uint64(2)
    hashes[:600] = (hashes[:600] >> np.uint64(50)) << np.uint64(50)  # crowd some slots
    hashes[600:620] = hashes[0] + np.arange(1, 21, dtype=np.uint64)  # one long run
    hashes = np.unique(hashes)
    rng.shuffle(hashes)
    table = _ids._HashTable(hashes)
    assert table.distinct
    asked = np.r_[hashes, hashes + np.uint64(1), rng.integers(0, 2**63, 500, dtype=np.uint64)]
    rng.shuffle(asked)
    where = {int(h): i for i, h in enumerate(hashes.tolist())}
    assert table.rows(asked).tolist() == [where.get(int(h), -1) for h in asked.tolist()]


def test_hash_table_tells_repeated_hashes():
    hashes = np.array([7, 2**60, 7, 3], dtype=np.uint64)
    table = _ids._HashTable(hashes)
    assert not table.distinct
    assert table.rows(np.array([7, 3, 4], dtype=np.uint64)).tolist()[1:] == [3, -1]
    assert table.rows(np.array([7], dtype=np.uint64))[0] in (0, 2)


@pytest.mark.parametrize(
    "ids",
    [
        ["0", "17", "-5", "9223372036854775807", "-9223372036854775807"],
        ["+7", "8"],
        ["007", "8"],
        ["-0", "8"],
        ["0x1F", "8"],
        ["7 ", "8"],
        ["1", "-9223372036854775808"],
        ["1", "9223372036854775808"],
        ["1", "1.0"],
    ],
)
def test_canonical_integers_are_the_ids_written_back_exactly(ids):
    """An id passes for an integer only when writing the integer gives the id
    back, byte for byte."""
    got = _ids._canonical_integers(pa.array(ids))
    try:
        ints = [int(i) for i in ids]
        canonical = [str(i) for i in ints] == ids and all(-(2**63) <= i < 2**63 for i in ints)
    except ValueError:
        canonical = False
    if canonical and ids[-1] != "-9223372036854775808":
        assert got is not None and got.tolist() == ints
    else:
        assert got is None
