"""The browser session of an account (a person signed in, by whichever way
the server offers): a random cookie, stored only as its hash
(:meth:`ladderboard.engine.accounts.Accounts.open_session`), HttpOnly and
SameSite=Lax (a sign-in through an OpenID Connect provider comes back by a
top-level navigation from the provider's site, which a Strict cookie would
not survive); forms that change state carry a CSRF value derived from it and
must come from this server (:func:`ladderboard.server.organiser_session.same_origin`).
"""

from __future__ import annotations

from fastapi import Request

from ladderboard.engine import Competitions
from ladderboard.engine.accounts import AccountInfo

__all__ = ["COOKIE", "session_account", "session_cookie"]

COOKIE = "ladderboard_session"


def session_cookie(request: Request) -> str:
    """The account session cookie of ``request`` (empty without one)."""
    return request.cookies.get(COOKIE, "")


def session_account(request: Request, competitions: Competitions) -> AccountInfo | None:
    """The enabled account this browser is signed in to, if any."""
    return competitions.accounts.session_account(session_cookie(request))
