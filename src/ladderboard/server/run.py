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
from typing import Any, NotRequired, TypedDict

from ladderboard.engine import migrate_store
from ladderboard.server.logs import json_log_config
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


def initialise(
    url: str | None = None, token: str | None = None, *, restored: bool = False
) -> Initialised:
    """Create or migrate the schema at ``url``; return the organiser token
    (``token`` when given and safe, else a new random one). ``restored``:
    the store was, or is about to be, put back from a backup; it gets a new
    identity, which makes every process serving it drop its caches
    (:mod:`ladderboard.store.identity`).

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
    url = migrate_store(url, renew=restored)
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
    run_uvicorn(
        host=host,
        port=port,
        workers=workers,
        log_format=settings.log_format,
        forwarded_allow_ips=forwarded_allow_ips,
        limit_concurrency=settings.limit_concurrency,
    )


class _UvicornOptions(TypedDict):
    """The options ``run_uvicorn`` passes to ``uvicorn.run`` / ``uvicorn.Config``."""

    host: str
    port: int
    log_level: str
    access_log: bool
    forwarded_allow_ips: NotRequired[str]
    limit_concurrency: NotRequired[int]
    timeout_keep_alive: NotRequired[int]
    log_config: NotRequired[dict[str, Any]]
    http: NotRequired[type]


# How long a kept-alive connection may stay idle between requests (uvicorn's
# own timer), in seconds.
KEEP_ALIVE_SECONDS = 5


def _header_timeout() -> float:
    """``LADDERBOARD_HEADER_TIMEOUT_SECONDS`` (default 10, as
    :class:`~ladderboard.server.settings.Settings` has it), read in each
    worker: uvicorn's workers are new processes, which build their protocol
    from its class alone. ``serve`` has checked the value already."""
    default = Settings.model_fields["header_timeout_seconds"].default
    try:
        seconds = float(os.environ.get("LADDERBOARD_HEADER_TIMEOUT_SECONDS") or default)
    except ValueError:
        return default
    return seconds if seconds > 0 else default


def header_timeout_protocol() -> type | None:
    """uvicorn's httptools protocol, closing a connection whose request's
    headers have not ended ``header_timeout_seconds`` after it opened or
    after its last response: uvicorn has no such timeout, so that one client
    trickling headers would hold a connection for ever. ``None`` without
    httptools (uvicorn then picks its own protocol)."""
    return globals().get("HeaderTimeoutProtocol")


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _HttpTools

    class HeaderTimeoutProtocol(_HttpTools):
        """:func:`header_timeout_protocol`'s class."""

        _header_timer: Any = None

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self._header_timer = self.loop.call_later(_header_timeout(), self._headers_late)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_late(self) -> None:
            self._header_timer = None
            if self.cycle is None or self.cycle.response_complete:  # no request under way
                self.transport.close()

except ImportError:  # pragma: no cover - httptools comes with uvicorn[standard]
    pass


def run_uvicorn(
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    log_level: str = "info",
    access_log: bool = True,
    forwarded_allow_ips: str | None = None,
    limit_concurrency: int | None = None,
    log_format: str = "text",
) -> None:
    """uvicorn over the app factory, in ``workers`` processes.

    Connections are cut when their headers do not end in time
    (:func:`header_timeout_protocol`) or they stay idle past
    :data:`KEEP_ALIVE_SECONDS`; ``limit_concurrency`` bounds the connections
    of each worker (503 past it). Bodies have their own timeout in the app
    (:class:`~ladderboard.server.limits.RequestGate`).

    ``forwarded_allow_ips`` names the reverse proxies whose
    ``X-Forwarded-For`` gives the client's address (uvicorn's default:
    127.0.0.1, or ``FORWARDED_ALLOW_IPS``); rate limits of anonymous writes
    and of failed authentications count per client address.

    ``log_format`` ``"json"`` writes every line as JSON
    (:func:`ladderboard.server.logs.json_log_config`), the server's own
    access lines in place of uvicorn's.

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
        "access_log": access_log and log_format != "json",
        "timeout_keep_alive": KEEP_ALIVE_SECONDS,
    }
    if log_format == "json":
        options["log_config"] = json_log_config(log_level)
    protocol = header_timeout_protocol()
    if protocol is not None:
        options["http"] = protocol
    if limit_concurrency is not None:
        options["limit_concurrency"] = limit_concurrency
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
