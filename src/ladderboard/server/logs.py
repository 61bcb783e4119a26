"""The server's logs: one line per request on the ``ladderboard.access``
logger, with its request id, and JSON lines for a log collector.

Each request has an id: the client's ``X-Request-ID`` when it is a short
token of letters, digits, ``.``, ``_`` and ``-`` (a proxy's, say), else a
new one; the answer carries it back in ``X-Request-ID``, and every line
logged about the request names it. A request's line says its method, route
template, status and time, the competition of its path and the team that
sent it when known: never its query string (an invitation link carries its
code there), a token, a cookie or a file's content.

With ``LADDERBOARD_LOG_FORMAT=json`` (:func:`json_log_config`),
``ladderboard serve`` writes every log line, its own and uvicorn's, as one
JSON object, and the access lines replace uvicorn's; in plain text, uvicorn
writes its own access lines as it always does.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from datetime import UTC, datetime
from typing import Any

__all__ = ["ACCESS", "FIELDS", "JsonLines", "json_log_config", "request_id_of"]

ACCESS = logging.getLogger("ladderboard.access")

FIELDS = (
    "request_id",
    "method",
    "route",
    "status",
    "duration_ms",
    "competition",
    "team",
)
"""The fields a line may carry beside its message (``extra=`` of a log call)."""

_GIVEN_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


def request_id_of(headers: list[tuple[bytes, bytes]]) -> str:
    """The request's id: the client's ``X-Request-ID`` when it is a short
    plain token, else a new random one.

    >>> request_id_of([(b"x-request-id", b"abc-123")])
    'abc-123'
    >>> len(request_id_of([(b"x-request-id", b"no spaces\\nor newlines")]))
    32
    """
    for name, value in headers:
        if name.lower() == b"x-request-id":
            given = value.decode("latin-1")
            if _GIVEN_ID.fullmatch(given):
                return given
    return uuid.uuid4().hex


class JsonLines(logging.Formatter):
    """A log record as one line of JSON: its time (UTC, ISO 8601), level,
    logger and message, the :data:`FIELDS` it carries, and the traceback of
    an exception logged with it.

    >>> record = logging.LogRecord("ladderboard.access", logging.INFO, "", 0,
    ...                            "GET / 200", None, None)
    >>> record.request_id = "abc"
    >>> line = json.loads(JsonLines().format(record))
    >>> line["level"], line["logger"], line["message"], line["request_id"]
    ('INFO', 'ladderboard.access', 'GET / 200', 'abc')
    """

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for field in FIELDS:
            value = getattr(record, field, None)
            if value is not None:
                line[field] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def json_log_config(level: str = "info") -> dict[str, Any]:
    """uvicorn's ``log_config`` for JSON lines: the server's own lines and
    uvicorn's to standard error, one object a line, with the server's access
    lines in place of uvicorn's (``serve`` turns those off)."""
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": f"{__name__}.JsonLines"}},
        "handlers": {"json": handler},
        "loggers": {
            name: {"handlers": ["json"], "level": level.upper(), "propagate": False}
            for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "ladderboard")
        },
        # Every other library's lines (warnings and worse) as JSON too, and
        # Python's warnings, which served_app() sends to the "py.warnings" logger.
        "root": {"handlers": ["json"], "level": "WARNING"},
    }
