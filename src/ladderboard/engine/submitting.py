"""Submitting a file: the rules of one submission read top to bottom in
:meth:`Submitter.submit_once`. The file is parsed and scored outside the
transaction; then the board's mechanism row is locked, the close, the
idempotency key, the quotas and duplicates are checked, the mechanism takes
the scores, and the submission is stored, all in one transaction.

Where the submission goes and what refuses it without a file is
:mod:`~ladderboard.engine.targets`; the mechanism's step,
:mod:`~ladderboard.engine.advancing`; the team's standing after it,
:mod:`~ladderboard.engine.standings`; the quotas,
:mod:`~ladderboard.engine.quotas`. What makes it fast lives in
:mod:`~ladderboard.engine.caches`; the SQL in
:mod:`ladderboard.store.statements`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from ladderboard._blas import on_one_blas_thread
from ladderboard.engine import quotas
from ladderboard.engine.advancing import Step, advance, committed
from ladderboard.engine.context import EngineContext
from ladderboard.engine.errors import (
    CompetitionClosed,
    Conflict,
    DuplicateSubmission,
    NotFound,
)
from ladderboard.engine.results import (
    Admission,
    SubmissionResult,
    aware,
)
from ladderboard.engine.standings import standing_after
from ladderboard.engine.targets import (
    StaleTarget,
    Target,
    open_target,
    read_target,
    refuse_if_closed,
    refuse_if_disabled,
    refuse_if_not_open,
)
from ladderboard.engine.workers import background, hash_and_pack
from ladderboard.files.submission import (
    SubmissionError,
    canonical_predictions_hash,
    submission_sha256,
)
from ladderboard.random import DRAW_VERSIONS
from ladderboard.rules.boards import BoardRow
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.scoring import Scored
from ladderboard.rules.text import (
    IDEMPOTENCY_KEY_CHARS,
    MESSAGE_CHARS,
    check_text,
    printable,
    submitted_file_name,
)
from ladderboard.store import calendar, statements
from ladderboard.store.database import writer_turn
from ladderboard.store.statements import StoredStanding

__all__ = ["Submitter"]


@dataclass(frozen=True, slots=True)
class _Received:
    """A file as read before the lock: its time, message and idempotency
    key, its hash and stored form, its predictions' hash and its scores."""

    now: datetime
    message: str
    idempotency_key: str | None
    file_sha256: str
    blob: bytes
    predictions_sha256: str
    scored: Scored


def _time(stored: str | None) -> datetime | None:
    """A calendar time as the lock reads it from the stored configuration."""
    return None if stored is None else datetime.fromisoformat(stored)


def _result(
    number: int,
    team: str,
    score: float,
    created_at: datetime,
    counts: tuple[int, int],
    config: CompetitionConfig,
    previous: float | None,
) -> SubmissionResult:
    """What the team is told: its release, its previous one, and what is left
    of today's quota (``counts``: the team's submissions today and in all,
    this one included)."""
    return SubmissionResult(
        number=number,
        team=team,
        public_score=score,
        status="scored",
        remaining_today=quotas.remaining_today(
            *counts, daily_quota=config.daily_quota, total_quota=config.total_quota
        ),
        created_at=created_at,
        previous_score=previous,
    )


class Submitter:
    """Takes submissions into the store of ``context``, keeping what makes it
    fast in the context's caches. ``public_board`` gives a competition's
    public board from what is committed, which the first submission after
    the freeze keeps as the frozen board (:meth:`_freeze`)."""

    def __init__(
        self,
        context: EngineContext,
        public_board: Callable[[str], list[BoardRow]] | None = None,
    ) -> None:
        self.context = context
        self.public_board = public_board

    @on_one_blas_thread
    def submit(
        self,
        slug: str,
        team: str,
        data: bytes,
        *,
        message: str = "",
        idempotency_key: str | None = None,
        filename: str | None = None,
    ) -> SubmissionResult:
        """Score one submission file for ``team``; all of it is stored or none
        (see :meth:`~ladderboard.engine.Competitions.submit`). A target read
        before its competition was created again is read afresh once."""
        check_text("message", message or "", max_chars=MESSAGE_CHARS, multiline=True)
        if idempotency_key is not None:
            check_text("idempotency key", idempotency_key, max_chars=IDEMPOTENCY_KEY_CHARS)
        try:
            return self.submit_once(slug, team, data, message or "", idempotency_key, filename)
        except StaleTarget:  # nothing written: read the target afresh and submit again
            self.context.caches.targets.pop((slug, team), None)
        try:
            return self.submit_once(slug, team, data, message or "", idempotency_key, filename)
        except StaleTarget:
            raise Conflict(f"competition {slug!r} changed during the submission") from None

    def submit_once(
        self,
        slug: str,
        team: str,
        data: bytes,
        message: str,
        idempotency_key: str | None,
        filename: str | None = None,
    ) -> SubmissionResult:
        """The rules of one submission, in the order they apply."""
        now = self.context.clock()
        packing = background(hash_and_pack, data)  # overlaps with parsing
        target = open_target(self.context, slug, team, now)
        config = target.config
        if idempotency_key is not None:
            resent = self._resent_before_parsing(target, team, idempotency_key, data, now)
            if resent is not None:
                return resent
        # The public losses live in the scratch until the mechanism has
        # taken them (every mechanism copies what it keeps).
        with self.context.caches.scratch.lent(target.solution) as scratch:
            try:
                predictions = target.parse(data)
                # The hash overlaps with scoring.
                hashing = background(canonical_predictions_hash, predictions)
                scored = target.score(predictions, scratch)
            except SubmissionError as exc:
                self._reject(slug, team, target, now, exc, (data, filename))
                raise
            # Awaited before the lock: a board's writers (every writer, on
            # SQLite) would otherwise queue behind this file's compression.
            file_sha256, blob = packing.result()
            predictions_sha256 = hashing.result()
            store_now = self.context.store_now()
            with writer_turn(self.context.engine), self.context.engine.begin() as connection:
                locked = self._lock(connection, slug, target, store_now)
                refuse_if_closed(slug, locked.closed_at, locked.deadline, aware(locked.store_now))
                refuse_if_not_open(slug, _time(locked.opens_at), aware(locked.store_now))
                refuse_if_disabled(team, locked.disabled_at)
                if idempotency_key is not None:
                    earlier = statements.submission_with_key(
                        connection, target.team_id, idempotency_key
                    )
                    if earlier is not None:
                        if earlier.file_sha256 != file_sha256:
                            raise Conflict("this idempotency key was used for another file")
                        return self._resent(connection, earlier, team, config, now)
                today, total, same, other, invalid, previous, stored, merged = statements.counts(
                    connection,
                    target.competition_id,
                    target.team_id,
                    predictions_sha256,
                    quotas.daily_window(now),
                )
                # The quotas count the submissions of the teams merged into this one.
                used = (today + merged[0], total + merged[1])
                quotas.check_invalid(config, team, invalid)
                quotas.check_quota(config, team, *used, now)
                if same is not None:
                    raise DuplicateSubmission(
                        f"these predictions are identical to submission {same}; "
                        "a resubmission is not scored again and uses no quota"
                    )
                if locked.freeze_at is not None:
                    freeze_at = _time(locked.freeze_at)
                    self._freeze(connection, slug, target, freeze_at, aware(locked.store_now))
                received = _Received(
                    now, message, idempotency_key, file_sha256, blob, predictions_sha256, scored
                )
                step = self._store(
                    connection, slug, target, locked, received, (total, other, stored), store_now
                )
        committed(self.context, step)
        spent = (used[0] + 1, used[1] + 1)
        return _result(total + 1, team, step.score, now, spent, config, previous)

    def _store(
        self,
        connection: Connection,
        slug: str,
        target: Target,
        locked: Any,
        received: _Received,
        counts: tuple[int, int | None, StoredStanding | None],
        store_now: datetime | None,
    ) -> Step:
        """Under the board's lock, with every refusal passed: the mechanism
        takes the scores, and the submission, the team's standing and the
        board's version are written. ``counts`` are the team's submissions
        in all, another team's submission of the same predictions, and the
        team's standing before this one."""
        total, other, stored = counts
        now, scored = received.now, received.scored
        step = advance(self.context, connection, target, locked, scored.public_input)
        submission_id = statements.store_submission(
            connection,
            state_id=locked.id,
            state=step.state,
            file=received.blob,
            earlier_submission_id=other,
            competition_id=target.competition_id,
            team_id=target.team_id,
            scope=target.scope,
            sequence=step.sequence,
            number=total + 1,
            created_at=now,
            message=received.message,
            idempotency_key=received.idempotency_key,
            file_sha256=received.file_sha256,
            predictions_sha256=received.predictions_sha256,
            public_score=step.score,
            improved=step.improved,
            public_raw=scored.public_raw,
            private_score=scored.private,
            selected=False,
            draw_versions=DRAW_VERSIONS,
        )
        standing = standing_after(
            connection, target, (submission_id, now, step.score, total + 1, step.improved), stored
        )
        # The competition's row is locked from here to the commit: last.
        # Here the close is decided, under the lock the close takes: a
        # submission that read "open" above and finds the close
        # committed since is refused, and everything it wrote undone.
        stored_at = statements.store_standing_and_bump(
            connection,
            target.competition_id,
            target.team_id,
            store_now,
            target.commitment,
            **standing,
        )
        if stored_at is None:
            if statements.commitment(connection, target.competition_id) != target.commitment:
                raise StaleTarget  # its solution was corrected: scored again on the new one
            raise CompetitionClosed(f"competition {slug!r} is closed")
        return step

    def _freeze(
        self,
        connection: Connection,
        slug: str,
        target: Target,
        freeze_at: datetime | None,
        store_now: datetime,
    ) -> None:
        """Before the first submission at or after the freeze changes the
        board, keep the public board as it stands (every submission
        committed so far, all made before the freeze) as the frozen board,
        which participants see until the close. Under the board's lock: on a
        per-rank board no other submission can come between; on a per-team
        board the first frozen board written stays (a team's submission
        changes only its own standing, which it reads as committed)."""
        if freeze_at is None or store_now < freeze_at or self.public_board is None:
            return
        if calendar.board_freeze(connection, target.competition_id) is not None:
            return
        rows = [
            {
                "rank": row.rank,
                "team": row.team,
                "score": row.score,
                "entries": row.entries,
                "last_submission": None
                if row.last_submission is None
                else row.last_submission.isoformat(),
                "number": row.number,
            }
            for row in self.public_board(slug)
        ]
        calendar.store_board_freeze(connection, target.competition_id, freeze_at, rows)

    def admit(
        self,
        slug: str,
        team: str,
        idempotency_key: str | None = None,
        read: Admission | None = None,
    ) -> None:
        """Refuse what needs no file, before one is read (see
        :meth:`~ladderboard.engine.Competitions.admit`)."""
        now = self.context.clock() if read is None else read.now
        target = open_target(self.context, slug, team, now)
        if read is not None and (read.team_id, read.commitment) == (
            target.team_id,
            target.commitment,
        ):
            row = read  # read with the caller, of this very team and competition
        else:
            with self.context.reader.connect() as connection:
                row = statements.admission(
                    connection,
                    target.competition_id,
                    target.team_id,
                    idempotency_key,
                    quotas.daily_window(now),
                    self.context.store_now(),
                )
        if row is None:  # the competition is gone: forget it
            self.context.caches.targets.pop((slug, team), None)
            raise NotFound(f"no competition {slug!r}")
        if row.settings_version != target.settings_version:  # edited since it was kept
            self.context.caches.targets.pop((slug, team), None)
            target = read_target(self.context, slug, team)
        # An Admission, or the store's row of the same names.
        refuse_if_closed(slug, row.closed_at, row.deadline, aware(row.store_now) or now)
        refuse_if_not_open(slug, target.config.opens_at, aware(row.store_now) or now)
        refuse_if_disabled(team, row.disabled_at)
        if row.resent:
            return
        quotas.check_invalid(target.config, team, row.invalid)
        quotas.check_quota(target.config, team, row.today, row.total, now)

    # ------------------------------------------------------------ the steps
    def _resent_before_parsing(
        self, target: Target, team: str, key: str, data: bytes, now: datetime
    ) -> SubmissionResult | None:
        """The first answer when ``key`` was used with these very bytes; the
        Conflict when it was used with another file; ``None`` when it is new.

        Decided before the file is read: the admission lets a submission
        under a used key through at a spent quota or invalid-file cap (its
        resend must get its first answer), so a file parsed after it would be
        scored and recorded for free. The key's row is checked again under
        the lock, for a submission with the same key committed meanwhile."""
        with self.context.reader.connect() as connection:
            earlier = statements.submission_with_key(connection, target.team_id, key)
            if earlier is None:
                return None
            if earlier.file_sha256 != submission_sha256(data):
                raise Conflict("this idempotency key was used for another file")
            return self._resent(connection, earlier, team, target.config, now)

    def _lock(
        self, connection: Connection, slug: str, target: Target, store_now: datetime | None
    ) -> Any:
        """Lock the target's board; :class:`StaleTarget` when the competition
        under ``slug`` is no longer the one the target was read from, its
        settings were edited since, or the store is no longer the one this
        process's caches were filled from (put back from a backup)."""
        locked = statements.lock_state(
            connection, target.competition_id, target.scope, target.team_id, store_now
        )
        if locked is None or (locked.slug, locked.commitment, locked.settings_version) != (
            slug,
            target.commitment,
            target.settings_version,
        ):
            raise StaleTarget
        if not self.context.same_store(locked.identity):
            raise StaleTarget  # the caches were of another store: dropped, read again
        return locked

    def _reject(
        self,
        slug: str,
        team: str,
        target: Target,
        now: datetime,
        error: SubmissionError,
        file: tuple[bytes, str | None],
    ) -> None:
        """Record a bad file (its bytes and the name it was sent under)
        against the team's invalid cap, unless the competition is closed or
        the cap reached (then say that instead). The count and the insert
        hold the lock a valid file takes (the board's mechanism row), so
        concurrent bad files cannot pass the cap."""
        with writer_turn(self.context.engine), self.context.engine.begin() as connection:
            locked = self._lock(connection, slug, target, self.context.store_now())
            refuse_if_closed(slug, locked.closed_at, locked.deadline, aware(locked.store_now))
            refuse_if_not_open(slug, _time(locked.opens_at), aware(locked.store_now))
            refuse_if_disabled(team, locked.disabled_at)
            quotas.check_invalid(
                target.config, team, statements.invalid_files(connection, target.team_id)
            )
            statements.store_rejection(
                connection,
                competition_id=target.competition_id,
                team_id=target.team_id,
                created_at=now,
                code=str(getattr(error, "code", "invalid"))[:40],
                # The message may quote the file: no control character reaches the store.
                message=printable(str(error), 2000),
                # Not the worker's hash: that waits for the compression too.
                file_sha256=submission_sha256(file[0]),
                size=len(file[0]),
                filename=submitted_file_name(file[1]),
            )

    @staticmethod
    def _resent(
        connection: Connection, row: Any, team: str, config: CompetitionConfig, now: datetime
    ) -> SubmissionResult:
        """The answer to a submission resent with its idempotency key: the first one's."""
        today, total, _ = statements.team_counts(
            connection, row.team_id, row.predictions_sha256, quotas.daily_window(now)
        )
        previous = statements.released_before(connection, row.team_id, row.number)
        return _result(
            row.number,
            team,
            row.public_score,
            aware(row.created_at),
            (today, total),
            config,
            previous,
        )
