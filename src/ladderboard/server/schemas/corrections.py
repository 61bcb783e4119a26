"""A correction of a competition's solution, as the API answers it."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from ladderboard.engine.corrections import Correction

__all__ = ["CorrectionOut"]


class CorrectionOut(BaseModel):
    """One correction of the competition's solution (a label with a mistake)."""

    number: int = Field(description="The competition's corrections counted 1, 2, ...")
    at: datetime = Field(description="When the solution was corrected (UTC).")
    reason: str = Field(description="Why, in the organiser's words.")
    old_commitment: str = Field(description="The commitment of the solution it replaced.")
    new_commitment: str = Field(description="The commitment of the corrected solution.")
    changed: int | None = Field(
        default=None,
        description="How many released scores it changed (in the answer to the correction).",
    )

    @classmethod
    def of(cls, correction: Correction, *, with_count: bool = False) -> CorrectionOut:
        return cls(
            number=correction.number,
            at=correction.at,
            reason=correction.reason,
            old_commitment=correction.old_commitment,
            new_commitment=correction.new_commitment,
            changed=correction.changed if with_count else None,
        )
