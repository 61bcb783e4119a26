"""Submitting a file: the rules of one submission read top to bottom in
:meth:`Submitter.submit_once`. The file is parsed and scored outside the
transaction; then the board's mechanism row is locked, the close, the
idempotency key, the quotas and duplicates are checked, the mechanism takes
the scores, and the submission is stored, all in one transaction.

What makes it fast lives in :mod:`ladderboard.engine.caches` (the
in-process caches and the worker threads that hash and compress); the SQL
lives in :mod:`ladderboard.store.statements`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine
from sqlalchemy.orm import Session

from ladderboard._blas import on_one_blas_thread
from ladderboard.engine import instances, lookup, quotas
from ladderboard.engine.caches import (
    CachedMechanism,
    CachedRanks,
    Caches,
    background,
    hash_and_pack,
)
from ladderboard.engine.errors import (
    CompetitionClosed,
    Conflict,
    DuplicateSubmission,
    NotFound,
    TeamDisabled,
)
from ladderboard.engine.results import (
    BOARD_SCOPE,
    Admission,
    SubmissionResult,
    aware,
    is_closed,
    team_scope,
)
from ladderboard.files.solution import Solution
from ladderboard.files.submission import (
    SubmissionError,
    canonical_predictions_hash,
    parse_submission,
    submission_sha256,
)
from ladderboard.mechanisms import MECHANISMS
from ladderboard.rules.boards import Record, Standing, by_team, team_standing
from ladderboard.rules.config import CompetitionConfig, Scoring
from ladderboard.rules.scoring import Scored, ScoringScratch, score_predictions
from ladderboard.rules.text import (
    IDEMPOTENCY_KEY_CHARS,
    MESSAGE_CHARS,
    check_text,
    printable,
    submitted_file_name,
)
from ladderboard.store import statements
from ladderboard.store.clock import store_time
from ladderboard.store.database import writer_turn

__all__ = ["Submitter", "Target", "standing_columns"]


@dataclass(frozen=True, slots=True)
class Target:
    """Where a submission goes: what never changes of a competition and a
    team, read once per process. What does change (the close, the team's
    counts) is read under the lock."""

    competition_id: int
    team_id: int
    config: CompetitionConfig
    scoring: Scoring  # config.scoring(), built once
    deadline: datetime | None
    solution: Solution
    checked: bool  # the solution's targets suit the scoring (check_targets)
    classes: Any  # the solution's classes a prediction must be one of, or None
    commitment: str  # unique to the competition's creation

    @property
    def scope(self) -> str:
        """The lock scope of the target's board: its team's, or the whole per-rank board."""
        return BOARD_SCOPE if self.config.board == "per-rank" else team_scope(self.team_id)

    def parse(self, data: bytes) -> Any:
        """``data``'s predictions, aligned with this competition's solution."""
        return parse_submission(
            data,
            self.solution,
            max_bytes=self.config.max_bytes,
            probabilities=self.scoring.requires_probabilities,
            classes=self.classes,
        )

    def score(self, predictions: Any, scratch: ScoringScratch | None = None) -> Scored:
        """The public and private scores of ``predictions`` (the losses
        written into ``scratch`` when given).

        Whether a file is scored is decided on all its scored rows together,
        never on one part, so that no refusal tells a public row from a
        private one: a file whose score of all rows is not a finite number is
        refused (a correlation of predictions all the same; a loss past the
        largest float on some row, or in all), as no board can rank it and
        SQLite cannot even store it. A part on which the metric alone is
        undefined (predictions constant on the public rows, or on the
        private ones) is scored as the metric's worst value, as the metric
        mechanisms score it (see :class:`~ladderboard.rules.scoring.Scored`)."""
        solution = self.solution
        scored = score_predictions(
            self.scoring,
            solution.targets,
            predictions,
            solution.public_rows,
            solution.private_rows,
            checked=self.checked,
            scratch=scratch,
        )
        name = self.scoring.name
        if math.isnan(scored.overall):
            raise SubmissionError(
                "undefined_score",
                f"the {name} of these predictions is undefined (for example, a correlation "
                "of predictions that are all the same): vary the predictions",
            )
        if not math.isfinite(scored.overall):
            kind = "loss" if self.scoring.kind == "loss" else "score"
            raise SubmissionError(
                "score_not_finite",
                f"the {name} {kind} of these predictions is too large to compute (a prediction "
                "far outside the targets' range): bring the predictions near the targets",
            )
        # What is left is a part the metric is undefined on and has no finite worst
        # value for (r2 of a part whose targets are all the same), whatever the file.
        if not (math.isfinite(scored.public_raw) and math.isfinite(scored.private)):
            raise SubmissionError(
                "undefined_score",
                f"the {name} of these predictions is undefined on the rows this "
                "competition scores: tell the organiser",
            )
        return scored


@dataclass(frozen=True, slots=True)
class _Step:
    """A board's mechanism after one submission: its release and new state."""

    sequence: int  # the submission's place in its board
    score: float
    improved: bool
    state: Any  # JSON, its large arrays spilled
    spilled: list  # the arrays this transaction stored
    cached: CachedMechanism | CachedRanks  # the advanced mechanism(s), kept after the commit


class _StaleTarget(Exception):
    """The competition under a slug is not the one a cached target read (it
    was created again): nothing was written, and the submission is retried."""


def _refuse_if_closed(
    slug: str, closed_at: datetime | None, deadline: datetime | None, now: datetime
) -> None:
    if is_closed(aware(closed_at), aware(deadline), now):
        raise CompetitionClosed(f"competition {slug!r} is closed")


def _refuse_if_disabled(team: str, disabled_at: datetime | None) -> None:
    if disabled_at is not None:
        raise TeamDisabled(f"team {team!r} is disabled by the organiser")


def _standing(
    connection: Connection,
    target: Target,
    release: tuple[int, datetime, float, int, bool],
    previous: statements.StoredStanding | None,
) -> dict[str, Any]:
    """The team's standing on the public board after its submission
    ``release`` (``(id, created_at, public_score, number, improved)``, just
    stored), as the columns :func:`~ladderboard.store.statements.store_standing`
    writes, by the rule the whole board is built by
    (:func:`~ladderboard.rules.boards.team_standing`), from ``previous``,
    the standing before it (read with the team's counts, under the lock):
    under full disclosure the team's best release, given by the first
    submission to reach it; on a ladder its latest release, given by the file
    the mechanism holds as best (or by this submission, where the releases hide
    which file that is). Reads no row, rather than the team's whole history,
    when the submission is the team's latest in time (as it is unless clocks
    disagree)."""
    ident, created, score, number, improved = release
    if math.isnan(score) or (previous is not None and created < aware(previous.last_submission_at)):
        # NaN never compares better, and a submission stamped before the
        # team's latest (a worker's clock behind another's) is not the last
        # in the board's order: apply the rule to the whole history.
        return _standing_from_history(connection, target)
    reached = (ident, created, number)
    if previous is not None:
        kept = (previous.submission_id, previous.submission_at, previous.submission_number)
        mechanism = MECHANISMS[target.config.mechanism]
        if mechanism.release_is_current_best:
            if not (improved or mechanism.release_hides_decision):
                reached = kept
        elif not target.scoring.direction.key(score) < target.scoring.direction.key(
            previous.score
        ):  # the best release stays (a later one wins no tie)
            score, reached = previous.score, kept
    return {
        "score": score,
        "entries": 1 if previous is None else previous.entries + 1,
        "last_submission_at": created,
        "submission_id": reached[0],
        "submission_number": reached[2],
        "submission_at": reached[1],
    }


def _standing_from_history(connection: Connection, target: Target) -> dict[str, Any]:
    """:func:`_standing` by the rule applied to all the team's releases."""
    rows = statements.team_releases(connection, target.team_id)
    records = [
        Record(ident, "", created, score, score, improved=bool(improved))
        for ident, created, score, _, improved in rows
    ]
    (ordered,) = by_team(records).values()
    mechanism = MECHANISMS[target.config.mechanism]
    standing, reached_at = team_standing(
        ordered,
        direction=target.scoring.direction,
        release_is_current_best=mechanism.release_is_current_best,
        release_hides_decision=mechanism.release_hides_decision,
    )
    numbers = {ident: number for ident, _, _, number, _ in rows}
    return standing_columns(standing, reached_at, numbers[standing.submission_id])


def standing_columns(standing: Standing, reached_at: datetime, number: int) -> dict[str, Any]:
    """The stored columns of a team's ``standing`` (as
    :func:`~ladderboard.rules.boards.team_standing` gives it, with the time
    its score was reached), ``number`` being the team's own number of the
    submission that gives it."""
    return {
        "score": standing.score,
        "entries": standing.entries,
        "last_submission_at": standing.last_submission,
        "submission_id": standing.submission_id,
        "submission_number": number,
        "submission_at": reached_at,
    }


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
        id=number,
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
    """Takes submissions into the store behind ``engine`` (reads through
    ``reader``), keeping what makes it fast in ``caches``."""

    def __init__(
        self,
        engine: Engine,
        reader: Engine,
        clock: Callable[[], datetime],
        caches: Caches,
        store_clock: Callable[[], datetime | None] = lambda: None,
    ):
        self.engine = engine
        self.reader = reader
        self.clock = clock
        self.caches = caches
        # The store's time to bind in the statements that decide the deadline:
        # None, the database's own (see ladderboard.store.clock).
        self.store_clock = store_clock

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
        except _StaleTarget:  # nothing written: read the target afresh and submit again
            self.caches.targets.pop((slug, team), None)
        try:
            return self.submit_once(slug, team, data, message or "", idempotency_key, filename)
        except _StaleTarget:
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
        now = self.clock()
        packing = background(hash_and_pack, data)  # overlaps with parsing
        target = self._open_target(slug, team, now)
        config = target.config
        if idempotency_key is not None:
            resent = self._resent_before_parsing(target, team, idempotency_key, data, now)
            if resent is not None:
                return resent
        # The public losses live in the scratch until the mechanism has
        # taken them (every mechanism copies what it keeps).
        with self.caches.scratch.lent(target.solution) as scratch:
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
            store_now = self.store_clock()
            with writer_turn(self.engine), self.engine.begin() as connection:
                locked = self._lock(connection, slug, target, store_now)
                _refuse_if_closed(slug, locked.closed_at, locked.deadline, aware(locked.store_now))
                _refuse_if_disabled(team, locked.disabled_at)
                if idempotency_key is not None:
                    earlier = statements.submission_with_key(
                        connection, target.team_id, idempotency_key
                    )
                    if earlier is not None:
                        if earlier.file_sha256 != file_sha256:
                            raise Conflict("this idempotency key was used for another file")
                        return self._resent(connection, earlier, team, config, now)
                today, total, same, other, invalid, previous, stored = statements.counts(
                    connection,
                    target.competition_id,
                    target.team_id,
                    predictions_sha256,
                    quotas.daily_window(now),
                )
                quotas.check_invalid(config, team, invalid)
                quotas.check_quota(config, team, today, total, now)
                if same is not None:
                    raise DuplicateSubmission(
                        f"these predictions are identical to submission {same}; "
                        "a resubmission is not scored again and uses no quota"
                    )
                step = self._advance(connection, target, locked, scored.public_input)
                submission_id = statements.store_submission(
                    connection,
                    state_id=locked.id,
                    state=step.state,
                    file=blob,
                    earlier_submission_id=other,
                    competition_id=target.competition_id,
                    team_id=target.team_id,
                    scope=target.scope,
                    sequence=step.sequence,
                    number=total + 1,
                    created_at=now,
                    message=message,
                    idempotency_key=idempotency_key,
                    file_sha256=file_sha256,
                    predictions_sha256=predictions_sha256,
                    public_score=step.score,
                    improved=step.improved,
                    public_raw=scored.public_raw,
                    private_score=scored.private,
                    selected=False,
                )
                standing = _standing(
                    connection,
                    target,
                    (submission_id, now, step.score, total + 1, step.improved),
                    stored,
                )
                # The competition's row is locked from here to the commit: last.
                # Here the close is decided, under the lock the close takes: a
                # submission that read "open" above and finds the close
                # committed since is refused, and everything it wrote undone.
                stored_at = statements.store_standing_and_bump(
                    connection, target.competition_id, target.team_id, store_now, **standing
                )
                if stored_at is None:
                    raise CompetitionClosed(f"competition {slug!r} is closed")
        self._committed(step)
        return _result(total + 1, team, step.score, now, (today + 1, total + 1), config, previous)

    def admit(
        self,
        slug: str,
        team: str,
        idempotency_key: str | None = None,
        read: Admission | None = None,
    ) -> None:
        """Refuse what needs no file, before one is read (see
        :meth:`~ladderboard.engine.Competitions.admit`)."""
        now = self.clock() if read is None else read.now
        target = self._open_target(slug, team, now)
        if read is not None and (read.team_id, read.commitment) == (
            target.team_id,
            target.commitment,
        ):
            row = read[3:]  # read with the caller, of this very team and competition
        else:
            with self.reader.connect() as connection:
                row = statements.admission(
                    connection,
                    target.competition_id,
                    target.team_id,
                    idempotency_key,
                    quotas.daily_window(now),
                    self.store_clock(),
                )
        if row is None:  # the competition is gone: forget it
            self.caches.targets.pop((slug, team), None)
            raise NotFound(f"no competition {slug!r}")
        closed_at, deadline, disabled_at, today, total, invalid, resent, store_now = row
        _refuse_if_closed(slug, closed_at, deadline, aware(store_now) or now)
        _refuse_if_disabled(team, disabled_at)
        if resent:
            return
        quotas.check_invalid(target.config, team, invalid)
        quotas.check_quota(target.config, team, today, total, now)

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
        with self.reader.connect() as connection:
            earlier = statements.submission_with_key(connection, target.team_id, key)
            if earlier is None:
                return None
            if earlier.file_sha256 != submission_sha256(data):
                raise Conflict("this idempotency key was used for another file")
            return self._resent(connection, earlier, team, target.config, now)

    def _open_target(self, slug: str, team: str, now: datetime) -> Target:
        """The target, refused at once when its deadline has passed by the
        store's time. The deadline a target was read with may since have
        been extended (by this process or another): a target past it by this
        host's clock is read afresh, and the store's time asked, before the
        refusal. The close itself is decided again under the lock."""
        target = self._target(slug, team)
        if target.deadline is not None and now >= target.deadline:
            self.caches.targets.pop((slug, team), None)
            target = self._target(slug, team)
            with self.reader.connect() as connection:
                store_now = store_time(connection, self.store_clock())
            _refuse_if_closed(slug, None, target.deadline, store_now)
        return target

    def _target(self, slug: str, team: str) -> Target:
        """The competition and team a submission goes to: one query the first
        time, then this process's copy. What of them may change (the
        deadline, the team's being disabled) is read again where it decides."""
        targets = self.caches.targets
        found = targets.get((slug, team))
        if found is not None:
            return found
        lookup.refuse_impossible(slug, team)
        caches = self.caches
        with self.reader.connect() as connection:
            row = statements.target(connection, slug, team)
            if row is None:  # say which of the two is missing
                with Session(bind=connection) as session:
                    lookup.team(session, lookup.competition(session, slug), team)
            competition_id, config, deadline, solution_sha256, commitment, team_id = row
            solution = caches.solutions.lookup(competition_id, solution_sha256, connection)
        config = lookup.config(config)
        scoring = config.scoring()
        target = Target(
            competition_id=competition_id,
            team_id=team_id,
            config=config,
            scoring=scoring,
            deadline=aware(deadline),
            solution=solution,
            checked=caches.solutions.suits((competition_id, commitment), solution, scoring),
            classes=solution.classes if scoring.takes_labels else None,
            commitment=commitment,
        )
        targets[slug, team] = target
        return target

    @staticmethod
    def _lock(connection: Connection, slug: str, target: Target, store_now: datetime | None) -> Any:
        """Lock the target's board; :class:`_StaleTarget` when the competition
        under ``slug`` is no longer the one the target was read from."""
        locked = statements.lock_state(
            connection, target.competition_id, target.scope, target.team_id, store_now
        )
        if locked is None or (locked.slug, locked.commitment) != (slug, target.commitment):
            raise _StaleTarget
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
        with writer_turn(self.engine), self.engine.begin() as connection:
            locked = self._lock(connection, slug, target, self.store_clock())
            _refuse_if_closed(slug, locked.closed_at, locked.deadline, aware(locked.store_now))
            _refuse_if_disabled(team, locked.disabled_at)
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

    def _advance(self, connection: Connection, target: Target, locked: Any, x: Any) -> _Step:
        """The board's mechanism takes the public scores ``x``: this process's
        copy when it has seen exactly the stored submissions, else one rebuilt
        from the stored state (on a per-rank board, likewise each rank's
        instance tested); the new state is returned with its large arrays
        spilled to the store."""
        config, arrays = target.config, self.caches.arrays
        sequence = locked.n_submissions + 1
        key = (target.competition_id, locked.commitment, target.scope)
        cached = self.caches.mechanisms.take(key, locked.n_submissions)
        if config.board == "per-rank":
            ranks = cached if isinstance(cached, CachedRanks) else CachedRanks(key)
            fresh, load = instances.factory(locked.secret_key, config, target.solution)
            competition_id = target.competition_id
            score, improved, state = instances.submit_per_rank(
                locked.state,
                fresh,
                # Only the ranks tested and not kept here are read from the store.
                lambda stored, label: load(arrays.fill(connection, competition_id, stored), label),
                target.team_id,
                sequence,
                x,
                size=config.ranks,
                kept=ranks.instances,
            )
            cached = ranks
        else:
            if not isinstance(cached, CachedMechanism):
                fresh, load = instances.factory(locked.secret_key, config, target.solution)
                if locked.state is None:
                    cached = CachedMechanism(key, fresh(target.scope))
                else:
                    state = arrays.fill(connection, target.competition_id, locked.state)
                    cached = CachedMechanism.loaded(key, load(state, target.scope), state)
            release = cached.mechanism.submit(x)
            score, improved = release.score, release.improved
            state = instances.dump(cached.mechanism, encode_vars=cached.encoded)
        state, spilled = arrays.spill(connection, target.competition_id, state)
        return _Step(sequence, score, improved, state, spilled, cached)

    def _committed(self, step: _Step) -> None:
        """After the commit: the arrays are known stored, and the next
        submission to the board continues from this process's mechanism."""
        self.caches.arrays.committed(step.spilled)
        self.caches.mechanisms.put(step.cached, step.sequence)

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
