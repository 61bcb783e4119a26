"""What the API's resource modules share: the OpenAPI description of their
refusals, and reading uploads and form values (each refused as the API
refuses: 413 past the upload limit, 422 for a value that is not valid)."""

from __future__ import annotations

import json
from typing import Annotated, Any, BinaryIO

from fastapi import Path, UploadFile
from starlette.datastructures import UploadFile as StarletteUpload

from ladderboard.rules.text import check_file_name, check_json
from ladderboard.server.errors import ApiError
from ladderboard.server.schemas import ErrorOut
from ladderboard.server.settings import Settings

__all__ = [
    "DEFAULT",
    "RowId",
    "document_shared_errors",
    "errors",
    "file_name",
    "invalid",
    "json_object",
    "optional_int",
    "read_data_files",
    "read_upload",
    "responses",
]

RowId = Annotated[int, Path(ge=1, le=2**63 - 1, description="A row's id.")]
"""An id the store can hold (a larger one is a 422, not a driver's overflow)."""

_ERRORS = {
    400: "The file cannot be read (a bad solution or submission file).",
    401: "The bearer token is missing or not valid here.",
    403: "The token's role may not do this (or the private board before the close).",
    404: "No such competition, team submission or page.",
    409: "A duplicate, a name or key already used, or the competition is closed.",
    413: "The file is larger than the server's or the competition's limit.",
    415: "The body is neither the file (text/csv, application/gzip) nor a multipart form.",
    422: "A form field, query parameter or JSON body is not valid.",
    429: (
        "The team's quota or a rate limit (the token's, or the address's reads without "
        "a token) is spent: Retry-After says when to ask again; without it (the total "
        "quota, the invalid-file cap) it is final."
    ),
    503: "The database cannot answer or write now: Retry-After says when to ask again.",
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI description of the error responses a route can give."""
    return {s: {"model": ErrorOut, "description": _ERRORS[s]} for s in statuses}


def responses(*statuses: int) -> dict[str, dict[str, Any]]:
    """:func:`errors` as an OpenAPI document spells them, for a route that
    FastAPI does not describe."""
    schema = {"$ref": "#/components/schemas/ErrorOut"}
    return {
        str(s): {"description": _ERRORS[s], "content": {"application/json": {"schema": schema}}}
        for s in statuses
    }


def document_shared_errors(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` (the OpenAPI schema) with the refusals any operation can
    give: 503 when the database cannot answer, and on reads the 429 of the
    limit on anonymous reads."""
    for operations in document.get("paths", {}).values():
        for method, operation in operations.items():
            answers = operation.setdefault("responses", {})
            shared = (429, 503) if method in ("get", "head") else (503,)
            for status, response in responses(*shared).items():
                answers.setdefault(status, response)
    return document


def invalid(message: str) -> ApiError:
    """A refusal of the request as not valid (422)."""
    return ApiError(422, "invalid_request", message)


def read_upload(upload: BinaryIO, limit: int, what: str) -> bytes:
    """The uploaded file's bytes, refused with 413 beyond ``limit``."""
    data = upload.read(limit + 1)
    if len(data) > limit:
        raise ApiError(413, "too_large", f"the {what} is larger than the limit of {limit} bytes")
    return data


DEFAULT = object()
"""A form value left out: the competition takes its default."""


def optional_int(name: str, value: str | None) -> object:
    """A form value: absent → ``DEFAULT``, ``none`` → no limit, else an integer."""
    if value is None or value.strip() == "":
        return DEFAULT
    if value.strip().lower() == "none":
        return None
    try:
        return int(value)
    except ValueError:
        raise invalid(f"{name} must be an integer or 'none', got {value!r}") from None


def json_object(name: str, value: str | None) -> dict[str, Any]:
    """A form value holding a JSON object (absent or blank: an empty one)."""
    if value is None or value.strip() == "":
        return {}
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as exc:
        raise invalid(f"{name} must be a JSON object, not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise invalid(f"{name} is nested too deeply") from None
    if not isinstance(parsed, dict):
        raise invalid(f"{name} must be a JSON object, got {type(parsed).__name__}")
    try:
        return check_json(name, parsed)
    except ValueError as exc:
        raise invalid(str(exc)) from None


def read_data_files(
    uploads: list[UploadFile] | list[StarletteUpload], settings: Settings
) -> list[tuple[str, bytes]]:
    """The data files uploaded with a form, each name checked and each within
    the upload limit, before anything is stored."""
    files, names = [], set()
    for upload in uploads:
        if not upload.filename:
            continue
        name = file_name(upload.filename)
        if name in names:
            raise invalid(f"two data files are named {name!r}")
        names.add(name)
        files.append((name, read_upload(upload.file, settings.max_upload_bytes, "data file")))
    return files


def file_name(name: str) -> str:
    """A data file's name, refused with 422 unless a file may be named so."""
    try:
        return check_file_name(name)
    except ValueError as exc:
        raise invalid(str(exc)) from None
