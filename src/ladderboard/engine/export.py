"""The organiser's export: a competition's whole record written out of the
store, laid out as ``ladderboard replay`` reads a history
(:mod:`ladderboard.replay.history`):

- ``solution.csv``: the solution file as uploaded;
- ``submissions/``: every submitted file, byte for byte as received
  (``.csv.gz`` when it was sent compressed), in the order made;
- ``submissions.csv``: the index, one row a file: ``file``, ``team``,
  ``submitted_at`` (what the replay reads), then ``number``, ``message``,
  ``status``, ``released``, ``improved``, ``selected``, ``private_score``
  (empty until the private board is published), ``file_sha256`` and
  ``draw_versions`` (the numpy and randomgen versions its draws were made
  with, :data:`ladderboard.random.DRAW_VERSIONS`);
- ``late/`` and ``late.csv``: the late submissions (files sent after the
  publication, which no board of the competition reads), each file as
  received, with its team, time, number, message, status (``team
  disabled`` for a team the late board leaves out) and both exact scores;
  apart from ``submissions/``, so that a replay reads the competition as it
  ran (``late.csv`` holds its header alone when there are none);
- ``refused.csv``: the refused files (the store keeps their hash, not their bytes);
- ``teams.csv``: the teams (never their tokens);
- ``data/``: the organiser's data files;
- ``corrections/N/``: each correction of the solution, oldest first: the
  solution it replaced, the releases it replaced (``releases.csv``, by
  ``file``) and what it was (``correction.json``,
  :func:`~ladderboard.engine.corrections.write_corrections`);
- ``competition.json``: the texts, the configuration, the commitment, the
  hashes, the counts and the times; the key once published.

It is written through a :class:`~ladderboard.engine.archives.Sink` (a folder,
or a zip archive) one file at a time, the submissions read from the store a
few at a time in one snapshot.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from ladderboard.engine import lookup
from ladderboard.engine.archives import (
    Sink,
    csv_bytes,
    iso_cell,
    iso_time,
    json_bytes,
    submission_file_name,
)
from ladderboard.engine.context import EngineContext
from ladderboard.engine.corrections import write_corrections
from ladderboard.engine.lifecycle import Lifecycle
from ladderboard.store import calendar, queries, read_snapshot
from ladderboard.store.blobs import unpack

__all__ = ["Exports"]

# The first columns of submissions.csv and late.csv: a file and whose it is.
_FILE_COLUMNS = ("file", "team", "submitted_at", "number", "message", "status")


class Exports:
    """The organiser's export, over ``context``."""

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
            names: dict[int, tuple[str, str, int]] = {}
            for i, sub in enumerate(queries.submission_records(session, row.id, order="made"), 1):
                data = unpack(sub.file)
                name = submission_file_name(f"{i:05d}", sub.team, sub.number, data)
                names[sub.id] = (name, sub.team, sub.number)
                put(f"submissions/{name}", data)
                index.append(
                    (
                        name,
                        sub.team,
                        iso_cell(sub.created_at),
                        sub.number,
                        sub.message,
                        "scored" if sub.team_disabled_at is None else "team disabled",
                        repr(sub.public_score),
                        "yes" if sub.improved else "no",
                        "yes" if sub.selected else "no",
                        repr(sub.private_score) if published else "",
                        sub.file_sha256,
                        sub.draw_versions or "",
                    )
                )
            put(
                "submissions.csv",
                csv_bytes(
                    (
                        *_FILE_COLUMNS,
                        "released",
                        "improved",
                        "selected",
                        "private_score",
                        "file_sha256",
                        "draw_versions",
                    ),
                    index,
                ),
            )
            late = []
            for i, sub in enumerate(calendar.late_records(session, row.id), 1):
                data = unpack(sub.file)
                name = submission_file_name(f"{i:05d}", sub.team, sub.number, data)
                put(f"late/{name}", data)
                late.append(
                    (
                        name,
                        sub.team,
                        iso_cell(sub.created_at),
                        sub.number,
                        sub.message,
                        "scored late" if sub.team_disabled_at is None else "team disabled",
                        repr(sub.public_score),
                        repr(sub.private_score),
                        sub.file_sha256,
                    )
                )
            put(
                "late.csv",
                csv_bytes(
                    (
                        *_FILE_COLUMNS,
                        "public_score",
                        "private_score",
                        "file_sha256",
                    ),
                    late,
                ),
            )
            put(
                "refused.csv",
                csv_bytes(
                    ("team", "refused_at", "code", "message", "size", "file_sha256", "file_name"),
                    (
                        (
                            r.team,
                            iso_cell(r.created_at),
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
                csv_bytes(
                    ("team", "created_at", "disabled_at"),
                    (
                        (t.name, iso_cell(t.created_at), iso_cell(t.disabled_at))
                        for t in queries.teams(session, row.id)
                    ),
                ),
            )
            write_corrections(
                session,
                row,
                put,
                names,
                ("file", "team", "number"),
                key=published,
                private=published,
            )
            for listed in queries.competition_files(session, row.id):
                found = queries.competition_file(session, row.id, listed.name)
                if found is not None:
                    put(f"data/{listed.name}", unpack(found.data))
            put(
                "competition.json",
                json_bytes(
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
                        "created_at": iso_time(info.created_at),
                        "deadline": iso_time(info.deadline),
                        "closed_at": iso_time(info.closed_at),
                        "published_at": iso_time(info.published_at),
                        "key": row.secret_key if published else None,
                    }
                ),
            )
        return written
