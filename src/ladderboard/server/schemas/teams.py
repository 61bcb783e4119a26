"""A team: created (with its token, shown once), as the organiser's desk
lists it, its standing (rank, quota, refused files), its duplicate flags,
and whose token a request carries."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from ladderboard.engine.results import (
    DuplicateFlag,
    QuotaView,
    RejectionView,
    TeamInfo,
    TeamSummary,
)
from ladderboard.server.schemas.accounts import AccountOut

__all__ = [
    "FlagOut",
    "MembershipOut",
    "QuotaOut",
    "RejectionOut",
    "TeamCreated",
    "TeamOut",
    "TeamPatch",
    "TeamStatusOut",
    "TeamSummaryOut",
    "WhoAmIOut",
]


class TeamCreated(BaseModel):
    """A new team and its token, shown this once: only its SHA-256 is stored."""

    id: int
    name: str
    created_at: datetime
    token: str = Field(description="The team's bearer token; it cannot be shown again.")


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

    role: Literal["organiser", "team", "account"]
    teams: list[MembershipOut] = Field(
        description="A team token's team, or a personal token's teams, by competition "
        "(empty for the organiser)."
    )
    account: AccountOut | None = Field(
        default=None, description="A personal token's account (none for another token)."
    )
