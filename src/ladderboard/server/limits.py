"""A cap on request bodies, enforced while they stream in.

A ``Content-Length`` above the cap is refused at once; a body without one
(chunked) is counted as it arrives and refused as soon as it passes the cap,
before the multipart parser spools it to disk.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException

from ladderboard.server.errors import error_response

__all__ = ["BodyLimit"]


class _TooLarge(HTTPException):
    """Raised from ``receive``: FastAPI passes HTTP exceptions on to the
    handlers, which answer 413 ``too_large``, when it fails to parse a body."""


class BodyLimit:
    """ASGI middleware refusing bodies over ``max_bytes`` with 413 ``too_large``."""

    def __init__(self, app, *, max_bytes: int, message: str) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.message = message

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                await self._refuse(scope, receive, send)
                return
        received = 0
        started = False

        async def counting_receive():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise _TooLarge(413, self.message)
            return message

        async def tracking_send(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _TooLarge:
            if started:
                raise
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope, receive, send) -> None:
        response = error_response(413, "too_large", self.message)
        await response(scope, receive, send)
