"""What a request must show before its body is received, and what its body
may cost: :class:`RequestGate`, the app's outermost middleware but for the
metrics' (:class:`~ladderboard.server.metrics.Measured`).

- **Credentials first.** A write to the API without an ``Authorization``
  header (but a self-registration, where the server allows it) is refused
  with 401 before one byte of its body is read; so is a write to an
  organiser-only API route whose bearer lacks the role the route needs
  (401, or 403 for a lesser role: :mod:`.roles`, counted as the routes count
  them), and an organiser form without a live desk session. The submission
  route reads its own token before its body (:mod:`.submissions`).
- **Small bodies where no file goes.** Routes that take a file may receive
  up to the upload limit (and the envelope of the form around it); the
  organiser's other routes up to :data:`ORGANISER_FORM_BYTES` (two texts of
  100,000 characters, percent-encoded); every other route
  :data:`SMALL_BODY_BYTES`. A ``Content-Length`` above the cap is refused
  at once; a body without one (chunked) is counted as it arrives and refused
  as soon as it passes the cap, before the multipart parser spools it.
- **Bounded receipts.** At most ``upload_slots`` bodies larger than
  :data:`SMALL_BODY_BYTES` (announced or chunked) are received at once by
  one process; another is refused with 503 and ``Retry-After`` before it is
  read, so that slow senders cannot fill the temporary disk.
- **No body waits forever.** Each piece of a body must arrive within
  ``body_timeout_seconds`` of the one before (408 otherwise, and the
  connection closes). Headers that never end are the HTTP server's to cut
  (:mod:`.run` sets its timeouts).
"""

from __future__ import annotations

import re
from typing import Any

import anyio
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request

from ladderboard.server.errors import ApiError, respond, sentence

__all__ = ["ORGANISER_FORM_BYTES", "SMALL_BODY_BYTES", "RequestGate"]

SMALL_BODY_BYTES = 64 * 1024
ORGANISER_FORM_BYTES = 4 * 2**20
# Room for the multipart envelope and the form fields around an upload.
FORM_OVERHEAD_BYTES = 1 << 20

_SLUG = r"(?P<slug>[^/]+)"
# (method, path) of the routes whose body is a file.
_FILE_ROUTES = [
    ("POST", re.compile(r"/api/competitions/?")),
    ("POST", re.compile(rf"/api/competitions/{_SLUG}/teams/import")),
    ("PUT", re.compile(rf"/api/competitions/{_SLUG}/files/.+")),
    ("POST", re.compile(rf"/api/competitions/{_SLUG}/submissions")),
    ("POST", re.compile(rf"/api/competitions/{_SLUG}/corrections")),
    ("POST", re.compile(r"/organiser/competitions")),
    ("POST", re.compile(rf"/organiser/c/{_SLUG}/teams/import")),
    ("POST", re.compile(rf"/organiser/c/{_SLUG}/files")),
    ("POST", re.compile(rf"/organiser/c/{_SLUG}/correction")),
    ("POST", re.compile(rf"/c/{_SLUG}/submit")),
]
# API writes that are not the organiser's alone: a team's own, an account's
# joining, and the self-registration (the route itself says who may register).
_TEAM_SUBMISSIONS = re.compile(rf"/api/competitions/{_SLUG}/submissions")
_TEAM_WRITES = [
    ("PUT", re.compile(rf"/api/competitions/{_SLUG}/selection")),
    # A person's own team (ladderboard.server.api.team_members).
    ("POST", re.compile(rf"/api/competitions/{_SLUG}/my-team(/[^/]+)*")),
    ("DELETE", re.compile(rf"/api/competitions/{_SLUG}/my-team/invitations/[^/]+")),
    ("POST", re.compile(rf"/api/competitions/{_SLUG}/join")),
]
# An account's own tokens, and the accounts an administrator (the organiser's
# token, or an account with the admin role) creates: their routes check the
# caller themselves.
_ACCOUNT_WRITES = [
    ("POST", re.compile(r"/api/account/tokens")),
    ("DELETE", re.compile(r"/api/account/tokens/[^/]+")),
    ("POST", re.compile(r"/api/account/tokens/[^/]+/rotate")),
    ("POST", re.compile(r"/api/accounts")),
]
_REGISTRATION = ("POST", re.compile(rf"/api/competitions/{_SLUG}/teams/?"))
_ORGANISER_SIGN_IN = ("/organiser/login", "/organiser/logout")
_READS = ("GET", "HEAD", "OPTIONS")


class _Refused(HTTPException):
    """Raised from ``receive``: FastAPI passes HTTP exceptions on to the
    handlers when it fails to parse a body, and the gate answers it when
    it escapes the app before a response has started."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(status, message)
        self.code = code


def _matches(routes: list[tuple[str, re.Pattern[str]]], method: str, path: str) -> bool:
    return any(method == m and pattern.fullmatch(path) for m, pattern in routes)


class RequestGate:
    """ASGI middleware: credentials before bodies, body caps, bounded
    receipts and a timeout between a body's pieces (see the module's text)."""

    def __init__(self, app: Any, *, settings: Any) -> None:
        self.app = app
        self.settings = settings
        self.upload_limit = settings.max_upload_bytes + FORM_OVERHEAD_BYTES
        self.receipts = anyio.Semaphore(settings.upload_slots)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] in _READS:
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        request = Request(scope)
        refusal = await self._credentials(request, method, path)
        if refusal is not None:
            await self._answer(request, refusal, send, receive)
            return
        limit, what = self._limit(method, path)
        message = f"The request is larger than the limit of {what}."
        length = request.headers.get("content-length", "")
        announced = int(length) if length.isascii() and length.isdigit() else None
        if announced is not None and announced > limit:
            await self._answer(request, ApiError(413, "too_large", message), send, receive)
            return
        if announced is not None and announced <= SMALL_BODY_BYTES:
            await self._pass(scope, receive, send, request, limit, message)
            return
        try:
            self.receipts.acquire_nowait()
        except anyio.WouldBlock:
            busy = ApiError(
                503,
                "busy",
                "the server is receiving as many files as it can; send again shortly",
                headers={"Retry-After": "5"},
            )
            await self._answer(request, busy, send, receive)
            return
        try:
            await self._pass(scope, receive, send, request, limit, message)
        finally:
            self.receipts.release()

    def _limit(self, method: str, path: str) -> tuple[int, str]:
        """The body cap of ``method`` on ``path``, and what to call it."""
        if _matches(_FILE_ROUTES, method, path):
            return self.upload_limit, f"{self.settings.max_upload_bytes} bytes for a file"
        organisers = (path.startswith("/api/") or path.startswith("/organiser/")) and not (
            path in _ORGANISER_SIGN_IN
            or _matches([*_TEAM_WRITES, *_ACCOUNT_WRITES, _REGISTRATION], method, path)
        )
        if organisers:
            return ORGANISER_FORM_BYTES, f"{ORGANISER_FORM_BYTES} bytes for a form"
        return SMALL_BODY_BYTES, f"{SMALL_BODY_BYTES} bytes for a form"

    async def _credentials(self, request: Request, method: str, path: str) -> ApiError | None:
        """The refusal of a write whose credentials are missing or not the
        organiser's on an organiser-only route, told without its body."""
        if path.startswith("/api/"):
            if _TEAM_SUBMISSIONS.fullmatch(path):
                return None  # reads its token itself, before its body
            is_registration = method == _REGISTRATION[0] and _REGISTRATION[1].fullmatch(path)
            if is_registration and self.settings.allow_self_registration:
                return None
            authorization = request.headers.get("authorization", "")
            if not authorization:
                return ApiError(
                    401,
                    "unauthorized",
                    "this action needs a token (Authorization: Bearer)",
                    headers={"WWW-Authenticate": "Bearer"},
                )
            if _matches([*_TEAM_WRITES, *_ACCOUNT_WRITES], method, path):
                return None
            return await run_in_threadpool(self._organiser_refusal, request, path)
        if path.startswith("/organiser/") and path not in _ORGANISER_SIGN_IN:
            return await run_in_threadpool(self._session_refusal, request)
        return None

    def _organiser_refusal(self, request: Request, path: str) -> ApiError | None:
        """``None`` for the administrator's bearer token, or for a caller
        holding the role the route needs (:mod:`.roles`); else the refusal
        the route's dependencies would give (401, or 403 for a lesser role),
        with the failure counted as they count it."""
        from fastapi.security.utils import get_authorization_scheme_param

        from ladderboard.server.deps import authenticate, is_organiser_token, require_role
        from ladderboard.server.roles import route_of

        scheme, token = get_authorization_scheme_param(request.headers["authorization"])
        if scheme.lower() != "bearer" or not token:
            return None  # the route answers it, with the message the API gives
        if is_organiser_token(self.settings, token):
            return None  # authenticated (and its request spent) by the route
        found = route_of(request.method, path)
        if found is None:
            return None  # not an organiser's route: the route answers it
        template, params = found
        competitions = request.app.state.competitions
        try:
            who = authenticate(request, competitions, self.settings, token)
            require_role(competitions, who, request.method, template, params.get("slug"))
        except ApiError as exc:
            return exc
        return None

    def _session_refusal(self, request: Request) -> ApiError | None:
        from ladderboard.server.organiser_session import signed_in

        if signed_in(request, request.app.state.competitions, self.settings):
            return None
        return ApiError(401, "unauthorized", "sign in with the organiser's token first")

    async def _pass(self, scope, receive, send, request, limit: int, message: str) -> None:
        received = 0
        started = False
        timeout = self.settings.body_timeout_seconds

        async def gated_receive():
            nonlocal received
            try:
                with anyio.fail_after(timeout):
                    message_ = await receive()
            except TimeoutError:
                raise _Refused(
                    408, "timeout", f"the body stopped arriving for {timeout:g} s"
                ) from None
            if message_["type"] == "http.request":
                received += len(message_.get("body", b""))
                if received > limit:
                    raise _Refused(413, "too_large", message)
            return message_

        async def tracking_send(message_):
            nonlocal started
            if message_["type"] == "http.response.start":
                started = True
            await send(message_)

        try:
            await self.app(scope, gated_receive, tracking_send)
        except _Refused as exc:
            if started:
                raise
            refused = ApiError(exc.status_code, exc.code, str(exc.detail))
            await self._answer(request, refused, send, receive, close=True)

    async def _answer(self, request, exc: ApiError, send, receive, close: bool = True) -> None:
        """Answer ``exc`` without reading the body; the connection closes,
        as its unread body cannot be skipped to a next request."""
        headers = dict(exc.headers or {})
        if close:
            headers["Connection"] = "close"
        message = sentence(exc.message)
        response = respond(request, exc.status, exc.code, message, headers)
        await response(request.scope, receive, send)
