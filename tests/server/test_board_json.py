"""The boards' JSON, written from rows' pieces kept across boards, is the
JSON of the API's schema, byte for byte (``ladderboard.server.board_json``)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

from pydantic import TypeAdapter

from engine_helpers import at_once
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


def test_boards_patched_one_from_another_are_written_as_the_schemas_json():
    """Kept boards patched one from another (each serialised from the pieces
    of the board before with the patch's edits; or row by row when that
    board's JSON is not kept, as when two patches come between reads; with
    its rows ranked by a reader in between or not), two competitions' read
    in turn through one serialiser, teams of the same names in both, equal
    score and time objects with other entries: every board's JSON is the
    schema's."""
    import random

    from ladderboard.direction import LOWER_IS_BETTER
    from ladderboard.engine.kept_board import KeptBoard
    from ladderboard.store.queries import ChangedStanding, StandingRow

    rng = random.Random(5)
    start = datetime(2026, 11, 1, tzinfo=UTC)
    times = [start + timedelta(minutes=k) for k in range(4)]  # shared objects

    def standing(name: str, k: int) -> StandingRow:
        score = rng.choice([0.25, 0.5, -0.0, 0.0, rng.random()])
        when = rng.choice(times) if rng.random() < 0.5 else start + timedelta(minutes=k)
        return StandingRow(name, score, rng.randint(1, 9), when, k, rng.randint(1, 9), when)

    boards = [
        KeptBoard.build(0, [standing(f"team {t}", t) for t in range(40)], LOWER_IS_BETTER)
        for _ in range(2)
    ]
    kept = BoardJson()
    for step in range(1, 200):
        which = step % 2
        changed = [
            ChangedStanding(*standing(f"team {rng.randrange(45)}", 100 + step), rng.random() < 0.2)
            for _ in range(rng.choice([1, 1, 2, 3]))
        ]
        boards[which] = boards[which].patched(step, changed, LOWER_IS_BETTER)
        if rng.random() < 0.2:
            continue  # not read: the next board's parent has no JSON kept
        board = boards[which]
        # Another reader ranks the rows first, or nobody before the JSON.
        expected = schema_json(board.rows) if rng.random() < 0.3 else None
        written = kept.rows(board)
        assert written == (expected or schema_json(board.rows)), step
    assert kept.rows(boards[0]) == BoardJson().rows(boards[0]) == kept.rows(boards[0].rows)


def test_the_ranks_openings_stay_in_order_when_threads_make_them_at_once(monkeypatch):
    """Threads that first serialise large boards at once extend the shared
    list of ranks' openings together: each rank's opening stays at its index."""
    import sys
    import threading

    from ladderboard.server import board_json

    monkeypatch.setattr(board_json, "_RANKS", [b""])
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(5):
            board_json._RANKS[1:] = []
            threads = [
                threading.Thread(target=board_json._ranks, args=(top,))
                for top in (30_000, 31_000, 32_000, 33_000)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            made = board_json._RANKS
            assert len(made) == 33_001
            assert all(made[n] == b',{"rank":%d,' % n for n in range(1, len(made)))
    finally:
        sys.setswitchinterval(interval)


def test_a_board_asked_for_by_many_readers_at_once_is_serialised_once(monkeypatch):
    """A new board's readers arrive together (after a submission): one
    serialises it while the others wait, and all are handed the same bytes."""
    import time

    at = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
    board = tuple(BoardRow(r, f"team {r}", r / 100, 1, at, 1) for r in range(1, 51))
    kept = BoardJson()
    made = []
    piece = kept._piece

    def slow(row):
        made.append(row)
        time.sleep(0.001)  # 1 ms a row, 50 ms the board: every other reader asks meanwhile
        return piece(row)

    monkeypatch.setattr(kept, "_piece", slow)
    out = at_once(lambda: kept.rows(board), 8)
    assert len(made) == len(board)  # each row serialised once
    assert all(o is out[0] for o in out)
    assert out[0] == schema_json(board)


@dataclasses.dataclass(frozen=True)
class _WiderRow(BoardRow):
    """A board row with a field the schema gains (as a new board column would)."""

    note: str = ""


class _WiderRowOut(BoardRowOut):
    note: str


def test_each_field_of_a_row_changed_in_turn_changes_the_served_json(monkeypatch):
    """The kept JSON follows every field of the schema's row, one the schema
    gains included: a row that differs from the one served before in any one
    field (the others the very same objects, as a kept board's rows are) is
    served with that field's new value; a field outside the schema (the
    team's own number of its scoring submission) changes nothing."""
    from ladderboard.server import board_json

    fields = frozenset(_WiderRowOut.model_fields) - {"rank"}
    monkeypatch.setattr(board_json, "_ROW", TypeAdapter(_WiderRow))
    monkeypatch.setattr(board_json, "_AFTER_RANK", type(board_json._AFTER_RANK)(fields))
    wider = TypeAdapter(list[_WiderRowOut])

    def served_as_schema(kept: BoardJson, row: _WiderRow) -> bytes:
        served = kept.rows((row,))
        assert served == wider.dump_json([_WiderRowOut(**row.__dict__)])
        return served

    at = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
    row = _WiderRow(1, "alpha", 0.25, 3, at, 2, note="first")
    changes = {
        "rank": 2,
        "team": "beta",
        "score": 0.5,
        "entries": 4,
        "last_submission": at + timedelta(seconds=1),
        "note": "second",
    }
    assert set(changes) == set(_WiderRowOut.model_fields)  # every field of the schema
    for name, value in changes.items():
        kept = BoardJson()
        before = served_as_schema(kept, row)
        after = served_as_schema(kept, dataclasses.replace(row, **{name: value}))
        assert after != before, name
    kept = BoardJson()
    before = served_as_schema(kept, row)
    assert served_as_schema(kept, dataclasses.replace(row, number=7)) == before
