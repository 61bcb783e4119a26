"""Dependencies of the routes: the store, the settings, and who is calling.

A caller is the administrator (the ``LADDERBOARD_ADMIN_TOKEN`` bearer token,
compared in constant time), a team (a token whose SHA-256 is stored with the
team), a person (a personal API token of an account, whose SHA-256 is stored
with it: :mod:`ladderboard.engine.accounts`), or anonymous. A person acts in a
competition as the team it is a member of there, with the team's quotas,
and organises the competitions it is an owner or co-organiser of.

Rate limits live in the store, so every worker and host shares them
(:class:`ladderboard.store.RateLimits`):

- a request with a valid token spends one of that token's requests
  (``rate_limit_per_minute``);
- a token that is not valid (or a wrong organiser token at sign-in) spends
  one of its client address's failed authentications
  (``auth_failures_per_minute``): 401 while some are left, 429 once they
  are spent. A valid token is never refused for its address's failures:
  one script sending an old token must not lock out a whole class behind
  one NAT. What the limit costs a guesser is the 401 that tells it no;
  guessing itself is hopeless, since teams' tokens are 256-bit random and
  ``serve`` refuses an organiser token that is short or regular;
- an anonymous request that writes (self-registration) spends one of its
  client address's requests.

The client address is the connection's peer; behind a reverse proxy, run
``ladderboard serve --forwarded-allow-ips PROXY`` so that it is the client's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ladderboard.engine import Competitions
from ladderboard.engine.accounts import AccountInfo
from ladderboard.engine.errors import NotFound
from ladderboard.engine.results import Admission, CompetitionInfo, TeamInfo
from ladderboard.server.credentials import hash_token, is_organiser_token
from ladderboard.server.errors import ApiError
from ladderboard.server.organiser_actions import Acting, Actor
from ladderboard.server.roles import CREATION, allows, least_role, needs_words, route_of
from ladderboard.server.settings import Settings
from ladderboard.server.visibility import Viewer, check_view, viewer

__all__ = [
    "ActingDep",
    "Caller",
    "acting_for",
    "authenticate",
    "caller",
    "client_address",
    "competition_of",
    "failed_authentication",
    "get_competitions",
    "get_settings",
    "hash_token",
    "is_organiser_token",
    "no_store",
    "organiser",
    "person_of",
    "require_role",
    "spend",
    "team_member",
    "team_of",
    "viewer_of",
]

_bearer = HTTPBearer(auto_error=False, description="The organiser's or a team's token.")


def no_store(response: Response) -> None:
    """Keep ``response`` out of every cache (it carries a token or a session)."""
    response.headers["Cache-Control"] = "no-store"
    response.headers["Pragma"] = "no-cache"


# These two are ``async`` so that FastAPI calls them on the event loop: a
# plain ``def`` dependency costs a trip through the thread pool.
async def get_competitions(request: Request) -> Competitions:
    return _competitions(request)


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def _competitions(request: Request) -> Competitions:
    return request.app.state.competitions


CompetitionsDep = Annotated[Competitions, Depends(get_competitions)]
SettingsDep = Annotated[Settings, Depends(get_settings)]


@dataclass(frozen=True)
class Caller:
    """Who sent a request: ``token`` is ``None`` when anonymous (or when a
    browser's account session is the caller); ``is_organiser`` for the
    administrator token; ``account`` for a personal token or session."""

    token: str | None
    is_organiser: bool
    account: AccountInfo | None = None

    @property
    def is_administrator(self) -> bool:
        """The administrator token, or an account with the administrator's role."""
        return self.is_organiser or (self.account is not None and self.account.is_admin)

    def team(self, competitions: Competitions, slug: str) -> TeamInfo | None:
        """The team of ``slug`` this caller acts as, if any: the team of a
        team token, or the team the account is a member of."""
        if self.is_organiser:
            return None
        try:
            if self.account is not None:
                return competitions.accounts.team_of_account(slug, self.account.id)
            if self.token is None:
                return None
            return competitions.team_by_token_hash(slug, hash_token(self.token))
        except NotFound:
            return None

    def role(self, competitions: Competitions, slug: str) -> str | None:
        """The caller's organising role in competition ``slug``:
        ``"administrator"``, ``"owner"``, ``"co-organiser"`` or ``None``."""
        if self.is_administrator:
            return "administrator"
        if self.account is None:
            return None
        try:
            return competitions.accounts.organiser_role(slug, self.account.id)
        except NotFound:
            return None


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def failures_key(request: Request) -> str:
    """The rate-limit bucket of the client address's failed authentications."""
    return f"auth-failures:{client_address(request)}"


def _too_many(wait: int, text: str) -> ApiError:
    return ApiError(
        429, "rate_limited", f"{text}; try again in {wait} s", headers={"Retry-After": str(wait)}
    )


def spend(request: Request, key: str, per_minute: int, whose: str) -> None:
    """Spend one request of ``key``, or refuse with 429 and ``Retry-After``."""
    wait = _competitions(request).rate_limits.take(key, per_minute=per_minute)
    if wait:
        raise _too_many(wait, f"too many requests {whose}; at most {per_minute} a minute")


def failed_authentication(request: Request, settings: Settings, message: str) -> ApiError:
    """Count a failed authentication against the client's address: the 401
    to raise, or a 429 once the address has used up its failures."""
    per_minute = settings.auth_failures_per_minute
    wait = _competitions(request).rate_limits.take(failures_key(request), per_minute=per_minute)
    if wait:
        return _too_many(
            wait,
            f"too many failed authentications from this address (at most {per_minute} a minute)",
        )
    return _unauthorized(message)


def authenticate(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    token: str,
    *,
    a_team_token: bool = False,
    token_hash: str | None = None,
) -> Caller:
    """The caller of ``token``: the organiser or a team of some competition,
    refused with 401 (counted against the address, 429 once its failures
    are spent) when it is neither. A valid token is refused only by its own
    request limit. ``a_team_token`` says the caller already found a team
    with the token, and ``token_hash`` is the token's :func:`hash_token`
    when the caller has it."""
    is_organiser = is_organiser_token(settings, token)
    if token_hash is None:
        token_hash = hash_token(token)
    account = None
    if not (is_organiser or a_team_token) and not competitions.knows_token_hash(token_hash):
        account = competitions.accounts.account_of_token_hash(token_hash)
        if account is None:
            raise failed_authentication(request, settings, "the token is not valid on this server")
    spend(request, "token:" + token_hash, settings.rate_limit_per_minute, "with this token")
    return Caller(token, is_organiser, account)


def caller(
    request: Request,
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Caller:
    if credentials is None:
        if request.headers.get("authorization"):
            raise ApiError(
                401,
                "unauthorized",
                "the Authorization header must be 'Bearer <token>'",
                headers={"WWW-Authenticate": "Bearer"},
            )
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            # Anonymous writes (self-registration) spend their client address's bucket.
            spend(
                request,
                f"client:{client_address(request)}",
                settings.rate_limit_per_minute,
                "from this address",
            )
        return Caller(None, False)
    return authenticate(request, _competitions(request), settings, credentials.credentials)


CallerDep = Annotated[Caller, Depends(caller)]


def _unauthorized(message: str) -> ApiError:
    return ApiError(401, "unauthorized", message, headers={"WWW-Authenticate": "Bearer"})


def _refuse(competitions: Competitions, who: Caller, slug: str | None, message: str) -> ApiError:
    """The refusal of a caller without the role a route needs: 401 without
    credentials (or with a token that is nobody's organiser token nor an
    account's), else 403 saying which role it needs."""
    if who.token is None:
        return _unauthorized(
            "this action needs an organiser's token (Authorization: Bearer): the "
            "administrator's or an organiser account's personal token"
        )
    team = who.team(competitions, slug) if slug is not None else None
    if team is not None:
        return ApiError(
            403, "forbidden", f"this action is for the organiser, not for a team: {message}"
        )
    if who.account is not None:
        return ApiError(403, "forbidden", message)
    return _unauthorized("the token is not an organiser's token")


def require_role(
    competitions: Competitions, who: Caller, method: str, path: str, slug: str | None
) -> Caller:
    """``who`` if it holds the role route ``method path`` needs in
    competition ``slug`` (:mod:`.roles`), else the refusal: 401 without
    credentials, 403 with a lesser role."""
    if (method, path) in CREATION:
        if who.is_organiser or (who.account is not None and who.account.may_organise):
            return who
        raise _refuse(
            competitions,
            who,
            slug,
            "creating a competition needs an account whose role is organiser (or the "
            "server's administrator)",
        )
    needed = least_role(method, path)  # a HEAD is its GET
    if slug is None:
        role: str | None = "administrator" if who.is_administrator else None
    else:
        role = who.role(competitions, slug)
    if allows(role, needed):
        return who
    raise _refuse(competitions, who, slug, needs_words(needed, slug or ""))


def organiser(competitions: CompetitionsDep, who: CallerDep, request: Request) -> Caller:
    """An organiser of the path's competition in the role its route needs
    (:data:`.roles.ROUTES`): 401 without credentials, 403 with a lesser role
    (a team's token, a participant's, a co-organiser's on an owner's route)."""
    found = route_of(request.method, request.scope["path"])
    path = found[0] if found else request.scope["path"]  # unnamed: the owner's (least_role)
    slug = request.path_params.get("slug")
    return require_role(competitions, who, request.method, path, slug)


def acting_for(request: Request, competitions: Competitions, who: Caller) -> Acting:
    """The organiser changes of ``who``, each recorded as its own."""
    address = client_address(request)
    if who.account is None:
        return Acting(competitions, Actor.administrator(address))
    return Acting(competitions, Actor.account(who.account.id, who.account.handle, address))


async def viewer_of(request: Request) -> Viewer:
    """Who asks, as far as a competition's visibility goes
    (:func:`ladderboard.server.visibility.viewer`; no read of the store)."""
    return viewer(request)


ViewerDep = Annotated[Viewer, Depends(viewer_of)]


def competition_of(competitions: CompetitionsDep, who: ViewerDep, slug: str) -> CompetitionInfo:
    """The competition of the path, if ``who`` may see it (404 before any
    token is checked; a private competition is 404 to whoever takes no part
    in it, exactly as one that does not exist: see
    :mod:`ladderboard.server.visibility`)."""
    return check_view(competitions, who, competitions.competition(slug))


Competition = Annotated[CompetitionInfo, Depends(competition_of)]


def team_of(competitions: CompetitionsDep, who: CallerDep, competition: Competition) -> TeamInfo:
    """Only a team of this competition: 401 without a valid token, 403 for the organiser."""
    if who.is_organiser:
        raise ApiError(403, "forbidden", "this action is for a team, not for the organiser")
    if who.token is None:
        raise _unauthorized("this action needs your team's token (Authorization: Bearer)")
    team = who.team(competitions, competition.slug)
    if team is None and who.account is not None:
        raise ApiError(
            403,
            "forbidden",
            f"your account is in no team of competition {competition.slug!r}: join one first",
        )
    if team is None:
        raise _unauthorized(f"the token is not a team token of competition {competition.slug!r}")
    return team


def team_member(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    token: str | None,
    slug: str,
    idempotency_key: str | None = None,
) -> tuple[TeamInfo, CompetitionInfo, Admission | None]:
    """The calling team and its competition: what :func:`caller`,
    :func:`competition_of` and :func:`team_of` give a team's route, with
    the same refusals in the same order, but in one read of the store (and
    no trip through the thread pool of its own) when the bearer ``token``
    (``None`` without one) is a team's of this competition, as it is on
    every request that goes through. That read also gives what admits the
    team's submission with this idempotency key (``None`` when the caller
    was found otherwise)."""
    competition = team = admission = None
    if token is not None:
        token_hash = hash_token(token)
        try:
            competition, team, admission, _ = competitions.member_admission(
                slug, token_hash, idempotency_key
            )
        except NotFound:  # a slug no competition can have: refused below, in order
            competition = team = admission = None
    if token is None:
        who = caller(request, settings, None)
    elif team is None:
        bearer = HTTPAuthorizationCredentials(scheme="Bearer", credentials=token)
        who = caller(request, settings, bearer)
    else:
        who = authenticate(
            request, competitions, settings, token, a_team_token=True, token_hash=token_hash
        )
    if competition is None:
        competition = competition_of(competitions, viewer(request), slug)
    elif team is None:  # not a team of a private competition: 404, as when none exists
        check_view(competitions, viewer(request), competition)
    if team is None or who.is_organiser:
        team, admission = team_of(competitions, who, competition), None
    request.state.team = team.name  # for the request's log line
    return team, competition, admission


OrganiserDep = Annotated[Caller, Depends(organiser)]


def acting(request: Request, competitions: CompetitionsDep, who: OrganiserDep) -> Acting:
    """The organiser changes of the route's caller, who holds the route's role."""
    return acting_for(request, competitions, who)


ActingDep = Annotated[Acting, Depends(acting)]
TeamDep = Annotated[TeamInfo, Depends(team_of)]


def person_of(competitions: Competitions, who: Caller, slug: str | None = None) -> AccountInfo:
    """The account of a personal token: what a person's own route needs.
    403 for the administrator's token or a team's token of competition
    ``slug`` (a valid token that speaks for no person there), 401 for no
    token or one that is no person's."""
    if who.account is not None:
        return who.account
    if slug is not None and (who.is_organiser or who.team(competitions, slug) is not None):
        raise ApiError(
            403, "forbidden", "this needs a person's token, not a team's or the server's"
        )
    raise _unauthorized(
        "this needs your personal API token (Authorization: Bearer), made on your /account page"
    )
