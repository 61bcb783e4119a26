"""The accounts of a competition that look like one person's (organiser)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from ladderboard.server.api.shared import errors
from ladderboard.server.deps import Competition, CompetitionsDep, OrganiserDep, no_store
from ladderboard.server.schemas.look_alikes import LookAlikeOut

__all__ = ["router"]

router = APIRouter()


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
