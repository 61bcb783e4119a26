"""Accounts' pages: sign up, sign in (a password, an email link, or one
button per OpenID Connect provider), sign out, and the account page with
its personal API tokens.

Which ways of signing in a server offers is the operator's choice
(:class:`~ladderboard.server.settings.Settings`: ``password_sign_in``,
``oidc_providers``, the ``smtp_*`` settings). Sessions and the protection of
forms are :mod:`.account_session`; the protocols, :mod:`.oidc` and
:mod:`.email_links`. A personal token is shown once, on the page that
creates or rotates it: the store keeps only its hash.
"""

from __future__ import annotations

import hmac
from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ladderboard.engine import Competitions
from ladderboard.engine.accounts import AccountInfo
from ladderboard.rules.text import check_text, name_key
from ladderboard.server.account_session import (
    account_csrf,
    check_account_form,
    check_origin,
    close_account_session,
    open_account_session,
    safe_return,
    session_account,
    session_cookie,
)
from ladderboard.server.api.shared import RowId
from ladderboard.server.deps import (
    CompetitionsDep,
    SettingsDep,
    client_address,
    failed_authentication,
    failures_key,
    hash_token,
    spend,
)
from ladderboard.server.email_links import (
    LINK_LIFETIME,
    account_of_email_link,
    email_problem,
    send_sign_in_link,
)
from ladderboard.server.errors import ApiError
from ladderboard.server.oidc import (
    REQUEST_LIFETIME,
    STATE_COOKIE,
    STATE_PATH,
    OidcClients,
    OidcFailed,
    account_of_identity,
)
from ladderboard.server.origin import same_origin
from ladderboard.server.passwords import check_password, hash_password, password_problem
from ladderboard.server.rendering import REFUSALS, refusal, render
from ladderboard.server.settings import Settings

__all__ = ["TOKEN_LABEL_CHARS", "base_url", "handle_problem", "label_problem", "router"]

router = APIRouter(include_in_schema=False)

HANDLE_CHARS = 40
TOKEN_LABEL_CHARS = 100


def handle_problem(handle: str) -> str | None:
    """Why ``handle`` cannot be a new account's, or ``None``: 2 to 40
    letters, digits, ``.``, ``_`` or ``-``, starting with a letter or digit.

    >>> handle_problem("ada.l"), handle_problem("a"), handle_problem("-x") is not None
    (None, 'the handle must be 2 to 40 letters, digits, ".", "_" or "-"', True)
    """
    if (
        not 2 <= len(handle) <= HANDLE_CHARS
        or not handle.isascii()
        or not handle[0].isalnum()
        or not all(c.isalnum() or c in "._-" for c in handle)
    ):
        return 'the handle must be 2 to 40 letters, digits, ".", "_" or "-"'
    return None


def label_problem(label: str) -> str | None:
    """Why ``label`` cannot name a personal token, or ``None``."""
    if not label.strip() or len(label) > TOKEN_LABEL_CHARS:
        return f"the token's label must be 1 to {TOKEN_LABEL_CHARS} characters"
    try:
        check_text("the token's label", label, max_chars=TOKEN_LABEL_CHARS)
    except ValueError as exc:  # a control or invisible character, which the store refuses
        return str(exc)
    return None


def base_url(request: Request, settings: Settings) -> str:
    """This server's address for links that leave the browser (mail, the
    provider's redirect): ``public_url``, else the request's own."""
    return settings.public_url or str(request.base_url).rstrip("/")


def _clients(request: Request) -> OidcClients:
    state = request.app.state
    if getattr(state, "oidc_clients", None) is None:
        state.oidc_clients = OidcClients()
    return state.oidc_clients


def _sign_in_page(
    request: Request, settings: Settings, status: int = 200, **context: Any
) -> HTMLResponse:
    context.setdefault("next_path", "/account")
    context["next_path"] = safe_return(context["next_path"])
    return render(
        request,
        "account_sign_in.html",
        status,
        password_sign_in=settings.password_sign_in,
        email_sign_in=settings.email_sign_in,
        providers=settings.oidc_providers,
        **context,
    )


def _signed_in(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    account: AccountInfo,
    next_path: str,
) -> Response:
    response = RedirectResponse(safe_return(next_path), status_code=303)
    old = session_cookie(request)
    if old:  # a new sign-in replaces this browser's session
        competitions.accounts.close_session(old)
    open_account_session(request, response, competitions, settings, account)
    return response


def _account_page(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    account: AccountInfo,
    status: int = 200,
    **context: Any,
) -> HTMLResponse:
    return render(
        request,
        "account.html",
        status,
        account=account,
        tokens=competitions.accounts.tokens(account.id),
        csrf=account_csrf(request),
        providers=settings.oidc_providers,
        email_sign_in=settings.email_sign_in,
        password_sign_in=settings.password_sign_in,
        **context,
    )


# ------------------------------------------------------------- the account
@router.get("/account", response_class=HTMLResponse)
def account_home(
    request: Request, competitions: CompetitionsDep, settings: SettingsDep
) -> Response:
    account = session_account(request, competitions)
    if account is None:
        return RedirectResponse("/account/sign-in?next=/account", status_code=303)
    return _account_page(request, competitions, settings, account)


@router.post("/account/sign-out")
def sign_out(
    request: Request,
    competitions: CompetitionsDep,
    csrf: Annotated[str, Form()] = "",
) -> Response:
    """Sign out: the session is revoked in the store, so a copy of the cookie is dead too."""
    response = RedirectResponse("/account/sign-in", status_code=303)
    account = session_account(request, competitions)
    if (
        account is not None
        and same_origin(request)
        and csrf
        and hmac.compare_digest(csrf.encode(), account_csrf(request).encode())
    ):
        close_account_session(request, response, competitions)
    return response


# ---------------------------------------------------------------- passwords
@router.get("/account/sign-in", response_class=HTMLResponse)
def sign_in_form(
    request: Request,
    settings: SettingsDep,
    next: Annotated[str, Query(max_length=500)] = "/account",
) -> HTMLResponse:
    return _sign_in_page(request, settings, next_path=next)


@router.post("/account/sign-in", response_class=HTMLResponse)
def sign_in_with_password(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    login: Annotated[str, Form(max_length=400)] = "",
    password: Annotated[str, Form(max_length=4096)] = "",
    next: Annotated[str, Form(max_length=500)] = "/account",
) -> Response:
    """Sign in with a handle (or email) and password. A wrong one is a
    failed authentication of the client's address (401, then 429) and of
    the handle; once either has spent its failures, no password is checked
    until it has waited (429), the right one included: unlike a token, a
    password can be guessed, so the limit must stop the guessing itself."""
    try:
        check_origin(request)
        if not settings.password_sign_in:
            raise ApiError(404, "not_found", "this server does not take passwords")
        _refuse_while_failing(request, competitions, settings, login)
        found = competitions.accounts.password_hash_of(login.strip()) if login.strip() else None
        account, stored = found if found is not None else (None, None)
        matches, rehash = check_password(stored, password)
        if account is None or not matches:
            competitions.rate_limits.take(
                _login_failures_key(login), per_minute=settings.auth_failures_per_minute
            )
            raise failed_authentication(request, settings, "the handle or password is wrong")
        if account.disabled:
            raise ApiError(403, "forbidden", "this account is disabled")
        if rehash:
            competitions.accounts.set_password(account.id, hash_password(password))
    except REFUSALS as exc:
        status, text = refusal(exc)
        return _sign_in_page(request, settings, status, error=text, login=login, next_path=next)
    return _signed_in(request, competitions, settings, account, next)


def _login_failures_key(login: str) -> str:
    return "password-failures:" + hash_token(name_key(login.strip()))


def _refuse_while_failing(
    request: Request, competitions: Competitions, settings: Settings, login: str
) -> None:
    """429 while the client's address or the handle has no failed
    authentication left (spending none)."""
    per_minute = settings.auth_failures_per_minute
    for key in (failures_key(request), _login_failures_key(login)):
        wait = competitions.rate_limits.wait(key, per_minute=per_minute)
        if wait:
            raise ApiError(
                429,
                "rate_limited",
                f"too many failed sign-ins (at most {per_minute} a minute); try again in {wait} s",
                headers={"Retry-After": str(wait)},
            )


@router.get("/account/sign-up", response_class=HTMLResponse)
def sign_up_form(
    request: Request,
    settings: SettingsDep,
    next: Annotated[str, Query(max_length=500)] = "/account",
) -> HTMLResponse:
    return render(
        request,
        "account_sign_up.html",
        password_sign_in=settings.password_sign_in,
        email_sign_in=settings.email_sign_in,
        providers=settings.oidc_providers,
        next_path=safe_return(next),
    )


@router.post("/account/sign-up", response_class=HTMLResponse)
def sign_up(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    handle: Annotated[str, Form(max_length=400)] = "",
    email: Annotated[str, Form(max_length=400)] = "",
    password: Annotated[str, Form(max_length=4096)] = "",
    next: Annotated[str, Form(max_length=500)] = "/account",
) -> Response:
    """A new account with a password; its email, if given, unverified until
    the account signs in with a link to it."""
    handle, email = handle.strip(), email.strip().lower()
    try:
        check_origin(request)
        if not settings.password_sign_in:
            raise ApiError(404, "not_found", "this server does not take passwords")
        spend(
            request,
            f"sign-up:{client_address(request)}",
            settings.rate_limit_per_minute,
            "from this address",
        )
        problem = (
            handle_problem(handle)
            or (email_problem(email) if email else None)
            or password_problem(password, handle=handle)
        )
        if problem:
            raise ApiError(422, "invalid_request", problem)
        account = competitions.accounts.create(  # Conflict (409) for a taken handle
            handle,
            email=email or None,
            password_hash=hash_password(password),
            created_from=client_address(request)[:64],
        )
    except REFUSALS as exc:
        status, text = refusal(exc)
        return render(
            request,
            "account_sign_up.html",
            status,
            error=text,
            handle=handle,
            email=email,
            password_sign_in=settings.password_sign_in,
            email_sign_in=settings.email_sign_in,
            providers=settings.oidc_providers,
            next_path=safe_return(next),
        )
    return _signed_in(request, competitions, settings, account, next)


# ------------------------------------------------------------ email links
@router.post("/account/email-link", response_class=HTMLResponse)
def ask_for_link(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    email: Annotated[str, Form(max_length=400)] = "",
) -> HTMLResponse:
    """Mail a sign-in link to ``email``: the same page whether or not the
    address has an account."""
    email = email.strip().lower()
    try:
        check_origin(request)
        if not settings.email_sign_in:
            raise ApiError(404, "not_found", "this server does not send sign-in links")
        problem = email_problem(email)
        if problem:
            raise ApiError(422, "invalid_request", problem)
        per_minute = settings.email_links_per_minute
        spend(request, f"email-from:{client_address(request)}", per_minute * 5, "from this address")
        spend(request, f"email-to:{email}", per_minute, "to this email address")
    except REFUSALS as exc:
        status, text = refusal(exc)
        return _sign_in_page(request, settings, status, error=text, email=email)
    token, _ = competitions.sign_ins.new_email_link(email, LINK_LIFETIME)
    link = f"{base_url(request, settings)}/account/email-link?token={token}"
    send_sign_in_link(settings, email, link)
    return render(request, "account_email_sent.html", email=email)


@router.get("/account/email-link", response_class=HTMLResponse)
def email_link_page(
    request: Request, token: Annotated[str, Query(max_length=200)] = ""
) -> HTMLResponse:
    """The page a mailed link opens: one button that signs in (a GET uses
    nothing up, so a mail scanner that follows the link spends nothing)."""
    return render(request, "account_email_link.html", token=token)


@router.post("/account/email-link/sign-in", response_class=HTMLResponse)
def sign_in_with_link(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    token: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    try:
        check_origin(request)
        link = competitions.sign_ins.take_email_link(token)
        if link is None:
            raise failed_authentication(
                request, settings, "this sign-in link was used already, has expired or is wrong"
            )
        account = account_of_email_link(competitions, link, client_address(request)[:64])
        if account.disabled:
            raise ApiError(403, "forbidden", "this account is disabled")
    except REFUSALS as exc:
        status, text = refusal(exc)
        return render(request, "account_email_link.html", status, token="", error=text)
    return _signed_in(request, competitions, settings, account, "/account")


# ------------------------------------------------------------ OpenID Connect
def _redirect_uri(request: Request, settings: Settings, name: str) -> str:
    return f"{base_url(request, settings)}/account/oidc/{name}/callback"


@router.get("/account/oidc/{name}/start")
def oidc_start(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    name: str,
    next: Annotated[str, Query(max_length=500)] = "/account",
) -> Response:
    """Send the browser to the provider ``name``, the sign-in kept under its
    ``state`` in the store and in a cookie of this browser. A link, not a
    form: the pages' ``form-action 'self'`` policy would stop a form's
    redirect to the provider, and starting changes nothing a visitor sees
    (only the browser that started it can finish it)."""
    provider = settings.oidc_provider(name)
    try:
        if provider is None:
            raise ApiError(404, "not_found", f"there is no sign-in provider {name!r}")
        spend(
            request,
            f"oidc:{client_address(request)}",
            settings.rate_limit_per_minute,
            "from this address",
        )
        url, state, pending = _clients(request).start(
            provider, _redirect_uri(request, settings, name), safe_return(next)
        )
    except OidcFailed as exc:
        return _sign_in_page(request, settings, 502, error=f"{exc}.", next_path=next)
    except REFUSALS as exc:
        status, text = refusal(exc)
        return _sign_in_page(request, settings, status, error=text, next_path=next)
    competitions.sign_ins.new_oidc_request(state, pending, REQUEST_LIFETIME)
    response = RedirectResponse(url, status_code=303)
    response.set_cookie(
        STATE_COOKIE,
        state,
        max_age=int(REQUEST_LIFETIME.total_seconds()),
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path=STATE_PATH,
    )
    return response


@router.get("/account/oidc/{name}/callback", response_class=HTMLResponse)
def oidc_callback(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    name: str,
    state: Annotated[str, Query(max_length=200)] = "",
    code: Annotated[str, Query(max_length=2000)] = "",
    error: Annotated[str, Query(max_length=200)] = "",
) -> Response:
    """Where the provider sends the browser back: the sign-in of this
    browser's ``state``, used once, its ID token validated."""
    provider = settings.oidc_provider(name)
    kept = request.cookies.get(STATE_COOKIE, "")
    try:
        if provider is None:
            raise ApiError(404, "not_found", f"there is no sign-in provider {name!r}")
        if not state or not kept or not hmac.compare_digest(state.encode(), kept.encode()):
            raise ApiError(
                400, "invalid_request", "this sign-in was not started in this browser; start again"
            )
        pending = competitions.sign_ins.take_oidc_request(state)
        if pending is None or pending.provider != name:
            raise ApiError(
                400, "invalid_request", "this sign-in was used already or has expired; start again"
            )
        if error or not code:
            raise ApiError(401, "unauthorized", f"{provider.label} did not sign you in")
        identity = _clients(request).finish(
            provider, pending, _redirect_uri(request, settings, name), code
        )
        account = account_of_identity(competitions, identity, client_address(request)[:64])
    except OidcFailed as exc:
        response: Response = _sign_in_page(request, settings, 502, error=f"{exc}.")
    except REFUSALS as exc:
        status, text = refusal(exc)
        response = _sign_in_page(request, settings, status, error=text)
    else:
        try:
            response = _signed_in(request, competitions, settings, account, pending.next_path)
        except ApiError as exc:
            status, text = refusal(exc)
            response = _sign_in_page(request, settings, status, error=text)
    response.delete_cookie(STATE_COOKIE, path=STATE_PATH)
    return response


@router.post("/account/password", response_class=HTMLResponse)
def set_password(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    csrf: Annotated[str, Form()] = "",
    password: Annotated[str, Form(max_length=4096)] = "",
) -> Response:
    """Set (or change) the signed-in account's password: an account made
    by an administrator, a provider or an email link can then sign in with
    its handle too. The session of the form is the proof of who asks."""
    try:
        account = check_account_form(request, competitions, settings, csrf)
        if not settings.password_sign_in:
            raise ApiError(404, "not_found", "this server does not take passwords")
    except REFUSALS as exc:
        return _refused(request, exc)
    problem = password_problem(password, handle=account.handle)
    if problem:
        return _account_page(request, competitions, settings, account, 422, error=f"{problem}.")
    account = competitions.accounts.set_password(account.id, hash_password(password))
    return _account_page(request, competitions, settings, account, password_saved=True)


# ------------------------------------------------------------ personal tokens
def _token_shown(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    account: AccountInfo,
    token: str,
    label: str,
    status: int,
) -> HTMLResponse:
    return _account_page(
        request, competitions, settings, account, status, new_token=token, new_label=label
    )


@router.post("/account/tokens", response_class=HTMLResponse)
def create_token(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    csrf: Annotated[str, Form()] = "",
    label: Annotated[str, Form(max_length=400)] = "",
) -> Response:
    """A new personal token, shown on the page this once."""
    label = label.strip()
    try:
        account = check_account_form(request, competitions, settings, csrf)
    except ApiError as exc:
        return _refused(request, exc)
    problem = label_problem(label)
    if problem:
        return _account_page(request, competitions, settings, account, 422, error=f"{problem}.")
    info, token = competitions.accounts.create_token(account.id, label)
    return _token_shown(request, competitions, settings, account, token, info.label, 201)


@router.post("/account/tokens/{token_id}/revoke", response_class=HTMLResponse)
def revoke_token(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    token_id: RowId,
    csrf: Annotated[str, Form()] = "",
) -> Response:
    try:
        account = check_account_form(request, competitions, settings, csrf)
        competitions.accounts.revoke_token(account.id, token_id)
    except REFUSALS as exc:
        return _refused(request, exc)
    return RedirectResponse("/account#tokens", status_code=303)


@router.post("/account/tokens/{token_id}/rotate", response_class=HTMLResponse)
def rotate_token(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    token_id: RowId,
    csrf: Annotated[str, Form()] = "",
) -> Response:
    """A new secret for the token ``token_id``, shown this once; the old
    one is refused from now on."""
    try:
        account = check_account_form(request, competitions, settings, csrf)
        info, token = competitions.accounts.rotate_token(account.id, token_id)
    except REFUSALS as exc:
        return _refused(request, exc)
    return _token_shown(request, competitions, settings, account, token, info.label, 200)


def _refused(request: Request, exc: Exception) -> HTMLResponse:
    status, text = refusal(exc)
    return render(request, "message.html", status, title="Refused", message=text)
