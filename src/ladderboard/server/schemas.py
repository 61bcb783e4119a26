"""The API's response and request bodies: the privacy boundary.

Each model lists exactly what a caller may see. None of them has a field for
labels, per-sample losses, raw public scores, ``improved``, mechanism state
or keys; private scores appear only after the close (or to the organiser).
The audit key appears only in :class:`CommitmentOut` after the close, when
the engine reveals it for verification.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from ladderboard.engine.views import (
    BoardRow,
    CompetitionInfo,
    SubmissionResult,
    SubmissionView,
)

__all__ = [
    "BoardRowOut",
    "CommitmentOut",
    "CompetitionOut",
    "ErrorOut",
    "HealthOut",
    "LeaderboardOut",
    "SelectionIn",
    "SelectionOut",
    "SubmissionCreated",
    "SubmissionOut",
    "TeamCreated",
]


class CompetitionOut(BaseModel):
    """A competition as anyone may see it."""

    slug: str
    title: str
    description: str
    score: str
    mechanism: str
    mechanism_params: dict[str, Any]
    board: str
    daily_quota: int | None
    total_quota: int | None
    invalid_quota: int | None
    n_selections: int
    created_at: datetime
    deadline: datetime | None
    closed_at: datetime | None
    closed: bool
    n_public: int
    n_private: int
    commitment: str = Field(description="SHA-256 of the solution, its split and the key.")

    @classmethod
    def of(cls, info: CompetitionInfo) -> CompetitionOut:
        config = info.config
        return cls(
            slug=info.slug,
            title=info.title,
            description=info.description,
            score=config.score,
            mechanism=config.mechanism,
            mechanism_params=dict(config.mechanism_params),
            board=config.board,
            daily_quota=config.daily_quota,
            total_quota=config.total_quota,
            invalid_quota=config.invalid_quota,
            n_selections=config.n_selections,
            created_at=info.created_at,
            deadline=info.deadline,
            closed_at=info.closed_at,
            closed=info.is_closed(),
            n_public=info.n_public,
            n_private=info.n_private,
            commitment=info.commitment,
        )


class TeamCreated(BaseModel):
    """A new team and its token, shown this once: only its SHA-256 is stored."""

    id: int
    name: str
    created_at: datetime
    token: str = Field(description="The team's bearer token; it cannot be shown again.")


class SubmissionCreated(BaseModel):
    id: int
    public_score: float = Field(description="The score the board's mechanism released.")
    status: str
    remaining_today: int | None = Field(description="Valid submissions left today (UTC).")

    @classmethod
    def of(cls, result: SubmissionResult) -> SubmissionCreated:
        return cls(
            id=result.id,
            public_score=result.public_score,
            status=result.status,
            remaining_today=result.remaining_today,
        )


class SubmissionOut(BaseModel):
    """One of the team's own submissions."""

    id: int
    created_at: datetime
    message: str
    public_score: float
    selected: bool
    private_score: float | None = Field(description="Only after the close.")

    @classmethod
    def of(cls, view: SubmissionView) -> SubmissionOut:
        return cls(
            id=view.id,
            created_at=view.created_at,
            message=view.message,
            public_score=view.public_score,
            selected=view.selected,
            private_score=view.private_score,
        )


class SelectionIn(BaseModel):
    submission_ids: list[int] = Field(description="The team's final submissions.")


class SelectionOut(BaseModel):
    selected: list[int]


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
    rows: list[BoardRowOut]


class CommitmentOut(BaseModel):
    slug: str
    commitment: str
    closed: bool
    key: str | None = Field(
        description="The random-stream key, revealed after the close for `ladderboard verify`."
    )


class HealthOut(BaseModel):
    status: Literal["ok"]
    database: Literal["ok"]


class ErrorOut(BaseModel):
    """Every refusal's body."""

    error: str = Field(description="A short, stable code, e.g. `duplicate` or `too_large`.")
    message: str = Field(description="A sentence saying what happened and what to do.")
