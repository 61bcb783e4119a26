"""A team of several members as its members see it (members, live
invitations, pending merges), a new invitation code (shown once), a merge
request, and a team's history (for the organiser). No code is ever shown
again after its creation: only its SHA-256 is stored."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from ladderboard.engine.membership import InvitationInfo, MergeInfo, MyTeam, TeamEvent

__all__ = [
    "CaptainIn",
    "InvitationCreated",
    "InvitationOut",
    "JoinIn",
    "MemberOut",
    "MergeIn",
    "MergeOut",
    "MyTeamOut",
    "TeamEventOut",
]


class MemberOut(BaseModel):
    handle: str
    role: str = Field(description="captain or member")
    joined_at: datetime


class InvitationOut(BaseModel):
    id: int
    created_at: datetime
    expires_at: datetime
    created_by: str | None

    @classmethod
    def of(cls, invitation: InvitationInfo) -> InvitationOut:
        return cls(
            id=invitation.id,
            created_at=invitation.created_at,
            expires_at=invitation.expires_at,
            created_by=invitation.created_by,
        )


class InvitationCreated(InvitationOut):
    """A new invitation and its code, shown this once."""

    code: str = Field(description="Admits one account; it cannot be shown again.")
    link: str = Field(description="The page that joins the team with this code.")


class MergeOut(BaseModel):
    id: int
    from_team: str
    into_team: str
    requested_at: datetime
    status: str = Field(description="pending, accepted, refused or withdrawn")
    answered_at: datetime | None

    @classmethod
    def of(cls, merge: MergeInfo) -> MergeOut:
        return cls(
            id=merge.id,
            from_team=merge.from_team,
            into_team=merge.into_team,
            requested_at=merge.requested_at,
            status=merge.status,
            answered_at=merge.answered_at,
        )


class MyTeamOut(BaseModel):
    """The caller's team: its members, and, for the captain to act on, its
    live invitations and its pending merges (either way)."""

    name: str
    created_at: datetime
    disabled: bool
    role: str = Field(description="The caller's role: captain or member.")
    members: list[MemberOut]
    invitations: list[InvitationOut]
    merges: list[MergeOut]

    @classmethod
    def of(cls, mine: MyTeam) -> MyTeamOut:
        return cls(
            name=mine.team.name,
            created_at=mine.team.created_at,
            disabled=mine.team.disabled,
            role=mine.role,
            members=[
                MemberOut(handle=m.handle, role=m.role, joined_at=m.joined_at) for m in mine.members
            ],
            invitations=[InvitationOut.of(i) for i in mine.invitations],
            merges=[MergeOut.of(m) for m in mine.merges],
        )


class TeamEventOut(BaseModel):
    at: datetime
    actor: str
    event: str
    detail: dict[str, Any]

    @classmethod
    def of(cls, event: TeamEvent) -> TeamEventOut:
        return cls(at=event.at, actor=event.actor, event=event.event, detail=event.detail)


class JoinIn(BaseModel):
    code: str = Field(min_length=1, max_length=64, description="An invitation code.")


class CaptainIn(BaseModel):
    handle: str = Field(min_length=1, max_length=100, description="The member to make captain.")


class MergeIn(BaseModel):
    into: str = Field(min_length=1, max_length=100, description="The team to merge into.")
