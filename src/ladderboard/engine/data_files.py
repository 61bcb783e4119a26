"""The data files participants download: the sample submission, generated
from the solution, and the organiser's own files."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ladderboard.engine import lookup
from ladderboard.engine.context import EngineContext
from ladderboard.engine.errors import Conflict, NotFound
from ladderboard.engine.lifecycle import Lifecycle
from ladderboard.engine.results import (
    FileInfo,
    aware,
)
from ladderboard.engine.stored_files import checked_files, file_name_ok, store_files
from ladderboard.rules.text import (
    SAMPLE_SUBMISSION,
)
from ladderboard.store import (
    queries,
)
from ladderboard.store.blobs import unpack

__all__ = ["DataFiles"]


class DataFiles:
    """The competitions' downloadable files, over ``context``; ``lifecycle``
    gives the competition and its solution."""

    def __init__(self, context: EngineContext, lifecycle: Lifecycle) -> None:
        self.context = context
        self.lifecycle = lifecycle

    def files(self, slug: str) -> list[FileInfo]:
        """The files participants may download: the sample submission
        (generated from the solution's ids), then the organiser's data files
        by name. Never the solution."""
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            rows = queries.competition_files(session, competition.id)
        return [
            self._sample(slug, aware(competition.created_at))[0],
            *(FileInfo(r.name, r.size, r.sha256, aware(r.created_at)) for r in rows),
        ]

    def file(self, slug: str, name: str) -> tuple[FileInfo, bytes]:
        """One downloadable file and its bytes (:class:`NotFound` if none)."""
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            if name == SAMPLE_SUBMISSION:
                return self._sample(slug, aware(competition.created_at))
            row = (
                queries.competition_file(session, competition.id, name)
                if file_name_ok(name)
                else None
            )
            if row is None:
                raise NotFound(f"competition {slug!r} has no file {name[:120]!r}")
            info = FileInfo(row.name, row.size, row.sha256, aware(row.created_at))
            return info, unpack(row.data)

    def _sample(self, slug: str, created_at: datetime) -> tuple[FileInfo, bytes]:
        data = self.sample_submission(slug)
        info = FileInfo(
            SAMPLE_SUBMISSION, len(data), hashlib.sha256(data).hexdigest(), created_at, True
        )
        return info, data

    def sample_submission(self, slug: str) -> bytes:
        """Every id of the holdout with every target column at 0: a valid
        submission to start from, which says nothing of the labels. Under a
        score that compares labels the value is the smallest class of the
        solution when 0 is none (a file of another value would be refused);
        the classes are no secret, the refusal of any other value names
        them. Its rows are sorted by id (numerically when every id is a
        number), not in the solution file's order, which may group the
        public rows apart from the private ones and so give the split away."""
        solution = self.lifecycle.solution(slug)
        fill = 0.0
        if (
            self.lifecycle.competition(slug).config.scoring().takes_labels
            and 0.0 not in solution.classes
        ):
            fill = float(solution.classes[0])
        header, *rows = solution.sample_submission_csv(fill).decode().splitlines()
        ids = solution.ids.tolist()  # in the rows' order
        numeric = all(i.isdigit() for i in ids)
        order = sorted(range(len(rows)), key=lambda k: int(ids[k]) if numeric else ids[k])
        return ("\n".join([header, *(rows[k] for k in order)]) + "\n").encode()

    def add_file(self, slug: str, name: str, data: bytes, *, replace: bool = False) -> FileInfo:
        """Attach a data file for the participants (or, with ``replace``,
        replace the file of that name); :class:`Conflict` if the name is taken."""
        return self.add_files(slug, [(name, data)], replace=replace)[0]

    def add_files(
        self, slug: str, files: Sequence[tuple[str, bytes]], *, replace: bool = False
    ) -> list[FileInfo]:
        """Attach data files, all of them or (at the first refusal) none."""
        checked = checked_files(files, self.context.clock())
        try:
            with self.context.transaction() as session:
                competition = lookup.competition(session, slug)
                store_files(session, competition, checked, replace)
        except IntegrityError as exc:
            raise Conflict(
                f"competition {slug!r} already has a file of one of these names"
            ) from exc
        return [info for info, _ in checked]

    def remove_file(self, slug: str, name: str) -> None:
        """Remove a data file (:class:`NotFound` if there is none)."""
        with self.context.transaction() as session:
            competition = lookup.competition(session, slug)
            row = (
                queries.competition_file(session, competition.id, name)
                if file_name_ok(name)
                else None
            )
            if row is None:
                raise NotFound(f"competition {slug!r} has no file {name[:120]!r}")
            session.delete(row)
