"""Downloading a competition's files into a folder, each checked against its
listed SHA-256 (``ladderboard download``).

The listing (``GET /api/competitions/{slug}/files``) gives each file's size
and SHA-256; the bytes come from a second request, so a file is written
only if what arrived hashes to what was listed. Every check that can refuse
is made before anything is written, and the files are staged beside their
targets and moved into place together at the end: a refusal leaves the
folder as it was.

A name is used as a file name only if it is a plain one (letters, digits,
``.``, ``-`` and ``_``, not starting with ``.``), whatever the server
sends: no path separator, no parent folder, no hidden file.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ladderboard.client.http import Client
from ladderboard.terminal import Progress

__all__ = ["DownloadRefused", "Downloaded", "download_files", "plain_file_name"]

_PLAIN_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}\Z")
_SHA256 = re.compile(r"[0-9a-f]{64}\Z")


class DownloadRefused(Exception):
    """Nothing was written, and why.

    ``by`` is ``"server"`` when the server's answer is at fault (no such
    file, an unsafe name, bytes that differ from the listing) and
    ``"usage"`` when the command would replace a different local file.
    """

    def __init__(self, message: str, *, by: Literal["server", "usage"]):
        super().__init__(message)
        self.by = by


@dataclass(frozen=True, slots=True)
class Downloaded:
    """One file in the folder, checked: ``written``, or ``unchanged`` when
    the local copy already had the listed SHA-256."""

    name: str
    path: Path
    size: int
    sha256: str
    state: Literal["written", "unchanged"]


def plain_file_name(name: object) -> str:
    """``name`` if it is a plain file name (1-100 letters, digits, ``.``,
    ``-`` or ``_``, not starting with ``.``), else :class:`DownloadRefused`.

    >>> plain_file_name("train.csv.gz")
    'train.csv.gz'
    >>> plain_file_name("../.bashrc")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ladderboard.client.download.DownloadRefused: the server named a file '../.bashrc', which ...
    """
    if isinstance(name, str) and _PLAIN_NAME.match(name):
        return name
    raise DownloadRefused(
        f"the server named a file {str(name)[:120]!r}, which is not a plain file name "
        "(letters, digits, '.', '-', '_', not starting with '.'): nothing was written",
        by="server",
    )


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _chosen(slug: str, listing: list[dict[str, Any]], names: list[str] | None) -> list[dict]:
    if not names:
        return listing
    by_name = {entry.get("name"): entry for entry in listing}
    missing = [name for name in names if name not in by_name]
    if missing:
        have = ", ".join(str(entry.get("name")) for entry in listing)
        raise DownloadRefused(
            f"competition {slug!r} has no file {missing[0]!r} (it has: {have})", by="server"
        )
    return [by_name[name] for name in dict.fromkeys(names)]


def download_files(
    client: Client,
    slug: str,
    folder: Path,
    *,
    names: list[str] | None = None,
    force: bool = False,
    progress: Callable[[int], AbstractContextManager[Progress]] | None = None,
) -> list[Downloaded]:
    """Download the files ``names`` of competition ``slug`` (all when
    ``None``) into ``folder``, created if missing; each is checked against
    the listing's SHA-256. A different file already there is replaced only
    with ``force``. Raises :class:`DownloadRefused` (or the client's
    :class:`~ladderboard.client.ServerError`) with nothing written.

    ``progress(total)``, given the listed bytes to fetch, opens what is told
    ``advance(bytes received, total)`` as they arrive (e.g.
    :func:`ladderboard.terminal.progress`)."""
    sizes: dict[str, int] = {}
    wanted = []
    for entry in _chosen(slug, client.files(slug), names):
        name = plain_file_name(entry.get("name"))
        sha256 = str(entry.get("sha256", "")).lower()
        if not _SHA256.match(sha256):
            raise DownloadRefused(
                f"the listing gives file {name!r} no valid SHA-256: nothing was written",
                by="server",
            )
        wanted.append((name, sha256, folder / name))
        size = entry.get("size")
        sizes[name] = size if isinstance(size, int) and size >= 0 else 0

    to_fetch = []
    for name, sha256, target in wanted:
        if target.is_symlink() or (target.exists() and not target.is_file()):
            raise DownloadRefused(
                f"{target} exists and is not a regular file: nothing was written", by="usage"
            )
        if target.exists() and _sha256_of(target) == sha256:
            continue
        if target.exists() and not force:
            raise DownloadRefused(
                f"{target} exists and differs from {slug}'s {name} (--force replaces it): "
                "nothing was written",
                by="usage",
            )
        to_fetch.append((name, sha256, target))

    created = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    staged: list[Path] = []
    done = False
    total = sum(sizes[name] for name, _, _ in to_fetch)
    received = 0
    bar = progress(total) if progress is not None else nullcontext(None)
    try:
        with bar as advance:

            def count(n: int) -> None:
                nonlocal received
                received += n
                if advance is not None:
                    advance(received, max(total, received))

            _fetch(client, slug, folder, to_fetch, staged, count)
        for path, (_, _, target) in zip(staged, to_fetch, strict=True):
            os.replace(path, target)
        done = True
    finally:
        if not done:
            for path in staged:
                path.unlink(missing_ok=True)
            if created:
                with contextlib.suppress(OSError):
                    folder.rmdir()
    fetched = {target for _, _, target in to_fetch}
    return [
        Downloaded(
            name,
            target,
            target.stat().st_size,
            sha256,
            "written" if target in fetched else "unchanged",
        )
        for name, sha256, target in wanted
    ]


def _fetch(
    client: Client,
    slug: str,
    folder: Path,
    to_fetch: list[tuple[str, str, Path]],
    staged: list[Path],
    received: Callable[[int], None],
) -> None:
    """Each file of ``to_fetch`` into a staged file beside its target
    (appended to ``staged`` at once, so that a failure can remove it),
    checked against its SHA-256; ``received(n)`` is told of each chunk."""
    for name, sha256, _ in to_fetch:
        # Created as open() creates files (0666 less the umask), not 0600 as
        # a temporary file would be: the data files are not secrets.
        part = folder / f".{name}.{secrets.token_hex(4)}.part"
        descriptor = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        staged.append(part)
        with open(descriptor, "wb") as out:
            digest = client.download_file(slug, name, out, received)
        if digest != sha256:
            raise DownloadRefused(
                f"{slug}'s {name} arrived with SHA-256 {digest}, but the listing says "
                f"{sha256}: nothing was written",
                by="server",
            )
