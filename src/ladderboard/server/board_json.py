"""The JSON of the boards' rows, serialised once per board the engine keeps.

A board of 10,000 teams takes longer to turn into JSON than to read:
:mod:`ladderboard.server.api.boards` asks the engine for the board as it keeps it
(:meth:`ladderboard.engine.Competitions.kept_board`), which is the same
object while the board does not change, and serialises its rows once per
object. Holding the object keeps its identity from being reused by another.

A row's JSON is ``{"rank":N,`` and a piece for the rest, serialised by
pydantic's core once per content. A submission changes one team's row and
the ranks of the rows it passes: the public board of a per-team competition
(a :class:`~ladderboard.engine.kept_board.KeptBoard`) says which rows left and
came in since the board it was patched from, so its pieces are those of that
board's JSON with the same few edits, and its ranks are its places, made once
for all boards: the next board's JSON costs a copy of the list of pieces,
the edits, and joining and hashing its bytes, not serialising a row. A board
whose parent's JSON is not kept here (this process patched it twice between
two reads of the JSON, another page read it first) is written row by row.
"""

from __future__ import annotations

import hashlib
import operator
import threading
from collections import OrderedDict
from datetime import datetime

from pydantic import TypeAdapter

from ladderboard.engine.caches import SingleFlight
from ladderboard.engine.kept_board import KeptBoard
from ladderboard.rules.boards import BoardRow
from ladderboard.server.schemas import BoardRowOut

__all__ = ["Board", "BoardJson"]

# The board's own rows, serialised by pydantic's core as dataclasses, with
# the fields of the schema the API documents (BoardRowOut): three times
# faster than building a BoardRowOut a row first. A row's piece is kept by
# the values of those same fields, so a field the schema gains is in the
# key the moment it is in the JSON.
_ROW = TypeAdapter(BoardRow)
_AFTER_RANK = frozenset(BoardRowOut.model_fields) - {"rank"}  # rank is BoardRow's first
_PIECES = 200_000  # pieces kept at most, by content and by team, all boards together

Board = tuple[BoardRow, ...] | KeptBoard
"""A board as the engine keeps it (:meth:`ladderboard.engine.Competitions.kept_board`)."""


class BoardJson:
    """The rows of the last ``size`` boards as JSON, by the board's identity."""

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._flight = SingleFlight()
        # A board's identity -> (the board, its rows' JSON, the digest, each row's piece).
        self._items: OrderedDict[int, tuple[Board, bytes, str, list[bytes]]] = OrderedDict()
        self._pieces: dict[tuple, bytes] = {}  # a row's JSON after '{"rank":N,', by content
        # A team's last row seen: the values of its fields (the objects), its piece.
        self._teams: dict[str, tuple[tuple, bytes]] = {}
        # The fields serialised after the rank, as a set, and their getter.
        self._include = set(_AFTER_RANK)
        self._values = operator.attrgetter(*sorted(_AFTER_RANK))

    def rows(self, board: Board) -> bytes:
        """``board``'s rows as the JSON list of :class:`BoardRowOut`."""
        return self._kept(board)[0]

    def digest(self, board: Board) -> str:
        """A digest of :meth:`rows` (SHA-256, hex), the same in every process
        for the same rows: what an ``ETag`` of the board is made of. (SHA-256
        for its speed where processors hash it in hardware, as x86's SHA
        extensions and ARMv8's do: about a millisecond a megabyte.)"""
        return self._kept(board)[1]

    def _kept(self, board: Board) -> tuple[bytes, str]:
        """``board``'s rows and digest, serialised by one thread while the
        others that ask for them meanwhile (a board's readers after a
        submission) wait for it."""
        return self._flight.run(id(board), lambda: self._found(board), lambda: self._made(board))

    def _found(self, board: Board) -> tuple[bytes, str] | None:
        with self._lock:
            found = self._items.get(id(board))
            if found is not None and found[0] is board:
                self._items.move_to_end(id(board))
                return found[1], found[2]
        return None

    def _made(self, board: Board) -> tuple[bytes, str]:
        with self._lock:
            before = self._pieces_before(board)
        if isinstance(board, KeptBoard):
            pieces = self._patched(board, before)
            ranks = _ranks(len(pieces))[1 : len(pieces) + 1]  # a kept board's ranks are its places
        else:
            pieces = [self._piece(row) for row in board]
            every = _ranks(max((row.rank for row in board), default=0))
            ranks = [every[row.rank] for row in board]
        parts: list[bytes] = [b""] * (2 * len(pieces))
        parts[0::2] = ranks
        parts[1::2] = pieces
        data = b"[" + b"".join(parts)[1:] + b"]"
        digest = hashlib.sha256(data).hexdigest()
        with self._lock:
            self._items[id(board)] = (board, data, digest, pieces)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return data, digest

    def _pieces_before(self, board: Board) -> list[bytes] | None:
        """The pieces of the board ``board`` was patched from, if kept here."""
        parent = board.parent() if isinstance(board, KeptBoard) and board.parent else None
        found = None if parent is None else self._items.get(id(parent))
        return found[3] if found is not None and found[0] is parent else None

    def _patched(self, board: KeptBoard, before: list[bytes] | None) -> list[bytes]:
        """The pieces of ``board``'s rows: those of the board it was patched
        from with its edits, or (that board's JSON not kept) row by row."""
        if before is None:
            return [self._piece(row) for row in board.placed]
        pieces = list(before)
        for at, row in board.edits:
            if row is None:
                del pieces[at]
            else:
                pieces.insert(at, self._piece(row))
        return pieces

    def _piece(self, row: BoardRow) -> bytes:
        """``row``'s JSON after its rank, serialised by pydantic's core the
        first time its content (the values of :data:`_AFTER_RANK`) is seen.
        A team's row on the board before holds the same objects when only
        its rank changed: found by identity, the cheap way."""
        values = self._values(row)
        seen = self._teams.get(row.team)
        if seen is not None and all(map(operator.is_, seen[0], values)):
            return seen[1]
        # float.hex tells 0.0 from -0.0 (equal in Python, written apart) and
        # gives every NaN one key; a time's zone tells one instant in two
        # zones apart; the type tells True from 1.
        content = tuple(
            [
                value.hex()
                if type(value) is float
                else (value, value.tzinfo)
                if isinstance(value, datetime)
                else (type(value), value)
                for value in values
            ]
        )
        pieces = self._pieces
        piece = pieces.get(content)
        if piece is None:
            if len(pieces) > _PIECES:
                pieces.clear()
            piece = pieces[content] = _ROW.dump_json(row, include=self._include)[1:]
        if len(self._teams) > _PIECES:
            self._teams.clear()
        self._teams[row.team] = (values, piece)
        return piece


_RANKS: list[bytes] = [b""]  # ',{"rank":N,' at N
_RANKS_LOCK = threading.Lock()


def _ranks(top: int) -> list[bytes]:
    """The parts of JSON that open a row at each rank up to ``top``, made
    once for all boards: only ever appended to, under a lock, so that a
    list read at any time holds each rank's part at its index."""
    if len(_RANKS) <= top:
        with _RANKS_LOCK:
            made = [b',{"rank":%d,' % rank for rank in range(len(_RANKS), top + 1)]
            _RANKS.extend(made)
    return _RANKS
