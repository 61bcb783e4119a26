"""``POST /api/competitions/{slug}/submissions``: the busiest route, as a
plain Starlette route placed before the API's others.

Every other route of the API goes through FastAPI's dependency and
validation layers, which cost a submission about half a millisecond before
its handler starts and a quarter after it returns, more than its admission
read. This route reads its few inputs itself (the token, the
``Idempotency-Key`` header, the ``message`` query parameter and the body's
type), refuses as the API does (the same error handlers answer its
exceptions), and writes its JSON itself, without a response model. Its
OpenAPI operation, which FastAPI cannot derive from a plain route, is
:data:`OPERATION`, added to the app's schema by :func:`document`.

A submission's body is the predictions file itself (``text/csv`` or
``application/gzip``, as the ladderboard client sends it: no form to parse)
or a multipart form (what a browser and ``curl -F`` send) with the file in
the field ``file``. A file is parsed only after the token, the rate limit
and every refusal that needs no file: a team whose quota is spent cannot
make the server decompress and parse its file. A file body announced as at
most 1 MiB (kept in memory) is received first when a scoring slot is free,
and then admitted and scored in one trip through the thread pool. Any other
file body (larger, chunked, or with every slot busy) is received while its
admission is read, and abandoned where it has got to when the submission is
refused. A form is received only once admitted.
"""

from __future__ import annotations

import copy
import math
import tempfile
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing, asynccontextmanager
from typing import Any, BinaryIO, Literal, TypeVar, cast

import anyio
from fastapi.concurrency import run_in_threadpool
from fastapi.security.utils import get_authorization_scheme_param
from starlette.datastructures import FormData
from starlette.datastructures import UploadFile as StarletteUpload
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Match, Route
from starlette.types import Scope

from ladderboard.engine import Competitions
from ladderboard.engine.results import CompetitionInfo, TeamInfo
from ladderboard.rules.explain import release_words
from ladderboard.rules.text import (
    IDEMPOTENCY_KEY_CHARS,
    MESSAGE_CHARS,
    SUBMITTED_NAME_CHARS,
    check_text,
)
from ladderboard.server.api import invalid, read_upload, responses
from ladderboard.server.deps import team_member
from ladderboard.server.errors import ApiError
from ladderboard.server.schemas import SubmissionCreated
from ladderboard.server.settings import Settings

__all__ = [
    "OPERATION",
    "PATH",
    "check_submission_fields",
    "document",
    "route",
    "submit_file",
]

PATH = "/api/competitions/{slug}/submissions"
FILE_TYPES = ("text/csv", "application/gzip", "application/x-gzip", "application/octet-stream")
# A file body is kept in memory up to this size and on disk past it, as
# Starlette spools a form's file: a body that waits for its slot costs little
# memory, and a slow upload holds no slot.
_SPOOL_BYTES = 1 << 20
# A file body announced as at most this size (one kept in memory; a 1e5-row
# file of labels is about 800 KB) is received before the submission is
# admitted when a scoring slot is free, then admitted and scored in one trip
# through the thread pool. Received while the admission is read, it would
# take a second trip, and the two would contend for the interpreter, which
# costs more than the overlap saves for a body this small. Any other file
# body is received while the admission is read, so a caller without a valid
# token makes the server receive up to this much, or what arrives while its
# token is read (up to the upload limit, spooled to disk), and no more.
_RECEIVED_FIRST_BYTES = _SPOOL_BYTES


def check_submission_fields(
    message: str, idempotency_key: str | None, filename: str | None = None
) -> None:
    """The submission's text fields, refused with 422 (the engine checks them too)."""
    try:
        check_text("message", message, max_chars=MESSAGE_CHARS, multiline=True)
        if idempotency_key is not None:
            check_text("Idempotency-Key", idempotency_key, max_chars=IDEMPOTENCY_KEY_CHARS)
        if filename is not None:
            check_text("filename", filename, max_chars=SUBMITTED_NAME_CHARS)
    except (TypeError, ValueError) as exc:
        raise invalid(str(exc)) from None


def submit_file(
    competitions: Competitions,
    settings: Settings,
    team: TeamInfo,
    competition: CompetitionInfo,
    upload: BinaryIO,
    message: str,
    idempotency_key: str | None,
    filename: str | None = None,
) -> SubmissionCreated:
    """Read and submit an uploaded file whose submission was admitted;
    ``filename``, the name it was sent under, is kept if it is refused."""
    data = read_upload(upload, settings.max_upload_bytes, "submission file")
    return _submitted(competitions, team, competition, data, message, idempotency_key, filename)


def _submitted(
    competitions: Competitions,
    team: TeamInfo,
    competition: CompetitionInfo,
    data: bytes,
    message: str,
    idempotency_key: str | None,
    filename: str | None = None,
) -> SubmissionCreated:
    """Submit the file ``data`` of an admitted submission; what it answers."""
    result = competitions.submit(
        competition.slug,
        team.name,
        data,
        message=message,
        idempotency_key=idempotency_key,
        filename=filename,
    )
    explanation = competitions.explain(competition.slug, team.name, result, competition)
    words = release_words(competition.config.mechanism, competition.config.board)
    return SubmissionCreated.of(
        result, explanation, decimals=competitions.decimals(competition), score_of=words.of
    )


def _admit(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    slug: str,
    idempotency_key: str | None,
) -> tuple[TeamInfo, CompetitionInfo]:
    """The calling team and its competition, once its submission is admitted,
    in one trip through the thread pool (:func:`~ladderboard.server.deps.team_member`)."""
    team, competition, read = team_member(
        request, competitions, settings, _bearer_token(request), slug, idempotency_key
    )
    competitions.admit(competition.slug, team.name, idempotency_key, read=read)
    return team, competition


def _bearer_token(request: Request) -> str | None:
    """The bearer token, read as the API's other routes read it (none when
    the header is missing or of another scheme)."""
    authorization = request.headers.get("authorization")
    scheme, token = get_authorization_scheme_param(authorization)
    if not (authorization and scheme and token) or scheme.lower() != "bearer":
        return None
    return token


def _body_kind(request: Request) -> Literal["form", "file"]:
    """Whether the body is a multipart form or the file itself; any other
    type is refused with 415 before anything else is done."""
    media = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media == "multipart/form-data":
        return "form"
    if media in FILE_TYPES:
        return "file"
    raise ApiError(
        415,
        "unsupported_media_type",
        f"a submission's body is the predictions file ({', '.join(FILE_TYPES)}) or a "
        f"multipart/form-data form with the file in the field 'file', not {media or 'untyped'}",
    )


async def submit(request: Request) -> Response:
    """Admit, read, score and answer one submission (see the module's text)."""
    kind = _body_kind(request)
    message = request.query_params.get("message")
    if kind == "form" and message is not None:
        raise invalid("with a multipart form, the message is its field 'message', not in the query")
    filename = request.query_params.get("filename")
    if kind == "form" and filename is not None:
        raise invalid(
            "with a multipart form, the file's name is that of its field 'file', not in the query"
        )
    idempotency_key = request.headers.get("idempotency-key")
    check_submission_fields(message or "", idempotency_key, filename)
    competitions: Competitions = request.app.state.competitions
    settings: Settings = request.app.state.settings
    slug = request.path_params["slug"]
    slots = request.app.state.submission_slots
    if _bearer_token(request) is None:
        # Refused (401, or 404 for no such competition) before one byte of
        # the body is received.
        await run_in_threadpool(_admit, request, competitions, settings, slug, idempotency_key)
    if (
        kind == "file"
        and _announced_bytes(request) <= _RECEIVED_FIRST_BYTES
        and slots.available_tokens
    ):
        # A small body, when a slot is free, is received first (most often it
        # came with the headers), then admitted and scored in one trip through
        # the thread pool: one trip less. A refused one is still never parsed;
        # with every slot busy, refusals are not queued behind scoring.
        data = await _body_bytes(request, settings.max_upload_bytes, _announced_bytes(request))
        async with slots:
            body = await run_in_threadpool(
                _admitted_json, request, competitions, settings, slug, data, message or "",
                idempotency_key, filename,
            )  # fmt: skip
        return _created(body)
    if kind == "file":
        team, competition, upload, size = await _admitted_while_received(
            request, competitions, settings, slug, idempotency_key
        )
        async with _closing(upload):
            _refuse_empty(size)
            body = await _scored(
                request, competitions, settings, team, competition, upload, message or "",
                idempotency_key, filename,
            )  # fmt: skip
        return _created(body)
    team, competition = await run_in_threadpool(
        _admit, request, competitions, settings, slug, idempotency_key
    )
    try:
        form = await request.form(max_files=1, max_fields=4)  # spooled as a file body is
    except ClientDisconnect:
        raise invalid("the body ended before it was complete") from None
    except (ValueError, KeyError) as exc:
        raise invalid(f"the body must be a multipart form with a file: {exc}") from None
    async with _closing(form):
        field = form.get("file")
        if not isinstance(field, StarletteUpload):
            raise invalid("the form has no file field 'file'")
        text = form.get("message", "")
        if not isinstance(text, str):
            raise invalid("the field 'message' must be text")
        check_submission_fields(text, None)
        body = await _scored(
            request, competitions, settings, team, competition, field, text, idempotency_key,
            field.filename,
        )  # fmt: skip
    return _created(body)


def _created(body: bytes) -> Response:
    return Response(body, status_code=201, media_type="application/json")


def _announced_bytes(request: Request) -> float:
    """The body's ``Content-Length`` (infinite when it has none: chunked)."""
    length = request.headers.get("content-length", "")
    return int(length) if length.isascii() and length.isdigit() else float("inf")


def _refuse_empty(size: int) -> None:
    if not size:
        raise invalid(
            "the body is empty: send the predictions file as the body, or as the field "
            "'file' of a multipart form"
        )


def _admitted_json(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    slug: str,
    data: bytes,
    message: str,
    idempotency_key: str | None,
    filename: str | None,
) -> bytes:
    """:func:`_admit`, then the submission of the file ``data`` (received
    whole), in one trip through the thread pool; the answer's JSON."""
    team, competition = _admit(request, competitions, settings, slug, idempotency_key)
    _refuse_empty(len(data))
    created = _submitted(competitions, team, competition, data, message, idempotency_key, filename)
    return created.model_dump_json().encode()


async def _admitted_while_received(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    slug: str,
    idempotency_key: str | None,
) -> tuple[TeamInfo, CompetitionInfo, StarletteUpload, int]:
    """:func:`_admit` in the thread pool while the file body is received
    (:func:`_file_body`): the calling team, its competition, the body and its
    size. A refused admission abandons the body where its receipt has got to
    and is answered first, as if the body had not been sent; only an admitted
    submission is refused for what its body turns out to be (413 past the
    limit as it streams in, or 422 when cut short; a body announced as over
    the limit is refused before, by :class:`~ladderboard.server.limits.RequestGate`)."""
    received: list[tuple[StarletteUpload, int]] = []
    unreceived: list[Exception] = []

    async def receive() -> None:
        try:
            received.append(await _file_body(request, settings.max_upload_bytes))
        except Exception as exc:  # raised below only if the submission is admitted
            unreceived.append(exc)

    refusal: Exception | None = None
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(receive)
            try:
                team, competition = await run_in_threadpool(
                    _admit, request, competitions, settings, slug, idempotency_key
                )
            except Exception as exc:  # raised outside the group: not wrapped in a group
                refusal = exc
                group.cancel_scope.cancel()
        if refusal is not None:
            raise refusal
        if unreceived:
            raise unreceived[0]
    except BaseException:  # a body received in full is closed all the same
        for upload, _ in received:
            upload.file.close()
        raise
    ((upload, size),) = received
    return team, competition, upload, size


async def _file_body(request: Request, limit: int) -> tuple[StarletteUpload, int]:
    """The body as a file (in memory up to 1 MiB, then on disk) and its
    size, refused as :func:`_chunks` refuses."""
    spool = tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES)  # noqa: SIM115 (closed below)
    upload = StarletteUpload(cast(BinaryIO, spool))
    received = 0
    try:
        async with aclosing(_chunks(request, limit)) as chunks:
            async for chunk in chunks:
                received += len(chunk)
                await upload.write(chunk)
        # Seeking or closing an unlinked file on disk is one system call: done
        # here rather than in a thread, so that a cancellation cannot come
        # between the receipt and the file's closing.
        spool.seek(0)
    except BaseException:  # a refusal, or the receipt abandoned (cancelled)
        spool.close()
        raise
    return upload, received


async def _body_bytes(request: Request, limit: int, announced: float) -> bytes:
    """A body announced as small (``announced`` bytes, at most
    :data:`_RECEIVED_FIRST_BYTES`), received whole into memory: no file to
    write it into and read it back from. Refused as :func:`_chunks` refuses,
    past its announced length too (a request both sized and chunked, which
    some HTTP servers frame as chunked), so that no more than it announced
    is ever held."""
    async with aclosing(_chunks(request, limit, announced)) as chunks:
        return b"".join([chunk async for chunk in chunks])


async def _chunks(
    request: Request, limit: int, announced: float = math.inf
) -> AsyncGenerator[bytes, None]:
    """The body's pieces as they arrive, refused with 413 past ``limit``
    bytes, with 422 past ``announced`` bytes, and with 422 when cut short."""
    received = 0
    try:
        async for chunk in request.stream():
            received += len(chunk)
            if received > limit:
                raise ApiError(
                    413,
                    "too_large",
                    f"the submission file is larger than the limit of {limit} bytes",
                )
            if received > announced:
                raise invalid("the body is longer than its Content-Length")
            yield chunk
    except ClientDisconnect:
        raise invalid("the body ended before it was complete") from None


async def _scored(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    team: TeamInfo,
    competition: CompetitionInfo,
    upload: StarletteUpload,
    message: str,
    idempotency_key: str | None,
    filename: str | None,
) -> bytes:
    """The admitted submission of ``upload``, scored in the thread pool once a
    slot is free; its answer's JSON."""
    # At most ``submission_slots`` submissions of this worker are scored at
    # once; the others wait here, so that a burst does not share one core
    # among dozens of threads (which costs each more CPU time).
    async with request.app.state.submission_slots:
        created = await run_in_threadpool(
            submit_file,
            competitions,
            settings,
            team,
            competition,
            upload.file,
            message,
            idempotency_key,
            filename,
        )
    return created.model_dump_json().encode()


_Closable = TypeVar("_Closable", FormData, StarletteUpload)


@asynccontextmanager
async def _closing(closable: _Closable) -> AsyncIterator[_Closable]:
    try:
        yield closable
    finally:
        await closable.close()


class _PostRoute(Route):
    """The route of :data:`PATH`'s POST. A GET (a team's list of its own
    submissions) goes on to the API's route of the same path; any other
    method is a 405, whose ``Allow`` the error handler completes with the
    methods of every route of the path."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
            return Match.NONE, {}
        return super().matches(scope)


route = _PostRoute(PATH, submit, methods=["POST"], name="submit")

# ------------------------------------------------------------------ OpenAPI
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
