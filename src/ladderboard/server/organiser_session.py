"""The organiser's session and the protection of every organiser form.

Signing in opens a session (:class:`ladderboard.store.OrganiserSessions`): the
cookie is a random value, stored only as its hash, HttpOnly and
SameSite=Strict, sent on every path (a private competition's pages show to
the organiser's browser); it expires after ``organiser_session_hours`` and is revoked
at sign-out, in every worker at once. Every form that changes state carries
a CSRF value derived from the session (an HMAC under the organiser token), and
its ``Origin`` (or, without one, its ``Referer``) must be this server: a
cross-site post fails on both counts.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any
from urllib.parse import urlsplit

from fastapi import Request
from fastapi.responses import HTMLResponse

from ladderboard.engine import Competitions
from ladderboard.server.credentials import ORGANISER_COOKIE
from ladderboard.server.deps import hash_token, spend
from ladderboard.server.errors import ApiError
from ladderboard.server.rendering import render
from ladderboard.server.settings import Settings

__all__ = [
    "COOKIE",
    "check_form",
    "close_session",
    "csrf_of",
    "organiser_page",
    "safe_next",
    "same_origin",
    "session_cookie",
    "sign_in_page",
    "signed_in",
]

COOKIE = ORGANISER_COOKIE


def _session(request: Request) -> str:
    return request.cookies.get(COOKIE, "")


def session_cookie(request: Request) -> str:
    """The organiser's session cookie of ``request`` (empty without one):
    what binds a form's kept files to the browser that sent them."""
    return _session(request)


def csrf_of(settings: Settings, request: Request) -> str:
    """The CSRF value of the request's session: an HMAC of the session under
    the organiser token, so that it dies with the session."""
    key = settings.admin_token.get_secret_value().encode()
    text = f"ladderboard-csrf\n{_session(request)}".encode()
    return hmac.new(key, text, hashlib.sha256).hexdigest()


def signed_in(request: Request, competitions: Competitions, settings: Settings) -> bool:
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


def check_form(request: Request, competitions: Competitions, settings: Settings, csrf: str) -> None:
    """Refuse an organiser form without a live session, from another site, or
    without the session's CSRF value; spend one request of the organiser's
    rate limit."""
    if not signed_in(request, competitions, settings):
        raise ApiError(401, "unauthorized", "sign in with the organiser's token first")
    if not same_origin(request):
        raise ApiError(403, "forbidden", "the form was not sent from a page of this server")
    if not hmac.compare_digest(csrf.encode(), csrf_of(settings, request).encode()):
        raise ApiError(403, "forbidden", "the form is stale or was not sent from this site")
    spend(
        request,
        "token:" + hash_token(settings.admin_token.get_secret_value()),
        settings.rate_limit_per_minute,
        "with this token",
    )


def close_session(
    request: Request, competitions: Competitions, settings: Settings, csrf: str
) -> bool:
    """Revoke the request's session if the sign-out form is genuine; whether it was."""
    session = _session(request)
    if (
        session
        and same_origin(request)
        and hmac.compare_digest(csrf.encode(), csrf_of(settings, request).encode())
    ):
        competitions.sessions.close(session)
        return True
    return False


def sign_in_page(
    request: Request, status: int = 200, *, error: str | None = None, next_path: str = ""
) -> HTMLResponse:
    """The sign-in form, which comes back to ``next_path`` (an organiser page)."""
    return render(
        request,
        "organiser.html",
        status,
        signed_in=False,
        error=error,
        next_path=safe_next(next_path),
    )


def safe_next(path: str) -> str:
    """``path`` if it is an organiser page of this server, else ``/organiser``:
    the sign-in form never sends the browser elsewhere.

    >>> safe_next("/organiser/c/demo?sort=name"), safe_next("//evil.example/organiser")
    ('/organiser/c/demo?sort=name', '/organiser')
    """
    parts = urlsplit(path)
    if parts.scheme or parts.netloc or not parts.path.startswith("/organiser"):
        return "/organiser"
    if "\\" in path or any(ord(c) < 32 for c in path):
        return "/organiser"
    return path


def organiser_page(
    request: Request, settings: Settings, name: str, status: int = 200, **context: Any
) -> HTMLResponse:
    """An organiser template, signed in, with the session's CSRF value for its forms."""
    return render(request, name, status, signed_in=True, csrf=csrf_of(settings, request), **context)
