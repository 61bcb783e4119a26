"""The desk's Registration section: invitations made (their code and link
shown once) and revoked, and accounts put into teams of the organiser's
list (:mod:`ladderboard.engine.registrations`). Each form asks for the
session's CSRF value like every desk form."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse

from ladderboard.server.api.registrations import join_link
from ladderboard.server.deps import CompetitionsDep, SettingsDep
from ladderboard.server.organiser_desk import desk, refused
from ladderboard.server.organiser_forms import invalid
from ladderboard.server.organiser_session import check_form
from ladderboard.server.rendering import REFUSALS

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


def _number(label: str, text: str, *, whole: bool, high: float) -> float | None:
    """An optional positive number of a form field (empty: ``None``)."""
    text = text.strip()
    if not text:
        return None
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        kind = "a whole number" if whole else "a number"
        raise invalid(f"{label} must be {kind}, got {text[:40]!r}") from None
    if not 0 < value <= high:
        raise invalid(f"{label} must be more than 0 and at most {high:g}, got {text[:40]!r}")
    return value


@router.post("/organiser/c/{slug}/invitations", response_class=HTMLResponse)
def create_invitation(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    label: Annotated[str, Form(max_length=200)] = "",
    uses: Annotated[str, Form(max_length=40)] = "",
    days: Annotated[str, Form(max_length=40)] = "",
) -> HTMLResponse:
    """Make an invitation; the desk shows its code and link this once."""
    form = {"label": label, "uses": uses, "days": days}
    try:
        acting = check_form(request, competitions, settings, csrf)
        count = _number("Accounts it admits", uses, whole=True, high=1_000_000)
        length = _number("Days it is valid", days, whole=False, high=3660)
        try:
            invitation, code = acting.create_invitation(
                slug, label=label, uses=None if count is None else int(count), days=length
            )
        except ValueError as exc:
            raise invalid(str(exc)) from None
    except REFUSALS as exc:
        return refused(request, competitions, settings, slug, exc, invitation_form=form)
    response = desk(
        request,
        competitions,
        settings,
        competitions.competition(slug),
        new_invitation=invitation,
        new_invitation_code=code,
        new_invitation_link=join_link(request, slug, code),
    )
    response.headers["Cache-Control"] = "no-store"  # the code must not stay in any cache
    return response


@router.post("/organiser/c/{slug}/invitations/{invitation_id}/revoke", response_class=HTMLResponse)
def revoke_invitation(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    invitation_id: str,
    csrf: Annotated[str, Form()] = "",
) -> HTMLResponse:
    try:
        acting = check_form(request, competitions, settings, csrf)
        if not invitation_id.isdecimal() or len(invitation_id) > 18:
            raise invalid(f"no invitation {invitation_id[:40]!r}")
        revoked = acting.revoke_invitation(slug, int(invitation_id))
    except REFUSALS as exc:
        return refused(request, competitions, settings, slug, exc)
    done = f"Invitation {revoked.id} is revoked: its code admits no one from now on."
    return desk(request, competitions, settings, competitions.competition(slug), done=done)


@router.post("/organiser/c/{slug}/members", response_class=HTMLResponse)
def add_member(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    account: Annotated[str, Form(max_length=200)] = "",
    team: Annotated[str, Form(max_length=200)] = "",
) -> HTMLResponse:
    """Put an account into a team of the list, registering it."""
    form = {"account": account, "team": team}
    try:
        acting = check_form(request, competitions, settings, csrf)
        if not account.strip() or not team.strip():
            raise invalid("give the account's handle and the team's name")
        acting.add_member(slug, team.strip(), account.strip())
    except REFUSALS as exc:
        return refused(request, competitions, settings, slug, exc, member_form=form)
    done = f"Account {account.strip()} is in team {team.strip()} now."
    return desk(request, competitions, settings, competitions.competition(slug), done=done)
