"""A board: its rows, and the envelope the API serves them in."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from ladderboard.engine.results import BoardRow
from ladderboard.server.schemas.shared import DECIMALS

__all__ = ["BoardRowOut", "LeaderboardOut"]


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
    board: Literal["public", "private"]
    closed: bool
    decimals: int = Field(description=DECIMALS)
    rows: list[BoardRowOut]  # last: the API puts the rows' kept JSON at the end
