"""The browser session of an account (a person signed in, by whichever way
the server offers: a password, an OpenID Connect provider, an email link),
and the protection of its forms.

The session is a random cookie, :data:`COOKIE`, stored only as its hash
(:meth:`ladderboard.engine.accounts.Accounts.open_session`), HttpOnly,
Secure over https, for ``account_session_hours``, revoked at sign-out in
every worker at once. It is SameSite=Lax: a sign-in through an OpenID
Connect provider comes back by a top-level navigation from the provider's
site, which a Strict cookie would not survive, and a link to a page from
elsewhere (an email, a chat) opens it signed in, which is safe because no
GET changes anything.

Every form that changes state through the session comes from a page of this
server (its ``Origin``, or else its ``Referer``:
:func:`ladderboard.server.origin.same_origin`) and carries the
session's CSRF value: an HMAC keyed by the session cookie, which is random
and HttpOnly, so only a page this server sent to that browser holds it.
Forms that open a session (sign-up, sign-in) have no session yet: they are
refused from another origin, so that no site can sign a browser into an
account of its choosing.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import timedelta
from urllib.parse import urlsplit

from fastapi import Request
from fastapi.responses import Response

from ladderboard.engine import Competitions
from ladderboard.engine.accounts import AccountInfo
from ladderboard.server.credentials import ACCOUNT_COOKIE
from ladderboard.server.deps import spend
from ladderboard.server.errors import ApiError
from ladderboard.server.origin import same_origin
from ladderboard.server.settings import Settings

__all__ = [
    "COOKIE",
    "account_csrf",
    "check_account_form",
    "check_origin",
    "close_account_session",
    "open_account_session",
    "safe_return",
    "session_account",
    "session_cookie",
]

COOKIE = ACCOUNT_COOKIE


def session_cookie(request: Request) -> str:
    """The account session cookie of ``request`` (empty without one)."""
    return request.cookies.get(COOKIE, "")


def session_account(request: Request, competitions: Competitions) -> AccountInfo | None:
    """The enabled account this browser is signed in to, if any (``None``:
    no session, an expired or revoked one, or a disabled account). Read
    from the store once per request: a page asks it for the header, the
    team it signs in as and its forms."""
    cookie = session_cookie(request)
    if not cookie:
        return None
    known: dict[str, AccountInfo | None] | None = getattr(request.state, "accounts_read", None)
    if known is None:
        known = request.state.accounts_read = {}
    if cookie not in known:
        known[cookie] = competitions.accounts.session_account(cookie)
    return known[cookie]


def account_csrf(request: Request, scope: str = "") -> str:
    """The CSRF value of the request's session for the forms of ``scope``
    (a competition's join or Members forms; empty: the account's own
    pages), or empty without a session."""
    cookie = session_cookie(request)
    if not cookie:
        return ""
    text = "ladderboard-account-csrf" + (f"\n{scope}" if scope else "")
    return hmac.new(cookie.encode(), text.encode(), hashlib.sha256).hexdigest()


def check_origin(request: Request) -> None:
    """Refuse a form that was not sent from a page of this server."""
    if not same_origin(request):
        raise ApiError(403, "forbidden", "the form was not sent from a page of this server")


def check_account_form(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    csrf: str,
    *,
    scope: str = "",
    unsigned: str = "sign in first",
) -> AccountInfo:
    """The account a form of ``scope`` (:func:`account_csrf`) acts for:
    refused without a live session (401, saying ``unsigned``), from another
    site or without the session's CSRF value (403); spends one of the
    account's requests."""
    account = session_account(request, competitions)
    if account is None:
        raise ApiError(401, "unauthorized", unsigned)
    check_origin(request)
    if not csrf or not hmac.compare_digest(csrf.encode(), account_csrf(request, scope).encode()):
        raise ApiError(403, "forbidden", "the form is stale or was not sent from this site")
    spend(request, f"account:{account.id}", settings.rate_limit_per_minute, "for this account")
    return account


def open_account_session(
    request: Request,
    response: Response,
    competitions: Competitions,
    settings: Settings,
    account: AccountInfo,
) -> None:
    """Sign the browser of ``request`` in as ``account``, on ``response``."""
    if account.disabled:
        raise ApiError(403, "forbidden", "this account is disabled")
    lifetime = timedelta(hours=settings.account_session_hours)
    response.set_cookie(
        COOKIE,
        competitions.accounts.open_session(account.id, lifetime),
        max_age=int(lifetime.total_seconds()),
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )


def close_account_session(request: Request, response: Response, competitions: Competitions) -> None:
    """Revoke the request's session in the store and drop its cookie."""
    cookie = session_cookie(request)
    if cookie:
        competitions.accounts.close_session(cookie)
        getattr(request.state, "accounts_read", {}).pop(cookie, None)
    response.delete_cookie(COOKIE, path="/")


def safe_return(path: str) -> str:
    """``path`` if it is a page of this server, else ``/account``: a sign-in
    never sends the browser to another site.

    >>> safe_return("/c/demo/team"), safe_return("//evil.example/"), safe_return("https://x/")
    ('/c/demo/team', '/account', '/account')
    """
    parts = urlsplit(path)
    if parts.scheme or parts.netloc or not path.startswith("/") or path.startswith("//"):
        return "/account"
    if "\\" in path or any(ord(c) < 32 or ord(c) == 127 for c in path) or len(path) > 500:
        return "/account"
    return path
