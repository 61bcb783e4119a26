"""A competition as one zip archive: the organiser's export, and the audit
bundle the organiser publishes after the private board and anyone downloads.

Each archive is written to a temporary file on disk, one member at a time
as the engine reads the submissions a few at a time, and then streamed
from that file in chunks, so that a competition of many large files never
sits in memory whole. The organiser's export is built for each request and
its file deleted when the response ends. The audit bundle, which anyone may
ask for and which a publication fixes, is built once per publication in a
process (one build at a time) and its file kept for the next request
(:func:`_audit_file`): a crowd of downloads after the reveal reads the store
once, not once each.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import tempfile
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import IO, Annotated, Any

from fastapi import APIRouter, Body
from fastapi.responses import StreamingResponse

from ladderboard.engine.archives import Sink, ZipSink
from ladderboard.server.api.shared import errors
from ladderboard.server.deps import ActingDep, Competition, CompetitionsDep
from ladderboard.server.errors import ApiError
from ladderboard.server.schemas import AuditIn, AuditOut

__all__ = ["audit_url", "router", "zip_download"]

router = APIRouter()

_CHUNK = 2**20
_ZIP_CONTENT = {"application/zip": {"schema": {"type": "string", "format": "binary"}}}


def _chunks(spool: IO[bytes]) -> Iterator[bytes]:
    try:
        while chunk := spool.read(_CHUNK):
            yield chunk
    finally:
        spool.close()


def zip_download(name: str, write: Callable[[Sink], Any], *, cache: str) -> StreamingResponse:
    """The archive ``write`` fills (through a :class:`~ladderboard.engine.archives.Sink`),
    spooled to a temporary file and streamed from it as ``name``; the
    temporary file is closed (and so deleted) when the response ends, and at
    once when ``write`` raises."""
    spool = tempfile.TemporaryFile()  # noqa: SIM115 - closed by _chunks, or below
    try:
        with zipfile.ZipFile(spool, "w") as archive:
            write(ZipSink(archive))
        size = spool.tell()
        spool.seek(0)
    except BaseException:
        spool.close()
        raise
    return StreamingResponse(
        _chunks(spool),
        media_type="application/zip",
        headers={
            "Content-Disposition": f'attachment; filename="{name}"',
            "Content-Length": str(size),
            "Cache-Control": cache,
            "X-Content-Type-Options": "nosniff",
        },
    )


_AUDIT_FILES: OrderedDict[tuple[str, str, str], str] = OrderedDict()
_AUDIT_LOCK = threading.Lock()
_AUDIT_KEPT = 8
"""How many built audit bundles a process keeps on disk, the least recently
asked for dropped first."""


def _audit_file(key: tuple[str, str, str], write: Callable[[Sink], Any]) -> str:
    """The path of the audit bundle of publication ``key`` (the
    competition's commitment, the publication's time and what it holds),
    built by ``write`` when this process has none kept. Builds take turns:
    a second request for the same bundle waits for the first build and
    reads its file."""
    with _AUDIT_LOCK:
        found = _AUDIT_FILES.get(key)
        if found is not None and os.path.exists(found):
            _AUDIT_FILES.move_to_end(key)
            return found
        handle, path = tempfile.mkstemp(prefix="ladderboard-audit-", suffix=".zip")
        try:
            with os.fdopen(handle, "wb") as out, zipfile.ZipFile(out, "w") as archive:
                write(ZipSink(archive))
        except BaseException:
            os.unlink(path)
            raise
        _AUDIT_FILES[key] = path
        while len(_AUDIT_FILES) > _AUDIT_KEPT:
            _, dropped = _AUDIT_FILES.popitem(last=False)
            with contextlib.suppress(OSError):  # a response reading it keeps its handle
                os.unlink(dropped)
        return path


@atexit.register
def _drop_audit_files() -> None:
    for path in _AUDIT_FILES.values():
        with contextlib.suppress(OSError):
            os.unlink(path)


def audit_url(slug: str) -> str:
    """Where anyone downloads the competition's audit bundle."""
    return f"/api/competitions/{slug}/audit"


@router.get(
    "/competitions/{slug}/export",
    responses={**errors(401, 403, 404, 422, 429), 200: {"content": _ZIP_CONTENT}},
    response_class=StreamingResponse,
    summary="Download the whole competition as a zip archive (organiser)",
    description="The solution, every submitted file (laid out as `ladderboard replay` reads "
    "them, with the index `submissions.csv`), the late files (`late/` and `late.csv`), the "
    "refused files' records, the teams, the data files and `competition.json`; the private "
    "scores and the key once published.",
)
def export_competition(acting: ActingDep, competition: Competition) -> StreamingResponse:
    slug = competition.slug
    return zip_download(f"{slug}-export.zip", acting.export(slug), cache="private, no-store")


@router.post(
    "/competitions/{slug}/audit",
    responses=errors(401, 403, 404, 409, 422, 429),
    response_model=AuditOut,
    summary="Publish the audit bundle (organiser), after the private board",
    description="Refused (409) until the private board is published and the key revealed. "
    "Without a body the bundle holds every submitted file; publishing again sets what it "
    "holds.",
)
def publish_audit(
    acting: ActingDep,
    competition: Competition,
    body: Annotated[AuditIn | None, Body()] = None,
) -> AuditOut:
    files = body.files if body is not None else "full"
    published = acting.publish_audit(competition.slug, files)
    return AuditOut(
        slug=competition.slug,
        files=published.files,
        published_at=published.published_at,
        url=audit_url(competition.slug),
    )


@router.get(
    "/competitions/{slug}/audit",
    responses={**errors(404, 422, 429), 200: {"content": _ZIP_CONTENT}},
    response_class=StreamingResponse,
    summary="Download the published audit bundle (anyone)",
    description="The solution, the key, the commitment, the configuration, every board's "
    "submissions with their releases, decisions and private scores, their files (or their "
    "SHA-256) and the boards' final states: what `ladderboard verify --bundle` checks with "
    "no server. 404 until the organiser publishes it.",
)
def download_audit(competitions: CompetitionsDep, competition: Competition) -> StreamingResponse:
    slug = competition.slug
    published = competitions.audit_publication(slug)
    if published is None:
        raise ApiError(
            404,
            "not_found",
            f"the audit bundle of {slug!r} is not published: the organiser publishes it "
            "after the private board",
        )
    key = (competition.commitment, published.published_at.isoformat(), published.files)
    path = _audit_file(key, lambda sink: competitions.audit_bundle(slug, sink))
    spool = open(path, "rb")  # noqa: SIM115 - closed by _chunks
    return StreamingResponse(
        _chunks(spool),
        media_type="application/zip",
        headers={
            "Content-Disposition": f'attachment; filename="{slug}-audit.zip"',
            "Content-Length": str(os.fstat(spool.fileno()).st_size),
            "Cache-Control": "public, max-age=300",
            "X-Content-Type-Options": "nosniff",
        },
    )
