"""The tokens ``ladderboard login`` stores, one per server.

The file is ``credentials.json`` in the user's configuration folder
(``$XDG_CONFIG_HOME/ladderboard`` when that is set, else typer's
``get_app_dir("ladderboard")``, e.g. ``~/.config/ladderboard``)::

    {"default": "https://board.example.org",
     "tokens": {"https://board.example.org": "…", "http://127.0.0.1:8000": "…"}}

``default`` is the server logged in to last. The folder is made readable by
its owner alone (0700) and the file is written whole, with mode 0600, then
moved into place. A file that others may read (or write) is refused, not
used: its token may already be exposed, and the owner should see it (fix
with ``chmod 600 FILE``, or ``ladderboard logout`` and log in again).

Which server and token a verb uses (:func:`resolve`): ``--server`` and
``--token``, then ``LADDERBOARD_SERVER`` and ``LADDERBOARD_TOKEN``, then
what is stored: the token stored for the chosen server (a stored token is
never sent to another server), and the default server when none is given.

Only the standard library and typer: the verbs resolve credentials before
httpx loads.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

import typer

__all__ = [
    "Credentials",
    "CredentialsError",
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
    """The credentials file cannot be used (unsafe permissions, not ours, unreadable)."""


@dataclass
class Credentials:
    """The stored tokens by server URL, and the default server (or ``None``)."""

    tokens: dict[str, str] = field(default_factory=dict)
    default: str | None = None


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
        data = json.loads(raw)
        tokens = {normal_server(str(k)): str(v) for k, v in dict(data.get("tokens", {})).items()}
        default = data.get("default")
    except (ValueError, TypeError, AttributeError):
        raise CredentialsError(
            f"{path} is not a credentials file (`ladderboard logout --all` removes it)"
        ) from None
    return Credentials(tokens, default if isinstance(default, str) else None)


def save(credentials: Credentials, path: Path | None = None) -> Path:
    """Write ``credentials`` whole (mode 0600, its folder 0700), or remove
    the file when no token is left; return its path."""
    path = path or credentials_path()
    if not credentials.tokens:
        path.unlink(missing_ok=True)
        return path
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if os.name != "nt":
        os.chmod(path.parent, 0o700)  # ladderboard's own folder: private
    body = {"default": credentials.default, "tokens": credentials.tokens}
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


def resolve(server: str | None, token: str | None) -> tuple[str | None, str | None]:
    """The server and token a verb uses, from its options (or their
    environment variables, which typer has already read into them) and then
    the stored credentials; the file is read only when something is missing.
    ``None`` is left for the client's default."""
    if server is not None and token is not None:
        return server, token
    stored = load()
    if server is None:
        server = stored.default
    if token is None and server is not None:
        token = stored.tokens.get(normal_server(server))
    return server, token
