"""Registration per competition: an account joins (accepting the rules, with
an invitation's code where needed); the organisers make, list and revoke
invitations, put accounts into teams of their list, and read who registered.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from ladderboard.engine import Competitions
from ladderboard.engine.accounts import AccountInfo
from ladderboard.engine.errors import NotFound
from ladderboard.engine.results import CompetitionInfo, now_utc
from ladderboard.server.api.shared import RowId, errors, invalid
from ladderboard.server.deps import (
    ActingDep,
    CallerDep,
    Competition,
    CompetitionsDep,
    OrganiserDep,
    no_store,
    person_of,
)
from ladderboard.server.schemas.registrations import (
    InvitationCreated,
    InvitationIn,
    InvitationOut,
    JoinIn,
    MemberIn,
    RegistrationOut,
)
from ladderboard.server.visibility import may_view, viewer

__all__ = [
    "PersonDep",
    "join_link",
    "joinable",
    "registration_out",
    "router",
]

router = APIRouter()


def joinable(
    competitions: Competitions, request: Request, slug: str, code: str | None
) -> CompetitionInfo:
    """The competition ``slug`` as joining it reads it (:class:`NotFound`
    when there is none). The one place where a competition its caller may
    not otherwise see (a private one) opens to whoever holds a valid
    invitation ``code`` (:meth:`Registrations.code_admits`): the join route
    and the join page read the competition here, not through the checks of
    the other routes. To anyone else a private competition answers as one
    that does not exist, as everywhere (:mod:`ladderboard.server.visibility`)."""
    info = competitions.competition(slug)
    if may_view(competitions, viewer(request), info):
        return info
    if code and competitions.registrations.code_admits(slug, code):
        return info
    raise NotFound(f"no competition {slug!r}")


def person(competitions: CompetitionsDep, who: CallerDep, slug: str) -> AccountInfo:
    """Only an account (its personal token): 401 without one, 403 for a
    team's token of this competition or the administrator token. A
    dependency, so that it refuses before the body is read."""
    return person_of(competitions, who, slug)


PersonDep = Annotated[AccountInfo, Depends(person)]


def join_link(request: Request, slug: str, code: str) -> str:
    """The join page's address with an invitation's code."""
    return str(request.url_for("join_page", slug=slug).include_query_params(code=code))


def registration_out(competitions: Competitions, slug: str, registration: Any) -> RegistrationOut:
    """An account's registration (of the accounts' store) as the API shows it."""
    return RegistrationOut.of(slug, competitions.registrations.view(slug, registration))


@router.post(
    "/competitions/{slug}/join",
    responses=errors(401, 403, 404, 409, 422, 429),
    response_model=RegistrationOut,
    summary="Join a competition with your account, accepting its rules",
    description="With your personal token. `accept_rules` must be true; a competition by "
    "invitation needs `code`; `team` creates your team at once, you its captain. Joining "
    "again changes nothing (200), or records your acceptance of rules changed since (200).",
)
def join(
    slug: str,
    account: PersonDep,
    body: JoinIn,
    request: Request,
    response: Response,
    competitions: CompetitionsDep,
) -> RegistrationOut:
    competition = joinable(competitions, request, slug, body.code)
    try:
        joined = competitions.registrations.join(
            competition.slug,
            account.id,
            accept_rules=body.accept_rules,
            code=body.code,
            team=body.team,
        )
    except ValueError as exc:
        raise invalid(str(exc)) from None
    response.status_code = 201 if joined.new else 200
    return registration_out(competitions, competition.slug, joined.registration)


@router.get(
    "/competitions/{slug}/registrations",
    responses=errors(401, 403, 404, 422, 429),
    response_model=list[RegistrationOut],
    summary="Every account registered, with its team and its acceptance (organiser)",
)
def list_registrations(
    competitions: CompetitionsDep, _: OrganiserDep, competition: Competition
) -> list[RegistrationOut]:
    slug = competition.slug
    return [RegistrationOut.of(slug, r) for r in competitions.registrations.registered(slug)]


@router.post(
    "/competitions/{slug}/invitations",
    responses=errors(401, 403, 404, 422, 429),
    status_code=201,
    response_model=InvitationCreated,
    summary="Make an invitation and return its code and link, once (organiser)",
    description="Only the code's SHA-256 is stored: the code cannot be shown again.",
)
def create_invitation(
    body: InvitationIn,
    request: Request,
    response: Response,
    acting: ActingDep,
    competition: Competition,
) -> InvitationCreated:
    try:
        invitation, code = acting.create_invitation(
            competition.slug, label=body.label, uses=body.uses, days=body.days
        )
    except ValueError as exc:
        raise invalid(str(exc)) from None
    no_store(response)  # the code must not stay in any cache
    out = InvitationOut.of(invitation, now_utc())
    return InvitationCreated(
        **out.model_dump(), code=code, link=join_link(request, competition.slug, code)
    )


@router.get(
    "/competitions/{slug}/invitations",
    responses=errors(401, 403, 404, 422, 429),
    response_model=list[InvitationOut],
    summary="The competition's invitations, without their codes (organiser)",
)
def list_invitations(
    competitions: CompetitionsDep, _: OrganiserDep, competition: Competition
) -> list[InvitationOut]:
    now = now_utc()
    return [
        InvitationOut.of(i, now) for i in competitions.invitations.invitations(competition.slug)
    ]


@router.delete(
    "/competitions/{slug}/invitations/{invitation_id}",
    responses=errors(401, 403, 404, 422, 429),
    response_model=InvitationOut,
    summary="Revoke an invitation: its code admits no one from now on (organiser)",
)
def revoke_invitation(
    invitation_id: RowId,
    acting: ActingDep,
    competition: Competition,
) -> InvitationOut:
    revoked = acting.revoke_invitation(competition.slug, invitation_id)
    return InvitationOut.of(revoked, now_utc())


@router.post(
    "/competitions/{slug}/teams/{name:path}/members",
    responses=errors(401, 403, 404, 409, 422, 429),
    status_code=201,
    response_model=RegistrationOut,
    summary="Put an account into a team of the organiser's list (organiser)",
    description='Registers the account (`via` "list") and makes it a member of the team.',
)
def add_member(
    name: str,
    body: MemberIn,
    competitions: CompetitionsDep,
    acting: ActingDep,
    competition: Competition,
) -> RegistrationOut:
    registration = acting.add_member(competition.slug, name, body.account)
    return registration_out(competitions, competition.slug, registration)
