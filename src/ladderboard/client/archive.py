"""Unpacking a zip archive the server sent (``ladderboard export``) into a
folder, safely whatever the archive holds.

Every member is checked before anything is written: a name that is absolute,
holds a parent folder (``..``), a drive, a backslash or a control character,
or is a symbolic link, refuses the whole archive, so that nothing lands
outside the folder. The folder must be empty, or ``force`` lets files of the
archive replace those of the same name.
"""

from __future__ import annotations

import shutil
import stat
import zipfile
from pathlib import Path, PurePosixPath
from typing import IO

__all__ = ["ArchiveRefused", "unpack_archive"]


class ArchiveRefused(Exception):
    """Nothing was written, and why; ``by`` says whose fault: ``"server"``
    (the archive) or ``"usage"`` (the folder)."""

    def __init__(self, message: str, *, by: str) -> None:
        super().__init__(message)
        self.by = by


def _safe_parts(name: str) -> tuple[str, ...]:
    path = PurePosixPath(name)
    parts = path.parts
    if (
        not parts
        or path.is_absolute()
        or "\\" in name
        or any(part in ("", ".", "..") or ":" in part for part in parts)
        or any(ord(ch) < 32 for ch in name)
    ):
        raise ArchiveRefused(f"the archive holds an unsafe name {name!r}", by="server")
    return parts


def unpack_archive(archive: IO[bytes], folder: Path, *, force: bool = False) -> list[Path]:
    """Unpack the zip ``archive`` into ``folder`` (created) and return the
    files written, in the archive's order; :class:`ArchiveRefused` before
    anything is written for an unsafe member or a folder that is not empty
    (without ``force``)."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ArchiveRefused(f"{str(folder)!r} exists and is not a folder", by="usage")
    if folder.is_dir() and any(folder.iterdir()) and not force:
        raise ArchiveRefused(
            f"{str(folder)!r} is not empty (--force writes over the files of the same names)",
            by="usage",
        )
    try:
        zipped = zipfile.ZipFile(archive)
    except zipfile.BadZipFile:
        raise ArchiveRefused("the server's answer is not a zip archive", by="server") from None
    with zipped:
        members = []
        for info in zipped.infolist():
            parts = _safe_parts(info.filename)
            if stat.S_ISLNK(info.external_attr >> 16):
                raise ArchiveRefused(
                    f"the archive holds a symbolic link {info.filename!r}", by="server"
                )
            members.append((info, parts))
        files = {tuple(parts) for info, parts in members if not info.is_dir()}
        for path in files:
            clash = next((path[:i] for i in range(1, len(path)) if path[:i] in files), None)
            if clash is not None:
                raise ArchiveRefused(
                    f"the archive holds {'/'.join(clash)!r} both as a file and as a folder",
                    by="server",
                )
        folder.mkdir(parents=True, exist_ok=True)
        root = folder.resolve()
        for _, parts in members:
            # A link already in the folder (with --force) must not lead a member out of it.
            if not folder.joinpath(*parts).resolve().is_relative_to(root):
                raise ArchiveRefused(
                    f"{'/'.join(parts)!r} would be written outside {str(folder)!r} through a "
                    "symbolic link in it",
                    by="usage",
                )
        written = []
        for info, parts in members:
            target = folder.joinpath(*parts)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with zipped.open(info) as source, target.open("wb") as sink:
                shutil.copyfileobj(source, sink)
            written.append(target)
    return written
