"""Submitting: parse and score outside the transaction, then lock the
board's mechanism row, check, advance and store in one transaction."""

from __future__ import annotations

import copy
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Connection, Row, insert, select
from sqlalchemy.orm import Session

from ladderboard._blas import on_one_blas_thread
from ladderboard.engine.errors import (
    CompetitionClosed,
    Conflict,
    DuplicateSubmission,
    NotFound,
    QuotaExceeded,
)
from ladderboard.engine.performance import CachedMechanism
from ladderboard.engine.views import (
    BOARD_SCOPE,
    SubmissionResult,
    aware,
    is_closed,
)
from ladderboard.files.solution import Solution
from ladderboard.files.submission import (
    SubmissionError,
    canonical_predictions_hash,
    parse_submission,
    submission_sha256,
)
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.rank_board import RankBoard
from ladderboard.rules.scoring import Scored, score_predictions
from ladderboard.rules.text import (
    IDEMPOTENCY_KEY_CHARS,
    MESSAGE_CHARS,
    check_text,
    printable,
)
from ladderboard.store import (
    DuplicateFlagRow,
    RejectionRow,
    SubmissionRow,
    statements,
)
from ladderboard.store.blobs import pack

T = TypeVar("T")
_TARGETS = 65536  # cached (competition, team) targets; the cache starts afresh beyond


@dataclass(frozen=True, slots=True)
class _Target:
    """Where a submission goes: what never changes of a competition and a
    team, read once per process. What does change (the close, the team's
    counts) is read under the lock."""

    competition_id: int
    team_id: int
    config: CompetitionConfig
    deadline: datetime | None
    solution: Solution
    checked: bool  # the solution's targets suit the scoring (check_targets)
    commitment: str  # unique to the competition's creation

    def parse(self, data: bytes) -> Any:
        """``data``'s predictions for this competition's solution."""
        return parse_submission(
            data,
            self.solution,
            max_bytes=self.config.max_bytes,
            probabilities=self.config.scoring().requires_probabilities,
        )


class _StaleTarget(Exception):
    """The competition under a slug is not the one a cached target read (it
    was created again): nothing was written, and the submission is retried."""


def _check_invalid(invalid: int, team: str, config: CompetitionConfig) -> None:
    if config.invalid_quota is not None and invalid >= config.invalid_quota:
        raise QuotaExceeded(
            f"team {team!r} has made {invalid} invalid submissions, the limit; ask the organiser"
        )


def _check_quota(today: int, total: int, team: str, config: CompetitionConfig) -> None:
    if config.daily_quota is not None and today >= config.daily_quota:
        raise QuotaExceeded(
            f"team {team!r} has used its {config.daily_quota} submissions for today (UTC)"
        )
    if config.total_quota is not None and total >= config.total_quota:
        raise QuotaExceeded(f"team {team!r} has used all {config.total_quota} submissions")


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _background(function: Callable[..., T], *args: Any) -> Future[T]:
    """Run ``function(*args)`` on the engine's worker threads (hashing and
    compression release the GIL, so they overlap with parsing)."""
    global _POOL
    if _POOL is None:
        with _POOL_LOCK:
            if _POOL is None:
                workers = min(4, os.cpu_count() or 1)
                _POOL = ThreadPoolExecutor(workers, thread_name_prefix="ladderboard-submit")
    return _POOL.submit(function, *args)


def _submission_result(
    number: int,
    team: str,
    score: float,
    created_at: datetime,
    today: int,
    config: CompetitionConfig,
) -> SubmissionResult:
    """What the team is told: its release and what is left of today's quota."""
    remaining = None if config.daily_quota is None else max(0, config.daily_quota - today)
    return SubmissionResult(
        id=number,
        team=team,
        public_score=score,
        status="scored",
        remaining_today=remaining,
        created_at=created_at,
    )


def _scope(target: _Target) -> str:
    """The lock scope of a target's board: its team's, or the whole per-rank board."""
    return BOARD_SCOPE if target.config.board == "per-rank" else f"team:{target.team_id}"


def _hash_and_pack(data: bytes) -> tuple[str, bytes]:
    return submission_sha256(data), pack(data)


class _Submitting:
    """The submission half of :class:`~ladderboard.engine.competitions.Competitions`."""

    # ----------------------------------------------------------- submitting
    @on_one_blas_thread
    def submit(
        self,
        slug: str,
        team: str,
        data: bytes,
        *,
        message: str = "",
        idempotency_key: str | None = None,
    ) -> SubmissionResult:
        """Score one submission file for ``team``; all of it is stored or none.

        Raises :class:`SubmissionError` (bad file: recorded against the
        invalid cap only), :class:`QuotaExceeded`, :class:`CompetitionClosed`,
        :class:`DuplicateSubmission` or :class:`NotFound`; each leaves the
        team's quota and the mechanism's state untouched.

        A worker thread hashes and compresses the file while this one
        parses, and hashes the predictions while this one scores and takes
        the lock (hashing and compression release the GIL). What never
        changes of the competition and team (its solution, configuration and
        deadline) is read once per process; what does (the close, the
        team's counts and invalid files) is read under the lock, which also
        checks that the competition is still the one that was read. The
        transaction is a handful of Core statements, each on an index: the
        locked state row with its competition, the team's counts with its
        own duplicate, another team's duplicate and its invalid files, an
        update and two inserts.
        BLAS runs on one thread meanwhile (:mod:`ladderboard._blas`).
        """
        check_text("message", message or "", max_chars=MESSAGE_CHARS, multiline=True)
        if idempotency_key is not None:
            check_text("idempotency key", idempotency_key, max_chars=IDEMPOTENCY_KEY_CHARS)
        try:
            return self._submit(slug, team, data, message, idempotency_key)
        except _StaleTarget:  # nothing written: read the target afresh and submit again
            self._targets.pop((slug, team), None)
        try:
            return self._submit(slug, team, data, message, idempotency_key)
        except _StaleTarget:
            raise Conflict(f"competition {slug!r} changed during the submission") from None

    def _submit(
        self, slug: str, team: str, data: bytes, message: str, idempotency_key: str | None
    ) -> SubmissionResult:
        now = self._clock()
        # First, so that the worker hashes and compresses while this thread
        # parses (a refused file wastes the work).
        packing = _background(_hash_and_pack, data)
        target = self._target(slug, team)
        config = target.config
        if is_closed(None, target.deadline, now):
            raise CompetitionClosed(f"competition {slug!r} is closed")
        try:
            predictions = target.parse(data)
            hashing = _background(canonical_predictions_hash, predictions)
            scored = score_predictions(
                config.scoring(),
                target.solution.targets,
                predictions,
                target.solution.public_rows,
                target.solution.private_rows,
                checked=target.checked,
            )
        except SubmissionError as exc:
            self._reject(slug, team, target, now, exc, data)
            raise
        return self._commit_submission(
            slug,
            target,
            team,
            packing,
            hashing,
            scored,
            message,
            idempotency_key,
            now,
        )

    def admit(self, slug: str, team: str, idempotency_key: str | None = None) -> None:
        """Refuse what needs no file, before one is read: a closed competition,
        a spent quota or invalid-file cap (:class:`CompetitionClosed`,
        :class:`QuotaExceeded`, :class:`NotFound`). ``submit`` checks all of it
        again under the lock; this only spares the server the work of reading
        a file it would refuse. A submission resent with an idempotency key
        already used passes: ``submit`` answers it with the first result."""
        now = self._clock()
        target = self._target(slug, team)
        if is_closed(None, target.deadline, now):
            raise CompetitionClosed(f"competition {slug!r} is closed")
        params = statements.count_params(target.team_id, "", now)
        params |= {"competition": target.competition_id, "key": idempotency_key}
        with self.reader.connect() as connection:
            row = connection.execute(statements.ADMISSION, params).one_or_none()
        if row is None:  # the competition is gone: forget it
            self._targets.pop((slug, team), None)
            raise NotFound(f"no competition {slug!r}")
        closed_at, today, total, invalid, resent = row
        if is_closed(aware(closed_at), target.deadline, now):
            raise CompetitionClosed(f"competition {slug!r} is closed")
        if resent:
            return
        _check_invalid(invalid, team, target.config)
        _check_quota(today, total, team, target.config)

    def _target(self, slug: str, team: str) -> _Target:
        """The competition and team a submission goes to: one query the first
        time, then this process's copy (neither row ever changes)."""
        found = self._targets.get((slug, team))
        if found is not None:
            return found
        self._refuse_impossible(slug, team)
        with self.reader.connect() as connection:
            row = connection.execute(statements.TARGET, {"slug": slug, "team": team}).first()
            if row is None:  # say which of the two is missing
                with Session(bind=connection) as session:
                    self._team(session, self._competition(session, slug), team)
            competition_id, config, deadline, solution_sha256, commitment, team_id = row
            solution = self._solutions.lookup(competition_id, solution_sha256, connection)
        config = self._configs.get(competition_id, commitment, config)
        target = _Target(
            competition_id=competition_id,
            team_id=team_id,
            config=config,
            deadline=aware(deadline),
            solution=solution,
            checked=self._solutions.suits((competition_id, commitment), solution, config.scoring()),
            commitment=commitment,
        )
        if len(self._targets) >= _TARGETS:
            self._targets.clear()
        self._targets[slug, team] = target
        return target

    def _reject(
        self,
        slug: str,
        team: str,
        target: _Target,
        now: datetime,
        error: SubmissionError,
        data: bytes,
    ) -> None:
        """Record a bad file against the team's invalid cap, unless the
        competition is closed or the cap reached (then say that instead).
        The count and the insert hold the lock a valid file takes (the
        board's mechanism row), so concurrent bad files cannot pass the cap."""
        with self.engine.begin() as connection:
            locked = connection.execute(
                statements.LOCK_STATE,
                {"competition": target.competition_id, "scope": _scope(target)},
            ).first()
            if locked is None or (locked.slug, locked.commitment) != (slug, target.commitment):
                raise _StaleTarget
            if is_closed(aware(locked.closed_at), target.deadline, now):
                raise CompetitionClosed(f"competition {slug!r} is closed")
            invalid = connection.execute(statements.INVALID, {"team": target.team_id}).scalar_one()
            _check_invalid(invalid, team, target.config)
            connection.execute(
                insert(RejectionRow.__table__).values(
                    competition_id=target.competition_id,
                    team_id=target.team_id,
                    created_at=now,
                    code=str(getattr(error, "code", "invalid"))[:40],
                    # The message may quote the file: no control character reaches the store.
                    message=printable(str(error), 2000),
                    file_sha256=submission_sha256(data),
                    size=len(data),
                )
            )

    def _commit_submission(
        self,
        slug: str,
        target: _Target,
        team: str,
        packing: Future[tuple[str, bytes]],
        hashing: Future[str],
        scored: Scored,
        message: str,
        idempotency_key: str | None,
        now: datetime,
    ) -> SubmissionResult:
        config = target.config
        team_id = target.team_id
        per_rank = config.board == "per-rank"
        scope = _scope(target)
        cached: CachedMechanism | None = None
        # Core, not an ORM session: the hot path's statements are prepared
        # (``_statements``), and a session would only add its bookkeeping.
        with self.engine.begin() as connection:
            locked = connection.execute(
                statements.LOCK_STATE, {"competition": target.competition_id, "scope": scope}
            ).first()
            if locked is None or (locked.slug, locked.commitment) != (slug, target.commitment):
                raise _StaleTarget
            state_id, state, n_submissions, closed_at, key_hex, commitment, _ = locked
            # Under the lock: nothing below can race with this team's other submissions.
            if is_closed(aware(closed_at), target.deadline, now):
                raise CompetitionClosed(f"competition {slug!r} is closed")
            # The worker's hashes are awaited only now, so that they overlap
            # with scoring and with taking the lock.
            file_sha256, blob = packing.result()
            if idempotency_key is not None:
                earlier = connection.execute(
                    select(SubmissionRow.__table__).where(
                        SubmissionRow.team_id == team_id,
                        SubmissionRow.idempotency_key == idempotency_key,
                    )
                ).first()
                if earlier is not None:
                    if earlier.file_sha256 != file_sha256:
                        raise Conflict("this idempotency key was used for another file")
                    return self._result(connection, earlier, team, config, now)
            predictions_sha256 = hashing.result()
            today, total, same, other, invalid = self._counts(
                connection, target.competition_id, team_id, predictions_sha256, now
            )
            _check_invalid(invalid, team, config)
            _check_quota(today, total, team, config)
            if same is not None:
                raise DuplicateSubmission(
                    f"these predictions are identical to submission {same}; "
                    "a resubmission is not scored again and uses no quota"
                )
            sequence = n_submissions + 1
            competition_id = target.competition_id
            if per_rank:
                fresh, load = self.mechanism_factory(key_hex, config, target.solution)
                release_score, improved, state = self.submit_per_rank(
                    self._arrays.fill(connection, competition_id, state),
                    fresh,
                    load,
                    team_id,
                    sequence,
                    scored.public_input,
                    size=config.ranks,
                )
            else:
                key = (target.competition_id, commitment, scope)
                cached = self._mechanisms.take(key, n_submissions)
                if cached is None:
                    fresh, load = self.mechanism_factory(key_hex, config, target.solution)
                    if state is None:
                        mechanism = fresh(scope)
                    else:
                        state = self._arrays.fill(connection, competition_id, state)
                        mechanism = load(state, scope)
                    cached = CachedMechanism(key, mechanism)
                release = cached.mechanism.submit(scored.public_input)
                release_score, improved = release.score, release.improved
                state = self.dump(cached.mechanism, encode_vars=cached.encoded)
            state, stored_arrays = self._arrays.spill(connection, competition_id, state)
            connection.execute(
                statements.UPDATE_STATE,
                {"state_id": state_id, "new_state": state, "n": sequence, "now": now},
            )
            submission_id = connection.execute(
                statements.INSERT_SUBMISSION,
                {
                    "competition_id": target.competition_id,
                    "team_id": team_id,
                    "scope": scope,
                    "sequence": sequence,
                    "number": total + 1,
                    "created_at": now,
                    "message": message or "",
                    "idempotency_key": idempotency_key,
                    "file_sha256": file_sha256,
                    "predictions_sha256": predictions_sha256,
                    "public_score": release_score,
                    "improved": improved,
                    "public_raw": scored.public_raw,
                    "private_score": scored.private,
                    "selected": False,
                },
            ).scalar_one()
            connection.execute(
                statements.INSERT_FILE, {"submission_id": submission_id, "file": blob}
            )
            if other is not None:
                connection.execute(
                    insert(DuplicateFlagRow.__table__).values(
                        competition_id=target.competition_id,
                        submission_id=submission_id,
                        earlier_submission_id=other,
                        created_at=now,
                    )
                )
        self._arrays.committed(stored_arrays)
        if cached is not None:  # committed: the next submission continues from here
            self._mechanisms.put(cached, sequence)
        return _submission_result(total + 1, team, release_score, now, today + 1, config)

    @staticmethod
    def _counts(
        connection, competition_id: int, team_id: int, predictions_sha256: str, now: datetime
    ) -> tuple[int, int, int | None, int | None, int]:
        """The team's valid submissions today (UTC) and in all, its own
        submission with these predictions, another team's, and the team's
        invalid files."""
        params = statements.count_params(team_id, predictions_sha256, now)
        params["competition"] = competition_id
        today, total, own, other, invalid = connection.execute(statements.COUNTS, params).one()
        return today, total, own, other, invalid

    def submit_per_rank(self, state, fresh, load, team_id, sequence, x, *, size):
        """One submission to the per-rank board whose JSON state is ``state``
        (left as it was: the caller gets the new state back)."""
        state = copy.deepcopy(state) if state else {"entries": [], "created": 0}

        def label(instance: int) -> str:
            return f"rank-instance:{instance}"

        board = RankBoard(
            size=size,
            entries=state["entries"],
            created=state["created"],
            load=lambda entry: load(entry["state"], label(entry["instance"])),
            fresh=lambda instance: fresh(label(instance)),
            dump=self.dump,
        )
        outcome = board.submit(team_id, sequence, x)
        return (
            outcome.score,
            outcome.improved,
            {"entries": board.entries, "created": board.created},
        )

    def _result(
        self,
        connection: Connection,
        row: Row,
        team: str,
        config: CompetitionConfig,
        now: datetime,
    ) -> SubmissionResult:
        today, _, _ = statements.team_counts(connection, row.team_id, row.predictions_sha256, now)
        return _submission_result(
            row.number, team, row.public_score, aware(row.created_at), today, config
        )
