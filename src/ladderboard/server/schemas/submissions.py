"""A team's own submissions: the answer to a submission, the team's list,
and its choice of final submissions."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import AliasChoices, BaseModel, Field

from ladderboard.engine.results import SubmissionResult, SubmissionView
from ladderboard.server.schemas.shared import DECIMALS

__all__ = [
    "LateSubmissionOut",
    "SelectionIn",
    "SelectionOut",
    "SubmissionCreated",
    "SubmissionOut",
]


_SCORE_OF = Field(
    description="What public_score is a score of: 'file', the file's own public score (full "
    "disclosure), or 'team', the team's board score after this file (a ladder: the board's "
    "score of the file it holds as the team's best, which need not be this one)."
)


_NUMBER = Field(description="The submission's number among the team's own (1, 2, ...).")
_ID = Field(description="The same as number, kept for the clients that read it.", deprecated=True)


class SubmissionCreated(BaseModel):
    """What a submission's sender is told: the score its board released."""

    number: int = _NUMBER
    id: int = _ID
    public_score: float = Field(description="The score the board's mechanism released.")
    score_of: Literal["file", "team"] = _SCORE_OF
    previous_score: float | None = Field(
        description="The score released for the team's previous submission (none for its first)."
    )
    explanation: str = Field(
        description="What happened to the team's public score, in words, from its own "
        "released scores only."
    )
    status: str
    remaining_today: int | None = Field(
        description="Valid submissions left today (UTC), within the total quota too."
    )
    decimals: int = Field(description=DECIMALS)
    late: bool = Field(
        False,
        description="A late submission, after the publication: scored exactly on the public "
        "and the private rows, shown on the late board only.",
    )
    private_score: float | None = Field(
        None, description="A late submission's exact private score (none otherwise)."
    )

    @classmethod
    def of(
        cls,
        result: SubmissionResult,
        explanation: str = "",
        *,
        decimals: int,
        score_of: Literal["file", "team"] = "team",
    ) -> SubmissionCreated:
        return cls(
            number=result.number,
            id=result.number,
            public_score=result.public_score,
            score_of=score_of,
            previous_score=result.previous_score,
            explanation=explanation,
            status=result.status,
            remaining_today=result.remaining_today,
            decimals=decimals,
            late=result.late,
            private_score=result.private_score,
        )


class SubmissionOut(BaseModel):
    """One of the team's own submissions."""

    number: int = _NUMBER
    id: int = _ID
    created_at: datetime
    message: str
    public_score: float
    score_of: Literal["file", "team"] = _SCORE_OF
    selected: bool
    final: bool = Field(
        description="Counts for the final ranking: selected or, for a team that selected "
        "nothing, chosen automatically (on a ladder the files its mechanism took as the "
        "team's best, shown from the close; under full disclosure the best public scores)."
    )
    private_score: float | None = Field(description="Only once the private board is published.")
    best: bool | None = Field(
        default=None,
        description="Whether the mechanism took this file as the team's new best; only once "
        "the private board is published.",
    )
    corrected: bool = Field(
        default=False,
        description="Whether a correction of the solution changed this released score: the "
        "file was scored again on the corrected solution (the competition's history says "
        "when and why).",
    )

    @classmethod
    def of(
        cls, view: SubmissionView, *, score_of: Literal["file", "team"] = "team"
    ) -> SubmissionOut:
        return cls(
            number=view.number,
            id=view.number,
            created_at=view.created_at,
            message=view.message,
            public_score=view.public_score,
            score_of=score_of,
            selected=view.selected,
            final=view.final,
            private_score=view.private_score,
            best=view.best,
            corrected=view.corrected,
        )


class SelectionIn(BaseModel):
    """The team's choice of final submissions, by their numbers (the name
    ``submission_ids`` is read too, as clients sent it)."""

    numbers: list[int] = Field(
        validation_alias=AliasChoices("numbers", "submission_ids"),
        description="The numbers of the team's final submissions.",
    )


class SelectionOut(BaseModel):
    """The numbers of the team's final submissions."""

    selected: list[int]


class LateSubmissionOut(BaseModel):
    """One of the team's late submissions, with both exact scores."""

    number: int = Field(description="Its number among the team's late files (1, 2, ...).")
    created_at: datetime
    message: str
    public_score: float
    private_score: float
