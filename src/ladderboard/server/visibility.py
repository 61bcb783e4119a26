"""Who may see a competition: its ``config.visibility``, checked in one place.

- ``public``: anyone, and it is listed.
- ``unlisted``: anyone who has its address; left off every listing (the home
  page, ``GET /api/competitions``) for those who take no part in it, and its
  pages ask search engines not to index them (:data:`NOINDEX`).
- ``private``: only those who take part in it (:func:`takes_part`); to anyone
  else every page and API route of the competition answers exactly as for a
  competition that does not exist (404 ``no competition 'slug'``), so that
  not even its existence shows.

Every route and page reaches a competition through :func:`check_view`:
:func:`ladderboard.server.deps.competition_of` (the ``Competition``
dependency of the API) and :func:`ladderboard.server.rendering.find` (the
pages) call it, and the team's submission route calls it when the token is
not one of the competition's teams. A page that must open a private
competition to someone not yet taking part (the join page, with an
invitation) reads the competition itself and admits whom :func:`may_view`
admits, or whoever holds a valid invitation.

The credentials are read from the request as they come (:func:`viewer`) and
checked only for a private competition: a public one costs no read of the
store. A credential that is not valid counts for nothing here (the route's
own authentication refuses it, where one is needed).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from starlette.requests import HTTPConnection

from ladderboard.engine import Competitions
from ladderboard.engine.errors import NotFound
from ladderboard.engine.results import CompetitionInfo
from ladderboard.server.credentials import (
    ORGANISER_COOKIE,
    TEAM_COOKIE,
    bearer_token,
    hash_token,
    is_organiser_token,
)
from ladderboard.server.settings import Settings

__all__ = [
    "NOINDEX",
    "Viewer",
    "check_view",
    "form_viewer",
    "listed",
    "may_view",
    "takes_part",
    "viewer",
]

NOINDEX = {"X-Robots-Tag": "noindex"}
"""The header of every page of a competition that is not public."""


@dataclass(frozen=True)
class Viewer:
    """The credentials a request carries, none of them checked yet:
    ``administrator`` (the request has ``LADDERBOARD_ADMIN_TOKEN`` as its
    bearer token), the SHA-256 of another bearer token, a team's session
    cookie and the organiser's session cookie (kept only when the server
    has an organiser token, without which no such session is valid)."""

    administrator: bool = False
    token_hash: str | None = None
    team_session: str | None = None
    organiser_session: str | None = None


def viewer(request: HTTPConnection) -> Viewer:
    """Who sends ``request``, from its bearer token and session cookies."""
    return _viewer(request)


def _viewer(request: HTTPConnection, token: str | None = None) -> Viewer:
    settings: Settings = request.app.state.settings
    token = token or bearer_token(request)
    administrator = token is not None and is_organiser_token(settings, token)
    return Viewer(
        administrator=administrator,
        token_hash=None if token is None or administrator else hash_token(token),
        team_session=request.cookies.get(TEAM_COOKIE) or None,
        organiser_session=(request.cookies.get(ORGANISER_COOKIE) or None)
        if settings.admin_token.get_secret_value()
        else None,
    )


def form_viewer(request: HTTPConnection, token: str) -> Viewer:
    """:func:`viewer`, the token typed in a page's form counting as its
    bearer token (a team signs in to a private competition's pages with it)."""
    return _viewer(request, token.strip() or None)


def takes_part(competitions: Competitions, who: Viewer, info: CompetitionInfo) -> bool:
    """Whether ``who`` takes part in competition ``info``: the server's
    organiser (its token or its session), or one of the competition's teams
    (its token or a browser signed in as it)."""
    if who.administrator:
        return True
    if who.organiser_session and competitions.sessions.is_valid(who.organiser_session):
        return True
    if who.token_hash is not None:
        try:
            competitions.team_by_token_hash(info.slug, who.token_hash)
            return True
        except NotFound:
            pass
    if who.team_session is not None:
        team_id = competitions.team_sessions.team_of(who.team_session)
        if team_id is not None and any(t.id == team_id for t in competitions.teams(info.slug)):
            return True
    return False


def may_view(competitions: Competitions, who: Viewer, info: CompetitionInfo) -> bool:
    """Whether ``who`` may see competition ``info``: anyone a public or an
    unlisted one, only those who take part in it a private one."""
    return info.config.visibility != "private" or takes_part(competitions, who, info)


def check_view(competitions: Competitions, who: Viewer, info: CompetitionInfo) -> CompetitionInfo:
    """``info`` if ``who`` may see it, else the :class:`NotFound` of a
    competition that does not exist."""
    if not may_view(competitions, who, info):
        raise NotFound(f"no competition {info.slug!r}")
    return info


def listed(
    competitions: Competitions, who: Viewer, infos: Iterable[CompetitionInfo]
) -> list[CompetitionInfo]:
    """The competitions of ``infos`` a listing shows ``who``: the public ones,
    and the others it takes part in."""
    return [
        info
        for info in infos
        if info.config.visibility == "public" or takes_part(competitions, who, info)
    ]
