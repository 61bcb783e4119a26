"""A small client of the competition server's REST API, over httpx2.

The ``ladderboard`` CLI's participant and organiser verbs are thin wrappers
around :class:`Client`; the demo and the load benchmark use it too. Each
method returns the server's JSON; a refusal raises
:class:`~ladderboard.client.transport.ServerError` carrying the HTTP status,
the server's error code and its message.

Typical use (``ladderboard submit`` does this)::

    with Client("http://127.0.0.1:8000", token) as client:
        result = client.submit("my-competition", Path("predictions.csv").read_bytes())
        print(result["public_score"], result["remaining_today"])

A busy server (429, 503) is asked again within bounds, and only when the
request may be sent again: :mod:`ladderboard.client.transport` says when.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from typing import IO, Any
from urllib.parse import quote

from ladderboard.client.transport import (
    DEFAULT_SERVER,
    MAX_TOTAL_WAIT,
    MAX_WAIT,
    RETRIES,
    ServerError,
    Transport,
    Waiting,
    retry_after,
    uploads,
)
from ladderboard.terminal import Progress, parse_params

# The connection's names stay importable from here, where clients of this
# module found them before the connection had a module of its own.
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


class _Keep:
    def __repr__(self) -> str:
        return "KEEP"


KEEP = _Keep()
"""The deadline of :meth:`Client.update_competition` left as it is: ``None``
there means "no deadline", so it cannot also mean "unchanged"."""


def _segment(value: str) -> str:
    """A name as one path segment: a team's ``a/b`` or ``50%`` stays one."""
    return quote(value, safe="")


class Client(Transport):
    """The REST API of one server, as one bearer token sees it.

    Its parameters are :class:`~ladderboard.client.transport.Transport`'s:
    the server's URL, the token, the timeout, a connection to share, and
    the bounds on asking a busy server again.
    """

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

    @staticmethod
    def _path(slug: str, *parts: str) -> str:
        return "/".join(["/api/competitions", *map(_segment, (slug, *parts))])

    # ------------------------------------------------------------ competitions
    def whoami(self) -> dict[str, Any]:
        """Whose this client's token is: ``{"role": "organiser" | "team" |
        "account", "teams": [{"competition": slug, "team": name}, ...]}``
        (and ``"account"``, its handle and role, for a personal token); a token the
        server does not know is a 401 :class:`ServerError`."""
        return self._json("GET", "/api/whoami")

    def competitions(self) -> list[dict[str, Any]]:
        return self._json("GET", "/api/competitions")

    # ---------------------------------------------------------------- accounts
    def account_tokens(self) -> list[dict[str, Any]]:
        """The personal tokens of this client's account (never their secrets)."""
        return self._json("GET", "/api/account/tokens")

    def create_account(
        self, handle: str, *, email: str | None = None, role: str = "participant"
    ) -> dict[str, Any]:
        """A new account (an administrator's token): ``{"account": ...,
        "sign_in_link": ..., "expires_at": ...}``, the link for its owner, once."""
        return self._json(
            "POST", "/api/accounts", json={"handle": handle, "email": email, "role": role}
        )

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
        sent = uploads([data for _, data in named], progress)
        files = [("solution", ("solution.csv", sent[0], "text/csv"))]
        for (name, _), data in zip(named[1:], sent[1:], strict=True):
            files.append(("files", (name, data, _OCTETS)))
        return self._json("POST", "/api/competitions", data=form, files=files)

    def solution(self, slug: str) -> bytes:
        """The solution file the competition's commitment holds (organiser)."""
        return self._request("GET", self._path(slug, "solution")).content

    def update_competition(
        self,
        slug: str,
        *,
        title: str | None = None,
        description: str | None = None,
        rules: str | None = None,
        deadline: str | _Keep | None = KEEP,
        **settings: Any,
    ) -> dict[str, Any]:
        """Edit the title, the overview (``description``), the rules, the
        deadline or the settings that change while a competition runs
        (organiser); ``None`` leaves a text as it is, while ``deadline=None``
        removes the deadline and :data:`KEEP` keeps it. ``settings`` are the
        other fields of ``PATCH /api/competitions/{slug}`` (``daily_quota``,
        ``n_selections``, ``max_bytes``, ...), sent as given: a quota of
        ``None`` is no limit."""
        body: dict[str, Any] = {
            name: value
            for name, value in (("title", title), ("description", description), ("rules", rules))
            if value is not None
        }
        if not isinstance(deadline, _Keep):
            body["deadline"] = deadline
        body |= settings
        return self._json("PATCH", self._path(slug), json=body)

    def correct_solution(self, slug: str, solution: bytes, reason: str) -> dict[str, Any]:
        """Correct the competition's solution (organiser): ``solution`` the
        file with its labels corrected (the same ids, columns and split),
        ``reason`` why; every submission is scored again."""
        files = [("solution", ("solution.csv", solution, "text/csv"))]
        return self._json(
            "POST", self._path(slug, "corrections"), data={"reason": reason}, files=files
        )

    def history(self, slug: str) -> list[dict[str, Any]]:
        """The changes of the competition's settings, oldest first (anyone)."""
        return self._json("GET", self._path(slug, "history"))

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

    def look_alikes(self, slug: str) -> list[dict[str, Any]]:
        """Accounts that look like one person's, each with why (organiser)."""
        return self._json("GET", self._path(slug, "look-alikes"))

    def rescore(
        self,
        slug: str,
        *,
        mechanism: str,
        mechanism_params: dict[str, Any] | None = None,
        board: str = "public",
        mode: str = "per-team",
        ranks: int | None = None,
        score: str | None = None,
        score_params: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The what-if board of ``slug`` under another mechanism (or score),
        for the organiser: the server scores every stored file again and
        stores nothing. ``None`` leaves a value to the competition."""
        body: dict[str, Any] = {
            "mechanism": mechanism,
            "mechanism_params": mechanism_params or {},
            "board": board,
            "mode": mode,
        }
        extra = {"ranks": ranks, "score": score, "score_params": score_params}
        body |= {k: v for k, v in extra.items() if v is not None}
        return self._json("POST", self._path(slug, "rescore"), json=body)

    def export(self, slug: str, out: IO[bytes]) -> int:
        """Write the competition's export, a zip archive (organiser), to
        ``out`` as it arrives; return the bytes written."""
        return self._download(self._path(slug, "export"), out)

    def publish_audit(self, slug: str, files: str = "full") -> dict[str, Any]:
        """Publish the audit bundle (organiser, after the private board), with
        every submitted file (``"full"``) or only their SHA-256 (``"hashes"``)."""
        return self._json("POST", self._path(slug, "audit"), json={"files": files})

    def audit_bundle(self, slug: str, out: IO[bytes]) -> int:
        """Write the published audit bundle, a zip archive, to ``out`` as it
        arrives; return the bytes written."""
        return self._download(self._path(slug, "audit"), out)

    def _download(self, path: str, out: IO[bytes]) -> int:
        size = 0
        with self._stream("GET", path) as response:
            for chunk in response.iter_bytes():
                out.write(chunk)
                size += len(chunk)
        return size

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
        files = {"file": (name, uploads([data], progress)[0], _OCTETS)}
        return self._json("PUT", self._path(slug, "files", name), files=files)

    def remove_file(self, slug: str, name: str) -> None:
        """Remove a data file (organiser)."""
        self._request("DELETE", self._path(slug, "files", name))

    # -------------------------------------------------------------- organisers
    def organisers(self, slug: str) -> list[dict[str, Any]]:
        """The competition's owners and co-organisers (organiser)."""
        return self._json("GET", self._path(slug, "organisers"))

    def add_organiser(self, slug: str, handle: str, role: str) -> list[dict[str, Any]]:
        """Make account ``handle`` an organiser in ``role``, or give it that
        role (owner); the answer is the organisers."""
        body = {"handle": handle, "role": role}
        return self._json("POST", self._path(slug, "organisers"), json=body)

    def remove_organiser(self, slug: str, handle: str) -> None:
        """Remove an organiser (owner); the last owner stays."""
        self._request("DELETE", self._path(slug, "organisers", handle))

    def actions(self, slug: str) -> list[dict[str, Any]]:
        """The organisers' actions on the competition, newest first (organiser)."""
        return self._json("GET", self._path(slug, "actions"))

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

    # ------------------------------------------------- a person's own team
    def my_team(self, slug: str) -> dict[str, Any]:
        """The calling account's team: members, live invitations, pending merges."""
        return self._json("GET", self._path(slug, "my-team"))

    def create_my_team(self, slug: str, name: str) -> dict[str, Any]:
        """Create a team with the calling account as its captain."""
        return self._json("POST", self._path(slug, "my-team"), json={"name": name})

    def invite(self, slug: str) -> dict[str, Any]:
        """A new invitation code to the caller's team (captain), shown this once."""
        return self._json("POST", self._path(slug, "my-team", "invitations"))

    def join_team(self, slug: str, code: str) -> dict[str, Any]:
        """Join the team of an invitation code."""
        return self._json("POST", self._path(slug, "my-team", "join"), json={"code": code})

    def leave_team(self, slug: str) -> None:
        """Leave the caller's team (the captain leaves last)."""
        self._request("POST", self._path(slug, "my-team", "leave"))

    def request_merge(self, slug: str, into: str) -> dict[str, Any]:
        """Ask for the caller's team to merge into team ``into`` (captain)."""
        return self._json("POST", self._path(slug, "my-team", "merges"), json={"into": into})

    def answer_merge(self, slug: str, merge_id: int, answer: str) -> dict[str, Any]:
        """``accept`` or ``refuse`` a merge into the caller's team, or
        ``withdraw`` the team's own request (captain)."""
        return self._json("POST", self._path(slug, "my-team", "merges", str(merge_id), answer))

    def team_status(self, slug: str) -> dict[str, Any]:
        """The calling team's rank, quota and refused files."""
        return self._json("GET", self._path(slug, "team"))

    # ------------------------------------------------------------ registration
    def join(
        self, slug: str, *, accept_rules: bool, code: str | None = None, team: str | None = None
    ) -> dict[str, Any]:
        """Join competition ``slug`` with this client's personal token,
        accepting its rules; ``code`` is an invitation's, ``team`` creates
        the account's team at once."""
        body: dict[str, Any] = {"accept_rules": accept_rules}
        if code is not None:
            body["code"] = code
        if team is not None:
            body["team"] = team
        return self._json("POST", self._path(slug, "join"), json=body)

    def create_invitation(
        self, slug: str, *, label: str = "", uses: int | None = None, days: float | None = None
    ) -> dict[str, Any]:
        """A new invitation with its code and link, shown this once (organiser)."""
        body = {"label": label, "uses": uses, "days": days}
        return self._json("POST", self._path(slug, "invitations"), json=body)

    def invitations(self, slug: str) -> list[dict[str, Any]]:
        return self._json("GET", self._path(slug, "invitations"))

    def revoke_invitation(self, slug: str, invitation_id: int) -> dict[str, Any]:
        return self._json("DELETE", self._path(slug, "invitations", str(invitation_id)))

    def registrations(self, slug: str) -> list[dict[str, Any]]:
        return self._json("GET", self._path(slug, "registrations"))

    def add_member(self, slug: str, team: str, account: str) -> dict[str, Any]:
        """Put the account ``account`` (a handle) into ``team`` (organiser)."""
        return self._json(
            "POST", self._path(slug, "teams", team, "members"), json={"account": account}
        )

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
        upload = uploads([data], progress)[0]
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
