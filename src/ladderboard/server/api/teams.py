"""The teams: registering one (or a CSV of them), the organiser's desk, a
team's new token, disabling a team, the duplicate flags, the calling
team's standing, and whose token a request carries."""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import APIRouter, File, Request, UploadFile
from fastapi.responses import Response
from pydantic import BaseModel, Field

from ladderboard.engine import Competitions
from ladderboard.rules.text import TEAM_NAME_CHARS
from ladderboard.server.api.accounts import account_out
from ladderboard.server.api.shared import errors, invalid, read_upload
from ladderboard.server.deps import (
    ActingDep,
    CallerDep,
    Competition,
    CompetitionsDep,
    OrganiserDep,
    SettingsDep,
    TeamDep,
    acting_for,
    hash_token,
    no_store,
)
from ladderboard.server.errors import ApiError
from ladderboard.server.organiser_actions import Acting
from ladderboard.server.organiser_forms import team_names
from ladderboard.server.roles import allows, least_role
from ladderboard.server.schemas import (
    FlagOut,
    MembershipOut,
    QuotaOut,
    RejectionOut,
    TeamCreated,
    TeamOut,
    TeamPatch,
    TeamStatusOut,
    TeamSummaryOut,
    WhoAmIOut,
)

__all__ = ["TeamIn", "create_teams", "router", "status_of_team"]

router = APIRouter()


class TeamIn(BaseModel):
    name: str = Field(min_length=1, max_length=TEAM_NAME_CHARS, description="The team's name.")


@router.post(
    "/competitions/{slug}/teams",
    responses=errors(401, 403, 404, 409, 422, 429),
    status_code=201,
    response_model=TeamCreated,
    summary="Register a team and return its token, once",
    description="The organiser's token is needed unless the server allows self-registration.",
)
def add_team(
    body: TeamIn,
    request: Request,
    response: Response,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    who: CallerDep,
    competition: Competition,
) -> TeamCreated:
    role = who.role(competitions, competition.slug)
    organiser = allows(role, least_role("POST", "/api/competitions/{slug}/teams"))
    if not organiser:
        if not settings.allow_self_registration:
            if who.token is not None and who.team(competitions, competition.slug) is not None:
                raise ApiError(403, "forbidden", "only the organiser may register teams here")
            raise ApiError(
                401,
                "unauthorized",
                "registering a team needs the organiser's token on this server",
                headers={"WWW-Authenticate": "Bearer"},
            )
        if competition.is_closed():
            raise ApiError(409, "closed", f"competition {competition.slug!r} is closed")
    token = secrets.token_urlsafe(32)
    adding = acting_for(request, competitions, who) if organiser else competitions
    try:
        team = adding.add_team(competition.slug, body.name, token_hash=hash_token(token))
    except ValueError as exc:
        raise invalid(str(exc)) from None
    no_store(response)  # the token must not stay in any cache
    return TeamCreated(id=team.id, name=team.name, created_at=team.created_at, token=token)


@router.get(
    "/competitions/{slug}/teams",
    responses=errors(401, 403, 404, 422, 429),
    response_model=list[TeamSummaryOut],
    summary="Every team with its activity: the organiser's desk (organiser)",
)
def list_teams(
    competitions: CompetitionsDep, _: OrganiserDep, competition: Competition
) -> list[TeamSummaryOut]:
    return [TeamSummaryOut.of(t) for t in competitions.team_summaries(competition.slug)]


@router.post(
    "/competitions/{slug}/teams/import",
    responses=errors(401, 403, 404, 409, 413, 422, 429),
    status_code=201,
    response_model=list[TeamCreated],
    summary="Register every team of a CSV of names, all or none (organiser)",
    description="The CSV has a column `name` (or one column without a header). The tokens "
    "are in the response, once: only their SHA-256 is stored.",
)
def import_teams(
    response: Response,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    acting: ActingDep,
    competition: Competition,
    file: Annotated[UploadFile, File(description="The CSV of team names.")],
) -> list[TeamCreated]:
    data = read_upload(file.file, settings.max_upload_bytes, "team list")
    taken = [team.name for team in competitions.teams(competition.slug)]
    names = list(team_names(data, taken).names)  # the organiser's page reads the same CSV
    return create_teams(acting, competition.slug, names, response)


def create_teams(
    acting: Acting, slug: str, names: list[str], response: Response
) -> list[TeamCreated]:
    """Register ``names`` at once, each with a new token returned this once."""
    tokens = [secrets.token_urlsafe(32) for _ in names]
    try:
        teams = acting.add_teams(slug, names, [hash_token(t) for t in tokens])
    except ValueError as exc:
        raise invalid(str(exc)) from None
    no_store(response)
    return [
        TeamCreated(id=t.id, name=t.name, created_at=t.created_at, token=token)
        for t, token in zip(teams, tokens, strict=True)
    ]


@router.post(
    "/competitions/{slug}/teams/{name:path}/token",
    responses=errors(401, 403, 404, 422, 429),
    response_model=TeamCreated,
    summary="Replace a team's token with a new one, returned once (organiser)",
    description="For a leaked token: the team keeps its place, submissions, quotas and "
    "selection; its old token is refused from now on, on every server of the store, and "
    "every browser signed in as the team is signed out. Only the new token's SHA-256 is "
    "stored.",
)
def reissue_token(
    name: str,
    response: Response,
    acting: ActingDep,
    competition: Competition,
) -> TeamCreated:
    token = secrets.token_urlsafe(32)
    team = acting.reissue_token(competition.slug, name, hash_token(token))
    no_store(response)  # the token must not stay in any cache
    return TeamCreated(id=team.id, name=team.name, created_at=team.created_at, token=token)


@router.patch(
    "/competitions/{slug}/teams/{name:path}",
    responses=errors(401, 403, 404, 422, 429),
    response_model=TeamOut,
    summary="Disable a team, or enable it again (organiser)",
)
def update_team(
    name: str,
    body: TeamPatch,
    acting: ActingDep,
    competition: Competition,
) -> TeamOut:
    return TeamOut.of(acting.set_team_disabled(competition.slug, name, body.disabled))


@router.get(
    "/competitions/{slug}/flags",
    responses=errors(401, 403, 404, 422, 429),
    response_model=list[FlagOut],
    summary="Submissions identical to another team's earlier one (organiser)",
)
def list_flags(
    competitions: CompetitionsDep, _: OrganiserDep, competition: Competition
) -> list[FlagOut]:
    return [FlagOut.of(f) for f in competitions.flags(competition.slug)]


@router.get(
    "/competitions/{slug}/team",
    responses=errors(401, 403, 404, 422, 429),
    response_model=TeamStatusOut,
    summary="The calling team's rank, quota and refused files",
)
def team_status(
    competitions: CompetitionsDep, team: TeamDep, competition: Competition
) -> TeamStatusOut:
    return status_of_team(competitions, competition.slug, team.name)


def status_of_team(competitions: Competitions, slug: str, team: str) -> TeamStatusOut:
    rank = next((r.rank for r in competitions.leaderboard(slug) if r.team == team), None)
    return TeamStatusOut(
        name=team,
        rank=rank,
        quota=QuotaOut.of(competitions.quota(slug, team)),
        rejections=[RejectionOut.of(r) for r in competitions.rejections(slug, team)],
    )


@router.get(
    "/whoami",
    responses=errors(401, 429),
    response_model=WhoAmIOut,
    summary="Whose token this is",
)
def whoami(competitions: CompetitionsDep, who: CallerDep) -> WhoAmIOut:
    """The organiser, the team (and its competition) of a team token, or
    the account (and its teams) of a personal token: 401 for a request
    without a token the server knows. ``ladderboard login``
    checks a token with it before storing it."""
    if who.token is None:
        raise ApiError(
            401,
            "unauthorized",
            "this asks whose token it is: send one (Authorization: Bearer)",
            headers={"WWW-Authenticate": "Bearer"},
        )
    if who.is_organiser:
        return WhoAmIOut(role="organiser", teams=[])
    if who.account is not None:
        slugs = dict.fromkeys(
            slug for slug, _ in competitions.accounts.competitions_of(who.account.id)
        )
        teams = [
            MembershipOut(competition=slug, team=team.name)
            for slug in slugs
            if (team := competitions.accounts.team_of_account(slug, who.account.id)) is not None
        ]
        return WhoAmIOut(role="account", teams=teams, account=account_out(who.account))
    teams = [
        MembershipOut(competition=info.slug, team=team.name)
        for info in competitions.competitions()
        if (team := who.team(competitions, info.slug)) is not None
    ]
    return WhoAmIOut(role="team", teams=teams)
