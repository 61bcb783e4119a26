"""Correcting a solution with a mistake (a wrong label) before the private
board is published: a new solution under a new commitment, every submission
scored again, and the old version kept for the history and the audit.

The corrected solution has the same ids, the same id and target columns and
the same public/private split as the one it replaces: only labels change.
The split is what every release was computed on (a team's public score is
its loss on the public rows, Blum & Hardt 2015, Section 2), and each board's
releases depend on all its earlier ones (Algorithm 1: the ladder releases a
new score only when a submission beats the best so far by its step), so
every board is run again from its first submission, in its order, through a
fresh mechanism keyed by the competition's own key: the random streams are
the ones the teams' releases were drawn from, and a release that the
correction does not touch comes out the same. The commitment changes with
the solution's hash; the old commitment, solution, key, reason and every
replaced release are kept (``solution_corrections``), shown in the
competition's history, and run again by ``verify``.

After publication the private board and the key are out: a correction then
would change a published result, and is refused.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from ladderboard._blas import on_one_blas_thread
from ladderboard.engine import lookup
from ladderboard.engine.archives import csv_bytes, iso_time, json_bytes
from ladderboard.engine.context import EngineContext
from ladderboard.engine.errors import CompetitionClosed, Conflict
from ladderboard.engine.lifecycle import Lifecycle
from ladderboard.engine.rerun import AuditedSubmission, Outcome, run_boards
from ladderboard.engine.results import aware, commitment_of
from ladderboard.engine.standings import standing_columns
from ladderboard.files.solution import Solution
from ladderboard.files.submission import SubmissionError
from ladderboard.mechanisms import MECHANISMS
from ladderboard.rules.boards import Record, by_team, team_standing
from ladderboard.rules.changes import CORRECTION
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.scoring import check_targets
from ladderboard.rules.text import MESSAGE_CHARS, check_text
from ladderboard.store import CompetitionRow, SolutionCorrectionRow, pack, queries, statements
from ladderboard.store import corrections as stored
from ladderboard.store.blobs import unpack
from ladderboard.store.setting_changes import add_setting_changes

__all__ = ["Correction", "Corrections", "check_correction", "write_corrections"]


@dataclass(frozen=True)
class Correction:
    """One correction of a competition's solution: its number (1, 2, ...),
    when and why it was made and by whom, the commitment it replaced and the
    new one, and how many released scores it changed."""

    number: int
    at: datetime
    reason: str
    old_commitment: str
    new_commitment: str
    actor: str | None = None
    changed: int = 0


def check_correction(old: Solution, new: Solution) -> None:
    """Refuse ``new`` as a correction of ``old`` unless only labels differ:
    the same id and target columns, the same ids in the same order, the same
    public/private split (:class:`ValueError`, saying which differs)."""
    if (new.id_column, new.target_columns) != (old.id_column, old.target_columns):
        raise ValueError(
            f"the corrected solution has the columns {(new.id_column, *new.target_columns)}, "
            f"the solution {(old.id_column, *old.target_columns)}: only labels may change"
        )
    if new.n != old.n or set(new.ids) != set(old.ids):
        raise ValueError(
            f"the corrected solution has other ids ({new.n} rows, the solution {old.n}): "
            "only labels may change, every submission was scored on these ids"
        )
    if new.split_sha256 != old.split_sha256:
        raise ValueError(
            "the corrected solution splits its rows otherwise (another Public/Private usage, "
            "or another row order): only labels may change, the split is what every release "
            "was computed on"
        )


class Corrections:
    """Correcting a competition's solution, over ``context``."""

    def __init__(self, context: EngineContext, lifecycle: Lifecycle) -> None:
        self.context = context
        self.lifecycle = lifecycle

    @on_one_blas_thread
    def correct_solution(
        self, slug: str, solution: Solution, reason: str, *, actor: str | None = None
    ) -> Correction:
        """Replace the solution of ``slug`` with ``solution``, its labels
        corrected, for ``reason`` (required), by ``actor``; any time before
        the private board is published, the close included, except while the
        public board is frozen.

        Under the lock of every board (a submission under way ends first,
        the next one finds the new commitment and is scored on ``solution``)
        and the lock the close and the publication take: the old version
        is kept (its solution file, hashes, key, commitment, and every
        submission's release, decision, raw public and private score), every
        stored file is scored again on ``solution`` and run through a fresh
        mechanism per board with the competition's key, in the board's order,
        and the new releases, decisions, scores, mechanism states, team
        standings and commitment are written, with the correction in the
        competition's history; the boards are built afresh.

        Raises :class:`ValueError` for no reason, a solution with other ids,
        columns or split, the same solution, or labels the score cannot use;
        :class:`CompetitionClosed` once the private board is published, and
        while the public board is frozen (from the freeze to the close). A
        refusal writes nothing."""
        check_text("reason", reason, max_chars=MESSAGE_CHARS, multiline=True)
        reason = reason.strip()
        if not reason:
            raise ValueError("a correction needs a reason: say what was wrong with the solution")
        solution_bytes = solution.to_csv()
        solution_sha256 = hashlib.sha256(solution_bytes).hexdigest()
        with self.context.transaction() as session:
            # Every board's lock, then the competition's, in a submission's order.
            boards_of = stored.lock_boards(session.connection(), slug)
            competition, store_now = self.context.locked(session, slug)
            if competition.id != boards_of:
                raise Conflict(f"competition {slug!r} changed during the correction")
            info = lookup.info(competition, store_now)
            if info.is_published(store_now) or info.publication_due(store_now):
                raise CompetitionClosed(
                    f"the private board of {slug!r} is published: its solution can no longer "
                    "be corrected"
                )
            frozen = info.frozen_since(store_now)
            if frozen is not None:
                # The frozen board holds releases on the old labels, and its
                # standings cannot be rebuilt from today's board states.
                raise CompetitionClosed(
                    f"the public board of {slug!r} is frozen since {frozen:%Y-%m-%d %H:%M} UTC: "
                    "a correction would change the board the teams see frozen; correct the "
                    "solution after the close, before publishing"
                )
            connection = session.connection()
            old_file = unpack(queries.solution_file(connection, competition.id))
            old = self.context.caches.solutions.lookup(
                competition.id, competition.solution_sha256, connection
            )
            check_correction(old, solution)
            if solution_sha256 == competition.solution_sha256:
                raise ValueError("the corrected solution is the solution: nothing to correct")
            config = CompetitionConfig.from_json(competition.config)
            try:
                check_targets(config.scoring(), solution.targets)
            except (TypeError, ValueError) as exc:
                raise ValueError(
                    f"the corrected solution cannot be scored by {config.score!r}: {exc}"
                ) from None
            rows = queries.files_by_board(session, competition.id)
            subs = [AuditedSubmission.stored(sub, unpack(file)) for sub, file in rows]
            try:
                outcomes, states = run_boards(solution, config, competition.secret_key, subs)
            except SubmissionError as exc:  # only labels differ: not expected
                raise ValueError(f"a submission cannot be scored again: {exc}") from None
            now = self.context.clock()
            new_commitment = commitment_of(
                solution_sha256, solution.split_sha256, competition.secret_key
            )
            correction = SolutionCorrectionRow(
                competition_id=competition.id,
                corrected_at=now,
                reason=reason,
                actor=actor,
                old_file=pack(old_file),
                old_solution_sha256=competition.solution_sha256,
                old_split_sha256=competition.split_sha256,
                old_key=competition.secret_key,
                old_commitment=competition.commitment,
                new_commitment=new_commitment,
            )
            stored.add_correction(
                session,
                correction,
                [
                    (
                        sub.id,
                        sub.public_score,
                        bool(sub.improved),
                        sub.public_raw,
                        sub.private_score,
                    )
                    for sub, _ in rows
                ],
            )
            stored.write_releases(
                connection,
                [
                    (sub.id, o.released, o.improved, o.public_raw, o.private)
                    for (sub, _), o in zip(rows, outcomes, strict=True)
                ],
            )
            spilled = []
            for scope, state in states.items():
                small, arrays = self.context.caches.arrays.spill(connection, competition.id, state)
                spilled.extend(arrays)
                stored.write_state(connection, competition.id, scope, small, now)
            stored.replace_solution(connection, competition.id, pack(solution_bytes))
            old_commitment = competition.commitment
            competition.solution_sha256 = solution_sha256
            competition.commitment = new_commitment
            session.flush()
            version = statements.bump_board_version(connection, competition.id, reset=True)
            self._write_standings(session, competition, config, rows, outcomes, version)
            add_setting_changes(
                session,
                competition.id,
                now,
                [
                    (
                        CORRECTION,
                        {"commitment": old_commitment},
                        {"commitment": new_commitment, "reason": reason},
                    )
                ],
                actor,
            )
            changed = sum(
                1
                for (sub, _), o in zip(rows, outcomes, strict=True)
                if repr(sub.public_score) != repr(o.released)
            )
        self.context.caches.arrays.committed(spilled)
        return Correction(
            correction.number, now, reason, old_commitment, new_commitment, actor, changed
        )

    @staticmethod
    def _write_standings(
        session: Session,
        competition: CompetitionRow,
        config: CompetitionConfig,
        rows: list,
        outcomes: list[Outcome],
        version: int,
    ) -> None:
        """Each team's standing from its new releases, by the rule the board
        is built by (:func:`~ladderboard.rules.boards.team_standing`),
        stamped with the correction's board ``version``."""
        mechanism = MECHANISMS[config.mechanism]
        records = [
            Record(
                sub.id,
                str(sub.team_id),
                aware(sub.created_at),
                o.released,
                o.released,
                improved=o.improved,
            )
            for (sub, _), o in zip(rows, outcomes, strict=True)
        ]
        numbers = {sub.id: sub.number for sub, _ in rows}
        for team, ordered in by_team(records).items():
            standing, reached_at = team_standing(
                ordered,
                direction=config.scoring().direction,
                release_is_current_best=mechanism.release_is_current_best,
                release_hides_decision=mechanism.release_hides_decision,
            )
            columns = standing_columns(standing, reached_at, numbers[standing.submission_id])
            statements.store_standing(
                session.connection(), competition.id, int(team), version=version, **columns
            )

    def corrections(self, slug: str) -> list[Correction]:
        """The corrections of the solution of ``slug``, oldest first."""
        with self.context.reader.connect() as connection, Session(bind=connection) as session:
            competition = lookup.competition(session, slug)
            found = stored.corrections(connection, competition.id)
        return [
            Correction(
                row.number,
                aware(row.corrected_at),
                row.reason,
                row.old_commitment,
                row.new_commitment,
                row.actor,
            )
            for row in found
        ]


def write_corrections(
    session: Session,
    competition: CompetitionRow,
    put: Callable[[str, bytes], None],
    names: Mapping[int, Sequence[Any]],
    columns: Sequence[str],
    *,
    key: bool,
    private: bool,
) -> None:
    """Write each correction of ``competition`` under ``corrections/N/``:
    the solution it replaced (``solution.csv``), the releases it replaced
    (``releases.csv``: the submission's ``columns``, its cells in
    ``names`` by submission id, then ``released``, ``improved``,
    ``public_raw`` and ``private_score``, the latter empty unless
    ``private``) and what it was (``correction.json``: when, why, by whom,
    the old and new commitment, the old hashes, and the key with ``key``)."""
    connection = session.connection()
    for row in stored.corrections(connection, competition.id):
        folder = f"corrections/{row.number}"
        put(f"{folder}/solution.csv", unpack(stored.correction_file(connection, row.id)))
        releases = stored.correction_releases(connection, row.id)
        lines = [
            (
                *names[ident],
                repr(old.public_score),
                "yes" if old.improved else "no",
                repr(old.public_raw),
                repr(old.private_score) if private else "",
            )
            for ident, old in sorted(releases.items(), key=lambda item: tuple(names[item[0]]))
            if ident in names
        ]
        put(
            f"{folder}/releases.csv",
            csv_bytes((*columns, "released", "improved", "public_raw", "private_score"), lines),
        )
        put(
            f"{folder}/correction.json",
            json_bytes(
                {
                    "number": row.number,
                    "corrected_at": iso_time(aware(row.corrected_at)),
                    "reason": row.reason,
                    "actor": row.actor,
                    "old_commitment": row.old_commitment,
                    "new_commitment": row.new_commitment,
                    "old_solution_sha256": row.old_solution_sha256,
                    "old_split_sha256": row.old_split_sha256,
                    "key": row.old_key if key else None,
                }
            ),
        )
