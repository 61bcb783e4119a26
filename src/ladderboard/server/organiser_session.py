"""Who is signed in on the organiser's desk, and the protection of every
organiser form.

The desk is open to two kinds of session. Signing in with the administrator
token opens an organiser session (:class:`ladderboard.store.OrganiserSessions`):
the cookie is a random value, stored only as its hash, HttpOnly and
SameSite=Strict, sent on every path (a private competition's pages
show to the administrator's browser); it expires after ``organiser_session_hours`` and is revoked
at sign-out, in every worker at once. A browser signed in as an account
(cookie ``ladderboard_session``, :class:`ladderboard.store.accounts.Accounts`)
is that account on the desk, in the role it holds in each competition
(:mod:`.roles`). Every form that changes state carries a CSRF value derived
from whichever session it acts through (an HMAC under the administrator
token), its ``Origin`` (or, without one, its ``Referer``) must be this
server, and the session's role must be the one :data:`.roles.ROUTES` names
for the form: a cross-site post fails on the first two counts, a
co-organiser's post to an owner's form on the third.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from fastapi import Request
from fastapi.responses import HTMLResponse

from ladderboard.engine import Competitions
from ladderboard.engine.accounts import AccountInfo
from ladderboard.engine.errors import NotFound
from ladderboard.server import account_session
from ladderboard.server.credentials import ORGANISER_COOKIE
from ladderboard.server.deps import client_address, hash_token, spend
from ladderboard.server.errors import ApiError
from ladderboard.server.organiser_actions import Acting, Actor
from ladderboard.server.origin import same_origin
from ladderboard.server.rendering import render
from ladderboard.server.roles import (
    CREATION,
    allows,
    least_role,
    needs_words,
    route_of,
)
from ladderboard.server.settings import Settings

__all__ = [
    "ACCOUNT_COOKIE",
    "COOKIE",
    "DeskUser",
    "check_form",
    "check_role",
    "close_session",
    "csrf_of",
    "desk_acting",
    "desk_user",
    "organiser_page",
    "safe_next",
    "same_origin",
    "session_cookie",
    "sign_in_page",
    "signed_in",
]

COOKIE = ORGANISER_COOKIE
"""The cookie of a desk session opened with the administrator token."""
ACCOUNT_COOKIE = account_session.COOKIE
"""The cookie of an account's session (opened by the sign-in pages)."""


@dataclass(frozen=True)
class DeskUser:
    """Who a browser is on the desk: the administrator (``account`` is
    ``None``: a session opened with the administrator token) or an account,
    and the session's cookie."""

    account: AccountInfo | None
    session: str

    def role(self, competitions: Competitions, slug: str) -> str | None:
        """The role in competition ``slug`` (``None``: none)."""
        if self.account is None or self.account.is_admin:
            return "administrator"
        try:
            return competitions.accounts.organiser_role(slug, self.account.id)
        except NotFound:
            return None

    @property
    def may_create(self) -> bool:
        """Whether it may create competitions."""
        return self.account is None or self.account.may_organise

    def actor(self, address: str) -> Actor:
        if self.account is None:
            return Actor.administrator(address)
        return Actor.account(self.account.id, self.account.handle, address)


def desk_user(request: Request, competitions: Competitions, settings: Settings) -> DeskUser | None:
    """Who the request's browser is on the desk (``None``: signed in as
    nobody): the administrator's session first, else the account's. The
    choice is kept on the request, for the CSRF value of its pages."""
    organiser = request.cookies.get(COOKIE, "")
    if (
        organiser
        and settings.admin_token.get_secret_value()
        and competitions.sessions.is_valid(organiser)
    ):
        request.state.desk_session = organiser
        return DeskUser(None, organiser)
    account = account_session.session_account(request, competitions)
    if account is None:
        return None
    cookie = account_session.session_cookie(request)
    request.state.desk_session = cookie
    return DeskUser(account, cookie)


def _session(request: Request) -> str:
    chosen = getattr(request.state, "desk_session", None)
    if chosen is not None:
        return chosen
    return request.cookies.get(COOKIE, "") or request.cookies.get(ACCOUNT_COOKIE, "")


def session_cookie(request: Request) -> str:
    """The desk session's cookie of ``request`` (empty without one): what
    binds a form's kept files to the browser that sent them."""
    return _session(request)


def csrf_of(settings: Settings, request: Request) -> str:
    """The CSRF value of the request's session: an HMAC of the session under
    the administrator token, so that it dies with the session."""
    key = settings.admin_token.get_secret_value().encode()
    text = f"ladderboard-csrf\n{_session(request)}".encode()
    return hmac.new(key, text, hashlib.sha256).hexdigest()


def signed_in(request: Request, competitions: Competitions, settings: Settings) -> bool:
    """Whether the browser is signed in on the desk (as the administrator or an account)."""
    return desk_user(request, competitions, settings) is not None


def check_role(request: Request, competitions: Competitions, user: DeskUser) -> None:
    """Refuse (403) a desk page or form whose route needs a role ``user``
    lacks (:mod:`.roles`): the route is the request's, and its competition
    the path's ``slug``."""
    found = route_of(request.method, request.scope["path"])
    path = found[0] if found else request.scope["path"]  # unnamed: the owner's (least_role)
    if (request.method, path) in CREATION:
        if not user.may_create:
            raise ApiError(
                403,
                "forbidden",
                "creating a competition needs an account whose role is organiser",
            )
        return
    slug = str(request.path_params.get("slug", ""))
    needed = least_role(request.method, path)
    if not allows(user.role(competitions, slug), needed):
        raise ApiError(403, "forbidden", needs_words(needed, slug))


def desk_acting(request: Request, competitions: Competitions, settings: Settings) -> Acting:
    """The signed-in browser's changes, recorded as its own (the caller
    checked that it is signed in)."""
    user = desk_user(request, competitions, settings)
    assert user is not None, "desk_acting needs a signed-in browser"
    return Acting(competitions, user.actor(client_address(request)))


def check_form(
    request: Request, competitions: Competitions, settings: Settings, csrf: str
) -> Acting:
    """Refuse an organiser form without a live session, from another site,
    without the session's CSRF value, or from a role the form does not
    allow (:mod:`.roles`); spend one request of the session's rate limit.
    What the form then changes, through the returned :class:`Acting`, is
    recorded as the session's."""
    user = desk_user(request, competitions, settings)
    if user is None:
        raise ApiError(401, "unauthorized", "sign in with the organiser's token first")
    if not same_origin(request):
        raise ApiError(403, "forbidden", "the form was not sent from a page of this server")
    if not hmac.compare_digest(csrf.encode(), csrf_of(settings, request).encode()):
        raise ApiError(403, "forbidden", "the form is stale or was not sent from this site")
    check_role(request, competitions, user)
    if user.account is None:
        key = "token:" + hash_token(settings.admin_token.get_secret_value())
    else:
        key = f"account:{user.account.id}"
    spend(request, key, settings.rate_limit_per_minute, "with this token")
    return Acting(competitions, user.actor(client_address(request)))


def close_session(
    request: Request, competitions: Competitions, settings: Settings, csrf: str
) -> bool:
    """Revoke the request's desk session (the administrator's, else the
    account's) if the sign-out form is genuine; whether it was."""
    user = desk_user(request, competitions, settings)
    if (
        user is not None
        and same_origin(request)
        and hmac.compare_digest(csrf.encode(), csrf_of(settings, request).encode())
    ):
        if user.account is None:
            competitions.sessions.close(user.session)
        else:
            competitions.accounts.close_session(user.session)
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
