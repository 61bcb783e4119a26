"""The connection to a ladderboard server: each request carries the bearer
token, a busy answer is asked again within bounds, and a refusal is a
:class:`ServerError`. :class:`~ladderboard.client.Client` adds the server's
resources (competitions, files, teams, submissions, boards) on top.

Busy answers are retried: a 429 (too many requests) or a 503 (service
unavailable) is asked again after the wait its ``Retry-After`` header gives
(seconds, or an HTTP date; 1, 2, 4, ... seconds without one), at most
:data:`RETRIES` times, no single wait longer than :data:`MAX_WAIT` and all
of them together no longer than :data:`MAX_TOTAL_WAIT` seconds; a server
asking for a longer wait is answered at once with its refusal. Each is a
keyword of :class:`Transport`. A spent quota is final: it is never asked
again, not even a daily quota whose ``Retry-After`` (the seconds to the next
UTC midnight) is short, since the file would then spend the next day's
quota without the participant choosing to.

What may be sent again:

- a 429 of this server is always its refusal before acting: the rate limits
  are spent while the token is checked, before the route runs, and a spent
  quota is refused at admission, before the file is read, and again inside
  the submission's transaction, before anything is stored. So any request,
  a ``POST`` too, is retried after a 429 of the rate limits;
- a 503 comes from the server when its database cannot answer, or from a
  proxy in front of it, which cannot say how far the request went (nor can
  the server, when its connection dropped during a commit). It is retried
  only for the idempotent methods (``GET``, ``HEAD``, ``PUT``, ``DELETE``,
  ``OPTIONS``) and for a ``POST`` carrying an ``Idempotency-Key``, which
  the server answers with the first result if it did store it
  (``ladderboard submit`` always sends one).
"""

from __future__ import annotations

import io
import math
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import IO, Any, Self

import httpx2

from ladderboard.terminal import Progress

__all__ = [
    "DEFAULT_SERVER",
    "MAX_TOTAL_WAIT",
    "MAX_WAIT",
    "RETRIES",
    "TIMEOUT",
    "ServerError",
    "Transport",
    "Waiting",
    "retry_after",
    "uploads",
]

DEFAULT_SERVER = "http://127.0.0.1:8000"

TIMEOUT = 60.0
"""Seconds to wait for each request, by default."""
RETRIES = 3
"""How many times a 429 or 503 is asked again, by default."""
MAX_WAIT = 60.0
"""The longest single wait (seconds) before asking again, by default; a
server asking for more is not asked again."""
MAX_TOTAL_WAIT = 120.0
"""The longest time (seconds) spent waiting for one request, by default."""

_RETRIED = frozenset({429, 503})
_IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})


class ServerError(Exception):
    """A request the server refused (or could not answer).

    Attributes
    ----------
    status : int
        The HTTP status (0 when the server could not be reached).
    code : str
        The server's short error code, e.g. ``duplicate`` or ``too_large``.
    message : str
        The server's sentence saying what happened.
    """

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"{status} {code}: {message}" if status else message)
        self.status = status
        self.code = code
        self.message = message

    @property
    def unreachable(self) -> bool:
        """Whether no answer came (the server is down or not there), or the
        server said it cannot answer now (5xx): trying later may help."""
        return self.status == 0 or self.status >= 500


Waiting = Callable[[float, "ServerError", int], None]
"""Told of each wait before a retry: ``on_wait(seconds, refusal, retry)``,
``retry`` counting from 1."""


def retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """The seconds a ``Retry-After`` header asks for: a number of seconds or
    an HTTP date (a date already past is 0); ``None`` when absent or unreadable.

    >>> retry_after("7"), retry_after(None), retry_after("soon")
    (7.0, None, None)
    >>> retry_after("Wed, 21 Oct 2015 07:28:30 GMT",
    ...             now=datetime(2015, 10, 21, 7, 28, tzinfo=UTC))
    30.0
    """
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None


class _Upload(io.BytesIO):
    """Bytes sent as a file, telling ``advance(done, total)`` as httpx2 reads
    them (it seeks back to the start when a request is sent again)."""

    def __init__(self, data: bytes, advance: Progress, offset: int, total: int):
        super().__init__(data)
        self._advance, self._offset, self._total = advance, offset, total

    def read(self, size: int | None = -1) -> bytes:
        chunk = super().read(size)
        self._advance(self._offset + self.tell(), self._total)
        return chunk


def uploads(parts: list[bytes], advance: Progress | None) -> list[bytes | IO[bytes]]:
    """``parts`` as the files of one form, each reporting to ``advance``."""
    if advance is None:
        return list(parts)
    total, offset = sum(map(len, parts)), 0
    out: list[bytes | IO[bytes]] = []
    for data in parts:
        out.append(_Upload(data, advance, offset, total))
        offset += len(data)
    return out


def _error(response: httpx2.Response) -> ServerError:
    """The refusal an error response carries: the server's code and message,
    or the start of a body that is not the server's JSON (a proxy's page)."""
    try:
        body = response.json()
        return ServerError(response.status_code, str(body["error"]), str(body["message"]))
    except (ValueError, KeyError, TypeError):
        text = response.text.strip()[:200] or response.reason_phrase
        return ServerError(response.status_code, "http_error", text)


class Transport:
    """Requests to one server with one bearer token, busy answers asked
    again as the module's docstring says.

    Parameters
    ----------
    server : str or None
        The server's base URL (default ``LADDERBOARD_SERVER``, else
        ``http://127.0.0.1:8000``).
    token : str or None
        The organiser's or a team's token (default ``LADDERBOARD_TOKEN``).
    timeout : float or None
        Seconds to wait for each request (default :data:`TIMEOUT`); a
        connection given as ``http`` keeps its own unless one is given.
    http : httpx2.Client, optional
        The connection to use instead of a new one, e.g. a FastAPI
        ``TestClient(app)`` in tests; it is shared, not closed, by this client.
    retries : int
        How many times a 429 or 503 is asked again (:data:`RETRIES`; 0: never).
    max_wait : float
        The longest single wait, in seconds (:data:`MAX_WAIT`).
    max_total_wait : float
        The longest time spent waiting for one request (:data:`MAX_TOTAL_WAIT`).
    on_wait : callable, optional
        Told of each wait before it starts: ``on_wait(seconds, refusal, retry)``.
    """

    def __init__(
        self,
        server: str | None = None,
        token: str | None = None,
        *,
        timeout: float | None = None,
        http: httpx2.Client | None = None,
        retries: int = RETRIES,
        max_wait: float = MAX_WAIT,
        max_total_wait: float = MAX_TOTAL_WAIT,
        on_wait: Waiting | None = None,
    ):
        self.server = (server or os.environ.get("LADDERBOARD_SERVER") or DEFAULT_SERVER).rstrip("/")
        self.token = token if token is not None else os.environ.get("LADDERBOARD_TOKEN")
        self.timeout = timeout
        self.retries = retries
        self.max_wait = max_wait
        self.max_total_wait = max_total_wait
        self.on_wait = on_wait
        self._owns_http = http is None
        self._http = (
            http
            if http is not None
            else httpx2.Client(timeout=TIMEOUT if timeout is None else timeout)
        )
        # Sent with each request only when asked for over a given connection:
        # a connection of our own carries it, a given one keeps its own.
        self._per_request: dict[str, Any] = (
            {} if timeout is None or http is None else {"timeout": timeout}
        )

    def close_connection(self) -> None:
        """Release the connections (unless they were given)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close_connection()

    def _headers(self, extra: dict[str, str] | None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return headers | (extra or {})

    def _unreachable(self, exc: httpx2.HTTPError) -> ServerError:
        return ServerError(0, "unreachable", f"cannot reach {self.server}: {exc}")

    def _wait_before_retry(
        self,
        method: str,
        headers: dict[str, str],
        response: httpx2.Response,
        retry: int,
        waited: float,
    ) -> float | None:
        """The seconds to wait before asking ``response``'s request again, or
        ``None`` when it must not be (see the module's docstring)."""
        status = response.status_code
        if status not in _RETRIED or retry > self.retries:
            return None
        if status == 503 and method not in _IDEMPOTENT and "Idempotency-Key" not in headers:
            return None
        if _error(response).code == "quota":
            return None  # a spent quota is the participant's to act on, never asked again
        asked = retry_after(response.headers.get("Retry-After"))
        wait = float(2 ** (retry - 1)) if asked is None else asked
        if wait > self.max_wait or waited + wait > self.max_total_wait:
            return None
        return wait

    def _sending(
        self, method: str, headers: dict[str, str], send: Callable[[], httpx2.Response]
    ) -> httpx2.Response:
        """``send()``'s response (a request with ``headers``), sent again after
        a busy answer while the bounds allow; a refusal raises :class:`ServerError`."""
        waited, retry = 0.0, 1
        while True:
            response = send()
            if 300 <= response.status_code < 400:
                # Not followed: a redirect may go to another host, and the
                # token would go with the request (a 301 from http to https
                # is the usual case: the user should give the https URL).
                response.close()
                target = response.headers.get("location", "elsewhere")
                raise ServerError(
                    response.status_code,
                    "redirect",
                    f"{self.server} redirects to {target}: give that address as the server",
                )
            if response.status_code < 400:
                return response
            response.read()
            wait = self._wait_before_retry(method, headers, response, retry, waited)
            if wait is None:
                raise _error(response)
            response.close()
            if self.on_wait is not None:
                self.on_wait(wait, _error(response), retry)
            time.sleep(wait)
            waited += wait
            retry += 1

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx2.Response:
        headers = self._headers(kwargs.pop("headers", None))
        content = kwargs.get("content")

        def send() -> httpx2.Response:
            if isinstance(content, io.IOBase):
                content.seek(0)  # a body sent again is sent whole
            return self._http.request(
                method, self.server + path, headers=headers, **self._per_request, **kwargs
            )

        try:
            return self._sending(method, headers, send)
        except httpx2.HTTPError as exc:
            raise self._unreachable(exc) from exc

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        """The JSON body of ``_request``'s answer; an answer that is not JSON
        (a web page at that address: not a ladderboard server, or not its
        root) is a :class:`ServerError`, not a decoding error."""
        response = self._request(method, path, **kwargs)
        try:
            return response.json()
        except ValueError:
            kind = response.headers.get("content-type", "no content type").split(";")[0]
            raise ServerError(
                response.status_code,
                "not_json",
                f"{self.server}{path} answered with {kind}, not the JSON of a ladderboard "
                "server: is the server's URL right?",
            ) from None

    @contextmanager
    def _stream(self, method: str, path: str) -> Iterator[httpx2.Response]:
        """The response with its body unread, for files too large to hold;
        a connection lost while the body is read is :class:`ServerError` too."""
        headers = self._headers(None)

        def send() -> httpx2.Response:
            request = self._http.build_request(
                method, self.server + path, headers=headers, **self._per_request
            )
            return self._http.send(request, stream=True)

        try:
            response = self._sending(method, headers, send)
            try:
                yield response
            finally:
                response.close()
        except httpx2.HTTPError as exc:
            raise self._unreachable(exc) from exc
