"""A team's pages: sign in once per browser, submit, and the team's own page.

A team enters its token once, on its page: that opens a team session
(:class:`ladderboard.store.TeamSessions`) whose random cookie is stored only
as its hash, HttpOnly, scoped to the competition's path (``/c/{slug}``),
Secure over https, for :data:`SESSION_LIFETIME`, and revoked at sign-out or
when the organiser disables the team.

The cookie is ``SameSite=Lax``: a link to a team's page from elsewhere (an
e-mail, a chat) opens it signed in, which is safe because no GET changes
anything; a form posted from another site carries no cookie. Every form that
acts through the session must also come from a page of this server (its
``Origin`` or ``Referer``) and carry the session's CSRF value, an HMAC of the
session cookie that only pages served to that browser contain.

Without a session, the submit form and the selection form still take the
token itself in the POST body, as before a sign-in.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import timedelta
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ladderboard.engine import Competitions
from ladderboard.engine.errors import NotFound, TeamDisabled
from ladderboard.engine.results import CompetitionInfo, TeamInfo
from ladderboard.rules.explain import release_words
from ladderboard.server.account_session import (
    close_account_session,
    session_account,
    session_cookie,
)
from ladderboard.server.api import submissions
from ladderboard.server.charts import score_chart
from ladderboard.server.credentials import TEAM_COOKIE
from ladderboard.server.deps import CompetitionsDep, SettingsDep, authenticate, spend
from ladderboard.server.errors import ApiError
from ladderboard.server.join_pages import rules_notice
from ladderboard.server.organiser_pages import same_origin
from ladderboard.server.rendering import (
    REFUSALS,
    competition_context,
    direction_words,
    find,
    not_found,
    refusal,
    render,
    score,
    score_decimals,
)
from ladderboard.server.schemas import SelectionIn
from ladderboard.server.settings import Settings
from ladderboard.server.team_members_pages import members_context

__all__ = ["COOKIE", "SESSION_LIFETIME", "router", "signed_in_team"]

router = APIRouter(include_in_schema=False)
COOKIE = TEAM_COOKIE
SESSION_LIFETIME = timedelta(days=7)


# ---------------------------------------------------------------- sessions
def _session(request: Request) -> str:
    """The browser's session that speaks for a team: its team session (signed
    in with the team's token) or else its account's session."""
    return request.cookies.get(COOKIE, "") or session_cookie(request)


def signed_in_team(request: Request, competitions: Competitions, slug: str) -> TeamInfo | None:
    """The team this browser is signed in as in competition ``slug``, if any:
    by the team's token, or as an account that is one of its members
    (``None`` when the session expired, was revoked or its team is disabled)."""
    if request.cookies.get(COOKIE, ""):
        team_id = competitions.team_sessions.team_of(request.cookies[COOKIE])
        if team_id is None:
            return None
        return next((t for t in competitions.teams(slug) if t.id == team_id), None)
    account = session_account(request, competitions)
    if account is None:
        return None
    try:
        team = competitions.accounts.team_of_account(slug, account.id)
    except NotFound:
        return None
    return None if team is None or team.disabled else team


def _csrf(settings: Settings, slug: str, session: str) -> str:
    """The CSRF value of a team's forms: an HMAC of its session cookie. The
    cookie is random and HttpOnly, so only a page this server sent to that
    browser holds the value; the organiser token keys it as a second secret."""
    key = settings.admin_token.get_secret_value().encode()
    text = f"ladderboard-team-csrf\n{slug}\n{session}"
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


def _form_team(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    info: CompetitionInfo,
    token: str,
    csrf: str,
) -> TeamInfo:
    """The team a form acts for: the one of the token typed in the form, or
    the one signed in (then the form must come from this server and carry
    the session's CSRF value). Refuses with the API's messages."""
    if token.strip():
        return _token_team(request, competitions, settings, info, token)
    team = signed_in_team(request, competitions, info.slug)
    if team is None:
        raise ApiError(
            401, "unauthorized", "sign in on your team's page, or enter your team's token"
        )
    if not same_origin(request):
        raise ApiError(403, "forbidden", "the form was not sent from a page of this server")
    if not hmac.compare_digest(
        csrf.encode(), _csrf(settings, info.slug, _session(request)).encode()
    ):
        raise ApiError(403, "forbidden", "the form is stale or was not sent from this site")
    spend(request, f"team:{team.id}", settings.rate_limit_per_minute, "for this team")
    return team


def _token_team(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    info: CompetitionInfo,
    token: str,
    *,
    team_token_only: bool = False,
) -> TeamInfo:
    """The team of ``token`` in ``info`` (spending its rate limit), or a
    refusal. ``team_token_only`` refuses a person's token: a team session
    (:func:`sign_in`) is tied to the team alone, and would outlive the
    person's token and membership; a person signs in to its account."""
    token = token.strip()
    if not token:
        raise ApiError(401, "unauthorized", "enter your team's token")
    who = authenticate(request, competitions, settings, token)
    if who.is_organiser:
        raise ApiError(403, "forbidden", "this page is for a team, not for the organiser")
    if team_token_only and who.account is not None:
        raise ApiError(
            403,
            "forbidden",
            "this is a personal token: sign in to your account instead (Sign in, at the top)",
        )
    team = who.team(competitions, info.slug)
    if team is None:
        raise ApiError(
            401, "unauthorized", f"the token is not a team token of competition {info.slug!r}"
        )
    if team.disabled:
        raise TeamDisabled(f"team {team.name!r} is disabled by the organiser")
    return team


def _page(
    request: Request, info: CompetitionInfo, name: str, status: int = 200, **extra: Any
) -> HTMLResponse:
    """A team's page (``submit.html`` or ``team.html``) with what every one
    shows: the competition, the team signed in here, its quota, and the
    columns a file must have."""
    competitions: Competitions = request.app.state.competitions
    team = signed_in_team(request, competitions, info.slug)
    context = competition_context(
        competitions, info, name.removesuffix(".html"), team.name if team else None
    )
    if team is not None:
        context["csrf"] = _csrf(request.app.state.settings, info.slug, _session(request))
        context["quota"] = competitions.quota(info.slug, team.name)
    context["id_column"], context["target_columns"] = competitions.columns(info.slug)
    settings = request.app.state.settings
    context.update(members_context(request, competitions, settings, info.slug))
    context.update(rules_notice(request, competitions, info))
    context.update(extra)
    return render(request, name, status, **context)


def _sign_in_page(request: Request, info: CompetitionInfo, status: int = 200, **extra: Any):
    return _page(request, info, "team.html", status, submissions=None, **extra)


# ------------------------------------------------------------------ submit
@router.get("/c/{slug}/submit", response_class=HTMLResponse)
def submit_form(request: Request, competitions: CompetitionsDep, slug: str) -> HTMLResponse:
    info = find(request, competitions, slug)
    if info is None:
        return not_found(request, slug)
    return _page(request, info, "submit.html")


def _explanation(result: Any, previous: float | None, decimals: int, direction: str) -> str:
    """What the release means, in words: the API's explanation, or the
    released score against the team's previous one."""
    explanation = getattr(result, "explanation", None)
    if explanation:
        return str(explanation)
    released = score(result.public_score, decimals)
    if previous is None:
        return f"Your team's first board score is {released} ({direction})."
    before = score(previous, decimals)
    if before == released:
        return f"Your team's board score stays at {released}."
    return f"Your team's board score is now {released}; it was {before} ({direction})."


@router.post("/c/{slug}/submit", response_class=HTMLResponse)
def submit_page(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    token: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
    message: Annotated[str, Form()] = "",
    file: Annotated[UploadFile | None, File()] = None,
) -> HTMLResponse:
    info = find(request, competitions, slug, token)
    if info is None:
        return not_found(request, slug)
    try:
        team = _form_team(request, competitions, settings, info, token, csrf)
        if file is None or not file.filename:
            raise ApiError(422, "invalid_request", "choose a predictions file to submit")
        submissions.check_submission_fields(message, None)
        competitions.admit(info.slug, team.name)  # before the file is read
        result = submissions.submit_file(
            competitions, settings, team, info, file.file, message, None, file.filename
        )
    except REFUSALS as exc:
        status, text = refusal(exc, request)
        return _page(request, info, "submit.html", status, error=text, message=message)
    views = competitions.submissions(info.slug, team.name)
    previous = views[-2].public_score if len(views) > 1 else None
    decimals = score_decimals(competitions, info)
    explanation = _explanation(result, previous, decimals, direction_words(info.config))
    return _page(
        request,
        info,
        "submit.html",
        201,
        result=result,
        previous=previous,
        explanation=explanation,
        team=team.name,
    )


# -------------------------------------------------------------- team page
def _team_view(
    request: Request, info: CompetitionInfo, team: TeamInfo, status: int = 200, **extra: Any
) -> HTMLResponse:
    """The team's own page: its ranks, quota, submissions, final selection,
    refused files and the chart of its released scores."""
    competitions: Competitions = request.app.state.competitions
    submissions = competitions.submissions(info.slug, team.name)
    decimals = score_decimals(competitions, info)
    public = competitions.leaderboard(info.slug, "public")
    ranks = {"public": _rank(public, team.name), "public_of": len(public)}
    if info.is_published():
        private = competitions.leaderboard(info.slug, "private")
        ranks |= {"private": _rank(private, team.name), "private_of": len(private)}
    words = release_words(info.config.mechanism, info.config.board)
    chart = score_chart(
        [(s.created_at, s.public_score) for s in submissions],
        precision=decimals,
        title=f"{words.chart_title}, team {team.name}",
        y_label=f"{words.column.lower()} ({direction_words(info.config)})",
    )
    return _page(
        request,
        info,
        "team.html",
        status,
        team=team.name,
        submissions=submissions,
        selected=[s.number for s in submissions if s.selected],
        final=[s.number for s in submissions if s.final],
        rejections=competitions.rejections(info.slug, team.name),
        quota=competitions.quota(info.slug, team.name),
        ranks=ranks,
        chart=chart,
        late=competitions.late_submissions(info.slug, team.name)
        if info.config.late_submissions
        else [],
        **extra,
    )


def _rank(rows, team: str) -> int | None:
    return next((row.rank for row in rows if row.team == team), None)


@router.get("/c/{slug}/team", response_class=HTMLResponse)
def team_page(request: Request, competitions: CompetitionsDep, slug: str) -> HTMLResponse:
    info = find(request, competitions, slug)
    if info is None:
        return not_found(request, slug)
    team = signed_in_team(request, competitions, slug)
    if team is not None:
        return _team_view(request, info, team)
    expired = bool(_session(request))
    response = _sign_in_page(request, info, expired=expired)
    if expired:
        response.delete_cookie(COOKIE, path=f"/c/{slug}")
    return response


@router.get("/c/{slug}/team/submissions/{number}/file", response_class=Response)
def submission_file(
    request: Request, competitions: CompetitionsDep, slug: str, number: int
) -> Response:
    """One of the signed-in team's own submitted files, as it was received."""
    info = find(request, competitions, slug)
    if info is None:
        return not_found(request, slug)
    team = signed_in_team(request, competitions, slug)
    if team is None:
        raise ApiError(401, "unauthorized", "sign in as your team to download its files")
    data = competitions.submission_file(info.slug, team.name, number)
    return submissions.submitted_file(info.slug, number, data)


@router.post("/c/{slug}/team", response_class=HTMLResponse)
def sign_in(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    token: Annotated[str, Form()] = "",
) -> Response:
    """Sign this browser in as the team of ``token``, then show its page."""
    info = find(request, competitions, slug, token)
    if info is None:
        return not_found(request, slug)
    try:
        if not same_origin(request):  # no signing a browser into someone else's team
            raise ApiError(403, "forbidden", "the form was not sent from a page of this server")
        team = _token_team(request, competitions, settings, info, token, team_token_only=True)
    except REFUSALS as exc:
        status, text = refusal(exc)
        return _sign_in_page(request, info, status, error=text)
    response = RedirectResponse(f"/c/{slug}/team", status_code=303)
    response.set_cookie(
        COOKIE,
        competitions.team_sessions.open(team.id, SESSION_LIFETIME),
        max_age=int(SESSION_LIFETIME.total_seconds()),
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path=f"/c/{slug}",
    )
    return response


@router.post("/c/{slug}/team/sign-out")
def sign_out(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
) -> Response:
    """Sign out: the session is revoked in the store, so a copy of the cookie
    is dead too. A browser signed in as the team by its token loses that
    session; one signed in as a member's account signs out of the account."""
    response = RedirectResponse(f"/c/{slug}/team", status_code=303)
    session = _session(request)
    if (
        session
        and same_origin(request)
        and hmac.compare_digest(csrf.encode(), _csrf(settings, slug, session).encode())
    ):
        if request.cookies.get(COOKIE, ""):
            competitions.team_sessions.close(session)
            response.delete_cookie(COOKIE, path=f"/c/{slug}")
        else:
            close_account_session(request, response, competitions)
    return response


@router.post("/c/{slug}/team/selection", response_class=HTMLResponse)
def team_selection(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    token: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
    submission_ids: Annotated[list[str], Form()] = [],  # noqa: B006 (FastAPI copies it)
) -> HTMLResponse:
    info = find(request, competitions, slug, token)
    if info is None:
        return not_found(request, slug)
    try:
        team = _form_team(request, competitions, settings, info, token, csrf)
    except REFUSALS as exc:
        status, text = refusal(exc)
        return _sign_in_page(request, info, status, error=text)
    try:
        ids = [int(value) for value in submission_ids]
    except ValueError:
        return _team_view(request, info, team, 422, error="Submission numbers must be integers.")
    try:
        submissions.select_final(SelectionIn(numbers=ids), competitions, team, info)
    except REFUSALS as exc:
        status, text = refusal(exc)
        return _team_view(request, info, team, status, error=text)
    return _team_view(request, info, team, saved=True)
