"""Dependencies of the routes: the store, the settings, and who is calling.

A caller is the organiser (the ``LADDERBOARD_ADMIN_TOKEN`` bearer token,
compared in constant time), a team (a token whose SHA-256 is stored with the
team), or anonymous. Every request that carries a bearer token spends one
request of that token's rate limit, valid or not; an anonymous request that
writes (self-registration) spends one of its client address's.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ladderboard.competition.engine import Competitions
from ladderboard.competition.errors import NotFound
from ladderboard.competition.views import CompetitionInfo, TeamInfo
from ladderboard.server.errors import ApiError
from ladderboard.server.ratelimit import TokenBuckets
from ladderboard.server.settings import Settings

__all__ = [
    "Caller",
    "caller",
    "get_settings",
    "get_store",
    "hash_token",
    "organiser",
    "team_of",
]

_bearer = HTTPBearer(auto_error=False, description="The organiser's or a team's token.")


def hash_token(token: str) -> str:
    """The SHA-256 under which a team's token is stored.

    >>> hash_token("abc")[:16]
    'ba7816bf8f01cfea'
    """
    return hashlib.sha256(token.encode()).hexdigest()


def get_store(request: Request) -> Competitions:
    return request.app.state.store


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


Store = Annotated[Competitions, Depends(get_store)]
SettingsDep = Annotated[Settings, Depends(get_settings)]


@dataclass(frozen=True)
class Caller:
    """Who sent a request: ``token`` is ``None`` when anonymous."""

    token: str | None
    is_organiser: bool

    def team(self, store: Competitions, slug: str) -> TeamInfo | None:
        """The team of ``slug`` this token belongs to, if any."""
        if self.token is None or self.is_organiser:
            return None
        try:
            return store.team_by_token_hash(slug, hash_token(self.token))
        except NotFound:
            return None


def caller(
    request: Request,
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Caller:
    if credentials is None:
        if request.headers.get("authorization"):
            raise ApiError(
                401,
                "unauthorized",
                "the Authorization header must be 'Bearer <token>'",
                headers={"WWW-Authenticate": "Bearer"},
            )
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            # Anonymous writes (self-registration) spend their client address's bucket.
            host = request.client.host if request.client else "unknown"
            _spend(request, f"client:{host}", "from this address")
        return Caller(None, False)
    token = credentials.credentials
    _spend(request, hash_token(token), "with this token")
    admin = settings.admin_token.get_secret_value()
    is_organiser = bool(admin) and hmac.compare_digest(token.encode(), admin.encode())
    return Caller(token, is_organiser)


def _spend(request: Request, key: str, whose: str) -> None:
    buckets: TokenBuckets = request.app.state.rate_limit
    wait = buckets.take(key)
    if wait:
        raise ApiError(
            429,
            "rate_limited",
            f"too many requests {whose}; at most {buckets.per_minute} a minute, "
            f"try again in {wait} s",
            headers={"Retry-After": str(wait)},
        )


CallerDep = Annotated[Caller, Depends(caller)]


def _unauthorized(message: str) -> ApiError:
    return ApiError(401, "unauthorized", message, headers={"WWW-Authenticate": "Bearer"})


def organiser(store: Store, who: CallerDep, request: Request) -> Caller:
    """Only the organiser: 401 without a valid token, 403 with a team's."""
    if who.is_organiser:
        return who
    if who.token is None:
        raise _unauthorized("this action needs the organiser's token (Authorization: Bearer)")
    slug = request.path_params.get("slug")
    if slug is not None and who.team(store, slug) is not None:
        raise ApiError(403, "forbidden", "this action is for the organiser, not for a team")
    raise _unauthorized("the token is not the organiser's token")


def competition_of(store: Store, slug: str) -> CompetitionInfo:
    """The competition of the path (404 before any token is checked)."""
    return store.competition(slug)


Competition = Annotated[CompetitionInfo, Depends(competition_of)]


def team_of(store: Store, who: CallerDep, competition: Competition) -> TeamInfo:
    """Only a team of this competition: 401 without a valid token, 403 for the organiser."""
    if who.is_organiser:
        raise ApiError(403, "forbidden", "this action is for a team, not for the organiser")
    if who.token is None:
        raise _unauthorized("this action needs your team's token (Authorization: Bearer)")
    team = who.team(store, competition.slug)
    if team is None:
        raise _unauthorized(f"the token is not a team token of competition {competition.slug!r}")
    return team


OrganiserDep = Annotated[Caller, Depends(organiser)]
TeamDep = Annotated[TeamInfo, Depends(team_of)]
