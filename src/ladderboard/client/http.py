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

import json
import os
from typing import Any

import httpx

__all__ = ["DEFAULT_SERVER", "Client", "ServerError", "parse_params"]

DEFAULT_SERVER = "http://127.0.0.1:8000"


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

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        headers |= kwargs.pop("headers", None) or {}
        try:
            response = self._http.request(
                method, self.server + path, headers=headers, timeout=self.timeout, **kwargs
            )
        except httpx.HTTPError as exc:
            raise ServerError(0, "unreachable", f"cannot reach {self.server}: {exc}") from exc
        if response.status_code >= 400:
            raise _error(response)
        return response

    # ------------------------------------------------------------ competitions
    def competitions(self) -> list[dict[str, Any]]:
        return self._request("GET", "/api/competitions").json()

    def competition(self, slug: str) -> dict[str, Any]:
        return self._request("GET", f"/api/competitions/{slug}").json()

    def create_competition(
        self,
        slug: str,
        solution: bytes,
        *,
        score: str,
        mechanism: str,
        mechanism_params: dict[str, Any] | None = None,
        **fields: Any,
    ) -> dict[str, Any]:
        """Create a competition from a solution file's bytes (organiser).

        ``fields`` are the other form fields of ``POST /api/competitions``
        (``title``, ``description``, ``daily_quota``, ...); ``None`` is left out.
        """
        form = {"slug": slug, "score": score, "mechanism": mechanism}
        if mechanism_params:
            form["mechanism_params"] = json.dumps(mechanism_params)
        form |= {k: _form_value(v) for k, v in fields.items() if v is not None}
        files = {"solution": ("solution.csv", solution, "text/csv")}
        return self._request("POST", "/api/competitions", data=form, files=files).json()

    def close(self, slug: str) -> dict[str, Any]:
        """Close the competition (organiser); the private board opens."""
        return self._request("POST", f"/api/competitions/{slug}/close").json()

    def commitment(self, slug: str) -> dict[str, Any]:
        return self._request("GET", f"/api/competitions/{slug}/commitment").json()

    # ------------------------------------------------------------------- teams
    def add_team(self, slug: str, name: str) -> dict[str, Any]:
        """Register a team; the answer holds its token, shown this once."""
        return self._request("POST", f"/api/competitions/{slug}/teams", json={"name": name}).json()

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
        """Send a predictions file (team): id, public_score, status, remaining_today."""
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else None
        return self._request(
            "POST",
            f"/api/competitions/{slug}/submissions",
            files={"file": (filename, data, "text/csv")},
            data={"message": message},
            headers=headers,
        ).json()

    def submissions(self, slug: str) -> list[dict[str, Any]]:
        """The calling team's own submissions."""
        return self._request("GET", f"/api/competitions/{slug}/submissions").json()

    # ------------------------------------------------------------------ boards
    def leaderboard(self, slug: str, board: str = "public") -> dict[str, Any]:
        return self._request(
            "GET", f"/api/competitions/{slug}/leaderboard", params={"board": board}
        ).json()

    def leaderboard_csv(self, slug: str, board: str = "public") -> bytes:
        return self._request(
            "GET", f"/api/competitions/{slug}/leaderboard.csv", params={"board": board}
        ).content

    def health(self) -> dict[str, Any]:
        return self._request("GET", "/healthz").json()


def _form_value(value: Any) -> str:
    if isinstance(value, dict):
        return json.dumps(value)
    return str(value)
