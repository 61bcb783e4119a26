"""Every refusal as JSON ``{"error": code, "message": sentence}`` with its status.

The engine raises its own exceptions and knows nothing of HTTP; this module
maps them:

=========================================  ======  ===================
refusal                                    status  ``error``
=========================================  ======  ===================
bad file (:class:`SubmissionError`,        400     the file's code
:class:`SolutionError`)
missing or invalid token                   401     ``unauthorized``
a token of the wrong role                  403     ``forbidden``
:class:`TeamDisabled`                      403     ``disabled``
:class:`NotCaptain`                        403     ``forbidden``
:class:`RegistrationRefused` (joining      403     ``registration``,
without the list, a code, or a valid one)          ``invitation``
private board before the close             403     ``private_board``
:class:`NotFound`, unknown route           404     ``not_found``
:class:`Conflict`                          409     ``conflict``
:class:`DuplicateSubmission`               409     ``duplicate``
:class:`CompetitionClosed`                 409     ``closed``
:class:`NotOpenYet` (before the opening)   409     ``not_open``
file too large                             413     ``too_large``
bad form or JSON body                      422     ``invalid_request``
:class:`QuotaExceeded`                     429     ``quota`` (Retry-After if it says)
rate limit                                 429     ``rate_limited`` (Retry-After)
the store cannot answer or write           503     ``database_unavailable`` (Retry-After)
=========================================  ======  ===================

Only a refusal that time will lift carries ``Retry-After``: a rate limit,
a spent daily quota (the seconds its refusal carries, to the next UTC
midnight by the engine's clock: :mod:`ladderboard.engine.quotas`), and a
store that cannot do what the request needs (:func:`store_unavailable`: a
dropped or refused connection, a full disk, a lock not given in time),
whose transaction is rolled back, so that asking again is safe. A spent total quota or
invalid-file cap is final, and a client must not ask again.

A closed competition is 409: the request is well formed and authorised, but
conflicts with the competition's state.

The API (``/api/...``), the operator's checks (``/healthz``, ``/livez``,
``/readyz``, ``/metrics``) and the OpenAPI schema always answer
JSON. Every other path is a page a person reads in a browser: once the pages
are installed (they put their renderer at ``app.state.error_page``), its
refusals, an unknown page (404), a method it does not take (405) and an
unexpected error (500) are HTML pages with the same status and sentence.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Mapping

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import DBAPIError, DisconnectionError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Mount

from ladderboard.engine.errors import (
    CompetitionClosed,
    CompetitionError,
    Conflict,
    DuplicateSubmission,
    NotCaptain,
    NotFound,
    QuotaExceeded,
    RegistrationRefused,
    TeamDisabled,
)
from ladderboard.files.solution import SolutionError
from ladderboard.files.submission import SubmissionError
from ladderboard.rules.text import printable

__all__ = [
    "ApiError",
    "ErrorPage",
    "install_error_handlers",
    "is_page",
    "respond",
    "sentence",
    "status_of",
    "store_unavailable",
]

logger = logging.getLogger(__name__)

_STATUS = {
    NotFound: 404,
    TeamDisabled: 403,
    NotCaptain: 403,
    RegistrationRefused: 403,
    DuplicateSubmission: 409,
    Conflict: 409,
    CompetitionClosed: 409,
    QuotaExceeded: 429,
}


class ApiError(Exception):
    """A refusal made by the web edge itself (auth, limits, form values)."""

    def __init__(
        self, status: int, code: str, message: str, *, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}


def error_response(
    status: int, code: str, message: str, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status, headers=headers)


UNAVAILABLE_RETRY_AFTER_SECONDS = 2
"""The ``Retry-After`` of a 503: a dropped connection is replaced on the next
request, and a client's few retries span a few seconds of a longer fault."""


def store_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the store could not do the work rather than that
    the work was wrong: the database's operational errors (a connection
    refused, dropped or timed out; a full disk; a lock not given), a dead
    connection of the pool, or no connection free in time."""
    if isinstance(exc, DBAPIError):
        return exc.connection_invalidated or isinstance(exc, OperationalError)
    return isinstance(exc, DisconnectionError | PoolTimeout | sqlite3.OperationalError)


ErrorPage = Callable[[Request, int, str], Response]
"""Renders a refusal as a page: the request, the status and the sentence."""

_JSON_PATHS = ("/api/", "/healthz", "/livez", "/readyz", "/metrics", "/openapi.json")


def is_page(path: str) -> bool:
    """Whether ``path`` is a page (HTML) rather than the API (JSON).

    >>> is_page("/c/demo"), is_page("/api/competitions"), is_page("/api"), is_page("/healthz")
    (True, False, False, False)
    """
    return not (path == "/api" or path.startswith(_JSON_PATHS))


def respond(
    request: Request,
    status: int,
    code: str,
    message: str,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """The refusal as JSON, or as an HTML page on a page's path. Its code is
    left in the request's state for the metrics (:mod:`ladderboard.server.metrics`)."""
    request.state.error_code = code
    page: ErrorPage | None = getattr(request.app.state, "error_page", None)
    if page is None or not is_page(request.url.path):
        return error_response(status, code, message, headers)
    response = page(request, status, message)
    response.headers.update(headers or {})
    return response


def sentence(text: str) -> str:
    """A refusal's message as the API and the pages show it: a capitalised sentence."""
    text = str(text).strip() or "the request was refused"
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors()[:5]:
        where = ".".join(str(p) for p in error.get("loc", ()) if p not in ("body", "query"))
        parts.append(f"{where or 'request'}: {error.get('msg', 'invalid')}")
    return sentence("The request is not valid: " + "; ".join(parts))


def status_of(exc: CompetitionError | SubmissionError | SolutionError) -> int:
    """The HTTP status of a refusal from the engine or the files, for the API
    and the pages alike."""
    if isinstance(exc, CompetitionError):
        return next((s for k, s in _STATUS.items() if isinstance(exc, k)), 400)
    return 413 if exc.code == "too_large" else 400


_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def _allowed_methods(request: Request, headers: Mapping[str, str]) -> list[str]:
    """The methods of the 405's own ``Allow`` (a mounted app's, such as the
    static files') and those some route of the app takes at the request's
    path: a router answers 405 from the first route whose path matches,
    which names only its own. Mounts are left out: one matches every method."""
    given = next((v for k, v in headers.items() if k.lower() == "allow"), "")
    allowed = {m.strip().upper() for m in given.split(",") if m.strip()}
    routes = [route for route in request.app.router.routes if not isinstance(route, Mount)]
    for method in _METHODS:
        scope = {**request.scope, "method": method}
        if any(route.matches(scope)[0] == Match.FULL for route in routes):
            allowed.add(method)
    order = {method: i for i, method in enumerate(("GET", "HEAD", *_METHODS[1:]))}
    return sorted(allowed, key=lambda method: (order.get(method, len(order)), method))


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that turn every refusal into the JSON above
    (or, on a page's path, an HTML page)."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> Response:
        return respond(request, exc.status, exc.code, sentence(exc.message), exc.headers)

    @app.exception_handler(CompetitionError)
    async def _engine_error(request: Request, exc: CompetitionError) -> Response:
        status = status_of(exc)
        retry_after = exc.retry_after if isinstance(exc, QuotaExceeded) else None
        headers = None if retry_after is None else {"Retry-After": str(retry_after)}
        return respond(request, status, exc.code, sentence(str(exc)), headers)

    @app.exception_handler(SubmissionError)
    async def _bad_submission(request: Request, exc: SubmissionError) -> Response:
        return respond(request, status_of(exc), exc.code, sentence(str(exc)))

    @app.exception_handler(SolutionError)
    async def _bad_solution(request: Request, exc: SolutionError) -> Response:
        return respond(request, status_of(exc), exc.code, sentence(str(exc)))

    @app.exception_handler(RequestValidationError)
    async def _bad_form(request: Request, exc: RequestValidationError) -> Response:
        return respond(request, 422, "invalid_request", _validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 400:
            # FastAPI's refusal of a body it cannot parse (a broken multipart
            # form, bytes that are not JSON): a bad body, 422 as every other.
            detail = exc.detail if isinstance(exc.detail, str) else "it cannot be parsed"
            message = sentence(f"The request's body cannot be read: {detail.rstrip('.')}")
            return respond(request, 422, "invalid_request", message)
        code = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(
            exc.status_code, "http_error"
        )
        detail = exc.detail if isinstance(exc.detail, str) else "the request was refused"
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"there is no page at {printable(request.url.path)}"
        headers = exc.headers
        if exc.status_code == 405 and detail == "Method Not Allowed":
            allowed = ", ".join(_allowed_methods(request, headers or {}))
            if allowed:
                headers = {**(headers or {}), "Allow": allowed}
            method, path = printable(request.method, 20), printable(request.url.path)
            detail = f"{method} is not allowed at {path}"
            if allowed:
                detail += f" (it takes {allowed})"
        return respond(request, exc.status_code, code, sentence(detail), headers)

    async def _unavailable(request: Request, exc: Exception) -> Response:
        if not store_unavailable(exc):
            raise exc  # a bug, such as a constraint broken: the 500 below
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""]
        logger.warning(
            "the store failed on %s %s: %s",
            printable(request.method, 20),
            printable(request.url.path),
            printable(reason[0], 300),
        )
        wait = UNAVAILABLE_RETRY_AFTER_SECONDS
        return respond(
            request,
            503,
            "database_unavailable",
            f"The database cannot answer now; try again in {wait} s.",
            {"Retry-After": str(wait)},
        )

    for kind in (DBAPIError, DisconnectionError, PoolTimeout, sqlite3.OperationalError):
        app.add_exception_handler(kind, _unavailable)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        # The path is the client's: escaped, so that it cannot forge log lines
        # or send terminal escapes to whoever reads the log.
        logger.exception(
            "unexpected error on %s %s",
            printable(request.method, 20),
            printable(request.url.path),
            extra={"request_id": getattr(request.state, "request_id", None)},
        )
        # The server closes the connection after an unexpected error (the
        # exception goes on to it once this answer is sent): saying so lets
        # a keep-alive client open a new one rather than send its next
        # request into a connection being closed.
        return respond(
            request,
            500,
            "internal",
            "Something went wrong on the server; the organiser can see the log.",
            # Answered outside every middleware: the request's id is set here.
            {"Connection": "close", "X-Request-ID": getattr(request.state, "request_id", "")},
        )
