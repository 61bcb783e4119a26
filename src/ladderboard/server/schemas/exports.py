"""The audit bundle's publication: what the organiser asks for, what anyone reads."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["AuditIn", "AuditOut"]


class AuditIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    files: Literal["full", "hashes"] = Field(
        default="full",
        description="`full`: the bundle holds every submitted file, and anyone re-runs every "
        "board; `hashes`: only their SHA-256, and each team re-runs its own board with its "
        "own files.",
    )


class AuditOut(BaseModel):
    slug: str
    files: Literal["full", "hashes"]
    published_at: datetime
    url: str = Field(description="Where anyone downloads the bundle (a zip archive).")
