"""The Members section of a team's page, for a browser signed in to an
account (:mod:`ladderboard.server.account_session`): create a team or join
one by code, see its members, and, for the captain, invite (the code and
its link shown once), revoke, hand over the captaincy, ask for a merge and
answer one; any member may leave. ``/c/{slug}/join-team?code=...`` is the
link an invitation gives: it asks the signed-in account to confirm.

Every form must come from a page of this server (its ``Origin`` or
``Referer``) and carry the CSRF value of the account's session (an HMAC of
its random, HttpOnly cookie that only pages served to that browser hold).
A refusal is the API's, shown as a page with its status. The rules are the
engine's (:mod:`ladderboard.engine.membership`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ladderboard.engine import Competitions
from ladderboard.engine.accounts import AccountInfo
from ladderboard.engine.results import CompetitionInfo
from ladderboard.server.account_session import (
    account_csrf,
    check_account_form,
    session_account,
)
from ladderboard.server.api.shared import RowId
from ladderboard.server.api.team_members import join_link
from ladderboard.server.deps import CompetitionsDep, SettingsDep
from ladderboard.server.errors import ApiError
from ladderboard.server.rendering import competition_context, find, not_found, render
from ladderboard.server.settings import Settings

__all__ = ["members_context", "router"]

router = APIRouter(include_in_schema=False)

FormText = Annotated[str, Form()]


def _scope(slug: str) -> str:
    """The scope of the Members forms' CSRF value (:func:`account_csrf`)."""
    return f"members\n{slug}"


def members_context(
    request: Request, competitions: Competitions, settings: Settings, slug: str
) -> dict[str, Any]:
    """What the Members section shows to the signed-in account (nothing
    without one): the account, its team in ``slug`` with members, live
    invitations and pending merges, and the forms' CSRF value."""
    account = session_account(request, competitions)
    if account is None:
        return {}
    return {
        "account": account,
        "my_team": competitions.membership.my_team(slug, account.id),
        "members_csrf": account_csrf(request, _scope(slug)),
    }


def _account_form(
    request: Request, competitions: Competitions, settings: Settings, slug: str, csrf: str
) -> AccountInfo:
    """The signed-in account a Members form acts for, or the refusal."""
    return check_account_form(
        request,
        competitions,
        settings,
        csrf,
        scope=_scope(slug),
        unsigned="sign in to your account first",
    )


def _competition(request: Request, competitions: Competitions, slug: str) -> CompetitionInfo:
    info = find(request, competitions, slug)
    if info is None:
        raise ApiError(404, "not_found", f"no competition {slug!r}")
    return info


@dataclass(frozen=True)
class MemberForm:
    """A Members form that passed its checks: the competition it is posted
    to (one the caller may see) and the signed-in account it acts for."""

    info: CompetitionInfo
    account: AccountInfo


def _member_form(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: FormText = "",
) -> MemberForm:
    """Every Members form's checks, in order: the competition (404), then
    the account's session and the form's origin and CSRF value."""
    info = _competition(request, competitions, slug)
    return MemberForm(info, _account_form(request, competitions, settings, slug, csrf))


Member = Annotated[MemberForm, Depends(_member_form)]


def _back(slug: str) -> Response:
    return RedirectResponse(f"/c/{slug}/team#members", status_code=303)


@router.get("/c/{slug}/join-team", response_class=HTMLResponse)
def join_team_page(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    code: str = "",
) -> HTMLResponse:
    """The page an invitation link opens: a button that joins the team."""
    info = find(request, competitions, slug)
    if info is None:
        return not_found(request, slug)
    context = competition_context(competitions, info, "team", None)
    context |= members_context(request, competitions, settings, slug)
    return render(request, "join_team.html", 200, code=code[:64], **context)


@router.post("/c/{slug}/my-team")
def create_team(
    competitions: CompetitionsDep,
    slug: str,
    member: Member,
    name: FormText = "",
) -> Response:
    try:
        competitions.membership.create_team(slug, member.account.id, name)
    except (TypeError, ValueError) as exc:
        raise ApiError(422, "invalid_request", str(exc)) from None
    return _back(slug)


@router.post("/c/{slug}/my-team/join")
def join_team(
    competitions: CompetitionsDep,
    slug: str,
    member: Member,
    code: FormText = "",
) -> Response:
    competitions.membership.join(slug, member.account.id, code)
    return _back(slug)


@router.post("/c/{slug}/my-team/invitations", response_class=HTMLResponse)
def invite(
    request: Request,
    competitions: CompetitionsDep,
    slug: str,
    member: Member,
) -> Response:
    """A new invitation, its code and link shown on this page only."""
    invitation, code = competitions.membership.invite(slug, member.account.id)
    context = competition_context(competitions, member.info, "team", None)
    response = render(
        request,
        "team_invitation.html",
        201,
        invitation=invitation,
        code=code,
        link=join_link(request, slug, code),
        **context,
    )
    response.headers["Cache-Control"] = "no-store"
    return response


@router.post("/c/{slug}/my-team/invitations/{invitation_id}/revoke")
def revoke_invitation(
    competitions: CompetitionsDep,
    slug: str,
    invitation_id: RowId,
    member: Member,
) -> Response:
    competitions.membership.revoke_invitation(slug, member.account.id, invitation_id)
    return _back(slug)


@router.post("/c/{slug}/my-team/leave")
def leave(
    competitions: CompetitionsDep,
    slug: str,
    member: Member,
) -> Response:
    competitions.membership.leave(slug, member.account.id)
    return _back(slug)


@router.post("/c/{slug}/my-team/captain")
def make_captain(
    competitions: CompetitionsDep,
    slug: str,
    member: Member,
    handle: FormText = "",
) -> Response:
    competitions.membership.make_captain(slug, member.account.id, handle)
    return _back(slug)


@router.post("/c/{slug}/my-team/merges")
def request_merge(
    competitions: CompetitionsDep,
    slug: str,
    member: Member,
    into: FormText = "",
) -> Response:
    competitions.membership.request_merge(slug, member.account.id, into)
    return _back(slug)


@router.post("/c/{slug}/my-team/merges/{merge_id}/{answer}")
def answer_merge(
    competitions: CompetitionsDep,
    slug: str,
    merge_id: RowId,
    answer: str,
    member: Member,
) -> Response:
    if answer not in ("accept", "refuse", "withdraw"):
        raise ApiError(404, "not_found", "a merge is accepted, refused or withdrawn")
    if answer == "withdraw":
        competitions.membership.withdraw_merge(slug, member.account.id, merge_id)
    else:
        competitions.membership.answer_merge(slug, member.account.id, merge_id, answer == "accept")
    return _back(slug)
