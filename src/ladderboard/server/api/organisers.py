"""A competition's organisers (its owners add and remove them by account
handle) and its action log (who did what, when)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from ladderboard.engine import Competitions
from ladderboard.server.api.shared import errors
from ladderboard.server.deps import ActingDep, Competition, CompetitionsDep, OrganiserDep
from ladderboard.server.schemas.organisers import ActionOut, OrganiserIn, OrganiserOut

__all__ = ["organisers_of", "router"]

router = APIRouter()


def organisers_of(competitions: Competitions, slug: str) -> list[OrganiserOut]:
    """The organisers of ``slug``, owners first, each by its handle."""
    found = [OrganiserOut.of(o) for o in competitions.accounts.organisers(slug)]
    return sorted(found, key=lambda o: (o.role != "owner", o.added_at, o.handle))


@router.get(
    "/competitions/{slug}/organisers",
    responses=errors(401, 403, 404, 422, 429),
    response_model=list[OrganiserOut],
    summary="The competition's owners and co-organisers (organiser)",
)
def list_organisers(
    competitions: CompetitionsDep, _: OrganiserDep, competition: Competition
) -> list[OrganiserOut]:
    return organisers_of(competitions, competition.slug)


@router.post(
    "/competitions/{slug}/organisers",
    responses=errors(401, 403, 404, 409, 422, 429),
    response_model=list[OrganiserOut],
    summary="Make an account an organiser, or give it another role (owner)",
    description="404 for a handle no account has; 409 when it would leave the competition "
    "without an owner (the last owner made a co-organiser). Answers the organisers.",
)
def add_organiser(
    body: OrganiserIn, competitions: CompetitionsDep, acting: ActingDep, competition: Competition
) -> list[OrganiserOut]:
    acting.add_organiser(competition.slug, body.handle, body.role)
    return organisers_of(competitions, competition.slug)


@router.delete(
    "/competitions/{slug}/organisers/{handle}",
    responses=errors(401, 403, 404, 409, 422, 429),
    status_code=204,
    response_class=Response,
    summary="Remove an organiser (owner); the last owner stays (409)",
)
def remove_organiser(handle: str, acting: ActingDep, competition: Competition) -> Response:
    acting.remove_organiser(competition.slug, handle)
    return Response(status_code=204)


@router.get(
    "/competitions/{slug}/actions",
    responses=errors(401, 403, 404, 422, 429),
    response_model=list[ActionOut],
    summary="The organisers' actions, newest first (organiser)",
    description="Who (the administrator token or an account), what (the action and a small "
    "detail, never a token or a file's contents), when and from which address.",
)
def list_actions(
    competitions: CompetitionsDep,
    _: OrganiserDep,
    competition: Competition,
    limit: Annotated[int, Query(ge=1, le=1000, description="The most entries.")] = 200,
) -> list[ActionOut]:
    return [ActionOut.of(a) for a in competitions.accounts.actions(competition.slug, limit=limit)]
