"""Who may do what to a competition: the one table of the organisers' roles.

A competition's organisers hold one of three roles, from the least to the
most trusted:

- ``co-organiser`` (a teaching assistant, say): views the desk and every
  organiser read (the teams, the flags, the private board before its
  publication, the what-if boards, the action log, the organisers), manages
  the teams (adds, imports, disables, enables, reissues a token) and the
  data files;
- ``owner``: besides, closes and publishes, publishes the audit bundle,
  corrects the solution, changes the settings, the texts and the calendar,
  exports the competition (and downloads its solution, which the export
  holds), reads the look-alike accounts (their email and client addresses),
  and adds or removes organisers;
- ``administrator``: the server's administrator (the
  ``LADDERBOARD_ADMIN_TOKEN`` bearer or its desk session, or an account
  whose role is ``admin``), an owner of every competition.

:data:`ROUTES` names, for each organiser route of the API and each page and
form of the desk, the least role it needs; :func:`allows` compares a role
with it. ``OrganiserDep`` (:mod:`.deps`) and the desk's forms
(:mod:`.organiser_session`) look the route up here, so that a route's rule is
written once. Creating a competition is not a competition's role: it needs an
account whose role is ``organiser`` or ``admin`` (or the administrator
token), and its creator becomes the competition's owner (:data:`CREATION`).

>>> allows("owner", "co-organiser"), allows("co-organiser", "owner"), allows(None, "co-organiser")
(True, False, False)
>>> ROUTES["POST", "/api/competitions/{slug}/publish"]
'owner'
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from starlette.routing import compile_path

__all__ = [
    "CREATION",
    "ORGANISER_ROLES",
    "ROUTES",
    "CompetitionRole",
    "Role",
    "allows",
    "least_role",
    "needs_words",
    "route_of",
]

Role = Literal["co-organiser", "owner", "administrator"]
"""A caller's role in a competition (``None`` when it has none)."""
CompetitionRole = Literal["owner", "co-organiser"]
"""A role an account is given in one competition (``competition_organisers``)."""
ORGANISER_ROLES: tuple[CompetitionRole, ...] = get_args(CompetitionRole)

_RANK: dict[str, int] = {"co-organiser": 1, "owner": 2, "administrator": 3}

_CO: Role = "co-organiser"
_OWNER: Role = "owner"

ROUTES: dict[tuple[str, str], Role] = {
    # ---------------------------------------------------------------- the API
    ("POST", "/api/accounts"): "administrator",  # a server's accounts, not a competition's
    ("GET", "/api/competitions/{slug}/teams"): _CO,
    ("POST", "/api/competitions/{slug}/teams"): _CO,
    ("POST", "/api/competitions/{slug}/teams/import"): _CO,
    ("POST", "/api/competitions/{slug}/teams/{name:path}/token"): _CO,
    ("PATCH", "/api/competitions/{slug}/teams/{name:path}"): _CO,
    ("GET", "/api/competitions/{slug}/flags"): _CO,
    ("GET", "/api/competitions/{slug}/teams/{name:path}/history"): _CO,
    ("PUT", "/api/competitions/{slug}/files/{name}"): _CO,
    ("DELETE", "/api/competitions/{slug}/files/{name}"): _CO,
    ("POST", "/api/competitions/{slug}/rescore"): _CO,
    ("GET", "/api/competitions/{slug}/actions"): _CO,
    ("GET", "/api/competitions/{slug}/organisers"): _CO,
    ("POST", "/api/competitions/{slug}/organisers"): _OWNER,
    ("DELETE", "/api/competitions/{slug}/organisers/{handle}"): _OWNER,
    ("PATCH", "/api/competitions/{slug}"): _OWNER,
    ("POST", "/api/competitions/{slug}/close"): _OWNER,
    ("POST", "/api/competitions/{slug}/publish"): _OWNER,
    ("POST", "/api/competitions/{slug}/audit"): _OWNER,
    ("POST", "/api/competitions/{slug}/corrections"): _OWNER,
    ("GET", "/api/competitions/{slug}/export"): _OWNER,
    ("GET", "/api/competitions/{slug}/solution"): _OWNER,
    # Look-alike accounts show email and client addresses: the owners' only.
    ("GET", "/api/competitions/{slug}/look-alikes"): _OWNER,
    ("POST", "/api/competitions/{slug}/look-alikes/{key}/dismiss"): _OWNER,
    ("POST", "/api/competitions/{slug}/look-alikes/{key}/restore"): _OWNER,
    # Who joins: the invitations, the registrations, accounts put into teams.
    ("GET", "/api/competitions/{slug}/registrations"): _CO,
    ("GET", "/api/competitions/{slug}/invitations"): _CO,
    ("POST", "/api/competitions/{slug}/invitations"): _CO,
    ("DELETE", "/api/competitions/{slug}/invitations/{invitation_id}"): _CO,
    ("POST", "/api/competitions/{slug}/teams/{name:path}/members"): _CO,
    # --------------------------------------------------------------- the desk
    ("GET", "/organiser/c/{slug}"): _CO,
    ("GET", "/organiser/c/{slug}/team"): _CO,
    ("POST", "/organiser/c/{slug}/teams"): _CO,
    ("POST", "/organiser/c/{slug}/teams/import"): _CO,
    ("POST", "/organiser/c/{slug}/teams/disable"): _CO,
    ("POST", "/organiser/c/{slug}/teams/enable"): _CO,
    ("POST", "/organiser/c/{slug}/teams/token"): _CO,
    ("POST", "/organiser/c/{slug}/files"): _CO,
    ("POST", "/organiser/c/{slug}/files/remove"): _CO,
    ("POST", "/organiser/c/{slug}/whatif"): _CO,
    ("POST", "/organiser/c/{slug}/invitations"): _CO,
    ("POST", "/organiser/c/{slug}/invitations/{invitation_id}/revoke"): _CO,
    ("POST", "/organiser/c/{slug}/members"): _CO,
    ("POST", "/organiser/c/{slug}/details"): _OWNER,
    ("POST", "/organiser/c/{slug}/deadline"): _OWNER,
    ("POST", "/organiser/c/{slug}/settings"): _OWNER,
    ("GET", "/organiser/c/{slug}/close"): _OWNER,
    ("POST", "/organiser/c/{slug}/close"): _OWNER,
    ("GET", "/organiser/c/{slug}/publish"): _OWNER,
    ("POST", "/organiser/c/{slug}/publish"): _OWNER,
    ("POST", "/organiser/c/{slug}/audit"): _OWNER,
    ("POST", "/organiser/c/{slug}/correction"): _OWNER,
    ("GET", "/organiser/c/{slug}/export"): _OWNER,
    ("POST", "/organiser/c/{slug}/organisers"): _OWNER,
    ("POST", "/organiser/c/{slug}/organisers/remove"): _OWNER,
    ("POST", "/organiser/c/{slug}/look-alikes/dismiss"): _OWNER,
    ("POST", "/organiser/c/{slug}/look-alikes/restore"): _OWNER,
}
"""The least role each organiser route of a competition needs, by its
method and its path as the router declares it."""

CREATION: frozenset[tuple[str, str]] = frozenset(
    {
        ("POST", "/api/competitions"),
        ("GET", "/organiser/new"),
        ("POST", "/organiser/competitions"),
    }
)
"""The routes that create a competition: an account whose role is one of
``organiser`` or ``admin`` (:attr:`AccountInfo.may_organise
<ladderboard.engine.accounts.AccountInfo.may_organise>`), or the administrator."""


def allows(role: str | None, needed: str) -> bool:
    """Whether a caller of ``role`` (``None``: no role) may do what needs ``needed``."""
    return role is not None and _RANK[role] >= _RANK[needed]


def _patterns() -> list[tuple[str, str, re.Pattern[str]]]:
    """Each route of the table as (method, path, its regular expression),
    those with the fewest parameters first."""
    routes = sorted([*ROUTES, *CREATION], key=lambda route: (route[1].count("{"), route))
    return [(method, path, compile_path(path)[0]) for method, path in routes]


_PATTERNS = _patterns()


def route_of(method: str, path: str) -> tuple[str, dict[str, str]] | None:
    """The route of the table a request ``method path`` goes to (its path as
    declared, and the values of its parameters), or ``None`` for a route
    the table does not name. Read from the request itself, so that the
    answer is the same before the router has chosen (in a middleware) and
    after.

    >>> route_of("PATCH", "/api/competitions/demo/teams/a/b")
    ('/api/competitions/{slug}/teams/{name:path}', {'slug': 'demo', 'name': 'a/b'})
    >>> route_of("POST", "/api/competitions/demo/teams/import")[0]
    '/api/competitions/{slug}/teams/import'
    """
    method = "GET" if method == "HEAD" else method
    for wanted, template, pattern in _PATTERNS:
        if wanted == method and (found := pattern.match(path)):
            return template, found.groupdict()
    return None


def least_role(method: str, path: str) -> Role:
    """The least role route ``method path`` needs (a ``HEAD`` is its ``GET``);
    a route missing from :data:`ROUTES` is the owner's, so that a new route
    nobody classified is never open to a co-organiser."""
    method = "GET" if method == "HEAD" else method
    return ROUTES.get((method, path), _OWNER)


def needs_words(needed: str, slug: str) -> str:
    """The sentence of a refusal for want of ``needed``.

    >>> needs_words("owner", "demo")
    "this needs the role owner of competition 'demo' (or the server's administrator)"
    """
    if needed == "administrator":
        return "this needs the server's administrator"
    return (
        f"this needs the role {needed} of competition {slug[:64]!r} (or the server's administrator)"
    )
