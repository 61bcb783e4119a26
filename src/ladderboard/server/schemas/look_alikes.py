"""Accounts that look like one person's, for the organiser to decide
(:mod:`ladderboard.engine.look_alikes`). Only the organisers see them: the
evidence names the accounts' email addresses and client addresses."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from ladderboard.engine.look_alikes import LookAlike

__all__ = ["LookAlikeAccountOut", "LookAlikeOut"]


class LookAlikeAccountOut(BaseModel):
    """An account a flag names, with its team in the competition (``None``
    for a registered account in no team)."""

    account_id: int
    handle: str
    team: str | None


class LookAlikeOut(BaseModel):
    """Accounts flagged by ``rule``, with the evidence in words and the teams
    involved; ``key`` names the flag to dismiss it, and ``dismissed`` says
    whether an organiser has set it aside."""

    key: str
    dismissed: bool
    rule: Literal[
        "same-email",
        "same-mailbox",
        "same-identity-email",
        "created-together",
        "duplicate-submissions",
    ]
    evidence: str
    accounts: list[LookAlikeAccountOut]
    teams: list[str]

    @classmethod
    def of(cls, flag: LookAlike) -> LookAlikeOut:
        return cls(
            key=flag.key,
            dismissed=flag.dismissed,
            rule=flag.rule,  # type: ignore[arg-type]
            evidence=flag.evidence,
            accounts=[LookAlikeAccountOut(**a.__dict__) for a in flag.accounts],
            teams=list(flag.teams),
        )
