"""Joining a competition: the request, an account's registration, and the
organiser's invitations (whose code is shown once, when made) and list."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from ladderboard.engine.registrations import InvitationInfo, Registered
from ladderboard.rules.text import TEAM_NAME_CHARS

__all__ = [
    "InvitationCreated",
    "InvitationIn",
    "InvitationOut",
    "JoinIn",
    "MemberIn",
    "RegistrationOut",
]

INVITATION_CODE_CHARS = 200


class JoinIn(BaseModel):
    accept_rules: bool = Field(
        default=False,
        strict=True,
        description="True to accept the competition's rules: joining needs it.",
    )
    code: str | None = Field(
        default=None,
        max_length=INVITATION_CODE_CHARS,
        description="The invitation code, for a competition whose registration is by invitation.",
    )
    team: str | None = Field(
        default=None,
        min_length=1,
        max_length=TEAM_NAME_CHARS,
        description="Create your team at once, under this name, with you its captain.",
    )


class RegistrationOut(BaseModel):
    """An account's registration to a competition."""

    competition: str = Field(description="The competition's slug.")
    account: str = Field(description="The account's handle.")
    team: str | None = Field(description="The account's team there, if it has one.")
    accepted_rules_at: datetime
    rules_sha256: str = Field(description="The SHA-256 of the rules text accepted.")
    rules_current: bool = Field(
        description="Whether the rules accepted are the competition's rules now."
    )
    via: Literal["open", "invitation", "list"]
    invitation: int | None = Field(description="The invitation it joined with, by its id.")

    @classmethod
    def of(cls, slug: str, registered: Registered) -> RegistrationOut:
        return cls(
            competition=slug,
            account=registered.account,
            team=registered.team,
            accepted_rules_at=registered.accepted_rules_at,
            rules_sha256=registered.rules_sha256,
            rules_current=registered.rules_current,
            via=registered.via,  # type: ignore[arg-type]
            invitation=registered.invitation,
        )


class InvitationIn(BaseModel):
    label: str = Field(default="", max_length=100, description="A note for the organisers.")
    uses: int | None = Field(
        default=None, ge=1, le=1_000_000, description="How many accounts it admits (none: any)."
    )
    days: float | None = Field(
        default=None, gt=0, le=3660, description="How many days it is valid (none: until revoked)."
    )


class InvitationOut(BaseModel):
    """An invitation as the organisers see it, without its code."""

    id: int
    label: str
    created_at: datetime
    created_by: str
    expires_at: datetime | None
    max_uses: int | None
    uses: int
    revoked_at: datetime | None
    state: Literal["valid", "revoked", "expired", "used up"]

    @classmethod
    def of(cls, invitation: InvitationInfo, now: datetime) -> InvitationOut:
        return cls(state=invitation.state(now), **invitation.__dict__)  # type: ignore[arg-type]


class InvitationCreated(InvitationOut):
    """A new invitation with its code and link, shown this once: only the
    code's SHA-256 is stored."""

    code: str = Field(description="The invitation code; it cannot be shown again.")
    link: str = Field(description="The join page's address with the code.")


class MemberIn(BaseModel):
    account: str = Field(min_length=1, max_length=100, description="The account's handle.")
