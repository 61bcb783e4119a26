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

from ladderboard.engine.results import (
    BoardRow,
    CompetitionInfo,
    DuplicateFlag,
    FileInfo,
    QuotaView,
    RejectionView,
    SubmissionResult,
    SubmissionView,
    TeamInfo,
    TeamSummary,
)

__all__ = [
    "BoardRowOut",
    "CommitmentOut",
    "CompetitionOut",
    "CompetitionPatch",
    "ErrorOut",
    "FileOut",
    "FlagOut",
    "HealthOut",
    "LeaderboardOut",
    "MembershipOut",
    "QuotaOut",
    "RejectionOut",
    "SelectionIn",
    "SelectionOut",
    "SubmissionCreated",
    "SubmissionOut",
    "TeamCreated",
    "TeamOut",
    "TeamPatch",
    "TeamStatusOut",
    "TeamSummaryOut",
    "WhoAmIOut",
]


_DECIMALS = (
    "The decimals a score of the competition is shown with: those the mechanism's releases "
    "really carry, at most the competition's precision."
)


class CompetitionOut(BaseModel):
    """A competition as anyone may see it."""

    slug: str
    title: str
    description: str
    rules: str = Field(description="The rules, in Markdown (the description is the overview).")
    score: str
    greater_is_better: bool = Field(description="Whether a higher score is better.")
    mechanism: str
    mechanism_params: dict[str, Any]
    board: str
    ranks: int = Field(description="The ranks of a per-rank board.")
    daily_quota: int | None
    total_quota: int | None
    invalid_quota: int | None
    n_selections: int
    created_at: datetime
    deadline: datetime | None
    closed_at: datetime | None
    closed: bool
    auto_publish: bool = Field(
        description="Whether the private board is published at the deadline."
    )
    published_at: datetime | None = Field(
        description="When the private board was published and the audit key revealed."
    )
    published: bool
    n_public: int
    n_private: int
    commitment: str = Field(description="SHA-256 of the solution, its split and the key.")
    decimals: int = Field(description=_DECIMALS)

    @classmethod
    def of(cls, info: CompetitionInfo, decimals: int) -> CompetitionOut:
        """``info`` as anyone may see it, its scores shown with ``decimals``
        (:meth:`~ladderboard.engine.Competitions.decimals`)."""
        config = info.config
        return cls(
            slug=info.slug,
            title=info.title,
            description=info.description,
            rules=info.rules,
            score=config.score,
            greater_is_better=config.scoring().direction.greater_is_better,
            mechanism=config.mechanism,
            mechanism_params=dict(config.mechanism_params),
            board=config.board,
            ranks=config.ranks,
            daily_quota=config.daily_quota,
            total_quota=config.total_quota,
            invalid_quota=config.invalid_quota,
            n_selections=config.n_selections,
            created_at=info.created_at,
            deadline=info.deadline,
            closed_at=info.closed_at,
            closed=info.is_closed(),
            auto_publish=config.auto_publish,
            published_at=info.published_at,
            published=info.is_published(),
            n_public=info.n_public,
            n_private=info.n_private,
            commitment=info.commitment,
            decimals=decimals,
        )


class TeamCreated(BaseModel):
    """A new team and its token, shown this once: only its SHA-256 is stored."""

    id: int
    name: str
    created_at: datetime
    token: str = Field(description="The team's bearer token; it cannot be shown again.")


_SCORE_OF = Field(
    description="What public_score is a score of: 'file', the file's own public score (full "
    "disclosure), or 'team', the team's board score after this file (a ladder: the board's "
    "score of the file it holds as the team's best, which need not be this one)."
)


class SubmissionCreated(BaseModel):
    id: int = Field(description="The submission's number among the team's own.")
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
    decimals: int = Field(description=_DECIMALS)

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
            id=result.id,
            public_score=result.public_score,
            score_of=score_of,
            previous_score=result.previous_score,
            explanation=explanation,
            status=result.status,
            remaining_today=result.remaining_today,
            decimals=decimals,
        )


class SubmissionOut(BaseModel):
    """One of the team's own submissions."""

    id: int
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

    @classmethod
    def of(
        cls, view: SubmissionView, *, score_of: Literal["file", "team"] = "team"
    ) -> SubmissionOut:
        return cls(
            id=view.id,
            created_at=view.created_at,
            message=view.message,
            public_score=view.public_score,
            score_of=score_of,
            selected=view.selected,
            final=view.final,
            private_score=view.private_score,
            best=view.best,
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
    decimals: int = Field(description=_DECIMALS)
    rows: list[BoardRowOut]  # last: the API puts the rows' kept JSON at the end


class CommitmentOut(BaseModel):
    slug: str
    commitment: str
    closed: bool
    published: bool
    key: str | None = Field(
        description="The random-stream key, revealed with the private board for "
        "`ladderboard verify`."
    )


class CompetitionPatch(BaseModel):
    """What the organiser may change while a competition runs; what is left
    out stays as it is."""

    title: str | None = None
    description: str | None = Field(None, description="The overview, Markdown.")
    rules: str | None = Field(None, description="Markdown.")
    deadline: datetime | None = Field(
        None, description="A later deadline, with a time zone; null for none. Open only."
    )


class FileOut(BaseModel):
    name: str
    size: int = Field(description="Bytes.")
    sha256: str
    created_at: datetime
    generated: bool = Field(description="The sample submission, made from the solution's ids.")
    url: str

    @classmethod
    def of(cls, slug: str, info: FileInfo) -> FileOut:
        return cls(
            name=info.name,
            size=info.size,
            sha256=info.sha256,
            created_at=info.created_at,
            generated=info.generated,
            url=f"/api/competitions/{slug}/files/{info.name}",
        )


class TeamOut(BaseModel):
    id: int
    name: str
    created_at: datetime
    disabled: bool

    @classmethod
    def of(cls, team: TeamInfo) -> TeamOut:
        return cls(id=team.id, name=team.name, created_at=team.created_at, disabled=team.disabled)


class TeamPatch(BaseModel):
    disabled: bool = Field(
        description="Disable the team (no sign-in, submission or place on "
        "the boards), or enable it again."
    )


class TeamSummaryOut(BaseModel):
    """A team on the organiser's desk."""

    name: str
    created_at: datetime
    disabled: bool
    submissions: int
    last_submission: datetime | None
    used_today: int
    invalid: int
    flags: int = Field(description="Duplicate flags naming the team, on either side.")

    @classmethod
    def of(cls, team: TeamSummary) -> TeamSummaryOut:
        return cls(**team.__dict__)


class FlagOut(BaseModel):
    """Submission ``number`` of ``team`` repeats ``earlier_team``'s ``earlier_number``."""

    team: str
    number: int
    earlier_team: str
    earlier_number: int

    @classmethod
    def of(cls, flag: DuplicateFlag) -> FlagOut:
        return cls(**flag.__dict__)


class QuotaOut(BaseModel):
    used_today: int
    daily_quota: int | None
    remaining_today: int | None
    used_total: int
    total_quota: int | None
    invalid: int
    invalid_quota: int | None
    resets_at: datetime = Field(description="When the daily quota resets (UTC midnight).")

    @classmethod
    def of(cls, quota: QuotaView) -> QuotaOut:
        return cls(remaining_today=quota.remaining_today, **quota.__dict__)


class RejectionOut(BaseModel):
    created_at: datetime
    code: str
    message: str
    size: int
    filename: str | None = Field(
        description="The name the file was sent under (none when the request named none)."
    )

    @classmethod
    def of(cls, rejection: RejectionView) -> RejectionOut:
        return cls(**rejection.__dict__)


class TeamStatusOut(BaseModel):
    """The calling team's standing: its rank, its quota and its refused files."""

    name: str
    rank: int | None = Field(description="On the public board; none before a submission.")
    quota: QuotaOut
    rejections: list[RejectionOut]


class MembershipOut(BaseModel):
    competition: str = Field(description="The competition's slug.")
    team: str


class WhoAmIOut(BaseModel):
    """Whose token the request carried."""

    role: Literal["organiser", "team"]
    teams: list[MembershipOut] = Field(
        description="A team token's team, by competition (empty for the organiser)."
    )


class HealthOut(BaseModel):
    status: Literal["ok"]
    database: Literal["ok"]


class ErrorOut(BaseModel):
    """Every refusal's body."""

    error: str = Field(description="A short, stable code, e.g. `duplicate` or `too_large`.")
    message: str = Field(description="A sentence saying what happened and what to do.")
