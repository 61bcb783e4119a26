"""A competition written out of the store: the organiser's export, and the
audit bundle anyone may download once the organiser publishes it.

The **export** (:meth:`Exports.export`) is the organiser's whole record, laid
out as ``ladderboard replay`` reads a history (:mod:`ladderboard.replay.history`):

- ``solution.csv``: the solution file as uploaded;
- ``submissions/``: every submitted file, byte for byte as received
  (``.csv.gz`` when it was sent compressed), in the order made;
- ``submissions.csv``: the index, one row a file: ``file``, ``team``,
  ``submitted_at`` (what the replay reads), then ``number``, ``message``,
  ``status``, ``released``, ``improved``, ``selected``, ``private_score``
  (empty until the private board is published) and ``file_sha256``;
- ``refused.csv``: the refused files (the store keeps their hash, not their bytes);
- ``teams.csv``: the teams (never their tokens);
- ``data/``: the organiser's data files;
- ``competition.json``: the texts, the configuration, the commitment, the
  hashes, the counts and the times; the key once published.

The **audit bundle** (:meth:`Exports.audit_bundle`, read by
:mod:`ladderboard.engine.audit_bundle`) holds what re-running every board
needs: the solution, the key, the commitment, the configuration, each
board's submissions in its order with what was released and decided, their
files (or only their SHA-256), and each board's final state.

Both are written through a :class:`Sink` (a folder, or a zip archive) one
file at a time, the submissions read from the store a few at a time.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any, Literal, Protocol

from sqlalchemy.orm import Session

from ladderboard.engine import lookup
from ladderboard.engine.audit_bundle import BUNDLE_FORMAT
from ladderboard.engine.context import EngineContext
from ladderboard.engine.errors import CompetitionClosed
from ladderboard.engine.lifecycle import Lifecycle
from ladderboard.engine.results import aware
from ladderboard.store import queries, read_snapshot
from ladderboard.store.arrays import StoredArrays
from ladderboard.store.blobs import unpack

__all__ = [
    "AUDIT_FILES",
    "AuditFiles",
    "AuditPublication",
    "Exports",
    "FolderSink",
    "Sink",
    "ZipSink",
    "submission_file_name",
]

AuditFiles = Literal["full", "hashes"]

AUDIT_FILES: tuple[AuditFiles, ...] = ("full", "hashes")
"""What an audit bundle holds of the submitted files: every file, or only its SHA-256."""

BUNDLE_README = """\
The audit bundle of competition {slug!r} ({title}), published {published}.

What it holds: the solution file (solution.csv), the random-stream key
revealed at publication and the commitment published when the competition
was created (competition.json), the configuration the boards ran under,
every board's submissions in the order that board saw them with the score
released, the mechanism's decision and the private score of each
(submissions.csv), {files}, and each board's final mechanism state
(states.json).

What it proves, checked by `ladderboard verify --bundle THIS_FOLDER_OR_ZIP`
with no server and no database:

- the solution and its public/private split are the ones committed to
  before the first submission: SHA-256 of the solution, its split and the
  key give the commitment;
- every file is the one scored: its SHA-256 is the one recorded;
- every released score, decision and private score is what the mechanism
  gives, run again bit for bit with the key in each board's order, and each
  board ends in its recorded state.

{hashes_note}"""

_HASHES_NOTE = """\
This bundle holds the files' SHA-256 only, not the files: the releases of a
board are re-run only for the boards whose every file is at hand. A team
re-runs its own board (a per-team board) with its own files:
`ladderboard verify --bundle THIS --files FOLDER_OF_YOUR_FILES`.
"""


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
        path = self.root.joinpath(*PurePosixPath(name).parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


class ZipSink:
    """Members of an open, writable :class:`zipfile.ZipFile`, each deflated."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        self.archive = archive

    def write(self, name: str, data: bytes) -> None:
        self.archive.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)


_UNSAFE = re.compile(r"[^A-Za-z0-9]+")


def submission_file_name(prefix: str, team: str, number: int, data: bytes) -> str:
    """A file name for a submitted file: its team's name in letters and
    digits only (a team name may hold any character), its number, and
    ``.csv.gz`` when the bytes are gzip's. Never ``TEAM__TIME.csv``, whose
    team the replay would read from the name rather than the index.

    >>> submission_file_name("00001", "Équipe A/B", 3, b"id,y")
    '00001-quipe-A-B-3.csv'
    """
    safe = _UNSAFE.sub("-", team).strip("-")[:40] or "team"
    suffix = ".csv.gz" if data[:2] == b"\x1f\x8b" else ".csv"
    return f"{prefix}-{safe}-{number}{suffix}"


def _csv(header: Iterable[str], rows: Iterable[Iterable[Any]]) -> bytes:
    text = io.StringIO(newline="")
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return text.getvalue().encode()


def _json(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode()


def _time(value: datetime | None) -> str | None:
    return None if value is None else aware(value).isoformat()


def _cell(value: datetime | None) -> str:
    return _time(value) or ""


@dataclass(frozen=True)
class AuditPublication:
    """A competition's published audit bundle: what it holds of the
    submitted files (``"full"`` or ``"hashes"``) and when it was published."""

    files: AuditFiles
    published_at: datetime


class Exports:
    """The export and the audit bundle, over ``context``."""

    def __init__(self, context: EngineContext, lifecycle: Lifecycle) -> None:
        self.context = context
        self.lifecycle = lifecycle
        self.snapshot = read_snapshot(context.engine)

    def export(self, slug: str, sink: Sink) -> list[str]:
        """Write the competition's export (module docstring) to ``sink`` and
        return the names written. The private scores and the key are written
        only once the private board is published."""
        written: list[str] = []

        def put(name: str, data: bytes) -> None:
            sink.write(name, data)
            written.append(name)

        with Session(self.snapshot) as session, session.begin():
            row = lookup.competition(session, slug)
            published = self.lifecycle.published_now(session, row)
            info = lookup.info(row)
            put("solution.csv", unpack(queries.solution_file(session.connection(), row.id)))
            index = []
            for i, sub in enumerate(queries.submission_records(session, row.id, order="made"), 1):
                data = unpack(sub.file)
                name = submission_file_name(f"{i:05d}", sub.team, sub.number, data)
                put(f"submissions/{name}", data)
                index.append(
                    (
                        name,
                        sub.team,
                        _cell(sub.created_at),
                        sub.number,
                        sub.message,
                        "scored" if sub.team_disabled_at is None else "team disabled",
                        repr(sub.public_score),
                        "yes" if sub.improved else "no",
                        "yes" if sub.selected else "no",
                        repr(sub.private_score) if published else "",
                        sub.file_sha256,
                    )
                )
            put(
                "submissions.csv",
                _csv(
                    (
                        "file",
                        "team",
                        "submitted_at",
                        "number",
                        "message",
                        "status",
                        "released",
                        "improved",
                        "selected",
                        "private_score",
                        "file_sha256",
                    ),
                    index,
                ),
            )
            put(
                "refused.csv",
                _csv(
                    ("team", "refused_at", "code", "message", "size", "file_sha256", "file_name"),
                    (
                        (
                            r.team,
                            _cell(r.created_at),
                            r.code,
                            r.message,
                            r.size,
                            r.file_sha256,
                            r.filename or "",
                        )
                        for r in queries.competition_rejections(session, row.id)
                    ),
                ),
            )
            put(
                "teams.csv",
                _csv(
                    ("team", "created_at", "disabled_at"),
                    (
                        (t.name, _cell(t.created_at), _cell(t.disabled_at))
                        for t in queries.teams(session, row.id)
                    ),
                ),
            )
            for listed in queries.competition_files(session, row.id):
                found = queries.competition_file(session, row.id, listed.name)
                if found is not None:
                    put(f"data/{listed.name}", unpack(found.data))
            put(
                "competition.json",
                _json(
                    {
                        "slug": info.slug,
                        "title": info.title,
                        "description": info.description,
                        "rules": info.rules,
                        "config": info.config.to_json(),
                        "commitment": info.commitment,
                        "solution_sha256": row.solution_sha256,
                        "split_sha256": row.split_sha256,
                        "n_public": info.n_public,
                        "n_private": info.n_private,
                        "created_at": _time(info.created_at),
                        "deadline": _time(info.deadline),
                        "closed_at": _time(info.closed_at),
                        "published_at": _time(info.published_at),
                        "key": row.secret_key if published else None,
                    }
                ),
            )
        return written

    def publish_audit(self, slug: str, files: AuditFiles) -> AuditPublication:
        """Publish the competition's audit bundle, with every submitted file
        (``"full"``) or their SHA-256 only (``"hashes"``): only once the
        private board is published and the key revealed, since the bundle
        holds both. Publishing again sets what it holds."""
        if files not in AUDIT_FILES:
            raise ValueError(f"files must be one of {AUDIT_FILES}, got {files!r}")
        with Session(self.context.reader) as session:
            published = self.lifecycle.published_now(session, lookup.competition(session, slug))
        if not published:
            raise CompetitionClosed(
                f"competition {slug!r} is not published: the audit bundle holds the key and "
                "the private scores, published with the private board"
            )
        with self.context.transaction() as session:
            row, now = self.context.locked(session, slug)
            if row.audit_files != files or row.audit_published_at is None:
                row.audit_files = files
                row.audit_published_at = now
            return AuditPublication(files, aware(row.audit_published_at))

    def audit_publication(self, slug: str) -> AuditPublication | None:
        """What the competition's audit bundle holds and when it was
        published, or ``None`` until the organiser publishes it."""
        with Session(self.context.reader) as session:
            row = lookup.competition(session, slug)
            if row.audit_files is None or row.audit_published_at is None:
                return None
            files: AuditFiles = "full" if row.audit_files == "full" else "hashes"
            return AuditPublication(files, aware(row.audit_published_at))

    def audit_bundle(self, slug: str, sink: Sink) -> list[str]:
        """Write the published audit bundle (module docstring) to ``sink``
        and return the names written; :class:`CompetitionClosed` until the
        organiser publishes it."""
        written: list[str] = []

        def put(name: str, data: bytes) -> None:
            sink.write(name, data)
            written.append(name)

        with Session(self.snapshot) as session, session.begin():
            row = lookup.competition(session, slug)
            if row.audit_files is None or row.audit_published_at is None:
                raise CompetitionClosed(
                    f"the audit bundle of {slug!r} is not published: the organiser publishes "
                    "it after the private board"
                )
            full = row.audit_files == "full"
            solution = unpack(queries.solution_file(session.connection(), row.id))
            put("solution.csv", solution)
            index = []
            for sub in queries.submission_records(session, row.id, order="board"):
                name = ""
                if full:
                    data = unpack(sub.file)
                    prefix = f"{_UNSAFE.sub('-', sub.scope)}-{sub.sequence:05d}"
                    name = submission_file_name(prefix, sub.team, sub.number, data)
                    put(f"submissions/{name}", data)
                index.append(
                    (
                        sub.scope,
                        sub.sequence,
                        sub.team,
                        sub.team_id,
                        sub.number,
                        _cell(sub.created_at),
                        sub.file_sha256,
                        name,
                        repr(sub.public_score),
                        "yes" if sub.improved else "no",
                        repr(sub.public_raw),
                        repr(sub.private_score),
                        "yes" if sub.selected else "no",
                    )
                )
            put(
                "submissions.csv",
                _csv(
                    (
                        "scope",
                        "sequence",
                        "team",
                        "team_id",
                        "number",
                        "submitted_at",
                        "file_sha256",
                        "file",
                        "released",
                        "improved",
                        "public_raw",
                        "private_score",
                        "selected",
                    ),
                    index,
                ),
            )
            arrays = StoredArrays()
            states = {
                scope: arrays.fill(session.connection(), row.id, state)
                for scope, state in queries.board_states(session, row.id)
                if state is not None
            }
            put("states.json", _json(states))
            put(
                "competition.json",
                _json(
                    {
                        "format": BUNDLE_FORMAT,
                        "slug": row.slug,
                        "title": row.title,
                        "config": lookup.config(row.config).to_json(),
                        "commitment": row.commitment,
                        "key": row.secret_key,
                        "solution_sha256": hashlib.sha256(solution).hexdigest(),
                        "split_sha256": row.split_sha256,
                        "n_public": row.n_public,
                        "n_private": row.n_private,
                        "published_at": _time(row.key_revealed_at),
                        "files": row.audit_files,
                    }
                ),
            )
            put(
                "README.txt",
                BUNDLE_README.format(
                    slug=row.slug,
                    title=row.title,
                    published=_time(row.audit_published_at),
                    files="every submitted file (submissions/)"
                    if full
                    else "the SHA-256 of every submitted file",
                    hashes_note="" if full else _HASHES_NOTE,
                ).encode(),
            )
        return written
