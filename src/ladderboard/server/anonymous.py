"""A limit on anonymous reads: ``anonymous_reads_per_minute`` GET and HEAD
requests per client address, in bursts of up to that many, refused with 429
``rate_limited`` and ``Retry-After`` past it.

A read carrying valid credentials (the organiser's token, a team's token, a
person's API token, a signed-in organiser's, team's or account's session
cookie) is never counted nor
refused: those are limited per token. Credentials that are not valid count
as anonymous, so that a made-up token or cookie does not escape the limit.
The static files and the operator's checks (``/healthz``, ``/livez``,
``/readyz``, ``/metrics``) are not counted.

The counts are kept in each worker's memory, not in the store: a read must
not write, and a write per anonymous read would queue on SQLite's write lock
with the teams' submissions, the load this limit exists to shield them
from. With several workers or hosts, an address may read that many a
minute from each. Which credentials are valid is remembered for a minute
(only for this limit: every route checks them again), so that a team's
reads cost no more reads of the store than they did.
"""

from __future__ import annotations

import hashlib
import math
import sqlite3
import threading
import time
from collections.abc import Callable

import anyio
from fastapi.security.utils import get_authorization_scheme_param
from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request

from ladderboard.engine import Competitions
from ladderboard.server import account_session, organiser_session, team_pages
from ladderboard.server.deps import client_address, hash_token, is_organiser_token
from ladderboard.server.errors import respond
from ladderboard.server.settings import Settings

__all__ = ["AddressLimits", "AnonymousReads"]

_READS = ("GET", "HEAD")
_UNCOUNTED = ("/static/", "/healthz", "/livez", "/readyz", "/metrics")
VALID_FOR_SECONDS = 60.0
"""How long credentials found valid are let through without a read of the store."""
MAX_KEYS = 100_000
"""The most addresses (or credentials) held at once; past it, the expired go."""


class AddressLimits:
    """The generic cell rate algorithm (as :class:`ladderboard.store.RateLimits`)
    per key, in memory: ``per_minute`` a minute in bursts of as many.

    >>> clock = iter([0.0, 0.0, 0.0, 30.0]).__next__
    >>> limits = AddressLimits(2, clock=clock)
    >>> [limits.take("a") for _ in range(4)]
    [0, 0, 30, 0]
    """

    def __init__(self, per_minute: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._interval = 60.0 / per_minute
        self._burst = per_minute * self._interval
        self._clock = clock
        self._tats: dict[str, float] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> int:
        """Spend one request of ``key``: 0 if allowed, else the whole seconds to wait."""
        now = self._clock()
        with self._lock:
            start = max(self._tats.get(key, now), now)
            if start + self._interval - now > self._burst:
                return max(1, math.ceil(start + self._interval - now - self._burst))
            if len(self._tats) >= MAX_KEYS and key not in self._tats:
                self._tats = {k: t for k, t in self._tats.items() if t > now}
            self._tats[key] = start + self._interval
        return 0


class _ValidCredentials:
    """Digests of credentials found valid, each until its expiry."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._until: dict[str, float] = {}
        self._clock = clock

    def __contains__(self, digest: str) -> bool:
        return self._until.get(digest, -math.inf) > self._clock()

    def add(self, digest: str) -> None:
        now = self._clock()
        if len(self._until) >= MAX_KEYS:
            self._until = {k: t for k, t in self._until.items() if t > now}
        self._until[digest] = now + VALID_FOR_SECONDS


def _credentials(request: Request) -> list[tuple[str, str]]:
    """The credentials a request carries: ``(kind, value)``."""
    found = []
    scheme, token = get_authorization_scheme_param(request.headers.get("authorization"))
    if scheme.lower() == "bearer" and token:
        found.append(("token", token))
    for kind, cookie in (
        ("team", team_pages.COOKIE),
        ("organiser", organiser_session.COOKIE),
        ("account", account_session.COOKIE),
    ):
        value = request.cookies.get(cookie)
        if value:
            found.append((kind, value))
    return found


def _valid(competitions: Competitions, settings: Settings, kind: str, value: str) -> bool:
    """Whether one credential is valid (a read of the store, in a worker thread)."""
    if kind == "token":
        digest = hash_token(value)
        return (
            is_organiser_token(settings, value)
            or competitions.knows_token_hash(digest)
            or competitions.accounts.account_of_token_hash(digest) is not None
        )
    if kind == "account":
        return competitions.accounts.session_account(value) is not None
    if kind == "team":
        return competitions.team_sessions.team_of(value) is not None
    return bool(settings.admin_token.get_secret_value()) and competitions.sessions.is_valid(value)


class AnonymousReads:
    """ASGI middleware limiting anonymous reads per client address (above)."""

    def __init__(self, app, *, per_minute: int) -> None:
        self.app = app
        self.per_minute = per_minute
        self._limits = AddressLimits(per_minute) if per_minute > 0 else None
        self._valid = _ValidCredentials()

    async def __call__(self, scope, receive, send) -> None:
        if (
            self._limits is None
            or scope["type"] != "http"
            or scope["method"] not in _READS
            or scope["path"].startswith(_UNCOUNTED)
        ):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        if not await self._credentialed(request):
            wait = self._limits.take(client_address(request))
            if wait:
                message = (
                    f"Too many reads from this address without a token; at most "
                    f"{self.per_minute} a minute. Try again in {wait} s."
                )
                headers = {"Retry-After": str(wait)}
                response = respond(request, 429, "rate_limited", message, headers)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)

    async def _credentialed(self, request: Request) -> bool:
        """Whether the request carries some valid credential."""
        found = _credentials(request)
        if not found:
            return False
        digests = [
            hashlib.sha256(f"{kind}\n{value}".encode("utf-8", "surrogatepass")).hexdigest()
            for kind, value in found
        ]
        if any(digest in self._valid for digest in digests):
            return True
        competitions = request.app.state.competitions
        settings = request.app.state.settings

        def check() -> str | None:
            for (kind, value), digest in zip(found, digests, strict=True):
                if _valid(competitions, settings, kind, value):
                    return digest
            return None

        try:
            valid = await anyio.to_thread.run_sync(check)
        except (SQLAlchemyError, sqlite3.Error):
            return True  # the store cannot tell: the limit fails open, as the others do
        if valid is None:
            return False
        self._valid.add(valid)
        return True
