"""A board: its rows, and the envelope the API serves them in."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from ladderboard.engine.audit import Compared
from ladderboard.engine.results import BoardRow
from ladderboard.server.schemas.shared import DECIMALS

__all__ = [
    "BoardRowOut",
    "LateBoardOut",
    "LateBoardRowOut",
    "LeaderboardOut",
    "RescoreIn",
    "RescoreOut",
    "RescoreRowOut",
]


class BoardRowOut(BaseModel):
    rank: int
    team: str
    score: float
    entries: int
    last_submission: datetime | None

    @classmethod
    def of(cls, row: BoardRow) -> BoardRowOut:
        return cls(
            rank=row.rank,
            team=row.team,
            score=row.score,
            entries=row.entries,
            last_submission=row.last_submission,
        )


class LeaderboardOut(BaseModel):
    slug: str
    board: Literal["public", "private", "participants"] = Field(
        description="The board: 'participants' is the public board as participants see it "
        "(frozen during a freeze), for the organiser beside the live one."
    )
    closed: bool
    frozen_since: datetime | None = Field(
        None,
        description="When the board shown is the public board frozen at this time (from the "
        "freeze to the close, for everyone but the organiser, who sees the live board).",
    )
    decimals: int = Field(description=DECIMALS)
    rows: list[BoardRowOut]  # last: the API puts the rows' kept JSON at the end


class RescoreIn(BaseModel):
    """A what-if board: the competition's submissions scored again under
    another mechanism (or score). Left out: the competition's own."""

    model_config = {"extra": "forbid"}

    mechanism: str = Field(description="A mechanism's registered name.")
    mechanism_params: dict[str, Any] = Field(
        default_factory=dict,
        description="Its parameters; those left out take a new competition's defaults.",
    )
    board: Literal["public", "private"] = Field(
        "public", description="The standings returned: as released, or the private scores."
    )
    mode: Literal["per-team", "per-rank"] = Field(
        "per-team", description="A mechanism per team, or one board of the top ranks."
    )
    ranks: int | None = Field(None, ge=1, le=10_000, description="The ranks of a per-rank board.")
    score: str | None = Field(None, description="A loss or metric (default: the competition's).")
    score_params: dict[str, Any] | None = Field(
        None, description="Its parameters (default: the competition's, for its own score)."
    )


class RescoreRowOut(BoardRowOut):
    """A what-if row, beside its team's row on the live board."""

    live_rank: int | None = Field(description="The team's live rank (null: not on that board).")
    live_score: float | None
    moved: int | None = Field(
        description="The places the team gains on the what-if board (negative: loses them)."
    )

    @classmethod
    def compared(cls, compared: Compared) -> RescoreRowOut:
        live = compared.live
        return cls(
            **BoardRowOut.of(compared.row).model_dump(),
            live_rank=None if live is None else live.rank,
            live_score=None if live is None else live.score,
            moved=compared.moved,
        )


class RescoreOut(BaseModel):
    """The what-if board beside the live one of the same standings: the
    organiser's alone (never stored, never cached)."""

    slug: str
    board: Literal["public", "private"]
    mode: Literal["per-team", "per-rank"]
    mechanism: str
    mechanism_params: dict[str, Any]
    score: str
    decimals: int = Field(description=DECIMALS)
    live_decimals: int = Field(description="The live board's decimals.")
    rows: list[RescoreRowOut]


class LateBoardRowOut(BaseModel):
    """A team's line on the late board: its best late file by the private
    score, that file's exact public score, its number among the team's late
    files, how many late files the team sent and when the last."""

    rank: int
    team: str
    private_score: float
    public_score: float
    number: int
    entries: int
    last_submission: datetime


class LateBoardOut(BaseModel):
    """The late board: files sent after the publication, scored exactly,
    never part of the final ranking."""

    slug: str
    late: Literal[True] = True
    decimals: int = Field(description=DECIMALS)
    rows: list[LateBoardRowOut]
