"""Accounts and their personal tokens, as the API shows them to their owner
(and, for a new account, to the administrator): never a password hash, a
token's hash, or another account's tokens."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

__all__ = [
    "AccountCreated",
    "AccountIn",
    "AccountOut",
    "ApiTokenCreated",
    "ApiTokenIn",
    "ApiTokenOut",
]

Role = Literal["participant", "organiser", "admin"]


class AccountOut(BaseModel):
    """An account, as its owner sees it."""

    id: int
    handle: str
    email: str | None
    email_verified: bool
    role: Role = Field(
        description="participant; organiser (may create competitions); admin (the server's)."
    )
    created_at: datetime


class ApiTokenOut(BaseModel):
    """A personal token, without its secret."""

    id: int
    label: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


class ApiTokenCreated(ApiTokenOut):
    """A new (or rotated) personal token, with its secret: shown this once."""

    token: str = Field(description="The secret; the server keeps only its hash.")


class ApiTokenIn(BaseModel):
    label: str = Field(
        min_length=1, max_length=100, description="Where the token is used, e.g. 'laptop'."
    )


class AccountIn(BaseModel):
    """An account an administrator creates."""

    handle: str = Field(min_length=2, max_length=40)
    email: str | None = Field(default=None, max_length=320)
    role: Role = "participant"


class AccountCreated(BaseModel):
    """The new account and a link that signs in as it, once, for a while."""

    account: AccountOut
    sign_in_link: str = Field(description="One use; give it to the account's owner.")
    expires_at: datetime
