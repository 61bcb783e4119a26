"""The tokens ``ladderboard login`` stores: by server, a team's token for
each competition, a personal token and the organiser's token.

A team token belongs to one competition, so a participant in two
competitions of one server keeps two tokens, and each verb picks the one of
the competition it names. A personal token (an account's, made on its
``/account`` page) acts in every competition the account belongs to, so one
is kept per server and used for any competition without a token of its own.

The file is ``credentials.json`` in the user's configuration folder
(``$XDG_CONFIG_HOME/ladderboard`` when that is set, else typer's
``get_app_dir("ladderboard")``, e.g. ``~/.config/ladderboard``)::

    {"default": "https://board.example.org",
     "servers": {"https://board.example.org": {
         "organiser": "…",
         "personal": "…",
         "competitions": {"titanic": {"team": "alpha", "token": "…"}},
         "other": null}}}

``default`` is the server logged in to last. ``other`` is a token whose
owner the file does not say: a file of one token per server
(``{"tokens": {"https://board.example.org": "…"}}``) is read that way, and
written in the form above at the next login or logout.

The folder is made readable by its owner alone (0700) and the file is
written whole, with mode 0600, then moved into place. A file that others may
read (or write) is refused, not used: its token may already be exposed, and
the owner should see it (fix with ``chmod 600 FILE``, or ``ladderboard
logout --all`` and log in again).

Which server and token a verb uses (:func:`resolve`): ``--server`` and
``--token``, then ``LADDERBOARD_SERVER`` and ``LADDERBOARD_TOKEN``, then
what is stored for the chosen server (a stored token is never sent to
another server), the default server when none is given:

- a verb that names a competition: that competition's team token, else the
  personal token, else the organiser's, else the ``other`` token, else none
  (what anyone may read);
- an organiser's verb: the organiser's token, else the personal one (an
  account may organise a competition), else the ``other`` one, else it
  stops and says how to give one;
- a verb that names no competition: the organiser's token, else the
  personal one, else the only token stored for the server, else none (such
  a verb reads what anyone may).

Only the standard library and typer: the verbs resolve credentials before
httpx2 loads.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer

__all__ = [
    "Credentials",
    "CredentialsError",
    "Identity",
    "ServerTokens",
    "TeamToken",
    "choose",
    "config_dir",
    "credentials_path",
    "load",
    "masked",
    "normal_server",
    "resolve",
    "save",
]

FILE_NAME = "credentials.json"


class CredentialsError(Exception):
    """The credentials file cannot be used (unsafe permissions, not ours,
    unreadable), or it holds no token a verb needs."""


@dataclass(frozen=True)
class TeamToken:
    """A team's token and the team's name, stored for one competition."""

    team: str
    token: str


@dataclass
class ServerTokens:
    """What is stored for one server: the organiser's token, a team token by
    competition slug, a token of unknown owner (``other``) and an account's
    personal token."""

    organiser: str | None = None
    competitions: dict[str, TeamToken] = field(default_factory=dict)
    other: str | None = None
    personal: str | None = None

    def tokens(self) -> list[str]:
        """Every distinct token stored, organiser's first."""
        found = [
            self.organiser,
            self.personal,
            *(t.token for t in self.competitions.values()),
            self.other,
        ]
        return list(dict.fromkeys(t for t in found if t))

    def forget(self, token: str) -> None:
        """Drop ``token`` wherever it is stored."""
        if self.organiser == token:
            self.organiser = None
        if self.other == token:
            self.other = None
        if self.personal == token:
            self.personal = None
        self.competitions = {s: t for s, t in self.competitions.items() if t.token != token}

    def kept(self) -> str:
        """What is stored, in words: ``titanic (team alpha), the organiser``.

        >>> ServerTokens("o" * 20, {"demo": TeamToken("alpha", "t" * 20)}).kept()
        'demo (team alpha), the organiser'
        """
        parts = [f"{slug} (team {t.team})" for slug, t in sorted(self.competitions.items())]
        if self.organiser:
            parts.append("the organiser")
        if self.personal:
            parts.append("a personal token")
        if self.other:
            parts.append("a token of unknown owner")
        return ", ".join(parts) or "nothing"


@dataclass(frozen=True)
class Identity:
    """One stored token, as ``ladderboard whoami`` lists it (the token masked)."""

    server: str
    role: str  # "organiser", "team", "account" or "unknown"
    competition: str | None
    team: str | None
    token: str
    default: bool


@dataclass
class Credentials:
    """The stored tokens by server URL, and the default server (or ``None``)."""

    servers: dict[str, ServerTokens] = field(default_factory=dict)
    default: str | None = None

    def of(self, server: str) -> ServerTokens:
        """What is stored for ``server`` (added, empty, when nothing is)."""
        return self.servers.setdefault(normal_server(server), ServerTokens())

    def identities(self) -> list[Identity]:
        """Every stored token, server by server."""
        found = []
        for url, kept in sorted(self.servers.items()):
            default = url == self.default
            if kept.organiser:
                found.append(Identity(url, "organiser", None, None, kept.organiser, default))
            if kept.personal:
                found.append(Identity(url, "account", None, None, kept.personal, default))
            for slug, team in sorted(kept.competitions.items()):
                found.append(Identity(url, "team", slug, team.team, team.token, default))
            if kept.other:
                found.append(Identity(url, "unknown", None, None, kept.other, default))
        return found


def normal_server(url: str) -> str:
    """A server URL as tokens are stored under it: no trailing slash.

    >>> normal_server("https://board.example.org/")
    'https://board.example.org'
    """
    return url.strip().rstrip("/")


def masked(token: str) -> str:
    """A token as it may be shown: its first four characters at most.

    >>> masked("abcdefghijklmnopqrstuvwxyz"), masked("short")
    ('abcd…', '…')
    """
    return token[:4] + "…" if len(token) >= 16 else "…"


def config_dir() -> Path:
    """``$XDG_CONFIG_HOME/ladderboard``, else typer's app folder for ladderboard."""
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg:
        return Path(xdg) / "ladderboard"
    return Path(typer.get_app_dir("ladderboard"))


def credentials_path() -> Path:
    return config_dir() / FILE_NAME


def _check_private(path: Path, info: os.stat_result) -> None:
    if os.name == "nt":  # no POSIX modes there; the profile folder is private
        return
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise CredentialsError(f"{path} belongs to another user: it is not used")
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise CredentialsError(
            f"{path} may be read by others (mode {stat.S_IMODE(info.st_mode):04o}), so it is "
            f"not used: `chmod 600 {path}`, or `ladderboard logout` and log in again"
        )


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(value)
    return value


def _optional_text(value: Any) -> str | None:
    return None if value is None else _text(value)


def _server_tokens(data: Any) -> ServerTokens:
    if not isinstance(data, dict):
        raise TypeError(data)
    competitions = {
        _text(slug): TeamToken(_text(entry["team"]), _text(entry["token"]))
        for slug, entry in dict(data.get("competitions") or {}).items()
    }
    return ServerTokens(
        _optional_text(data.get("organiser")),
        competitions,
        _optional_text(data.get("other")),
        _optional_text(data.get("personal")),
    )


def _parse(data: Any) -> Credentials:
    """The credentials of a file's JSON; a token of the one-per-server form
    (``"tokens": {url: token}``) becomes its server's ``other`` token."""
    servers = {
        normal_server(_text(url)): _server_tokens(kept)
        for url, kept in dict(data.get("servers") or {}).items()
    }
    for url, token in dict(data.get("tokens") or {}).items():
        kept = servers.setdefault(normal_server(_text(url)), ServerTokens())
        if _text(token) not in kept.tokens():
            kept.other = token
    default = data.get("default")
    return Credentials(servers, normal_server(default) if isinstance(default, str) else None)


def load(path: Path | None = None, *, check: bool = True) -> Credentials:
    """The stored credentials (none when there is no file). ``check=False``
    reads a file whose mode is unsafe too, so that it can be rewritten."""
    path = path or credentials_path()
    try:
        with path.open("rb") as file:
            if check:
                _check_private(path, os.fstat(file.fileno()))
            raw = file.read()
    except FileNotFoundError:
        return Credentials()
    except OSError as exc:
        raise CredentialsError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return _parse(json.loads(raw))
    except (ValueError, TypeError, AttributeError, KeyError):
        raise CredentialsError(
            f"{path} is not a credentials file (`ladderboard logout --all` removes it)"
        ) from None


def _body(credentials: Credentials) -> dict[str, Any]:
    servers = {}
    for url, kept in sorted(credentials.servers.items()):
        if kept.tokens():
            servers[url] = {
                "organiser": kept.organiser,
                "competitions": {
                    slug: {"team": t.team, "token": t.token}
                    for slug, t in sorted(kept.competitions.items())
                },
                "other": kept.other,
            }
            if kept.personal:  # a file without one reads as it did before personal tokens
                servers[url]["personal"] = kept.personal
    return {"default": credentials.default, "servers": servers}


def save(credentials: Credentials, path: Path | None = None) -> Path:
    """Write ``credentials`` whole (mode 0600, its folder 0700), or remove
    the file when no token is left; return its path."""
    path = path or credentials_path()
    body = _body(credentials)
    if not body["servers"]:
        path.unlink(missing_ok=True)
        return path
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if os.name != "nt":
        os.chmod(path.parent, 0o700)  # ladderboard's own folder: private
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    descriptor = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with open(descriptor, "w", encoding="utf-8") as file:
            json.dump(body, file, indent=2)
            file.write("\n")
        os.chmod(part, 0o600)  # whatever the umask, or an earlier leftover, made it
        os.replace(part, path)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return path


def _login_hint(server: str, whose: str) -> str:
    return (
        f"no {whose} token is stored for {server}: `ladderboard login --server {server}` "
        "with it, or give --token (or LADDERBOARD_TOKEN)"
    )


def choose(
    kept: ServerTokens, server: str, *, competition: str | None, organiser: bool
) -> str | None:
    """The stored token a verb uses on ``server`` (:mod:`this module
    <ladderboard.client.credentials>` gives the order), or ``None`` to ask
    as nobody; :class:`CredentialsError` when an organiser's verb finds no
    token it may use.

    >>> kept = ServerTokens("org-token", {"demo": TeamToken("alpha", "alpha-token")})
    >>> choose(kept, "S", competition="demo", organiser=False)
    'alpha-token'
    >>> choose(kept, "S", competition="other", organiser=False)
    'org-token'
    >>> choose(kept, "S", competition="demo", organiser=True)
    'org-token'
    >>> choose(kept, "S", competition=None, organiser=False)  # no competition named
    'org-token'
    >>> teams = ServerTokens(None, {"a": TeamToken("x", "a-token"), "b": TeamToken("y", "b-token")})
    >>> choose(teams, "S", competition=None, organiser=False) is None  # which one? none
    True
    >>> choose(ServerTokens(None, {"a": TeamToken("x", "a-token")}), "S", competition=None,
    ...        organiser=False)  # the only one
    'a-token'
    >>> choose(teams, "S", competition="a", organiser=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ladderboard.client.credentials.CredentialsError: no organiser's token is stored for S: ...
    >>> mine = ServerTokens(None, {"a": TeamToken("x", "a-token")}, personal="my-token")
    >>> [choose(mine, "S", competition=c, organiser=False) for c in ("a", "b", None)]
    ['a-token', 'my-token', 'my-token']
    """
    if organiser:
        token = kept.organiser or kept.personal or kept.other
        if token is None:
            raise CredentialsError(_login_hint(server, "organiser's"))
        return token
    if competition is not None:
        team = kept.competitions.get(competition)
        return team.token if team else kept.personal or kept.organiser or kept.other
    tokens = kept.tokens()
    return kept.organiser or kept.personal or (tokens[0] if len(tokens) == 1 else None)


def resolve(
    server: str | None,
    token: str | None,
    *,
    competition: str | None = None,
    organiser: bool = False,
) -> tuple[str | None, str | None]:
    """The server and token a verb uses, from its options (or their
    environment variables, which typer has already read into them) and then
    the stored credentials (:func:`choose`); the file is read only when
    something is missing. ``competition`` is the slug the verb names, and
    ``organiser`` whether it is an organiser's verb. ``None`` is left for
    the client's default."""
    if server is not None and token is not None:
        return server, token
    stored = load()
    if server is None:
        server = stored.default
    if token is None and server is not None:
        kept = stored.servers.get(normal_server(server), ServerTokens())
        token = choose(kept, normal_server(server), competition=competition, organiser=organiser)
    return server, token
