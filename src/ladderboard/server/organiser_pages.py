"""The organiser's pages: sign in with the organiser token, the list of
competitions, the form that creates one (:mod:`.organiser_create`) and each
competition's desk (:mod:`.organiser_desk`, with its teams in
:mod:`.organiser_teams`, its close and publication in
:mod:`.organiser_closing` and its what-if boards in :mod:`.organiser_whatif`).

Every page needs the organiser's session and every form its CSRF value and
this server's origin (:mod:`.organiser_session`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ladderboard.server import (
    organiser_closing,
    organiser_corrections,
    organiser_create,
    organiser_desk,
    organiser_exports,
    organiser_look_alikes,
    organiser_people,
    organiser_teams,
    organiser_whatif,
)
from ladderboard.server.deps import (
    CompetitionsDep,
    SettingsDep,
    failed_authentication,
    is_organiser_token,
)
from ladderboard.server.errors import ApiError
from ladderboard.server.organiser_session import (
    COOKIE,
    close_session,
    desk_user,
    organiser_page,
    safe_next,
    same_origin,
    sign_in_page,
    signed_in,
)
from ladderboard.server.rendering import refusal

__all__ = ["COOKIE", "router", "same_origin", "signed_in"]

router = APIRouter(include_in_schema=False)


@router.get("/organiser", response_class=HTMLResponse)
def organiser_home(
    request: Request, competitions: CompetitionsDep, settings: SettingsDep
) -> HTMLResponse:
    """The competitions the browser organises (every one for the
    administrator), each linking to its desk with the role held there, and
    the way to create one for those who may."""
    user = desk_user(request, competitions, settings)
    if user is None:
        return sign_in_page(request)
    rows = [
        (info, len(competitions.teams(info.slug)), role)
        for info in sorted(competitions.competitions(), key=lambda c: c.created_at, reverse=True)
        if (role := user.role(competitions, info.slug)) is not None
    ]
    return organiser_page(
        request,
        settings,
        "organiser.html",
        competitions=rows,
        may_create=user.may_create,
        account=user.account,
    )


@router.post("/organiser/login", response_class=HTMLResponse)
def organiser_login(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    token: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "/organiser",
) -> Response:
    try:
        if not same_origin(request):
            raise ApiError(403, "forbidden", "the form was not sent from a page of this server")
        if not is_organiser_token(settings, token):
            raise failed_authentication(request, settings, "the token is not the organiser's token")
    except ApiError as exc:
        status, text = refusal(exc)
        return sign_in_page(request, status, error=text, next_path=next)
    lifetime = timedelta(hours=settings.organiser_session_hours)
    response = RedirectResponse(safe_next(next), status_code=303)
    response.set_cookie(
        COOKIE,
        competitions.sessions.open(lifetime),
        max_age=int(lifetime.total_seconds()),
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/organiser",
    )
    return response


@router.post("/organiser/logout")
def organiser_logout(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    csrf: Annotated[str, Form()] = "",
) -> Response:
    """Sign out: the session is revoked in the store, so the cookie is dead
    even where a copy of it survives."""
    response = RedirectResponse("/organiser", status_code=303)
    if close_session(request, competitions, settings, csrf):
        response.delete_cookie(COOKIE, path="/organiser")
    return response


for part in (
    organiser_create,
    organiser_desk,
    organiser_teams,
    organiser_look_alikes,
    organiser_closing,
    organiser_whatif,
    organiser_corrections,
    organiser_exports,
    organiser_people,
):
    router.include_router(part.router)
