"""The audit bundle anyone may download once the organiser publishes it,
after the private board: what re-running every board needs, read by
:mod:`ladderboard.engine.audit_bundle` with no store. It holds the solution,
the key, the commitment, the configuration, each board's submissions in its
order with what was released and decided, their files (or only their
SHA-256), each board's final state, and a ``README.txt`` saying what it
proves. It is written through a :class:`~ladderboard.engine.archives.Sink`
one file at a time, the submissions read from the store a few at a time.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy.orm import Session

from ladderboard.engine import lookup
from ladderboard.engine.archives import (
    UNSAFE_CHARACTERS,
    Sink,
    csv_bytes,
    iso_cell,
    iso_time,
    json_bytes,
    submission_file_name,
)
from ladderboard.engine.audit_bundle import BUNDLE_FORMAT
from ladderboard.engine.context import EngineContext
from ladderboard.engine.corrections import write_corrections
from ladderboard.engine.errors import CompetitionClosed
from ladderboard.engine.lifecycle import Lifecycle
from ladderboard.engine.results import aware
from ladderboard.store import queries, read_snapshot
from ladderboard.store.arrays import StoredArrays
from ladderboard.store.blobs import unpack

__all__ = ["AUDIT_FILES", "AuditFiles", "AuditPublication", "Audits"]

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
(submissions.csv), {files}, each board's final mechanism state
(states.json), and for each correction of the solution, the solution it
replaced and the releases it replaced (corrections/N/).

What it proves, checked by `ladderboard verify --bundle THIS_FOLDER_OR_ZIP`
with no server and no database:

- the solution and its public/private split are the ones committed to
  before the first submission: SHA-256 of the solution, its split and the
  key give the commitment;
- every file is the one scored: its SHA-256 is the one recorded;
- every released score, decision and private score is what the mechanism
  gives, run again bit for bit with the key in each board's order, and each
  board ends in its recorded state;
- each solution a correction replaced is the one committed to before it,
  and its releases are what it gives, run again bit for bit.

{hashes_note}"""

_HASHES_NOTE = """\
This bundle holds the files' SHA-256 only, not the files: the releases of a
board are re-run only for the boards whose every file is at hand. A team
re-runs its own board (a per-team board) with its own files:
`ladderboard verify --bundle THIS --files FOLDER_OF_YOUR_FILES`.
"""


@dataclass(frozen=True)
class AuditPublication:
    """A competition's published audit bundle: what it holds of the
    submitted files (``"full"`` or ``"hashes"``) and when it was published."""

    files: AuditFiles
    published_at: datetime


class Audits:
    """Publishing the audit bundle and writing it, over ``context``."""

    def __init__(self, context: EngineContext, lifecycle: Lifecycle) -> None:
        self.context = context
        self.lifecycle = lifecycle
        self.snapshot = read_snapshot(context.engine)

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
            places: dict[int, tuple[str, int, str, int]] = {}
            for sub in queries.submission_records(session, row.id, order="board"):
                places[sub.id] = (sub.scope, sub.sequence, sub.team, sub.number)
                name = ""
                if full:
                    data = unpack(sub.file)
                    prefix = f"{UNSAFE_CHARACTERS.sub('-', sub.scope)}-{sub.sequence:05d}"
                    name = submission_file_name(prefix, sub.team, sub.number, data)
                    put(f"submissions/{name}", data)
                index.append(
                    (
                        sub.scope,
                        sub.sequence,
                        sub.team,
                        sub.team_id,
                        sub.number,
                        iso_cell(sub.created_at),
                        sub.file_sha256,
                        name,
                        repr(sub.public_score),
                        "yes" if sub.improved else "no",
                        repr(sub.public_raw),
                        repr(sub.private_score),
                        "yes" if sub.selected else "no",
                        sub.draw_versions or "",
                    )
                )
            put(
                "submissions.csv",
                csv_bytes(
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
                        "draw_versions",
                    ),
                    index,
                ),
            )
            write_corrections(
                session,
                row,
                put,
                places,
                ("scope", "sequence", "team", "number"),
                key=True,
                private=True,
            )
            arrays = StoredArrays()
            states = {
                scope: arrays.fill(session.connection(), row.id, state)
                for scope, state in queries.board_states(session, row.id)
                if state is not None
            }
            put("states.json", json_bytes(states))
            put(
                "competition.json",
                json_bytes(
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
                        "published_at": iso_time(row.key_revealed_at),
                        "files": row.audit_files,
                    }
                ),
            )
            put(
                "README.txt",
                BUNDLE_README.format(
                    slug=row.slug,
                    title=row.title,
                    published=iso_time(row.audit_published_at),
                    files="every submitted file (submissions/)"
                    if full
                    else "the SHA-256 of every submitted file",
                    hashes_note="" if full else _HASHES_NOTE,
                ).encode(),
            )
        return written
