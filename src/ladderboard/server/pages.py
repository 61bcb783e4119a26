"""The web pages: server-rendered HTML over the same routes as the API.

Each page calls the API's own route functions, so it shows exactly what the
response models of :mod:`ladderboard.server.schemas` let out (the privacy
boundary) and refuses with the same messages. Tokens never go into URLs:

* the submit and team pages take the team's token in the POST body, so a
  form posted from another site cannot act without knowing it;
* the organiser signs in once with a form; the cookie then holds an HMAC of
  the organiser token (not the token), HttpOnly and SameSite=Strict, and
  every form that changes state also carries a per-server CSRF value derived
  from the token (:mod:`ladderboard.server.organiser_pages`).

Pages are left out of the OpenAPI schema; ``/docs`` is Swagger UI served
from the app itself (see :mod:`ladderboard.server.docs`).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from ladderboard.engine.views import CompetitionInfo
from ladderboard.server import api, organiser_pages
from ladderboard.server.charts import score_chart
from ladderboard.server.deps import Caller, CompetitionsDep, SettingsDep, authenticate
from ladderboard.server.docs import install_docs
from ladderboard.server.errors import ApiError
from ladderboard.server.rendering import REFUSALS, STATIC_DIR, find, not_found, refusal, render

__all__ = ["install_pages", "router"]

router = APIRouter(include_in_schema=False)
_ANONYMOUS = Caller(None, False)


def install_pages(app: FastAPI) -> None:
    """Mount the static files, the pages and the local ``/docs`` on ``app``."""
    install_docs(app)  # before /static, whose mount would shadow /static/docs
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.include_router(router)
    app.include_router(organiser_pages.router)


# ------------------------------------------------------------------ public
@router.get("/", response_class=HTMLResponse)
def index(request: Request, competitions: CompetitionsDep) -> HTMLResponse:
    return render(request, "index.html", competitions=api.list_competitions(competitions))


def _boards(competitions, info: CompetitionInfo) -> dict[str, Any]:
    public = api.leaderboard(competitions, _ANONYMOUS, info, "public")
    private = None
    commitment = api.get_commitment(competitions, info)
    if public.closed:
        private = api.leaderboard(
            competitions, _ANONYMOUS, competitions.competition(info.slug), "private"
        )
    return {"public": public, "private": private, "commitment": commitment}


@router.get("/c/{slug}", response_class=HTMLResponse)
def competition_home(request: Request, competitions: CompetitionsDep, slug: str) -> HTMLResponse:
    info = find(competitions, slug)
    if info is None:
        return not_found(request, slug)
    return render(
        request,
        "competition.html",
        competition=api.get_competition(info),
        precision=info.config.precision,
        **_boards(competitions, info),
    )


def _team_caller(request: Request, competitions, info: CompetitionInfo, token: str):
    """The team of ``token`` in ``info`` (spending its rate limit), or a refusal."""
    token = token.strip()
    if not token:
        raise ApiError(401, "unauthorized", "enter your team's token")
    who = authenticate(request, competitions, request.app.state.settings, token)
    if who.is_organiser:
        raise ApiError(403, "forbidden", "this page is for a team, not for the organiser")
    team = who.team(competitions, info.slug)
    if team is None:
        raise ApiError(
            401, "unauthorized", f"the token is not a team token of competition {info.slug!r}"
        )
    return team


@router.get("/c/{slug}/submit", response_class=HTMLResponse)
def submit_form(request: Request, competitions: CompetitionsDep, slug: str) -> HTMLResponse:
    info = find(competitions, slug)
    if info is None:
        return not_found(request, slug)
    return render(request, "submit.html", competition=api.get_competition(info), result=None)


@router.post("/c/{slug}/submit", response_class=HTMLResponse)
def submit_page(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    token: Annotated[str, Form()] = "",
    message: Annotated[str, Form()] = "",
    file: Annotated[UploadFile | None, File()] = None,
) -> HTMLResponse:
    info = find(competitions, slug)
    if info is None:
        return not_found(request, slug)
    context: dict[str, Any] = {"competition": api.get_competition(info), "result": None}
    try:
        team = _team_caller(request, competitions, info, token)
        if file is None or not file.filename:
            raise ApiError(422, "invalid_request", "choose a predictions file to submit")
        api.check_submission_fields(message, None)
        competitions.admit(info.slug, team.name)  # before the file is read
        result = api.submit_file(competitions, settings, team, info, file.file, message, None)
    except REFUSALS as exc:
        status, text = refusal(exc)
        return render(request, "submit.html", status, error=text, message=message, **context)
    context["result"] = result
    return render(
        request, "submit.html", 201, team=team.name, precision=info.config.precision, **context
    )


@router.get("/c/{slug}/team", response_class=HTMLResponse)
def team_form(request: Request, competitions: CompetitionsDep, slug: str) -> HTMLResponse:
    info = find(competitions, slug)
    if info is None:
        return not_found(request, slug)
    return render(request, "team.html", competition=api.get_competition(info), submissions=None)


@router.post("/c/{slug}/team", response_class=HTMLResponse)
def team_page(
    request: Request, competitions: CompetitionsDep, slug: str, token: Annotated[str, Form()] = ""
) -> HTMLResponse:
    info = find(competitions, slug)
    if info is None:
        return not_found(request, slug)
    competition = api.get_competition(info)
    try:
        team = _team_caller(request, competitions, info, token)
    except REFUSALS as exc:
        status, text = refusal(exc)
        return render(
            request, "team.html", status, competition=competition, submissions=None, error=text
        )
    return _team_view(request, competitions, info, team)


def _team_view(
    request: Request, competitions, info: CompetitionInfo, team, status=200, **extra: Any
):
    submissions = api.own_submissions(competitions, team, info)
    chart = score_chart(
        [(s.created_at, s.public_score) for s in submissions],
        precision=info.config.precision,
        title=f"Released score of team {team.name} over time",
    )
    return render(
        request,
        "team.html",
        status,
        competition=api.get_competition(info),
        team=team.name,
        submissions=submissions,
        chart=chart,
        precision=info.config.precision,
        **extra,
    )


@router.post("/c/{slug}/team/selection", response_class=HTMLResponse)
def team_selection(
    request: Request,
    competitions: CompetitionsDep,
    slug: str,
    token: Annotated[str, Form()] = "",
    submission_ids: Annotated[list[str], Form()] = [],  # noqa: B006 (FastAPI copies it)
) -> HTMLResponse:
    info = find(competitions, slug)
    if info is None:
        return not_found(request, slug)
    try:
        team = _team_caller(request, competitions, info, token)
    except REFUSALS as exc:
        status, text = refusal(exc)
        competition = api.get_competition(info)
        return render(
            request, "team.html", status, competition=competition, submissions=None, error=text
        )
    try:
        ids = [int(value) for value in submission_ids]
        api.select_final(api.SelectionIn(submission_ids=ids), competitions, team, info)
    except ValueError:
        return _team_view(
            request, competitions, info, team, 422, error="Submission ids must be integers."
        )
    except REFUSALS as exc:
        status, text = refusal(exc)
        return _team_view(request, competitions, info, team, status, error=text)
    return _team_view(request, competitions, info, team, saved=True)
