"""A competition's organisers and its action log, as the API answers them."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from ladderboard.engine.accounts import HANDLE_CHARS, ActionInfo, OrganiserInfo

__all__ = ["ActionOut", "OrganiserIn", "OrganiserOut"]


class OrganiserIn(BaseModel):
    """An account made an organiser of the competition, or given another role."""

    handle: str = Field(min_length=1, max_length=HANDLE_CHARS, description="The account's handle.")
    role: Literal["owner", "co-organiser"] = Field(
        default="co-organiser",
        description="owner: every organiser action; co-organiser: the desk, the teams and "
        "the data files, not the close, the publications, the settings or the organisers.",
    )


class OrganiserOut(BaseModel):
    """One organiser of the competition."""

    handle: str = Field(description="The account's handle.")
    role: Literal["owner", "co-organiser"]
    added_at: datetime = Field(description="When it was made an organiser (UTC).")
    added_by: str = Field(description="Who made it one.")

    @classmethod
    def of(cls, info: OrganiserInfo) -> OrganiserOut:
        return cls(
            handle=info.handle,
            role=info.role,  # type: ignore[arg-type]
            added_at=info.added_at,
            added_by=info.added_by,
        )


class ActionOut(BaseModel):
    """One organiser action: who, what, when, from where."""

    at: datetime = Field(description="When (UTC).")
    actor: str = Field(description="'administrator token', or 'account HANDLE'.")
    action: str = Field(description="What, e.g. competition.close, team.add.")
    detail: dict[str, Any] = Field(description="Names and settings; never a token or a file.")
    address: str = Field(description="The client address the action came from.")

    @classmethod
    def of(cls, info: ActionInfo) -> ActionOut:
        return cls(
            at=info.at,
            actor=info.actor,
            action=info.action,
            detail=info.detail,
            address=info.address,
        )
