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
