"""What every page shares: the templates, the response headers, and the
refusals rendered with the API's own status and sentence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError

from ladderboard.engine.errors import CompetitionError, NotFound
from ladderboard.engine.views import CompetitionInfo
from ladderboard.files.solution import SolutionError
from ladderboard.files.submission import SubmissionError
from ladderboard.server.errors import ApiError, sentence, status_of

__all__ = ["REFUSALS", "STATIC_DIR", "find", "fmt", "not_found", "refusal", "render", "templates"]

_HERE = Path(__file__).parent
STATIC_DIR = _HERE / "static"
templates = Jinja2Templates(directory=_HERE / "templates")

_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    # Pages can show a team's token (once) or a team's own scores: keep them out of caches.
    "Cache-Control": "no-store",
}


def render(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
    response = templates.TemplateResponse(request, name, context, status_code=status)
    response.headers.update(_HEADERS)
    return response


def refusal(exc: Exception) -> tuple[int, str]:
    """The status and the sentence the API would answer ``exc`` with."""
    if isinstance(exc, ApiError):
        return exc.status, sentence(exc.message)
    if isinstance(exc, CompetitionError | SubmissionError | SolutionError):
        return status_of(exc), sentence(str(exc))
    if isinstance(exc, ValidationError):
        parts = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3]]
        return 422, sentence("; ".join(parts))
    raise exc


REFUSALS = (ApiError, CompetitionError, SubmissionError, SolutionError, ValidationError)


def find(competitions, slug: str) -> CompetitionInfo | None:
    try:
        return competitions.competition(slug)
    except NotFound:
        return None


def not_found(request: Request, slug: str) -> HTMLResponse:
    return render(
        request,
        "message.html",
        404,
        title="Not found",
        message=f"There is no competition {slug!r}.",
    )


def fmt(value: float | None, precision: int) -> str:
    return "" if value is None else f"{value:.{precision}f}"


templates.env.filters["score"] = fmt
