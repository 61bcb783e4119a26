"""What ``ladderboard init`` and ``ladderboard serve`` do; the CLI only parses.

The organiser token is never stored: ``init`` prints a new one (or checks
the one in ``LADDERBOARD_ADMIN_TOKEN``) and ``serve`` reads it from that
variable in each worker, through :class:`~ladderboard.server.settings.Settings`.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import socket
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from ladderboard.engine import migrate_store
from ladderboard.server.settings import Settings, unsafe_token_problem

__all__ = ["Initialised", "initialise", "run_uvicorn", "serve"]

APP_FACTORY = "ladderboard.server.app:served_app"


@dataclass(frozen=True)
class Initialised:
    url: str
    token: str
    generated: bool

    @property
    def fingerprint(self) -> str:
        """The first 12 hex digits of the token's SHA-256, to tell tokens apart."""
        return hashlib.sha256(self.token.encode()).hexdigest()[:12]


def initialise(url: str | None = None, token: str | None = None) -> Initialised:
    """Create or migrate the schema at ``url``; return the organiser token
    (``token`` when given and safe, else a new random one).

    >>> result = initialise("sqlite://")
    >>> result.generated, len(result.token) >= 40
    (True, True)
    >>> initialise("sqlite://", token="short")
    Traceback (most recent call last):
    ValueError: LADDERBOARD_ADMIN_TOKEN is shorter than 16 characters
    """
    if token:
        problem = unsafe_token_problem(token)
        if problem:
            raise ValueError(f"LADDERBOARD_ADMIN_TOKEN {problem}")
    url = migrate_store(url)
    if token:
        return Initialised(url, token, generated=False)
    return Initialised(url, secrets.token_urlsafe(32), generated=True)


def serve(
    url: str | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    forwarded_allow_ips: str | None = None,
) -> None:
    """Bring the store at ``url`` up to date once, then serve the app factory
    with uvicorn. The store must exist (``ladderboard init`` creates it): a
    mistyped path or database name is :class:`StoreUnavailable`, not a new
    empty store.

    Each worker builds its own app from the environment, so ``url`` is
    passed on as ``LADDERBOARD_DATABASE_URL``; the settings are checked here
    first, so that an unsafe token stops the server before it starts. A
    server takes only a long random organiser token (or, in development,
    none: every organiser request is then refused), whatever its
    environment: a valid token is never refused for its address's failed
    authentications, so a guessable one would be found.
    """
    if url:
        os.environ["LADDERBOARD_DATABASE_URL"] = url
    settings = Settings()  # raises on an unsafe organiser token outside development
    token = settings.admin_token.get_secret_value()
    problem = unsafe_token_problem(token) if token or not settings.development else None
    if problem:
        raise ValueError(f"LADDERBOARD_ADMIN_TOKEN {problem}; set a long random one")
    migrate_store(settings.database_url, create=False)
    run_uvicorn(host=host, port=port, workers=workers, forwarded_allow_ips=forwarded_allow_ips)


class _UvicornOptions(TypedDict):
    """The options ``run_uvicorn`` passes to ``uvicorn.run`` / ``uvicorn.Config``."""

    host: str
    port: int
    log_level: str
    access_log: bool
    forwarded_allow_ips: NotRequired[str]


def run_uvicorn(
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    log_level: str = "info",
    access_log: bool = True,
    forwarded_allow_ips: str | None = None,
) -> None:
    """uvicorn over the app factory, in ``workers`` processes.

    ``forwarded_allow_ips`` names the reverse proxies whose
    ``X-Forwarded-For`` gives the client's address (uvicorn's default:
    127.0.0.1, or ``FORWARDED_ALLOW_IPS``); rate limits of anonymous writes
    and of failed authentications count per client address.

    With several workers, uvicorn binds the listening socket itself with
    ``proto=0``; the accepted sockets inherit it, asyncio then leaves
    TCP_NODELAY off, and every keep-alive response waits ~40 ms for the
    client's delayed ACK (uvicorn issue #3149). The socket is bound here the
    same way and re-opened as IPPROTO_TCP before the workers start.
    """
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    options: _UvicornOptions = {
        "host": host,
        "port": port,
        "log_level": log_level,
        "access_log": access_log,
    }
    if forwarded_allow_ips is not None:
        options["forwarded_allow_ips"] = forwarded_allow_ips
    if workers == 1:
        uvicorn.run(APP_FACTORY, factory=True, **options)
        return
    config = uvicorn.Config(APP_FACTORY, factory=True, workers=workers, **options)
    listener = config.bind_socket()
    if listener.family in (socket.AF_INET, socket.AF_INET6) and listener.proto == 0:
        listener = socket.socket(
            listener.family, listener.type, socket.IPPROTO_TCP, listener.detach()
        )
    Multiprocess(config, sockets=[listener]).run()
