"""The organiser's pages: sign in with the organiser token, create a
competition from a solution file, add teams (each token shown once), close.

Signing in sets a cookie holding an HMAC of the organiser token (never the
token), HttpOnly and SameSite=Strict; every form that changes state also
carries a CSRF value derived from the token, so neither a cross-site post
nor a page without the form can act.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ladderboard.losses import LOSSES, METRICS
from ladderboard.mechanisms import MECHANISMS
from ladderboard.server import api
from ladderboard.server.deps import Caller, SettingsDep, Store, _spend, hash_token
from ladderboard.server.errors import ApiError
from ladderboard.server.rendering import REFUSALS, refusal, render
from ladderboard.server.settings import Settings

__all__ = ["COOKIE", "is_organiser_token", "router"]

router = APIRouter(include_in_schema=False)
COOKIE = "ladderboard_organiser"


def _mac(settings: Settings, purpose: str) -> str:
    key = settings.admin_token.get_secret_value().encode()
    return hmac.new(key, f"ladderboard-{purpose}".encode(), hashlib.sha256).hexdigest()


def is_organiser_token(settings: Settings, token: str) -> bool:
    admin = settings.admin_token.get_secret_value()
    return bool(admin) and hmac.compare_digest(token.encode(), admin.encode())


def signed_in(request: Request, settings: Settings) -> bool:
    cookie = request.cookies.get(COOKIE, "")
    return bool(settings.admin_token.get_secret_value()) and hmac.compare_digest(
        cookie.encode(), _mac(settings, "session").encode()
    )


def check_form(request: Request, settings: Settings, csrf: str) -> None:
    """Refuse an organiser form without the session cookie or the CSRF value."""
    if not signed_in(request, settings):
        raise ApiError(401, "unauthorized", "sign in with the organiser's token first")
    if not hmac.compare_digest(csrf.encode(), _mac(settings, "csrf").encode()):
        raise ApiError(403, "forbidden", "the form is stale or was not sent from this site")
    _spend(request, hash_token(settings.admin_token.get_secret_value()), "with this token")


def _dashboard(request: Request, store, settings: Settings, status: int = 200, **extra: Any):
    competitions = [
        (competition, [team.name for team in store.teams(competition.slug)])
        for competition in api.list_competitions(store)
    ]
    return render(
        request,
        "organiser.html",
        status,
        signed_in=True,
        csrf=_mac(settings, "csrf"),
        competitions=competitions,
        losses=sorted(LOSSES),
        metrics=sorted(METRICS),
        mechanisms={name: klass.input_kind for name, klass in sorted(MECHANISMS.items())},
        **extra,
    )


@router.get("/organiser", response_class=HTMLResponse)
def organiser_page(request: Request, store: Store, settings: SettingsDep) -> HTMLResponse:
    if not signed_in(request, settings):
        return render(request, "organiser.html", signed_in=False)
    return _dashboard(request, store, settings)


@router.post("/organiser/login", response_class=HTMLResponse)
def organiser_login(
    request: Request, settings: SettingsDep, token: Annotated[str, Form()] = ""
) -> Response:
    try:
        _spend(request, hash_token(token), "with this token")
        if not is_organiser_token(settings, token):
            raise ApiError(401, "unauthorized", "the token is not the organiser's token")
    except ApiError as exc:
        status, text = refusal(exc)
        return render(request, "organiser.html", status, signed_in=False, error=text)
    response = RedirectResponse("/organiser", status_code=303)
    response.set_cookie(
        COOKIE,
        _mac(settings, "session"),
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/organiser",
    )
    return response


@router.post("/organiser/logout")
def organiser_logout(
    request: Request, settings: SettingsDep, csrf: Annotated[str, Form()] = ""
) -> Response:
    response = RedirectResponse("/organiser", status_code=303)
    if hmac.compare_digest(csrf.encode(), _mac(settings, "csrf").encode()):
        response.delete_cookie(COOKIE, path="/organiser")
    return response


def _organiser_refusal(request, store, settings, exc: Exception) -> HTMLResponse:
    status, text = refusal(exc)
    if not signed_in(request, settings):
        return render(request, "organiser.html", status, signed_in=False, error=text)
    return _dashboard(request, store, settings, status, error=text)


@router.post("/organiser/competitions", response_class=HTMLResponse)
def organiser_create(
    request: Request,
    store: Store,
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
        check_form(request, settings, csrf)
        if solution is None or not solution.filename:
            raise ApiError(422, "invalid_request", "choose a solution file")
        if board not in ("per-team", "per-rank"):
            raise ApiError(422, "invalid_request", f"board must be per-team or per-rank: {board!r}")
        selections = api._optional_int("n_selections", n_selections)
        created = api.create_competition(
            store,
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
        return _organiser_refusal(request, store, settings, exc)
    return _dashboard(request, store, settings, 201, created=created)


@router.post("/organiser/c/{slug}/teams", response_class=HTMLResponse)
def organiser_add_team(
    request: Request,
    store: Store,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
) -> HTMLResponse:
    try:
        check_form(request, settings, csrf)
        info = store.competition(slug)
        team = api.add_team(
            api.TeamIn(name=name.strip()), store, settings, Caller(None, True), info
        )
    except REFUSALS as exc:
        return _organiser_refusal(request, store, settings, exc)
    return _dashboard(request, store, settings, 201, new_team=team, team_slug=slug)


@router.post("/organiser/c/{slug}/close", response_class=HTMLResponse)
def organiser_close(
    request: Request,
    store: Store,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
) -> HTMLResponse:
    try:
        check_form(request, settings, csrf)
        closed = api.close_competition(store, Caller(None, True), store.competition(slug))
    except REFUSALS as exc:
        return _organiser_refusal(request, store, settings, exc)
    return _dashboard(request, store, settings, closed=closed)
