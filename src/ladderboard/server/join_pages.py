"""The join page, ``/c/{slug}/join``: a browser signed in as an account
(the ``ladderboard_session`` cookie) reads the rules in full, accepts them,
gives the invitation's code where the competition needs one, and names its
team (by default, the account's handle). A browser not signed in is sent to
sign in and comes back here, code and all.

A valid invitation code is what admits a browser to this page of a
competition it may not otherwise see (a private one): :func:`code_admits`
says whether the ``code`` of the request is one.

Every form here changes state, so it must come from a page of this server
(its ``Origin`` or ``Referer``) and carry the CSRF value of the account's
session, an HMAC of the session cookie only pages served to that browser
contain.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ladderboard.engine import Competitions
from ladderboard.engine.errors import NotFound
from ladderboard.engine.results import CompetitionInfo
from ladderboard.server.account_session import (
    account_csrf,
    check_account_form,
    session_account,
)
from ladderboard.server.api.registrations import joinable
from ladderboard.server.deps import CompetitionsDep, SettingsDep
from ladderboard.server.errors import ApiError
from ladderboard.server.rendering import (
    REFUSALS,
    competition_context,
    find,
    not_found,
    refusal,
    render,
)
from ladderboard.server.settings import Settings

__all__ = ["code_admits", "router", "rules_notice"]

router = APIRouter(include_in_schema=False)
SIGN_IN = "/account/sign-in"
"""The accounts' sign-in page, which takes ``next``: where to come back to."""


def code_admits(competitions: Competitions, slug: str, code: str | None) -> bool:
    """Whether ``code`` is a valid invitation of competition ``slug`` now:
    what lets a browser onto the join page of a competition it may not
    otherwise see."""
    return bool(code) and competitions.registrations.code_admits(slug, code or "")


def _scope(slug: str) -> str:
    """The scope of the join forms' CSRF value (:func:`account_csrf`)."""
    return f"join\n{slug}"


def _joinable(
    request: Request, competitions: Competitions, slug: str, code: str
) -> CompetitionInfo | None:
    """The competition of the join page (``None``: none to show), read
    through :func:`~ladderboard.server.api.registrations.joinable`, where a
    valid invitation code opens a competition not otherwise visible."""
    try:
        return joinable(competitions, request, slug, code or None)
    except NotFound:
        return None


def _here(slug: str, code: str) -> str:
    return f"/c/{slug}/join" + (f"?code={quote(code, safe='')}" if code else "")


def _join_page(
    request: Request,
    info: CompetitionInfo,
    account: Any,
    status: int = 200,
    *,
    code: str = "",
    **extra: Any,
) -> HTMLResponse:
    competitions: Competitions = request.app.state.competitions
    context = competition_context(competitions, info, "join")
    registration = None
    if account is not None:
        registration = competitions.accounts.registration(info.slug, account.id)
        context["csrf"] = account_csrf(request, _scope(info.slug))
        context["team_of_account"] = competitions.accounts.team_of_account(info.slug, account.id)
        context["rules_changed"] = registration is not None and (
            competitions.registrations.rules_differ(info, registration)
        )
    context.update(
        account=account,
        registration=registration,
        mode=info.config.registration,
        code=code,
        sign_in=f"{SIGN_IN}?next={quote(_here(info.slug, code), safe='')}",
    )
    context.update(extra)
    return render(request, "join.html", status, **context)


def rules_notice(request: Request, competitions: Competitions, info: CompetitionInfo) -> dict:
    """What a competition's page needs to say that the signed-in account
    accepted rules that changed since, with the CSRF value of the form that
    accepts them again (empty when there is nothing to say)."""
    account = session_account(request, competitions)
    if account is None:
        return {}
    registration = competitions.accounts.registration(info.slug, account.id)
    if registration is None or not competitions.registrations.rules_differ(info, registration):
        return {}
    csrf = account_csrf(request, _scope(info.slug))
    return {"rules_changed": True, "join_csrf": csrf}


@router.get("/c/{slug}/join", response_class=HTMLResponse, name="join_page")
def join_page(
    request: Request, competitions: CompetitionsDep, slug: str, code: str = ""
) -> Response:
    code = code.strip()[:200]
    info = _joinable(request, competitions, slug, code)
    if info is None:
        return not_found(request, slug)
    if info.config.phase_of is not None:  # a later phase: its teams join the first phase
        return RedirectResponse(_here(info.config.phase_of, code), status_code=303)
    account = session_account(request, competitions)
    return _join_page(request, info, account, code=code, team_name=getattr(account, "handle", ""))


def _form_account(
    request: Request, competitions: Competitions, settings: Settings, slug: str, csrf: str
) -> Any:
    """The signed-in account a join form acts for, or the refusal."""
    return check_account_form(
        request,
        competitions,
        settings,
        csrf,
        scope=_scope(slug),
        unsigned="sign in with your account to join",
    )


@router.post("/c/{slug}/join", response_class=HTMLResponse)
def join(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    accept_rules: Annotated[str, Form()] = "",
    code: Annotated[str, Form(max_length=200)] = "",
    team: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    info = _joinable(request, competitions, slug, code.strip())
    if info is None:
        return not_found(request, slug)
    account = None
    try:
        account = _form_account(request, competitions, settings, info.slug, csrf)
        competitions.registrations.join(
            info.slug,
            account.id,
            accept_rules=accept_rules == "on",
            code=code.strip() or None,
            team=team.strip() or None,
        )
    except ValueError as exc:
        return _join_page(request, info, account, 422, code=code, team_name=team, error=str(exc))
    except REFUSALS as exc:
        status, text = refusal(exc)
        return _join_page(request, info, account, status, code=code, team_name=team, error=text)
    return RedirectResponse(f"/c/{slug}/join", status_code=303)


@router.post("/c/{slug}/join/rules", response_class=HTMLResponse)
def accept_rules_again(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    accept_rules: Annotated[str, Form()] = "",
    back: Annotated[str, Form(max_length=10)] = "",
) -> Response:
    """Accept the competition's rules as they are now, after a change; then
    back to the team's page when the form was there (``back``: ``team``)."""
    info = find(request, competitions, slug)
    if info is None:
        return not_found(request, slug)
    account = None
    try:
        account = _form_account(request, competitions, settings, info.slug, csrf)
        if accept_rules != "on":
            raise ApiError(422, "invalid_request", "tick the box to accept the rules")
        competitions.registrations.accept_rules(info.slug, account.id)
    except REFUSALS as exc:
        status, text = refusal(exc)
        return _join_page(request, info, account, status, error=text)
    page = "team" if back == "team" else "join"
    return RedirectResponse(f"/c/{slug}/{page}", status_code=303)
