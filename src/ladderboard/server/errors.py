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
private board before the close             403     ``private_board``
:class:`NotFound`, unknown route           404     ``not_found``
:class:`Conflict`                          409     ``conflict``
:class:`DuplicateSubmission`               409     ``duplicate``
:class:`CompetitionClosed`                 409     ``closed``
file too large                             413     ``too_large``
bad form or JSON body                      422     ``invalid_request``
:class:`QuotaExceeded`                     429     ``quota`` (Retry-After)
rate limit                                 429     ``rate_limited`` (Retry-After)
=========================================  ======  ===================

A closed competition is 409: the request is well formed and authorised, but
conflicts with the competition's state.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ladderboard.engine.errors import (
    CompetitionClosed,
    CompetitionError,
    Conflict,
    DuplicateSubmission,
    NotFound,
    QuotaExceeded,
    TeamDisabled,
)
from ladderboard.files.solution import SolutionError
from ladderboard.files.submission import SubmissionError
from ladderboard.rules.text import printable

__all__ = [
    "ApiError",
    "install_error_handlers",
    "seconds_to_utc_midnight",
    "sentence",
    "status_of",
]

logger = logging.getLogger(__name__)

_STATUS = {
    NotFound: 404,
    TeamDisabled: 403,
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


def seconds_to_utc_midnight(now: datetime | None = None) -> int:
    """Seconds until the daily quotas reset (the next UTC midnight), at least 1.

    >>> seconds_to_utc_midnight(datetime(2026, 1, 1, 23, 59, 30, tzinfo=UTC))
    30
    """
    now = now or datetime.now(UTC)
    midnight = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return max(1, int((midnight - now).total_seconds()))


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


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that turn every refusal into the JSON above."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, sentence(exc.message), exc.headers)

    @app.exception_handler(CompetitionError)
    async def _engine_error(request: Request, exc: CompetitionError) -> JSONResponse:
        status = status_of(exc)
        headers = {"Retry-After": str(seconds_to_utc_midnight())} if status == 429 else None
        return error_response(status, exc.code, sentence(str(exc)), headers)

    @app.exception_handler(SubmissionError)
    async def _bad_submission(request: Request, exc: SubmissionError) -> JSONResponse:
        return error_response(status_of(exc), exc.code, sentence(str(exc)))

    @app.exception_handler(SolutionError)
    async def _bad_solution(request: Request, exc: SolutionError) -> JSONResponse:
        return error_response(status_of(exc), exc.code, sentence(str(exc)))

    @app.exception_handler(RequestValidationError)
    async def _bad_form(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(422, "invalid_request", _validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(
            exc.status_code, "http_error"
        )
        detail = exc.detail if isinstance(exc.detail, str) else "the request was refused"
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"there is no page at {request.url.path}"
        return error_response(exc.status_code, code, sentence(detail), exc.headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        # The path is the client's: escaped, so that it cannot forge log lines
        # or send terminal escapes to whoever reads the log.
        logger.exception(
            "unexpected error on %s %s", printable(request.method, 20), printable(request.url.path)
        )
        return error_response(
            500, "internal", "Something went wrong on the server; the organiser can see the log."
        )
