"""A board: its rows, and the envelope the API serves them in."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from ladderboard.engine.results import BoardRow
from ladderboard.server.schemas.shared import DECIMALS

__all__ = ["BoardRowOut", "LateBoardOut", "LateBoardRowOut", "LeaderboardOut"]


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
