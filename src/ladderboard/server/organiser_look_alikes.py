"""The desk's look-alike accounts: dismissing a flag once looked at, and
showing a dismissed one again. Each form posts with the session's CSRF
value; a refusal leaves the flags as they were and says why."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse

from ladderboard.server.deps import CompetitionsDep, SettingsDep
from ladderboard.server.organiser_desk import desk, refused
from ladderboard.server.organiser_session import check_form
from ladderboard.server.rendering import REFUSALS

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


def _set_aside(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: str,
    key: str,
    dismissed: bool,
) -> HTMLResponse:
    try:
        acting = check_form(request, competitions, settings, csrf)
        flag = acting.set_look_alike_aside(slug, key[:64], dismissed)
        info = competitions.competition(slug)
    except REFUSALS as exc:
        return refused(request, competitions, settings, slug, exc)
    handles = ", ".join(a.handle for a in flag.accounts)
    done = (
        f"Dismissed the {flag.rule} flag of {handles}."
        if dismissed
        else f"The {flag.rule} flag of {handles} is shown again."
    )
    return desk(request, competitions, settings, info, done=done)


@router.post("/organiser/c/{slug}/look-alikes/dismiss", response_class=HTMLResponse)
def dismiss_look_alike(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    key: Annotated[str, Form()] = "",
) -> HTMLResponse:
    return _set_aside(request, competitions, settings, slug, csrf, key, True)


@router.post("/organiser/c/{slug}/look-alikes/restore", response_class=HTMLResponse)
def restore_look_alike(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    key: Annotated[str, Form()] = "",
) -> HTMLResponse:
    return _set_aside(request, competitions, settings, slug, csrf, key, False)
