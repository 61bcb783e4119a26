"""Writing a competition out of the store one file at a time: into a folder
or a zip archive (a :class:`Sink`), with the names, CSV and JSON the export
(:mod:`~ladderboard.engine.export`) and the audit bundle
(:mod:`~ladderboard.engine.audits`) share."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from ladderboard.engine.results import aware

__all__ = [
    "UNSAFE_CHARACTERS",
    "FolderSink",
    "Sink",
    "ZipSink",
    "csv_bytes",
    "iso_cell",
    "iso_time",
    "json_bytes",
    "submission_file_name",
]


class Sink(Protocol):
    """Where an export or a bundle is written, one file at a time, by its
    relative POSIX path."""

    def write(self, name: str, data: bytes) -> None: ...


class FolderSink:
    """Files under ``root`` (created), never outside it."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def write(self, name: str, data: bytes) -> None:
        relative = PurePosixPath(name)
        if relative.is_absolute() or not relative.parts or ".." in relative.parts:
            raise ValueError(f"name must be a relative path inside the folder, got {name!r}")
        path = self.root.joinpath(*relative.parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


class ZipSink:
    """Members of an open, writable :class:`zipfile.ZipFile`, each deflated."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        self.archive = archive

    def write(self, name: str, data: bytes) -> None:
        self.archive.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)


UNSAFE_CHARACTERS = re.compile(r"[^A-Za-z0-9]+")
"""What a file name made from a team's name or a board's scope leaves out."""


def submission_file_name(prefix: str, team: str, number: int, data: bytes) -> str:
    """A file name for a submitted file: its team's name in letters and
    digits only (a team name may hold any character), its number, and
    ``.csv.gz`` when the bytes are gzip's. Never ``TEAM__TIME.csv``, whose
    team the replay would read from the name rather than the index.

    >>> submission_file_name("00001", "Équipe A/B", 3, b"id,y")
    '00001-quipe-A-B-3.csv'
    """
    safe = UNSAFE_CHARACTERS.sub("-", team).strip("-")[:40] or "team"
    suffix = ".csv.gz" if data[:2] == b"\x1f\x8b" else ".csv"
    return f"{prefix}-{safe}-{number}{suffix}"


def csv_bytes(header: Iterable[str], rows: Iterable[Iterable[Any]]) -> bytes:
    """A CSV file of ``header`` and ``rows``, UTF-8, one line a row."""
    text = io.StringIO(newline="")
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return text.getvalue().encode()


def json_bytes(value: Any) -> bytes:
    """``value`` as indented JSON with sorted keys, UTF-8."""
    return (json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode()


def iso_time(value: datetime | None) -> str | None:
    """``value`` in ISO 8601 UTC (the store's naive times taken as UTC), or ``None``."""
    return None if value is None else aware(value).isoformat()


def iso_cell(value: datetime | None) -> str:
    """:func:`iso_time` for a CSV cell: empty for ``None``."""
    return iso_time(value) or ""
