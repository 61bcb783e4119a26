"""Closing a competition and publishing its private board, each behind a
confirmation page: neither can be undone. Between the two, the desk shows
the organiser the private board; publishing shows it to everyone with the
audit key."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse

from ladderboard.engine import Competitions
from ladderboard.server.deps import CompetitionsDep, SettingsDep
from ladderboard.server.organiser_desk import desk, find_signed_in, refused
from ladderboard.server.organiser_session import check_form, organiser_page
from ladderboard.server.rendering import REFUSALS
from ladderboard.server.settings import Settings

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

_CONFIRM = {
    "close": (
        "Close {title}?",
        "Teams can no longer submit. Teams that selected no final submission get the "
        "latest files the mechanism took as their best (under full disclosure, their best "
        "public scores). The private board stays hidden until you publish it.",
        "Close the competition",
    ),
    "publish": (
        "Publish the private board of {title}?",
        "Everyone will see the private board and the audit key, which lets anyone re-run "
        "the board. This cannot be undone.",
        "Publish the private board and the key",
    ),
}


def _confirmation(
    request: Request, competitions: Competitions, settings: Settings, slug: str, action: str
) -> HTMLResponse:
    info, other = find_signed_in(request, competitions, settings, slug)
    if info is None:
        return other
    if action == "close" and info.is_closed():
        return desk(request, competitions, settings, info, done=f"{info.title} is closed already.")
    if action == "publish" and info.is_published():
        done = f"The private board of {info.title} is published already."
        return desk(request, competitions, settings, info, done=done)
    if action == "publish" and not info.is_closed():
        error = f"{info.title} is open: close it before publishing its private board."
        return desk(request, competitions, settings, info, 409, error=error)
    question, consequence, button = _CONFIRM[action]
    return organiser_page(
        request,
        settings,
        "organiser_confirm.html",
        competition=info,
        action=action,
        question=question.format(title=info.title),
        consequence=consequence,
        button=button,
    )


@router.get("/organiser/c/{slug}/close", response_class=HTMLResponse)
def confirm_close(
    request: Request, competitions: CompetitionsDep, settings: SettingsDep, slug: str
) -> HTMLResponse:
    return _confirmation(request, competitions, settings, slug, "close")


@router.post("/organiser/c/{slug}/close", response_class=HTMLResponse)
def close(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
) -> HTMLResponse:
    """Close now (the confirmation page's button); idempotent."""
    return _act(
        request, competitions, settings, slug, csrf, "close",
        "{title} is closed. Look over the private board below, then publish it.",
    )  # fmt: skip


@router.get("/organiser/c/{slug}/publish", response_class=HTMLResponse)
def confirm_publish(
    request: Request, competitions: CompetitionsDep, settings: SettingsDep, slug: str
) -> HTMLResponse:
    return _confirmation(request, competitions, settings, slug, "publish")


@router.post("/organiser/c/{slug}/publish", response_class=HTMLResponse)
def publish(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
) -> HTMLResponse:
    """Publish the private board and reveal the key, after the close."""
    return _act(
        request, competitions, settings, slug, csrf, "publish",
        "The private board of {title} and its audit key are public.",
    )  # fmt: skip


def _act(request, competitions, settings, slug: str, csrf: str, action: str, done: str):
    """A confirmed close or publication: the form checked, ``action``
    (``close`` or ``publish``) done, and the desk shown with ``done``
    (``{title}`` filled in)."""
    try:
        acting = check_form(request, competitions, settings, csrf)
        info = acting.close(slug) if action == "close" else acting.publish(slug)
    except REFUSALS as exc:
        return refused(request, competitions, settings, slug, exc)
    return desk(request, competitions, settings, info, done=done.format(title=info.title))
