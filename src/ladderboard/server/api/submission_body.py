"""Receiving a submission's body: the file itself (``text/csv`` or
``application/gzip``) or a multipart form, told apart by its type; a file
body received as it streams in, refused past the upload limit, and received
while the submission's admission is read in the thread pool, so that a
refused submission abandons its body where it has got to."""

from __future__ import annotations

import math
import tempfile
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing, asynccontextmanager
from typing import BinaryIO, Literal, TypeVar, cast

import anyio
from fastapi.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.datastructures import UploadFile as StarletteUpload
from starlette.requests import ClientDisconnect, Request

from ladderboard.server.api.shared import invalid
from ladderboard.server.errors import ApiError

__all__ = [
    "FILE_TYPES",
    "RECEIVED_FIRST_BYTES",
    "admitted_while_received",
    "announced_bytes",
    "body_bytes",
    "body_kind",
    "closing",
    "refuse_empty",
]

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
RECEIVED_FIRST_BYTES = _SPOOL_BYTES


def body_kind(request: Request) -> Literal["form", "file"]:
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


def announced_bytes(request: Request) -> float:
    """The body's ``Content-Length`` (infinite when it has none: chunked)."""
    length = request.headers.get("content-length", "")
    return int(length) if length.isascii() and length.isdigit() else float("inf")


def refuse_empty(size: int) -> None:
    """Refuse a body of ``size`` 0 bytes with 422."""
    if not size:
        raise invalid(
            "the body is empty: send the predictions file as the body, or as the field "
            "'file' of a multipart form"
        )


_Admitted = TypeVar("_Admitted")


async def admitted_while_received(
    request: Request, limit: int, admit: Callable[[], _Admitted]
) -> tuple[_Admitted, StarletteUpload, int]:
    """``admit()`` in the thread pool while the file body is received
    (:func:`_file_body`): what it returns (the calling team and its
    competition), the body and its size. A refused admission abandons the
    body where its receipt has got to and is answered first, as if the body
    had not been sent; only an admitted submission is refused for what its
    body turns out to be (413 past the limit as it streams in, or 422 when
    cut short; a body announced as over the limit is refused before, by
    :class:`~ladderboard.server.limits.RequestGate`)."""
    received: list[tuple[StarletteUpload, int]] = []
    unreceived: list[Exception] = []

    async def receive() -> None:
        try:
            received.append(await _file_body(request, limit))
        except Exception as exc:  # raised below only if the submission is admitted
            unreceived.append(exc)

    refusal: Exception | None = None
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(receive)
            try:
                admitted = await run_in_threadpool(admit)
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
    return admitted, upload, size


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


async def body_bytes(request: Request, limit: int, announced: float) -> bytes:
    """A body announced as small (``announced`` bytes, at most
    :data:`RECEIVED_FIRST_BYTES`), received whole into memory: no file to
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


_Closable = TypeVar("_Closable", FormData, StarletteUpload)


@asynccontextmanager
async def closing(closable: _Closable) -> AsyncIterator[_Closable]:
    """``closable`` (a form or an uploaded file), closed on the way out."""
    try:
        yield closable
    finally:
        await closable.close()
