"""The boards' JSON, written from rows' pieces kept across boards, is the
JSON of the API's schema, byte for byte (``ladderboard.server.board_json``)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from pydantic import TypeAdapter

from ladderboard.rules.boards import BoardRow
from ladderboard.server.board_json import BoardJson
from ladderboard.server.schemas import BoardRowOut

_SCHEMA = TypeAdapter(list[BoardRowOut])


def schema_json(board: tuple[BoardRow, ...]) -> bytes:
    return _SCHEMA.dump_json([BoardRowOut.of(row) for row in board])


def test_rows_written_from_kept_pieces_are_the_schemas_json():
    at = datetime(2026, 11, 24, 12, 30, 1, 250000, tzinfo=UTC)
    rows = (
        BoardRow(1, 'quote " and \\ backslash', 0.1, 3, at, 2),
        BoardRow(2, "日本 team", 1e-7, 1, None, None),
        BoardRow(3, "nan", float("nan"), 2, at, 1),
        BoardRow(4, "inf", float("inf"), 1, at, 1),
        BoardRow(5, "plain", 12.0, 10, at, 9),
    )
    kept = BoardJson()
    assert kept.rows(rows) == schema_json(rows)
    # A submission: "plain" moves to the top with a new score, the others
    # shift down a rank (new rows, same content: their pieces are reused).
    moved = dataclasses.replace(rows[4], rank=1, score=0.05, entries=11)
    after = (moved, *(dataclasses.replace(r, rank=r.rank + 1) for r in rows[:4]))
    assert kept.rows(after) == schema_json(after)
    assert BoardJson().rows(after) == kept.rows(after)  # another worker's, from scratch


def test_rows_equal_in_python_but_written_apart_are_kept_apart():
    """0.0 and -0.0 are equal and hash alike, and so are one instant in two
    time zones: each is still written as itself, whichever was seen first."""
    from datetime import timedelta, timezone

    at = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
    elsewhere = at.astimezone(timezone(timedelta(hours=2)))
    pairs = [
        (BoardRow(1, "t", 0.0, 1, at, 1), BoardRow(1, "t", -0.0, 1, at, 1)),
        (BoardRow(1, "t", 0.5, 1, at, 1), BoardRow(1, "t", 0.5, 1, elsewhere, 1)),
    ]
    for first, second in pairs:
        kept = BoardJson()
        assert kept.rows((first,)) == schema_json((first,))
        assert kept.rows((second,)) == schema_json((second,)) != schema_json((first,))
