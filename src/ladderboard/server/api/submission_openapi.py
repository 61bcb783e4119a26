"""The OpenAPI description of ``POST /api/competitions/{slug}/submissions``
that FastAPI cannot derive from its handler, which takes only the request
and reads its inputs itself: the parameters, the two kinds of body, the
bearer token, and the answers (:data:`RESPONSES`)."""

from __future__ import annotations

from typing import Any

from ladderboard.rules.text import IDEMPOTENCY_KEY_CHARS, MESSAGE_CHARS, SUBMITTED_NAME_CHARS
from ladderboard.server.api.shared import errors
from ladderboard.server.api.submission_body import FILE_TYPES
from ladderboard.server.schemas import SubmissionCreated

__all__ = ["DESCRIPTION", "OPENAPI_EXTRA", "RESPONSES", "SUMMARY"]

_FILE_BODY = {"schema": {"type": "string", "format": "binary"}}
SUMMARY = "Submit predictions (team)"
DESCRIPTION = (
    "Send the predictions file as the body (`Content-Type: text/csv` or "
    "`application/gzip`; the message, if any, in the query) or as the field `file` "
    "of a multipart form. A competition not open yet (409 `not_open`) or closed, a "
    "spent quota and a spent invalid-file cap are refused before the file is parsed "
    "and before a form is received; a file body's receipt stops at the refusal. After "
    "the publication, a competition that takes late submissions scores a file exactly "
    "on the public and private rows: the answer says `late: true`, with its private score."
)
OPENAPI_EXTRA: dict[str, Any] = {
    "security": [{"HTTPBearer": []}],
    "parameters": [
        {"name": "slug", "in": "path", "required": True, "schema": {"type": "string"}},
        {
            "name": "Idempotency-Key",
            "in": "header",
            "required": False,
            "description": "Resending the same file with the same key returns the first result.",
            "schema": {"type": "string", "maxLength": IDEMPOTENCY_KEY_CHARS},
        },
        {
            "name": "message",
            "in": "query",
            "required": False,
            "description": "A note for the team's own list, when the body is the file itself.",
            "schema": {"type": "string", "maxLength": MESSAGE_CHARS},
        },
        {
            "name": "filename",
            "in": "query",
            "required": False,
            "description": "The file's name, when the body is the file itself: the team's "
            "list of refused files shows it (a form's file carries its own).",
            "schema": {"type": "string", "maxLength": SUBMITTED_NAME_CHARS},
        },
    ],
    "requestBody": {
        "required": True,
        "description": (
            "The predictions file (CSV, gzip or not) as the whole body, with the message "
            "in the query; or a multipart form with the file and the message as fields."
        ),
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {
                        "file": {
                            "type": "string",
                            "format": "binary",
                            "description": "The predictions CSV, gzip or not.",
                        },
                        "message": {
                            "type": "string",
                            "maxLength": MESSAGE_CHARS,
                            "description": "A note for the team's own list.",
                        },
                    },
                }
            },
            **dict.fromkeys(FILE_TYPES, _FILE_BODY),
        },
    },
}
"""The operation's parameters, body and security, merged into what FastAPI
derives from the route (its operation id, summary and answers)."""
RESPONSES: dict[int | str, dict[str, Any]] = {
    201: {
        "model": SubmissionCreated,
        "description": "The submission was scored: what the board released for it.",
    },
    **errors(400, 401, 403, 404, 409, 413, 415, 422, 429),
}
