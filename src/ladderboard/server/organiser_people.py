"""The desk's "Organisers" forms: an owner makes an account an organiser
(or gives it another role) by its handle, and removes one; the last owner
stays. Both are recorded in the action log, which the desk shows below."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse

from ladderboard.server.deps import CompetitionsDep, SettingsDep
from ladderboard.server.organiser_desk import desk, refused
from ladderboard.server.organiser_forms import invalid
from ladderboard.server.organiser_session import check_form
from ladderboard.server.rendering import REFUSALS
from ladderboard.server.roles import ORGANISER_ROLES

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


@router.post("/organiser/c/{slug}/organisers", response_class=HTMLResponse)
def add_organiser(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    handle: Annotated[str, Form()] = "",
    role: Annotated[str, Form()] = "co-organiser",
) -> HTMLResponse:
    try:
        acting = check_form(request, competitions, settings, csrf)
        if role not in ORGANISER_ROLES:
            raise invalid(f"the role must be owner or co-organiser, got {role[:40]!r}")
        if not handle.strip():
            raise invalid("type the account's handle")
        acting.add_organiser(slug, handle.strip(), role)
        info = competitions.competition(slug)
    except REFUSALS as exc:
        return refused(request, competitions, settings, slug, exc, organiser_handle=handle)
    done = f"{handle.strip()} is now {role} of {info.title}."
    return desk(request, competitions, settings, info, done=done)


@router.post("/organiser/c/{slug}/organisers/remove", response_class=HTMLResponse)
def remove_organiser(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    handle: Annotated[str, Form()] = "",
) -> HTMLResponse:
    try:
        acting = check_form(request, competitions, settings, csrf)
        acting.remove_organiser(slug, handle.strip())
        info = competitions.competition(slug)
    except REFUSALS as exc:
        return refused(request, competitions, settings, slug, exc)
    return desk(
        request, competitions, settings, info, done=f"{handle.strip()} no longer organises it."
    )
