"""Teams of several members, for a person's account (a personal API token):
create a team, see it, invite by code, join, leave, hand over the
captaincy, ask for and answer a merge; and a team's history, for the
competition's organisers. The rules are the engine's
(:mod:`ladderboard.engine.membership`)."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from ladderboard.engine.accounts import AccountInfo
from ladderboard.server.api.shared import RowId, errors, invalid
from ladderboard.server.api.teams import TeamIn
from ladderboard.server.deps import (
    CallerDep,
    Competition,
    CompetitionsDep,
    OrganiserDep,
    no_store,
    person_of,
)
from ladderboard.server.errors import ApiError
from ladderboard.server.schemas.team_members import (
    CaptainIn,
    InvitationCreated,
    JoinIn,
    MergeIn,
    MergeOut,
    MyTeamOut,
    TeamEventOut,
)

__all__ = ["join_link", "router"]

router = APIRouter()


def account_of(
    competitions: CompetitionsDep, who: CallerDep, competition: Competition
) -> AccountInfo:
    """The caller's account: 403 with a token that speaks for no person in
    this competition (one of its teams', or the administrator's), 401
    without a token or with one not valid here (another competition's team's)."""
    return person_of(competitions, who, competition.slug)


AccountDep = Annotated[AccountInfo, Depends(account_of)]


def join_link(request: Request, slug: str, code: str) -> str:
    """The page that joins a team with ``code``."""
    return f"{str(request.base_url).rstrip('/')}/c/{slug}/join-team?code={quote(code)}"


def _mine(competitions: CompetitionsDep, slug: str, account: AccountInfo) -> MyTeamOut:
    mine = competitions.membership.my_team(slug, account.id)
    if mine is None:
        raise ApiError(404, "not_found", f"you are in no team of competition {slug!r}")
    return MyTeamOut.of(mine)


@router.get(
    "/competitions/{slug}/my-team",
    responses=errors(401, 403, 404, 422, 429),
    response_model=MyTeamOut,
    summary="Your team: its members, live invitations and pending merges",
)
def my_team(
    competitions: CompetitionsDep, account: AccountDep, competition: Competition
) -> MyTeamOut:
    return _mine(competitions, competition.slug, account)


@router.post(
    "/competitions/{slug}/my-team",
    responses=errors(401, 403, 404, 409, 422, 429),
    status_code=201,
    response_model=MyTeamOut,
    summary="Create a team, with you as its captain",
    description="You must have joined the competition and be in none of its teams.",
)
def create_team(
    body: TeamIn, competitions: CompetitionsDep, account: AccountDep, competition: Competition
) -> MyTeamOut:
    try:
        competitions.membership.create_team(competition.slug, account.id, body.name)
    except ValueError as exc:
        raise invalid(str(exc)) from None
    return _mine(competitions, competition.slug, account)


@router.post(
    "/competitions/{slug}/my-team/invitations",
    responses=errors(401, 403, 404, 409, 422, 429),
    status_code=201,
    response_model=InvitationCreated,
    summary="A new invitation code to your team, returned once (captain)",
    description="The code admits one account within 7 days, unless revoked first.",
)
def invite(
    request: Request,
    response: Response,
    competitions: CompetitionsDep,
    account: AccountDep,
    competition: Competition,
) -> InvitationCreated:
    invitation, code = competitions.membership.invite(competition.slug, account.id)
    no_store(response)  # the code must not stay in any cache
    return InvitationCreated(
        id=invitation.id,
        created_at=invitation.created_at,
        expires_at=invitation.expires_at,
        created_by=invitation.created_by,
        code=code,
        link=join_link(request, competition.slug, code),
    )


@router.delete(
    "/competitions/{slug}/my-team/invitations/{invitation_id}",
    responses=errors(401, 403, 404, 422, 429),
    status_code=204,
    summary="Revoke an unused invitation (captain)",
)
def revoke_invitation(
    invitation_id: RowId,
    competitions: CompetitionsDep,
    account: AccountDep,
    competition: Competition,
) -> Response:
    competitions.membership.revoke_invitation(competition.slug, account.id, invitation_id)
    return Response(status_code=204)


@router.post(
    "/competitions/{slug}/my-team/join",
    responses=errors(401, 403, 404, 409, 422, 429),
    response_model=MyTeamOut,
    summary="Join the team of an invitation code",
    description="You must have joined the competition and be in none of its teams; the "
    "team must not be full (the competition's largest team).",
)
def join(
    body: JoinIn, competitions: CompetitionsDep, account: AccountDep, competition: Competition
) -> MyTeamOut:
    competitions.membership.join(competition.slug, account.id, body.code)
    return _mine(competitions, competition.slug, account)


@router.post(
    "/competitions/{slug}/my-team/leave",
    responses=errors(401, 403, 404, 409, 422, 429),
    status_code=204,
    summary="Leave your team",
    description="The captain leaves last (make another member captain first); a team left "
    "empty is retired, its submissions kept.",
)
def leave(competitions: CompetitionsDep, account: AccountDep, competition: Competition) -> Response:
    competitions.membership.leave(competition.slug, account.id)
    return Response(status_code=204)


@router.post(
    "/competitions/{slug}/my-team/captain",
    responses=errors(401, 403, 404, 409, 422, 429),
    response_model=MyTeamOut,
    summary="Make another member the captain (captain)",
)
def make_captain(
    body: CaptainIn, competitions: CompetitionsDep, account: AccountDep, competition: Competition
) -> MyTeamOut:
    competitions.membership.make_captain(competition.slug, account.id, body.handle)
    return _mine(competitions, competition.slug, account)


@router.post(
    "/competitions/{slug}/my-team/merges",
    responses=errors(401, 403, 404, 409, 422, 429),
    status_code=201,
    response_model=MergeOut,
    summary="Ask for your team to merge into another (captain)",
    description="Before the merger deadline, when the merged team fits the largest team "
    "and the two teams' submissions together are at most what one team could have sent "
    "so far. The other team's captain accepts or refuses.",
)
def request_merge(
    body: MergeIn, competitions: CompetitionsDep, account: AccountDep, competition: Competition
) -> MergeOut:
    merge = competitions.membership.request_merge(competition.slug, account.id, body.into)
    return MergeOut.of(merge)


def _answer(
    competitions: CompetitionsDep, slug: str, account: AccountInfo, merge_id: int, accept: bool
) -> MergeOut:
    return MergeOut.of(competitions.membership.answer_merge(slug, account.id, merge_id, accept))


@router.post(
    "/competitions/{slug}/my-team/merges/{merge_id}/accept",
    responses=errors(401, 403, 404, 409, 422, 429),
    response_model=MergeOut,
    summary="Accept a merge into your team (captain)",
    description="The other team's members join yours; that team is retired, its "
    "submissions kept and counted in your quotas from now on.",
)
def accept_merge(
    merge_id: RowId, competitions: CompetitionsDep, account: AccountDep, competition: Competition
) -> MergeOut:
    return _answer(competitions, competition.slug, account, merge_id, True)


@router.post(
    "/competitions/{slug}/my-team/merges/{merge_id}/refuse",
    responses=errors(401, 403, 404, 409, 422, 429),
    response_model=MergeOut,
    summary="Refuse a merge into your team (captain)",
)
def refuse_merge(
    merge_id: RowId, competitions: CompetitionsDep, account: AccountDep, competition: Competition
) -> MergeOut:
    return _answer(competitions, competition.slug, account, merge_id, False)


@router.post(
    "/competitions/{slug}/my-team/merges/{merge_id}/withdraw",
    responses=errors(401, 403, 404, 422, 429),
    response_model=MergeOut,
    summary="Withdraw your team's pending merge request (captain)",
)
def withdraw_merge(
    merge_id: RowId, competitions: CompetitionsDep, account: AccountDep, competition: Competition
) -> MergeOut:
    merge = competitions.membership.withdraw_merge(competition.slug, account.id, merge_id)
    return MergeOut.of(merge)


@router.get(
    "/competitions/{slug}/teams/{name:path}/history",
    responses=errors(401, 403, 404, 422, 429),
    response_model=list[TeamEventOut],
    summary="A team's history: created, joined, left, invited, merges (organiser)",
)
def team_history(
    name: str, competitions: CompetitionsDep, _: OrganiserDep, competition: Competition
) -> list[TeamEventOut]:
    return [TeamEventOut.of(e) for e in competitions.membership.history(competition.slug, name)]
