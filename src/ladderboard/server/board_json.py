"""The JSON of the boards' rows, serialised once per board the engine keeps.

A board of 10,000 teams takes longer to turn into JSON than to read:
:meth:`~ladderboard.server.api` asks the engine for the board's kept tuple
(:meth:`ladderboard.engine.Competitions.board`), which is the same object
while the board does not change, and serialises its rows once per tuple.
Holding the tuple keeps its identity from being reused by another.

A submission changes one team's row, and the ranks of the rows it passes:
each row's JSON but its rank is kept by the row's content, so that the next
board's JSON is those pieces joined behind their ranks (a third of the time
of serialising every row again).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from pydantic import TypeAdapter

from ladderboard.rules.boards import BoardRow
from ladderboard.server.schemas import BoardRowOut

__all__ = ["BoardJson"]

# The board's own rows, serialised by pydantic's core as dataclasses, with
# the fields of the schema the API documents (BoardRowOut): three times
# faster than building a BoardRowOut a row first.
_ROW = TypeAdapter(BoardRow)
_AFTER_RANK = set(BoardRowOut.model_fields) - {"rank"}  # rank is BoardRow's first field
_PIECES = 200_000  # rows' JSON kept at most, all boards together


class BoardJson:
    """The rows of the last ``size`` boards as JSON, by the board's identity."""

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._items: OrderedDict[int, tuple[tuple[BoardRow, ...], bytes, str]] = OrderedDict()
        self._pieces: dict[tuple, bytes] = {}  # a row's JSON after '{"rank":N,', by content

    def rows(self, board: tuple[BoardRow, ...]) -> bytes:
        """``board``'s rows as the JSON list of :class:`BoardRowOut`."""
        return self._kept(board)[0]

    def digest(self, board: tuple[BoardRow, ...]) -> str:
        """A digest of :meth:`rows` (BLAKE2b, 128 bits, hex), the same in every
        process for the same rows: what an ``ETag`` of the board is made of."""
        return self._kept(board)[1]

    def _kept(self, board: tuple[BoardRow, ...]) -> tuple[bytes, str]:
        with self._lock:
            found = self._items.get(id(board))
            if found is not None and found[0] is board:
                self._items.move_to_end(id(board))
                return found[1], found[2]
        data = self._serialised(board)
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        with self._lock:
            self._items[id(board)] = (board, data, digest)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return data, digest

    def _serialised(self, board: tuple[BoardRow, ...]) -> bytes:
        """``board``'s rows as JSON, each row's (but its rank) serialised by
        pydantic's core the first time its content is seen."""
        pieces = self._pieces
        if len(pieces) > _PIECES:
            pieces.clear()
        rows = []
        for row in board:
            # float.hex tells 0.0 from -0.0 (equal in Python, written apart) and
            # gives every NaN one key; the zone tells one instant in two zones apart.
            when = row.last_submission
            content = (row.team, row.score.hex(), row.entries, when, when and when.tzinfo)
            piece = pieces.get(content)
            if piece is None:
                piece = pieces[content] = _ROW.dump_json(row, include=_AFTER_RANK)[1:]
            rows.append(b'{"rank":%d,%s' % (row.rank, piece))
        return b"[" + b",".join(rows) + b"]"
