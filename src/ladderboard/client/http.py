"""A small client of the competition server's REST API, over httpx.

The ``ladderboard`` CLI's participant and organiser verbs are thin wrappers
around :class:`Client`; the demo and the load benchmark use it too. Each
method returns the server's JSON; a refusal raises :class:`ServerError`
carrying the HTTP status, the server's error code and its message.

Typical use (``ladderboard submit`` does this)::

    with Client("http://127.0.0.1:8000", token) as client:
        result = client.submit("my-competition", Path("predictions.csv").read_bytes())
        print(result["public_score"], result["remaining_today"])
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import IO, Any
from urllib.parse import quote

import httpx

__all__ = ["DEFAULT_SERVER", "KEEP", "Client", "ServerError", "parse_params"]

DEFAULT_SERVER = "http://127.0.0.1:8000"


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


def parse_params(pairs: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs as a dict, each value read as JSON when it parses.

    >>> parse_params(["eta=0.01", "name=abc", "flag=true", "q=[1, 2]"])
    {'eta': 0.01, 'name': 'abc', 'flag': True, 'q': [1, 2]}
    >>> parse_params(["oops"])
    Traceback (most recent call last):
    ValueError: a parameter must be KEY=VALUE, got 'oops'
    """
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"a parameter must be KEY=VALUE, got {pair!r}")
        try:
            params[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            params[key.strip()] = value
    return params


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
    """

    def __init__(
        self,
        server: str | None = None,
        token: str | None = None,
        *,
        timeout: float = 60.0,
        http: httpx.Client | None = None,
    ):
        self.server = (server or os.environ.get("LADDERBOARD_SERVER") or DEFAULT_SERVER).rstrip("/")
        self.token = token if token is not None else os.environ.get("LADDERBOARD_TOKEN")
        self.timeout = timeout
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
        return Client(self.server, token, timeout=self.timeout, http=self._http)

    def _headers(self, extra: dict[str, str] | None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return headers | (extra or {})

    def _unreachable(self, exc: httpx.HTTPError) -> ServerError:
        return ServerError(0, "unreachable", f"cannot reach {self.server}: {exc}")

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = self._headers(kwargs.pop("headers", None))
        try:
            response = self._http.request(
                method, self.server + path, headers=headers, timeout=self.timeout, **kwargs
            )
        except httpx.HTTPError as exc:
            raise self._unreachable(exc) from exc
        if response.status_code >= 400:
            raise _error(response)
        return response

    @contextmanager
    def _stream(self, method: str, path: str) -> Iterator[httpx.Response]:
        """The response with its body unread, for files too large to hold;
        a connection lost while the body is read is :class:`ServerError` too."""
        try:
            with self._http.stream(
                method, self.server + path, headers=self._headers(None), timeout=self.timeout
            ) as response:
                if response.status_code >= 400:
                    response.read()
                    raise _error(response)
                yield response
        except httpx.HTTPError as exc:
            raise self._unreachable(exc) from exc

    @staticmethod
    def _path(slug: str, *parts: str) -> str:
        return "/".join(["/api/competitions", *map(_segment, (slug, *parts))])

    # ------------------------------------------------------------ competitions
    def competitions(self) -> list[dict[str, Any]]:
        return self._request("GET", "/api/competitions").json()

    def competition(self, slug: str) -> dict[str, Any]:
        return self._request("GET", self._path(slug)).json()

    def create_competition(
        self,
        slug: str,
        solution: bytes,
        *,
        score: str,
        mechanism: str,
        mechanism_params: dict[str, Any] | None = None,
        data_files: Iterable[tuple[str, bytes]] = (),
        **fields: Any,
    ) -> dict[str, Any]:
        """Create a competition from a solution file's bytes (organiser).

        ``data_files`` are ``(name, content)`` pairs attached for the
        participants. ``fields`` are the other form fields of ``POST
        /api/competitions`` (``title``, ``description``, ``rules``,
        ``daily_quota``, ``board``, ``ranks``, ``auto_publish``, ...); ``None``
        is left out.
        """
        form = {"slug": slug, "score": score, "mechanism": mechanism}
        if mechanism_params:
            form["mechanism_params"] = json.dumps(mechanism_params)
        form |= {k: _form_value(v) for k, v in fields.items() if v is not None}
        files = [("solution", ("solution.csv", solution, "text/csv"))]
        files += [("files", (name, data, _OCTETS)) for name, data in data_files]
        return self._request("POST", "/api/competitions", data=form, files=files).json()

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
        return self._request("PATCH", self._path(slug), json=body).json()

    def close(self, slug: str) -> dict[str, Any]:
        """Close the competition (organiser): no more submissions; the private
        board waits for :meth:`publish`."""
        return self._request("POST", self._path(slug, "close")).json()

    def publish(self, slug: str) -> dict[str, Any]:
        """Publish the private board and reveal the audit key (organiser,
        after the close)."""
        return self._request("POST", self._path(slug, "publish")).json()

    def commitment(self, slug: str) -> dict[str, Any]:
        """The audit commitment, with the key once published."""
        return self._request("GET", self._path(slug, "commitment")).json()

    def flags(self, slug: str) -> list[dict[str, Any]]:
        """Submissions identical to another team's earlier one (organiser)."""
        return self._request("GET", self._path(slug, "flags")).json()

    # -------------------------------------------------------------- data files
    def files(self, slug: str) -> list[dict[str, Any]]:
        """The files participants download, each with its size and SHA-256."""
        return self._request("GET", self._path(slug, "files")).json()

    def download_file(self, slug: str, name: str, out: IO[bytes]) -> str:
        """Write the file ``name`` to ``out`` as it arrives; return the
        SHA-256 (hex) of the bytes written, to check against :meth:`files`."""
        digest = hashlib.sha256()
        with self._stream("GET", self._path(slug, "files", name)) as response:
            for chunk in response.iter_bytes():
                digest.update(chunk)
                out.write(chunk)
        return digest.hexdigest()

    def put_file(self, slug: str, name: str, data: bytes) -> dict[str, Any]:
        """Attach a data file, or replace the one of that name (organiser)."""
        files = {"file": (name, data, _OCTETS)}
        return self._request("PUT", self._path(slug, "files", name), files=files).json()

    def remove_file(self, slug: str, name: str) -> None:
        """Remove a data file (organiser)."""
        self._request("DELETE", self._path(slug, "files", name))

    # ------------------------------------------------------------------- teams
    def add_team(self, slug: str, name: str) -> dict[str, Any]:
        """Register a team; the answer holds its token, shown this once."""
        return self._request("POST", self._path(slug, "teams"), json={"name": name}).json()

    def import_teams(self, slug: str, names_csv: bytes) -> list[dict[str, Any]]:
        """Register every team of a CSV of names, all or none (organiser); each
        answer holds the team's token, shown this once."""
        files = {"file": ("teams.csv", names_csv, "text/csv")}
        return self._request("POST", self._path(slug, "teams", "import"), files=files).json()

    def teams(self, slug: str) -> list[dict[str, Any]]:
        """Every team with its activity: the organiser's desk."""
        return self._request("GET", self._path(slug, "teams")).json()

    def set_team_disabled(self, slug: str, name: str, disabled: bool) -> dict[str, Any]:
        """Disable a team (no sign-in, submission or place on the boards) or
        enable it again (organiser)."""
        return self._request(
            "PATCH", self._path(slug, "teams", name), json={"disabled": disabled}
        ).json()

    def team_status(self, slug: str) -> dict[str, Any]:
        """The calling team's rank, quota and refused files."""
        return self._request("GET", self._path(slug, "team")).json()

    # ------------------------------------------------------------- submissions
    def submit(
        self,
        slug: str,
        data: bytes,
        *,
        message: str = "",
        filename: str = "predictions.csv",
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        """Send a predictions file (team): id, public_score, previous_score,
        explanation, status, remaining_today."""
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else None
        return self._request(
            "POST",
            self._path(slug, "submissions"),
            files={"file": (filename, data, "text/csv")},
            data={"message": message},
            headers=headers,
        ).json()

    def submissions(self, slug: str) -> list[dict[str, Any]]:
        """The calling team's own submissions."""
        return self._request("GET", self._path(slug, "submissions")).json()

    def select(self, slug: str, submission_ids: list[int]) -> dict[str, Any]:
        """Choose the team's final submissions, replacing an earlier choice."""
        return self._request(
            "PUT", self._path(slug, "selection"), json={"submission_ids": submission_ids}
        ).json()

    # ------------------------------------------------------------------ boards
    def leaderboard(self, slug: str, board: str = "public") -> dict[str, Any]:
        return self._request("GET", self._path(slug, "leaderboard"), params={"board": board}).json()

    def leaderboard_csv(self, slug: str, board: str = "public") -> bytes:
        return self._request(
            "GET", self._path(slug, "leaderboard.csv"), params={"board": board}
        ).content

    def health(self) -> dict[str, Any]:
        return self._request("GET", "/healthz").json()


_OCTETS = "application/octet-stream"


def _form_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return json.dumps(value)
    return str(value)
