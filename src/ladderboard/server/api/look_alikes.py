"""The accounts of a competition that look like one person's (organiser),
and setting a flag aside once looked at, or back again."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from ladderboard.engine.errors import NotFound
from ladderboard.server.api.shared import errors
from ladderboard.server.deps import (
    Caller,
    Competition,
    CompetitionsDep,
    OrganiserDep,
    acting_for,
    no_store,
)
from ladderboard.server.schemas.look_alikes import LookAlikeOut

__all__ = ["router"]

router = APIRouter()

KEY_CHARS = 64
"""A flag's key: a SHA-256 in hexadecimal."""


@router.get(
    "/competitions/{slug}/look-alikes",
    responses=errors(401, 403, 404, 422, 429),
    response_model=list[LookAlikeOut],
    summary="Accounts that look like one person's, each with why (organiser)",
)
def list_look_alikes(
    response: Response,
    competitions: CompetitionsDep,
    _: OrganiserDep,
    competition: Competition,
) -> list[LookAlikeOut]:
    """Accounts of the competition (its teams' members and registered
    accounts) that share an email address or mailbox, an OpenID Connect
    identity's address, a client address within minutes of creation, or a
    team's predictions; nothing is refused for it. The evidence names
    people's addresses: no cache keeps it."""
    no_store(response)
    return [LookAlikeOut.of(flag) for flag in competitions.look_alikes(competition.slug)]


def _set_aside(
    request: Request,
    response: Response,
    competitions: CompetitionsDep,
    who: Caller,
    slug: str,
    key: str,
    dismissed: bool,
) -> LookAlikeOut:
    if len(key) > KEY_CHARS:
        raise NotFound(f"no look-alike flag of that key in {slug!r}")
    flag = acting_for(request, competitions, who).set_look_alike_aside(slug, key, dismissed)
    no_store(response)
    return LookAlikeOut.of(flag)


@router.post(
    "/competitions/{slug}/look-alikes/{key}/dismiss",
    responses=errors(401, 403, 404, 422, 429),
    response_model=LookAlikeOut,
    summary="Set a look-alike flag aside, once looked at (organiser)",
)
def dismiss_look_alike(
    key: str,
    request: Request,
    response: Response,
    competitions: CompetitionsDep,
    who: OrganiserDep,
    competition: Competition,
) -> LookAlikeOut:
    """The flag stays listed, marked dismissed; one that gains an account
    is a new flag, shown again."""
    return _set_aside(request, response, competitions, who, competition.slug, key, True)


@router.post(
    "/competitions/{slug}/look-alikes/{key}/restore",
    responses=errors(401, 403, 404, 422, 429),
    response_model=LookAlikeOut,
    summary="Show a dismissed look-alike flag again (organiser)",
)
def restore_look_alike(
    key: str,
    request: Request,
    response: Response,
    competitions: CompetitionsDep,
    who: OrganiserDep,
    competition: Competition,
) -> LookAlikeOut:
    return _set_aside(request, response, competitions, who, competition.slug, key, False)
