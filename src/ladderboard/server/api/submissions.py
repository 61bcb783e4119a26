"""A team's submissions: submitting a file, the team's own list, one of its
submitted files, and its choice of final submissions.

``POST /api/competitions/{slug}/submissions``, the busiest route, is a
FastAPI route like the others, whose handler takes only the request: FastAPI
then neither reads the body nor validates anything, and the handler reads
its few inputs itself (the token, the ``Idempotency-Key`` header, the
``message`` query parameter and the body's type), receives the body as it
streams in, and writes its JSON itself, without a response model. Its
refusals are the API's (the same error handlers answer its exceptions); its
OpenAPI operation, which FastAPI cannot derive from such a handler, is
declared in :mod:`~ladderboard.server.api.submission_openapi`.

A submission's body is the predictions file itself (``text/csv`` or
``application/gzip``, as the ladderboard client sends it: no form to parse)
or a multipart form (what a browser and ``curl -F`` send) with the file in
the field ``file`` (:mod:`~ladderboard.server.api.submission_body`). A file
is parsed only after the token, the rate limit and every refusal that needs
no file: a team whose quota is spent cannot make the server decompress and
parse its file. A file body announced as at most 1 MiB (kept in memory) is
received first when a scoring slot is free, and then admitted and scored in
one trip through the thread pool. Any other file body (larger, chunked, or
with every slot busy) is received while its admission is read, and
abandoned where it has got to when the submission is refused. A form is
received only once admitted.
"""

from __future__ import annotations

import time
from typing import BinaryIO

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.security.utils import get_authorization_scheme_param
from starlette.datastructures import UploadFile as StarletteUpload
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from ladderboard.engine import Competitions
from ladderboard.engine.results import CompetitionInfo, TeamInfo
from ladderboard.rules.explain import release_words
from ladderboard.rules.text import (
    IDEMPOTENCY_KEY_CHARS,
    MESSAGE_CHARS,
    SUBMITTED_NAME_CHARS,
    check_text,
)
from ladderboard.server.api.shared import errors, invalid, read_upload
from ladderboard.server.api.submission_body import (
    RECEIVED_FIRST_BYTES,
    admitted_while_received,
    announced_bytes,
    body_bytes,
    body_kind,
    closing,
    refuse_empty,
)
from ladderboard.server.api.submission_openapi import (
    DESCRIPTION,
    OPENAPI_EXTRA,
    RESPONSES,
    SUMMARY,
)
from ladderboard.server.deps import Competition, CompetitionsDep, TeamDep, team_member
from ladderboard.server.schemas import (
    LateSubmissionOut,
    SelectionIn,
    SelectionOut,
    SubmissionCreated,
    SubmissionOut,
)
from ladderboard.server.settings import Settings

__all__ = [
    "check_submission_fields",
    "router",
    "submit_file",
    "submitted_file",
]

router = APIRouter()


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


@router.post(
    "/competitions/{slug}/submissions",
    status_code=201,
    responses=RESPONSES,
    summary=SUMMARY,
    description=DESCRIPTION,
    openapi_extra=OPENAPI_EXTRA,
)
async def submit(request: Request) -> Response:
    """Admit, read, score and answer one submission (see the module's text)."""
    kind = body_kind(request)
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
        and announced_bytes(request) <= RECEIVED_FIRST_BYTES
        and slots.available_tokens
    ):
        # A small body, when a slot is free, is received first (most often it
        # came with the headers), then admitted and scored in one trip through
        # the thread pool: one trip less. A refused one is still never parsed;
        # with every slot busy, refusals are not queued behind scoring.
        data = await body_bytes(request, settings.max_upload_bytes, announced_bytes(request))
        async with slots:
            body = await run_in_threadpool(
                _admitted_json, request, competitions, settings, slug, data, message or "",
                idempotency_key, filename,
            )  # fmt: skip
        return _created(body)
    if kind == "file":
        (team, competition), upload, size = await admitted_while_received(
            request,
            settings.max_upload_bytes,
            lambda: _admit(request, competitions, settings, slug, idempotency_key),
        )
        async with closing(upload):
            refuse_empty(size)
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
    async with closing(form):
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
    refuse_empty(len(data))
    created = _submitted(competitions, team, competition, data, message, idempotency_key, filename)
    return created.model_dump_json().encode()


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
    metrics = request.app.state.metrics
    waiting = time.perf_counter()
    async with request.app.state.submission_slots:
        scoring = time.perf_counter()
        metrics.slot_wait_seconds.observe(scoring - waiting)
        try:
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
        finally:
            metrics.scoring_seconds.observe(time.perf_counter() - scoring)
    return created.model_dump_json().encode()


@router.get(
    "/competitions/{slug}/submissions",
    responses=errors(401, 403, 404, 422, 429),
    response_model=list[SubmissionOut],
    summary="The calling team's own submissions",
)
def own_submissions(
    competitions: CompetitionsDep, team: TeamDep, competition: Competition
) -> list[SubmissionOut]:
    score_of = release_words(competition.config.mechanism, competition.config.board).of
    return [
        SubmissionOut.of(v, score_of=score_of)
        for v in competitions.submissions(competition.slug, team.name)
    ]


@router.get(
    "/competitions/{slug}/late-submissions",
    responses=errors(401, 403, 404, 422, 429),
    response_model=list[LateSubmissionOut],
    summary="The calling team's own late submissions, with both exact scores",
)
def own_late_submissions(
    competitions: CompetitionsDep, team: TeamDep, competition: Competition
) -> list[LateSubmissionOut]:
    return [
        LateSubmissionOut(**view.__dict__)
        for view in competitions.late_submissions(competition.slug, team.name)
    ]


def submitted_file(slug: str, number: int, data: bytes) -> Response:
    """A submission's file as the team sent it: the bytes received, named
    after the competition and the submission's number, typed by what they
    are (gzip by its first bytes, CSV otherwise)."""
    gzipped = data[:2] == b"\x1f\x8b"
    name = f"{slug}-submission-{number}.csv" + (".gz" if gzipped else "")
    return Response(
        data,
        media_type="application/gzip" if gzipped else "text/csv",
        headers={
            "Content-Disposition": f'attachment; filename="{name}"',
            "Cache-Control": "private, no-cache",  # the team's own
            "X-Content-Type-Options": "nosniff",
        },
    )


SUBMITTED_FILE_CONTENT = {
    "text/csv": {"schema": {"type": "string", "format": "binary"}},
    "application/gzip": {"schema": {"type": "string", "format": "binary"}},
}
"""The OpenAPI content of a submitted file: CSV, or gzip-compressed CSV."""


@router.get(
    "/competitions/{slug}/submissions/{number}/file",
    response_class=Response,
    responses={
        200: {
            "content": SUBMITTED_FILE_CONTENT,
            "description": "The file, byte for byte as the server received it.",
        },
        **errors(401, 403, 404, 422, 429),
    },
    summary="Download one of the calling team's own submitted files",
)
def own_submission_file(
    competitions: CompetitionsDep, team: TeamDep, competition: Competition, number: int
) -> Response:
    data = competitions.submission_file(competition.slug, team.name, number)
    return submitted_file(competition.slug, number, data)


@router.put(
    "/competitions/{slug}/selection",
    responses=errors(401, 403, 404, 409, 422, 429),
    response_model=SelectionOut,
    summary="Choose the team's final submissions (replacing an earlier choice)",
)
def select_final(
    body: SelectionIn, competitions: CompetitionsDep, team: TeamDep, competition: Competition
) -> SelectionOut:
    try:
        competitions.select(competition.slug, team.name, body.numbers)
    except ValueError as exc:
        raise invalid(str(exc)) from None
    views = competitions.submissions(competition.slug, team.name)
    return SelectionOut(selected=[v.number for v in views if v.selected])
