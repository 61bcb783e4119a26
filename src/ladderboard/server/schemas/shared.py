"""What every resource's schemas share: how a score's decimals are
described, the refusal's body and the health check's."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

__all__ = ["DECIMALS", "ErrorOut", "HealthOut"]


DECIMALS = (
    "The decimals a score of the competition is shown with: those the mechanism's releases "
    "really carry, at most the competition's precision."
)


class HealthOut(BaseModel):
    status: Literal["ok"]
    database: Literal["ok"]


class LiveOut(BaseModel):
    status: Literal["ok"]


class ErrorOut(BaseModel):
    """Every refusal's body."""

    error: str = Field(description="A short, stable code, e.g. `duplicate` or `too_large`.")
    message: str = Field(description="A sentence saying what happened and what to do.")
