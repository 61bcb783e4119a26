"""A file participants download."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from ladderboard.engine.results import FileInfo

__all__ = ["FileOut"]


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
