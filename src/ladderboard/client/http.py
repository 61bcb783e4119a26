"""A small client of the competition server's REST API, over httpx.

The ``ladderboard`` CLI's participant and organiser verbs are thin wrappers
around :class:`Client`; the demo and the load benchmark use it too. Each
method returns the server's JSON; a refusal raises :class:`ServerError`
carrying the HTTP status, the server's error code and its message.

Typical use (``ladderboard submit`` does this)::

    with Client("http://127.0.0.1:8000", token) as client:
        result = client.submit("my-competition", Path("predictions.csv").read_bytes())
        print(result["public_score"], result["remaining_today"])

Busy answers are retried: a 429 (too many requests) or a 503 (service
unavailable) is asked again after the wait its ``Retry-After`` header gives
(seconds, or an HTTP date; 1, 2, 4, ... seconds without one), at most
:data:`RETRIES` times, no single wait longer than :data:`MAX_WAIT` and all
of them together no longer than :data:`MAX_TOTAL_WAIT` seconds; a server
asking for a longer wait (a daily quota resets at midnight) is answered at
once with its refusal. Each is a keyword of :class:`Client`. A spent quota
without ``Retry-After`` (the total quota, the invalid-file cap) is final:
it is never asked again.

What may be sent again:

- a 429 of this server is always its refusal before acting: the rate limits
  are spent while the token is checked, before the route runs, and a spent
  quota is refused at admission, before the file is read, and again inside
  the submission's transaction, before anything is stored. So any request,
  a ``POST`` too, is retried after a 429;
- a 503 comes from the server when its database cannot answer, or from a
  proxy in front of it, which cannot say how far the request went (nor can
  the server, when its connection dropped during a commit). It is retried
  only for the idempotent methods (``GET``, ``HEAD``, ``PUT``, ``DELETE``,
  ``OPTIONS``) and for a ``POST`` carrying an ``Idempotency-Key``, which
  the server answers with the first result if it did store it
  (``ladderboard submit`` always sends one).
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import IO, Any
from urllib.parse import quote

import httpx

from ladderboard.terminal import Progress, parse_params

__all__ = [
    "DEFAULT_SERVER",
    "KEEP",
    "MAX_TOTAL_WAIT",
    "MAX_WAIT",
    "RETRIES",
    "Client",
    "ServerError",
    "Waiting",
    "parse_params",
    "retry_after",
]

DEFAULT_SERVER = "http://127.0.0.1:8000"

RETRIES = 3
"""How many times a 429 or 503 is asked again, by default."""
MAX_WAIT = 60.0
"""The longest single wait (seconds) before asking again, by default; a
server asking for more is not asked again."""
MAX_TOTAL_WAIT = 120.0
"""The longest time (seconds) spent waiting for one request, by default."""

_RETRIED = frozenset({429, 503})
_IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})


class _Keep:
    def __repr__(self) -> str:
        return "KEEP"


KEEP = _Keep()
"""The deadline of :meth:`Client.update_competition` left as it is: ``None``
there means "no deadline", so it cannot also mean "unchanged"."""


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
    """Bytes sent as a file, telling ``advance(done, total)`` as httpx reads
    them (it seeks back to the start when a request is sent again)."""

    def __init__(self, data: bytes, advance: Progress, offset: int, total: int):
        super().__init__(data)
        self._advance, self._offset, self._total = advance, offset, total

    def read(self, size: int | None = -1) -> bytes:
        chunk = super().read(size)
        self._advance(self._offset + self.tell(), self._total)
        return chunk


def _uploads(parts: list[bytes], advance: Progress | None) -> list[bytes | IO[bytes]]:
    """``parts`` as the files of one form, each reporting to ``advance``."""
    if advance is None:
        return list(parts)
    total, offset = sum(map(len, parts)), 0
    out: list[bytes | IO[bytes]] = []
    for data in parts:
        out.append(_Upload(data, advance, offset, total))
        offset += len(data)
    return out


def _segment(value: str) -> str:
    """A name as one path segment: a team's ``a/b`` or ``50%`` stays one."""
    return quote(value, safe="")


def _error(response: httpx.Response) -> ServerError:
    try:
        body = response.json()
        return ServerError(response.status_code, str(body["error"]), str(body["message"]))
    except (ValueError, KeyError, TypeError):
        text = response.text.strip()[:200] or response.reason_phrase
        return ServerError(response.status_code, "http_error", text)


class Client:
    """The REST API of one server, as one bearer token sees it.

    Parameters
    ----------
    server : str or None
        The server's base URL (default ``LADDERBOARD_SERVER``, else
        ``http://127.0.0.1:8000``).
    token : str or None
        The organiser's or a team's token (default ``LADDERBOARD_TOKEN``).
    timeout : float
        Seconds to wait for each request.
    http : httpx.Client, optional
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
        timeout: float = 60.0,
        http: httpx.Client | None = None,
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
        self._http = http if http is not None else httpx.Client(timeout=timeout)

    def close_connection(self) -> None:
        """Release the connections (unless they were given)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close_connection()

    def with_token(self, token: str) -> Client:
        """A client of the same server, on the same connections, with another token."""
        return Client(
            self.server,
            token,
            timeout=self.timeout,
            http=self._http,
            retries=self.retries,
            max_wait=self.max_wait,
            max_total_wait=self.max_total_wait,
            on_wait=self.on_wait,
        )

    def _headers(self, extra: dict[str, str] | None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return headers | (extra or {})

    def _unreachable(self, exc: httpx.HTTPError) -> ServerError:
        return ServerError(0, "unreachable", f"cannot reach {self.server}: {exc}")

    def _wait_before_retry(
        self,
        method: str,
        headers: dict[str, str],
        response: httpx.Response,
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
        asked = retry_after(response.headers.get("Retry-After"))
        if asked is None and _error(response).code == "quota":
            return None
        wait = float(2 ** (retry - 1)) if asked is None else asked
        if wait > self.max_wait or waited + wait > self.max_total_wait:
            return None
        return wait

    def _sending(
        self, method: str, headers: dict[str, str], send: Callable[[], httpx.Response]
    ) -> httpx.Response:
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

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = self._headers(kwargs.pop("headers", None))
        content = kwargs.get("content")

        def send() -> httpx.Response:
            if isinstance(content, io.IOBase):
                content.seek(0)  # a body sent again is sent whole
            return self._http.request(
                method, self.server + path, headers=headers, timeout=self.timeout, **kwargs
            )

        try:
            return self._sending(method, headers, send)
        except httpx.HTTPError as exc:
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
    def _stream(self, method: str, path: str) -> Iterator[httpx.Response]:
        """The response with its body unread, for files too large to hold;
        a connection lost while the body is read is :class:`ServerError` too."""
        headers = self._headers(None)

        def send() -> httpx.Response:
            request = self._http.build_request(
                method, self.server + path, headers=headers, timeout=self.timeout
            )
            return self._http.send(request, stream=True)

        try:
            response = self._sending(method, headers, send)
            try:
                yield response
            finally:
                response.close()
        except httpx.HTTPError as exc:
            raise self._unreachable(exc) from exc

    @staticmethod
    def _path(slug: str, *parts: str) -> str:
        return "/".join(["/api/competitions", *map(_segment, (slug, *parts))])

    # ------------------------------------------------------------ competitions
    def whoami(self) -> dict[str, Any]:
        """Whose this client's token is: ``{"role": "organiser" | "team",
        "teams": [{"competition": slug, "team": name}, ...]}``; a token the
        server does not know is a 401 :class:`ServerError`."""
        return self._json("GET", "/api/whoami")

    def competitions(self) -> list[dict[str, Any]]:
        return self._json("GET", "/api/competitions")

    def competition(self, slug: str) -> dict[str, Any]:
        return self._json("GET", self._path(slug))

    def create_competition(
        self,
        slug: str,
        solution: bytes,
        *,
        score: str,
        mechanism: str | None = None,
        mechanism_params: dict[str, Any] | None = None,
        data_files: Iterable[tuple[str, bytes]] = (),
        progress: Progress | None = None,
        **fields: Any,
    ) -> dict[str, Any]:
        """Create a competition from a solution file's bytes (organiser).

        ``data_files`` are ``(name, content)`` pairs attached for the
        participants. Without ``mechanism`` the server runs its default
        (:data:`ladderboard.recommended.RECOMMENDED`) with its parameters at
        the solution's public size. ``fields`` are the other form fields of ``POST
        /api/competitions`` (``title``, ``description``, ``rules``,
        ``daily_quota``, ``board``, ``ranks``, ``auto_publish``, ...); ``None``
        is left out. ``progress`` is told ``(bytes sent, bytes in all)`` of the
        files as they go.
        """
        form = {"slug": slug, "score": score}
        if mechanism is not None:
            form["mechanism"] = mechanism
        if mechanism_params:
            form["mechanism_params"] = json.dumps(mechanism_params)
        form |= {k: _form_value(v) for k, v in fields.items() if v is not None}
        named = [("solution.csv", solution), *data_files]
        sent = _uploads([data for _, data in named], progress)
        files = [("solution", ("solution.csv", sent[0], "text/csv"))]
        for (name, _), data in zip(named[1:], sent[1:], strict=True):
            files.append(("files", (name, data, _OCTETS)))
        return self._json("POST", "/api/competitions", data=form, files=files)

    def update_competition(
        self,
        slug: str,
        *,
        title: str | None = None,
        description: str | None = None,
        rules: str | None = None,
        deadline: str | _Keep | None = KEEP,
    ) -> dict[str, Any]:
        """Edit the title, the overview (``description``), the rules or the
        deadline (organiser); ``None`` leaves a text as it is, while
        ``deadline=None`` removes the deadline and :data:`KEEP` keeps it."""
        body: dict[str, Any] = {
            name: value
            for name, value in (("title", title), ("description", description), ("rules", rules))
            if value is not None
        }
        if not isinstance(deadline, _Keep):
            body["deadline"] = deadline
        return self._json("PATCH", self._path(slug), json=body)

    def close(self, slug: str) -> dict[str, Any]:
        """Close the competition (organiser): no more submissions; the private
        board waits for :meth:`publish`."""
        return self._json("POST", self._path(slug, "close"))

    def publish(self, slug: str) -> dict[str, Any]:
        """Publish the private board and reveal the audit key (organiser,
        after the close)."""
        return self._json("POST", self._path(slug, "publish"))

    def commitment(self, slug: str) -> dict[str, Any]:
        """The audit commitment, with the key once published."""
        return self._json("GET", self._path(slug, "commitment"))

    def flags(self, slug: str) -> list[dict[str, Any]]:
        """Submissions identical to another team's earlier one (organiser)."""
        return self._json("GET", self._path(slug, "flags"))

    # -------------------------------------------------------------- data files
    def files(self, slug: str) -> list[dict[str, Any]]:
        """The files participants download, each with its size and SHA-256."""
        return self._json("GET", self._path(slug, "files"))

    def download_file(
        self, slug: str, name: str, out: IO[bytes], received: Callable[[int], None] | None = None
    ) -> str:
        """Write the file ``name`` to ``out`` as it arrives; return the
        SHA-256 (hex) of the bytes written, to check against :meth:`files`.
        ``received(n)`` is told of each ``n`` bytes written."""
        digest = hashlib.sha256()
        with self._stream("GET", self._path(slug, "files", name)) as response:
            for chunk in response.iter_bytes():
                digest.update(chunk)
                out.write(chunk)
                if received is not None:
                    received(len(chunk))
        return digest.hexdigest()

    def put_file(
        self, slug: str, name: str, data: bytes, progress: Progress | None = None
    ) -> dict[str, Any]:
        """Attach a data file, or replace the one of that name (organiser);
        ``progress`` is told ``(bytes sent, bytes in all)``."""
        files = {"file": (name, _uploads([data], progress)[0], _OCTETS)}
        return self._json("PUT", self._path(slug, "files", name), files=files)

    def remove_file(self, slug: str, name: str) -> None:
        """Remove a data file (organiser)."""
        self._request("DELETE", self._path(slug, "files", name))

    # ------------------------------------------------------------------- teams
    def add_team(self, slug: str, name: str) -> dict[str, Any]:
        """Register a team; the answer holds its token, shown this once."""
        return self._json("POST", self._path(slug, "teams"), json={"name": name})

    def import_teams(self, slug: str, names_csv: bytes) -> list[dict[str, Any]]:
        """Register every team of a CSV of names, all or none (organiser); each
        answer holds the team's token, shown this once."""
        files = {"file": ("teams.csv", names_csv, "text/csv")}
        return self._json("POST", self._path(slug, "teams", "import"), files=files)

    def teams(self, slug: str) -> list[dict[str, Any]]:
        """Every team with its activity: the organiser's desk."""
        return self._json("GET", self._path(slug, "teams"))

    def set_team_disabled(self, slug: str, name: str, disabled: bool) -> dict[str, Any]:
        """Disable a team (no sign-in, submission or place on the boards) or
        enable it again (organiser)."""
        return self._json("PATCH", self._path(slug, "teams", name), json={"disabled": disabled})

    def reissue_token(self, slug: str, name: str) -> dict[str, Any]:
        """Replace a team's token with a new one (organiser): the answer holds
        it, shown this once; the old one is refused from then on."""
        return self._json("POST", self._path(slug, "teams", name, "token"))

    def team_status(self, slug: str) -> dict[str, Any]:
        """The calling team's rank, quota and refused files."""
        return self._json("GET", self._path(slug, "team"))

    # ------------------------------------------------------------- submissions
    def submit(
        self,
        slug: str,
        data: bytes,
        *,
        message: str = "",
        idempotency_key: str | None = None,
        progress: Progress | None = None,
        filename: str | None = None,
    ) -> dict[str, Any]:
        """Send a predictions file (team): id, public_score, previous_score,
        explanation, status, remaining_today, decimals. With
        ``idempotency_key``, a resent file is answered with the first result
        (and a 503 may be retried); ``progress`` is told ``(bytes sent, bytes
        in all)``; ``filename``, the file's name, is what the team's list of
        refused files shows if the server refuses it.

        The file is the request's whole body (``text/csv``, or
        ``application/gzip`` when it is compressed), the message in the
        query: the server has no form to parse. A message too long for a
        URL (proxies refuse long ones, and logs keep them) goes with the
        file in a multipart form instead."""
        kind = "application/gzip" if data[:2] == _GZIP_MAGIC else "text/csv"
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        upload = _uploads([data], progress)[0]
        if len(quote(message)) > _QUERY_MESSAGE_CHARS:
            return self._json(
                "POST",
                self._path(slug, "submissions"),
                files={"file": (filename or "predictions", upload, kind)},
                data={"message": message},
                headers=headers,
            )
        return self._json(
            "POST",
            self._path(slug, "submissions"),
            content=upload,
            params={
                name: value
                for name, value in (("message", message), ("filename", filename))
                if value
            }
            or None,
            headers=headers | {"Content-Type": kind},
        )

    def submissions(self, slug: str) -> list[dict[str, Any]]:
        """The calling team's own submissions."""
        return self._json("GET", self._path(slug, "submissions"))

    def submission_file(self, slug: str, number: int) -> bytes:
        """The calling team's submission ``number``'s file, byte for byte
        as the server received it (gzip-compressed if it was sent so)."""
        return self._request(
            "GET", self._path(slug, "submissions", str(int(number)), "file")
        ).content

    def select(self, slug: str, submission_ids: list[int]) -> dict[str, Any]:
        """Choose the team's final submissions, replacing an earlier choice."""
        return self._json(
            "PUT", self._path(slug, "selection"), json={"submission_ids": submission_ids}
        )

    # ------------------------------------------------------------------ boards
    def leaderboard(self, slug: str, board: str = "public") -> dict[str, Any]:
        return self._json("GET", self._path(slug, "leaderboard"), params={"board": board})

    def leaderboard_csv(self, slug: str, board: str = "public") -> bytes:
        return self._request(
            "GET", self._path(slug, "leaderboard.csv"), params={"board": board}
        ).content

    def health(self) -> dict[str, Any]:
        return self._json("GET", "/healthz")


_OCTETS = "application/octet-stream"
_GZIP_MAGIC = b"\x1f\x8b"  # a gzip file's first two bytes (RFC 1952)
# A message longer than this once percent-encoded is sent in a form, not in
# the URL (nginx refuses request lines past 8 KiB by default).
_QUERY_MESSAGE_CHARS = 1024


def _form_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return json.dumps(value)
    return str(value)
