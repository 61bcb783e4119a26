"""The web pages: server-rendered HTML over the same routes as the API.

Each page calls the API's own route functions, so it shows exactly what the
response models of :mod:`ladderboard.server.schemas` let out (the privacy
boundary) and refuses with the same messages. Tokens never go into URLs:

* the submit and team pages take the team's token in the POST body, so a
  form posted from another site cannot act without knowing it;
* the organiser signs in once with a form; the cookie then holds an HMAC of
  the organiser token (not the token), HttpOnly and SameSite=Strict, and
  every form that changes state also carries a per-server CSRF value derived
  from the token.

Pages are left out of the OpenAPI schema; ``/docs`` is Swagger UI served
from the app itself (see :mod:`ladderboard.server.docs`).
"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError

from ladderboard.competition.errors import CompetitionError, NotFound
from ladderboard.competition.solution import SolutionError
from ladderboard.competition.submission import SubmissionError
from ladderboard.competition.views import CompetitionInfo
from ladderboard.losses import LOSSES, METRICS
from ladderboard.mechanisms import MECHANISMS
from ladderboard.server import api
from ladderboard.server.charts import score_chart
from ladderboard.server.deps import Caller, SettingsDep, Store, _spend, hash_token
from ladderboard.server.docs import install_docs
from ladderboard.server.errors import _STATUS, ApiError, _sentence
from ladderboard.server.settings import Settings

__all__ = ["install_pages", "router"]

_HERE = Path(__file__).parent
templates = Jinja2Templates(directory=_HERE / "templates")
router = APIRouter(include_in_schema=False)

COOKIE = "ladderboard_organiser"
_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
_ANONYMOUS = Caller(None, False)


def install_pages(app: FastAPI) -> None:
    """Mount the static files, the pages and the local ``/docs`` on ``app``."""
    install_docs(app)  # before /static, whose mount would shadow /static/docs
    app.mount("/static", StaticFiles(directory=_HERE / "static"), name="static")
    app.include_router(router)


# ------------------------------------------------------------------ helpers
def render(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
    response = templates.TemplateResponse(request, name, context, status_code=status)
    response.headers.update(_HEADERS)
    return response


def refusal(exc: Exception) -> tuple[int, str]:
    """The status and the sentence the API would answer ``exc`` with."""
    if isinstance(exc, ApiError):
        return exc.status, _sentence(exc.message)
    if isinstance(exc, CompetitionError):
        return next((s for k, s in _STATUS.items() if isinstance(exc, k)), 400), _sentence(str(exc))
    if isinstance(exc, SubmissionError):
        return (413 if exc.code == "too_large" else 400), _sentence(str(exc))
    if isinstance(exc, SolutionError):
        return 400, _sentence(str(exc))
    if isinstance(exc, ValidationError):
        parts = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3]]
        return 422, _sentence("; ".join(parts))
    raise exc


_REFUSALS = (ApiError, CompetitionError, SubmissionError, SolutionError, ValidationError)


def find(store, slug: str) -> CompetitionInfo | None:
    try:
        return store.competition(slug)
    except NotFound:
        return None


def not_found(request: Request, slug: str) -> HTMLResponse:
    return render(
        request,
        "message.html",
        404,
        title="Not found",
        message=f"There is no competition {slug!r}.",
    )


def fmt(value: float | None, precision: int) -> str:
    return "" if value is None else f"{value:.{precision}f}"


templates.env.filters["score"] = fmt


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


# ------------------------------------------------------------------ public
@router.get("/", response_class=HTMLResponse)
def index(request: Request, store: Store) -> HTMLResponse:
    return render(request, "index.html", competitions=api.list_competitions(store))


def _boards(store, info: CompetitionInfo) -> dict[str, Any]:
    public = api.leaderboard(store, _ANONYMOUS, info, "public")
    private = None
    commitment = api.get_commitment(store, info)
    if public.closed:
        private = api.leaderboard(store, _ANONYMOUS, store.competition(info.slug), "private")
    return {"public": public, "private": private, "commitment": commitment}


@router.get("/c/{slug}", response_class=HTMLResponse)
def competition_home(request: Request, store: Store, slug: str) -> HTMLResponse:
    info = find(store, slug)
    if info is None:
        return not_found(request, slug)
    return render(
        request,
        "competition.html",
        competition=api.get_competition(info),
        precision=info.config.precision,
        **_boards(store, info),
    )


def _team_caller(request: Request, store, info: CompetitionInfo, token: str):
    """The team of ``token`` in ``info`` (spending its rate limit), or a refusal."""
    token = token.strip()
    if not token:
        raise ApiError(401, "unauthorized", "enter your team's token")
    _spend(request, hash_token(token), "with this token")
    who = Caller(token, False)
    if is_organiser_token(request.app.state.settings, token):
        raise ApiError(403, "forbidden", "this page is for a team, not for the organiser")
    team = who.team(store, info.slug)
    if team is None:
        raise ApiError(
            401, "unauthorized", f"the token is not a team token of competition {info.slug!r}"
        )
    return team


@router.get("/c/{slug}/submit", response_class=HTMLResponse)
def submit_form(request: Request, store: Store, slug: str) -> HTMLResponse:
    info = find(store, slug)
    if info is None:
        return not_found(request, slug)
    return render(request, "submit.html", competition=api.get_competition(info), result=None)


@router.post("/c/{slug}/submit", response_class=HTMLResponse)
def submit_page(
    request: Request,
    store: Store,
    settings: SettingsDep,
    slug: str,
    token: Annotated[str, Form()] = "",
    message: Annotated[str, Form()] = "",
    file: Annotated[UploadFile | None, File()] = None,
) -> HTMLResponse:
    info = find(store, slug)
    if info is None:
        return not_found(request, slug)
    context: dict[str, Any] = {"competition": api.get_competition(info), "result": None}
    try:
        team = _team_caller(request, store, info, token)
        if file is None or not file.filename:
            raise ApiError(422, "invalid_request", "choose a predictions file to submit")
        if len(message) > api.MAX_MESSAGE_CHARS:
            raise ApiError(
                422,
                "invalid_request",
                f"the message is longer than {api.MAX_MESSAGE_CHARS} characters",
            )
        result = api.submit(store, settings, team, info, file, message, None)
    except _REFUSALS as exc:
        status, text = refusal(exc)
        return render(request, "submit.html", status, error=text, message=message, **context)
    context["result"] = result
    return render(
        request, "submit.html", 201, team=team.name, precision=info.config.precision, **context
    )


@router.get("/c/{slug}/team", response_class=HTMLResponse)
def team_form(request: Request, store: Store, slug: str) -> HTMLResponse:
    info = find(store, slug)
    if info is None:
        return not_found(request, slug)
    return render(request, "team.html", competition=api.get_competition(info), submissions=None)


@router.post("/c/{slug}/team", response_class=HTMLResponse)
def team_page(
    request: Request, store: Store, slug: str, token: Annotated[str, Form()] = ""
) -> HTMLResponse:
    info = find(store, slug)
    if info is None:
        return not_found(request, slug)
    competition = api.get_competition(info)
    try:
        team = _team_caller(request, store, info, token)
    except _REFUSALS as exc:
        status, text = refusal(exc)
        return render(
            request, "team.html", status, competition=competition, submissions=None, error=text
        )
    submissions = api.own_submissions(store, team, info)
    chart = score_chart(
        [(s.created_at, s.public_score) for s in submissions],
        precision=info.config.precision,
        title=f"Released score of team {team.name} over time",
    )
    return render(
        request,
        "team.html",
        competition=competition,
        team=team.name,
        submissions=submissions,
        chart=chart,
        precision=info.config.precision,
    )


# --------------------------------------------------------------- organiser
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
    except _REFUSALS as exc:
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
    except _REFUSALS as exc:
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
    except _REFUSALS as exc:
        return _organiser_refusal(request, store, settings, exc)
    return _dashboard(request, store, settings, closed=closed)
