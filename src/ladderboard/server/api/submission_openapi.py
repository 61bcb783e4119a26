"""The OpenAPI operation of ``POST /api/competitions/{slug}/submissions``,
which FastAPI cannot derive from the route's plain handler, and
:func:`document`, which adds it to the app's schema."""

from __future__ import annotations

import copy
from typing import Any

from ladderboard.rules.text import IDEMPOTENCY_KEY_CHARS, MESSAGE_CHARS, SUBMITTED_NAME_CHARS
from ladderboard.server.api.shared import responses
from ladderboard.server.api.submission_body import FILE_TYPES
from ladderboard.server.schemas import SubmissionCreated

__all__ = ["OPERATION", "PATH", "document"]

PATH = "/api/competitions/{slug}/submissions"
_FILE_BODY = {"schema": {"type": "string", "format": "binary"}}
OPERATION: dict[str, Any] = {
    "summary": "Submit predictions (team)",
    "description": (
        "Send the predictions file as the body (`Content-Type: text/csv` or "
        "`application/gzip`; the message, if any, in the query) or as the field `file` "
        "of a multipart form. A closed competition, a spent quota and a spent "
        "invalid-file cap are refused before the file is parsed and before a form is "
        "received; a file body's receipt stops at the refusal."
    ),
    "operationId": "submit_api_competitions__slug__submissions_post",
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
    "responses": {
        "201": {
            "description": "The submission was scored: what the board released for it.",
            "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/SubmissionCreated"}}
            },
        },
        **responses(400, 401, 403, 404, 409, 413, 415, 422, 429),
    },
}


def document(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (the app's OpenAPI document) with this route's operation
    and the models it refers to."""
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    model = SubmissionCreated.model_json_schema(ref_template="#/components/schemas/{model}")
    components.update(model.pop("$defs", {}))
    components["SubmissionCreated"] = model
    schema.setdefault("paths", {}).setdefault(PATH, {})["post"] = copy.deepcopy(OPERATION)
    return schema
