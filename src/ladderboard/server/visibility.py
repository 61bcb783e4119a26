"""Who may see a competition: its ``config.visibility``, checked in one place.

- ``public``: anyone, and it is listed.
- ``unlisted``: anyone who has its address; left off every listing (the home
  page, ``GET /api/competitions``) for those who take no part in it, and its
  pages ask search engines not to index them (:data:`NOINDEX`).
- ``private``: only those who take part in it (:func:`takes_part`): its
  teams (a team's token, a browser signed in with it), the accounts that
  are members of its teams or registered in it, its owners and
  co-organisers (a personal token, a browser's account session), and the
  administrators (``LADDERBOARD_ADMIN_TOKEN``, the organiser's session, an
  account with the administrator's role). To anyone else every page and API
  route of the competition answers exactly as for a competition that does
  not exist (404 ``no competition 'slug'``), so that not even its existence
  shows.

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
from functools import cached_property

from starlette.requests import HTTPConnection

from ladderboard.engine import Competitions
from ladderboard.engine.accounts import AccountInfo
from ladderboard.engine.errors import NotFound
from ladderboard.engine.results import CompetitionInfo
from ladderboard.server.credentials import (
    ACCOUNT_COOKIE,
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
    bearer token), the SHA-256 of another bearer token (a team's or a
    personal one), a team's session cookie, the organiser's session cookie
    (kept only when the server has an organiser token, without which no such
    session is valid) and an account's session cookie."""

    administrator: bool = False
    token_hash: str | None = None
    team_session: str | None = None
    organiser_session: str | None = None
    account_session: str | None = None


def viewer(request: HTTPConnection) -> Viewer:
    """Who sends ``request``, from its bearer token and session cookies."""
    return _viewer(request)


def _viewer(request: HTTPConnection, token: str | None = None) -> Viewer:
    """:func:`viewer`, ``token`` (when given) taking the bearer token's place."""
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
        account_session=request.cookies.get(ACCOUNT_COOKIE) or None,
    )


def form_viewer(request: HTTPConnection, token: str) -> Viewer:
    """:func:`viewer`, the token typed in a page's form counting as its
    bearer token (a team signs in to a private competition's pages with it)."""
    return _viewer(request, token.strip() or None)


class _Participation:
    """What ``who``'s credentials make of it, each read from the store once
    and only when a competition that is not public asks."""

    def __init__(self, competitions: Competitions, who: Viewer) -> None:
        self.competitions = competitions
        self.who = who

    @cached_property
    def accounts(self) -> list[AccountInfo]:
        """The enabled accounts of the personal token and of the session."""
        accounts = self.competitions.accounts
        found = []
        if self.who.token_hash is not None:
            found.append(accounts.account_of_token_hash(self.who.token_hash))
        if self.who.account_session is not None:
            found.append(accounts.session_account(self.who.account_session))
        return [account for account in found if account is not None]

    @cached_property
    def administrator(self) -> bool:
        """The administrator token, an account with the administrator's
        role, or a live session of the organiser."""
        who = self.who
        if who.administrator or any(account.is_admin for account in self.accounts):
            return True
        return who.organiser_session is not None and self.competitions.sessions.is_valid(
            who.organiser_session
        )

    @cached_property
    def account_slugs(self) -> set[str]:
        """The competitions the accounts belong to: as a team's member, as
        registered, as an owner or a co-organiser."""
        return {
            slug
            for account in self.accounts
            for slug, _ in self.competitions.accounts.competitions_of(account.id)
        }

    @cached_property
    def session_team(self) -> int | None:
        """The id of the team of the team session, if it is live."""
        cookie = self.who.team_session
        return None if cookie is None else self.competitions.team_sessions.team_of(cookie)

    def of(self, info: CompetitionInfo) -> bool:
        """Whether these credentials take part in competition ``info``."""
        if self.administrator or info.slug in self.account_slugs:
            return True
        if self.who.token_hash is not None:
            try:
                self.competitions.team_by_token_hash(info.slug, self.who.token_hash)
                return True
            except NotFound:
                pass
        team_id = self.session_team
        return team_id is not None and any(
            team.id == team_id for team in self.competitions.teams(info.slug)
        )


def takes_part(competitions: Competitions, who: Viewer, info: CompetitionInfo) -> bool:
    """Whether ``who`` takes part in competition ``info``: an administrator,
    one of its teams, or an account that is a member of one of its teams, is
    registered in it, or organises it."""
    return _Participation(competitions, who).of(info)


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
    part = _Participation(competitions, who)
    return [info for info in infos if info.config.visibility == "public" or part.of(info)]
