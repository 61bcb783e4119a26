"""The organiser's pages: sign in with the organiser token, create a
competition from a solution file, add teams (each token shown once), close.

Signing in opens a session (:class:`ladderboard.store.OrganiserSessions`): the
cookie is a random value, stored only as its hash, HttpOnly and
SameSite=Strict; it expires after ``organiser_session_hours`` and is revoked
at sign-out, in every worker at once. Every form that changes state carries
a CSRF value derived from the session (an HMAC under the organiser token), and
its ``Origin`` (or, without one, its ``Referer``) must be this server: a
cross-site post fails on both counts.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import timedelta
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ladderboard.losses import LOSSES, METRICS
from ladderboard.mechanisms import MECHANISMS
from ladderboard.server import api
from ladderboard.server.deps import (
    Caller,
    CompetitionsDep,
    SettingsDep,
    check_failures,
    failed_authentication,
    hash_token,
    is_organiser_token,
    spend,
)
from ladderboard.server.errors import ApiError
from ladderboard.server.rendering import REFUSALS, refusal, render
from ladderboard.server.settings import Settings

__all__ = ["COOKIE", "router", "same_origin", "signed_in"]

router = APIRouter(include_in_schema=False)
COOKIE = "ladderboard_organiser"


def _csrf(settings: Settings, session: str) -> str:
    key = settings.admin_token.get_secret_value().encode()
    return hmac.new(key, f"ladderboard-csrf\n{session}".encode(), hashlib.sha256).hexdigest()


def _session(request: Request) -> str:
    return request.cookies.get(COOKIE, "")


def signed_in(request: Request, competitions, settings: Settings) -> bool:
    return bool(settings.admin_token.get_secret_value()) and competitions.sessions.is_valid(
        _session(request)
    )


def same_origin(request: Request) -> bool:
    """Whether a form post comes from a page of this server: its ``Origin``
    (or ``Referer``) names this host. Browsers send ``Origin`` with every
    form post; a request with neither is refused."""
    source = request.headers.get("origin") or request.headers.get("referer")
    if not source or source == "null":
        return False
    return urlsplit(source).netloc.lower() == request.url.netloc.lower()


def check_form(request: Request, competitions, settings: Settings, csrf: str) -> None:
    """Refuse an organiser form without a live session, from another site, or
    without the session's CSRF value."""
    if not signed_in(request, competitions, settings):
        raise ApiError(401, "unauthorized", "sign in with the organiser's token first")
    if not same_origin(request):
        raise ApiError(403, "forbidden", "the form was not sent from a page of this server")
    if not hmac.compare_digest(csrf.encode(), _csrf(settings, _session(request)).encode()):
        raise ApiError(403, "forbidden", "the form is stale or was not sent from this site")
    spend(
        request,
        "token:" + hash_token(settings.admin_token.get_secret_value()),
        settings.rate_limit_per_minute,
        "with this token",
    )


def _dashboard(request: Request, competitions, settings: Settings, status: int = 200, **extra: Any):
    competitions = [
        (competition, [team.name for team in competitions.teams(competition.slug)])
        for competition in api.list_competitions(competitions)
    ]
    return render(
        request,
        "organiser.html",
        status,
        signed_in=True,
        csrf=_csrf(settings, _session(request)),
        competitions=competitions,
        losses=sorted(LOSSES),
        metrics=sorted(METRICS),
        mechanisms={name: klass.input_kind for name, klass in sorted(MECHANISMS.items())},
        **extra,
    )


@router.get("/organiser", response_class=HTMLResponse)
def organiser_page(
    request: Request, competitions: CompetitionsDep, settings: SettingsDep
) -> HTMLResponse:
    if not signed_in(request, competitions, settings):
        return render(request, "organiser.html", signed_in=False)
    return _dashboard(request, competitions, settings)


@router.post("/organiser/login", response_class=HTMLResponse)
def organiser_login(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    token: Annotated[str, Form()] = "",
) -> Response:
    try:
        if not same_origin(request):
            raise ApiError(403, "forbidden", "the form was not sent from a page of this server")
        check_failures(request, settings)
        if not is_organiser_token(settings, token):
            raise failed_authentication(request, settings, "the token is not the organiser's token")
    except ApiError as exc:
        status, text = refusal(exc)
        return render(request, "organiser.html", status, signed_in=False, error=text)
    lifetime = timedelta(hours=settings.organiser_session_hours)
    response = RedirectResponse("/organiser", status_code=303)
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
    session = _session(request)
    if (
        session
        and same_origin(request)
        and hmac.compare_digest(csrf.encode(), _csrf(settings, session).encode())
    ):
        competitions.sessions.close(session)
        response.delete_cookie(COOKIE, path="/organiser")
    return response


def _organiser_refusal(request, competitions, settings, exc: Exception) -> HTMLResponse:
    status, text = refusal(exc)
    if not signed_in(request, competitions, settings):
        return render(request, "organiser.html", status, signed_in=False, error=text)
    return _dashboard(request, competitions, settings, status, error=text)


@router.post("/organiser/competitions", response_class=HTMLResponse)
def organiser_create(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    csrf: Annotated[str, Form()] = "",
    solution: Annotated[UploadFile | None, File()] = None,
    slug: Annotated[str, Form()] = "",
    title: Annotated[str, Form()] = "",
    description: Annotated[str, Form()] = "",
    score: Annotated[str, Form()] = "",
    mechanism: Annotated[str, Form()] = "",
    mechanism_params: Annotated[str, Form()] = "",
    score_params: Annotated[str, Form()] = "",
    board: Annotated[str, Form()] = "per-team",
    daily_quota: Annotated[str, Form()] = "",
    total_quota: Annotated[str, Form()] = "",
    invalid_quota: Annotated[str, Form()] = "",
    deadline: Annotated[str, Form()] = "",
    n_selections: Annotated[str, Form()] = "",
) -> HTMLResponse:
    try:
        check_form(request, competitions, settings, csrf)
        if solution is None or not solution.filename:
            raise ApiError(422, "invalid_request", "choose a solution file")
        if board not in ("per-team", "per-rank"):
            raise ApiError(422, "invalid_request", f"board must be per-team or per-rank: {board!r}")
        selections = api._optional_int("n_selections", n_selections)
        created = api.create_competition(
            competitions,
            settings,
            Caller(None, True),
            solution,
            slug.strip(),
            score,
            mechanism,
            title=title.strip() or None,
            description=description,
            mechanism_params=mechanism_params,
            score_params=score_params,
            board=board,  # type: ignore[arg-type]
            daily_quota=daily_quota,
            total_quota=total_quota,
            invalid_quota=invalid_quota,
            deadline=deadline.strip() or None,
            n_selections=selections if isinstance(selections, int) else None,
        )
    except REFUSALS as exc:
        return _organiser_refusal(request, competitions, settings, exc)
    return _dashboard(request, competitions, settings, 201, created=created)


@router.post("/organiser/c/{slug}/teams", response_class=HTMLResponse)
def organiser_add_team(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
) -> HTMLResponse:
    try:
        check_form(request, competitions, settings, csrf)
        info = competitions.competition(slug)
        team = api.add_team(
            api.TeamIn(name=name.strip()),
            Response(),
            competitions,
            settings,
            Caller(None, True),
            info,
        )
    except REFUSALS as exc:
        return _organiser_refusal(request, competitions, settings, exc)
    return _dashboard(request, competitions, settings, 201, new_team=team, team_slug=slug)


@router.post("/organiser/c/{slug}/close", response_class=HTMLResponse)
def organiser_close(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
) -> HTMLResponse:
    try:
        check_form(request, competitions, settings, csrf)
        closed = api.close_competition(
            competitions, Caller(None, True), competitions.competition(slug)
        )
    except REFUSALS as exc:
        return _organiser_refusal(request, competitions, settings, exc)
    return _dashboard(request, competitions, settings, closed=closed)
