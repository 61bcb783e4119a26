"""Submitting: parse and score outside the transaction, then lock the
board's mechanism row, check, advance and store in one transaction."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ladderboard.competition.config import CompetitionConfig
from ladderboard.competition.errors import (
    CompetitionClosed,
    Conflict,
    DuplicateSubmission,
    QuotaExceeded,
)
from ladderboard.competition.rank_board import RankBoard
from ladderboard.competition.scoring import Scored, score_predictions
from ladderboard.competition.submission import (
    SubmissionError,
    canonical_predictions_hash,
    parse_submission,
    submission_sha256,
)
from ladderboard.competition.views import (
    BOARD_SCOPE,
    SubmissionResult,
    aware,
)
from ladderboard.store import (
    DuplicateFlagRow,
    MechanismStateRow,
    RejectionRow,
    SubmissionRow,
)
from ladderboard.store.blobs import pack


class _Submitting:
    """The submission half of :class:`~ladderboard.competition.engine.Competitions`."""

    # ----------------------------------------------------------- submitting
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
        """
        now = self._clock()
        with Session(self.engine) as session:
            competition = self._competition(session, slug)
            team_row = self._team(session, competition, team)
            info = self._info(competition)
            solution = self._solutions.get(competition)
            invalid = session.scalar(
                select(func.count()).where(RejectionRow.team_id == team_row.id)
            )
        config = info.config
        if info.is_closed(now):
            raise CompetitionClosed(f"competition {slug!r} is closed")
        if config.invalid_quota is not None and invalid >= config.invalid_quota:
            raise QuotaExceeded(
                f"team {team!r} has made {invalid} invalid submissions, the limit; "
                "ask the organiser"
            )
        scoring = config.scoring()
        try:
            predictions = parse_submission(
                data,
                solution,
                max_bytes=config.max_bytes,
                probabilities=scoring.requires_probabilities,
            )
            scored = score_predictions(
                scoring,
                solution.targets,
                predictions,
                solution.public_mask,
                solution.private_mask,
            )
        except SubmissionError as exc:
            self._reject(competition.id, team_row.id, now, exc, data)
            raise
        return self._commit_submission(
            slug,
            team_row.id,
            team,
            data,
            submission_sha256(data),
            canonical_predictions_hash(predictions),
            scored,
            message,
            idempotency_key,
            now,
        )

    def _reject(
        self, competition_id: int, team_id: int, now: datetime, error: SubmissionError, data: bytes
    ) -> None:
        with self._transaction() as session:
            session.add(
                RejectionRow(
                    competition_id=competition_id,
                    team_id=team_id,
                    created_at=now,
                    code=getattr(error, "code", "invalid"),
                    message=str(error)[:2000],
                    file_sha256=submission_sha256(data),
                    size=len(data),
                )
            )

    def _commit_submission(
        self,
        slug: str,
        team_id: int,
        team: str,
        data: bytes,
        file_sha256: str,
        predictions_sha256: str,
        scored: Scored,
        message: str,
        idempotency_key: str | None,
        now: datetime,
    ) -> SubmissionResult:
        with self._transaction() as session:
            competition = self._competition(session, slug)
            config = CompetitionConfig.from_json(competition.config)
            per_rank = config.board == "per-rank"
            scope = BOARD_SCOPE if per_rank else f"team:{team_id}"
            state_row = session.scalars(
                select(MechanismStateRow)
                .where(
                    MechanismStateRow.competition_id == competition.id,
                    MechanismStateRow.scope == scope,
                )
                .with_for_update()
            ).one()
            # Under the lock: nothing below can race with this team's other submissions.
            if self._info(competition).is_closed(now):
                raise CompetitionClosed(f"competition {slug!r} is closed")
            if idempotency_key is not None:
                earlier = session.scalars(
                    select(SubmissionRow).where(
                        SubmissionRow.team_id == team_id,
                        SubmissionRow.idempotency_key == idempotency_key,
                    )
                ).first()
                if earlier is not None:
                    if earlier.file_sha256 != file_sha256:
                        raise Conflict("this idempotency key was used for another file")
                    return self._result(session, earlier, team, config, now)
            self._check_quota(session, team_id, team, config, now)
            same = session.scalars(
                select(SubmissionRow.id).where(
                    SubmissionRow.team_id == team_id,
                    SubmissionRow.predictions_sha256 == predictions_sha256,
                )
            ).first()
            if same is not None:
                raise DuplicateSubmission(
                    f"these predictions are identical to submission {same}; "
                    "a resubmission is not scored again and uses no quota"
                )
            solution = self._solutions.get(competition)
            fresh, load = self.mechanism_factory(competition.secret_key, config, solution)
            sequence = state_row.n_submissions + 1
            if per_rank:
                release_score, improved, state = self.submit_per_rank(
                    state_row.state,
                    fresh,
                    load,
                    team_id,
                    sequence,
                    scored.public_input,
                    size=config.ranks,
                )
            else:
                mechanism = (
                    fresh(scope) if state_row.state is None else load(state_row.state, scope)
                )
                release = mechanism.submit(scored.public_input)
                release_score, improved, state = (
                    release.score,
                    release.improved,
                    self.dump(mechanism),
                )
            state_row.state = state
            state_row.n_submissions = sequence
            state_row.updated_at = now
            row = SubmissionRow(
                competition_id=competition.id,
                team_id=team_id,
                scope=scope,
                sequence=sequence,
                created_at=now,
                message=message or "",
                idempotency_key=idempotency_key,
                file=pack(data),
                file_sha256=file_sha256,
                predictions_sha256=predictions_sha256,
                public_score=release_score,
                improved=improved,
                public_raw=scored.public_raw,
                private_score=scored.private,
                selected=False,
            )
            session.add(row)
            session.flush()
            other = session.scalars(
                select(SubmissionRow.id)
                .where(
                    SubmissionRow.competition_id == competition.id,
                    SubmissionRow.predictions_sha256 == predictions_sha256,
                    SubmissionRow.team_id != team_id,
                )
                .order_by(SubmissionRow.id)
            ).first()
            if other is not None:
                session.add(
                    DuplicateFlagRow(
                        competition_id=competition.id,
                        submission_id=row.id,
                        earlier_submission_id=other,
                        created_at=now,
                    )
                )
            return self._result(session, row, team, config, now)

    def submit_per_rank(self, state, fresh, load, team_id, sequence, x, *, size):
        """One submission to the per-rank board whose JSON state is ``state``
        (not modified: the ORM must see a new value to store it)."""
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

    def _count_today(self, session: Session, team_id: int, now: datetime) -> tuple[int, int]:
        """The team's valid submissions today (UTC) and in all, in one query."""
        day = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        in_day = (SubmissionRow.created_at >= day) & (
            SubmissionRow.created_at < day + timedelta(days=1)
        )
        today, total = session.execute(
            select(func.count().filter(in_day), func.count()).where(
                SubmissionRow.team_id == team_id
            )
        ).one()
        return today, total

    def _check_quota(
        self, session: Session, team_id: int, team: str, config: CompetitionConfig, now: datetime
    ) -> None:
        today, total = self._count_today(session, team_id, now)
        if config.daily_quota is not None and today >= config.daily_quota:
            raise QuotaExceeded(
                f"team {team!r} has used its {config.daily_quota} submissions for today (UTC)"
            )
        if config.total_quota is not None and total >= config.total_quota:
            raise QuotaExceeded(f"team {team!r} has used all {config.total_quota} submissions")

    def _result(
        self,
        session: Session,
        row: SubmissionRow,
        team: str,
        config: CompetitionConfig,
        now: datetime,
    ) -> SubmissionResult:
        today, _ = self._count_today(session, row.team_id, now)
        remaining = None if config.daily_quota is None else max(0, config.daily_quota - today)
        return SubmissionResult(
            id=row.id,
            team=team,
            public_score=row.public_score,
            status="scored",
            remaining_today=remaining,
            created_at=aware(row.created_at),
        )
