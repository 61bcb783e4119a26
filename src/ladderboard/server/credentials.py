"""What a request carries to say who sends it: a bearer token and the
session cookies, their names, and the digest under which a token is stored.

Below :mod:`ladderboard.server.deps` and the pages, so that the check of a
competition's visibility (:mod:`ladderboard.server.visibility`), which every
route and page goes through, reads credentials the way they do.
"""

from __future__ import annotations

import hashlib
import hmac

from fastapi.security.utils import get_authorization_scheme_param
from starlette.requests import HTTPConnection

from ladderboard.server.settings import Settings

__all__ = [
    "ACCOUNT_COOKIE",
    "ORGANISER_COOKIE",
    "TEAM_COOKIE",
    "bearer_token",
    "hash_token",
    "is_organiser_token",
]

TEAM_COOKIE = "ladderboard_team"
"""A team's browser session (:mod:`ladderboard.server.team_pages`), scoped to ``/c/{slug}``."""
ACCOUNT_COOKIE = "ladderboard_session"
"""An account's browser session (:mod:`ladderboard.server.account_session`)."""
ORGANISER_COOKIE = "ladderboard_organiser"
"""The organiser's browser session (:mod:`ladderboard.server.organiser_session`)."""


def hash_token(token: str) -> str:
    """The SHA-256 under which a team's token is stored.

    >>> hash_token("abc")[:16]
    'ba7816bf8f01cfea'
    """
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def is_organiser_token(settings: Settings, token: str) -> bool:
    """Whether ``token`` is ``LADDERBOARD_ADMIN_TOKEN`` (compared in constant
    time; never, when the server has none)."""
    admin = settings.admin_token.get_secret_value()
    return bool(admin) and hmac.compare_digest(
        token.encode("utf-8", "surrogatepass"), admin.encode()
    )


def bearer_token(request: HTTPConnection) -> str | None:
    """The token of ``Authorization: Bearer <token>``, if the request has one."""
    scheme, token = get_authorization_scheme_param(request.headers.get("authorization"))
    return token if scheme.lower() == "bearer" and token else None
