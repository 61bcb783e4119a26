"""Late submissions: files a team sends after the private board is
published, when the competition takes them (``late_submissions``).

The competition is over and its private board public, so a late file
needs no mechanism (Blum & Hardt 2015 guard a holdout that is still being
used to rank; this one no longer is): it is scored exactly on the public
and the private rows, its team is told both scores, and it goes on a board
of its own, marked late, each team's best private score among its late
files. It never touches the competition's submissions, boards, final
selection or audit, which read another table. A file goes through the same
checks and size limit as during the competition, and late files have a
daily quota of their own, the competition's daily quota; a bad file is
refused and not recorded (the invalid-file cap belongs to the competition).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from ladderboard.engine import lookup, quotas
from ladderboard.engine.context import EngineContext
from ladderboard.engine.errors import CompetitionClosed, Conflict
from ladderboard.engine.lifecycle import Lifecycle
from ladderboard.engine.results import CompetitionInfo, SubmissionResult, aware
from ladderboard.engine.targets import read_target, refuse_if_disabled
from ladderboard.files.submission import submission_sha256
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import LateSubmissionRow, calendar
from ladderboard.store.blobs import pack

__all__ = ["LateBoardRow", "LateSubmissionView", "LateSubmissions"]


@dataclass(frozen=True)
class LateSubmissionView:
    """A team's late submission as the team sees it: both exact scores."""

    number: int
    created_at: datetime
    message: str
    public_score: float
    private_score: float


@dataclass(frozen=True)
class LateBoardRow:
    """A team's line on the late board: its best late private score, the
    public score of that file, the file's number among the team's late
    files, how many it sent and when it sent the last."""

    rank: int
    team: str
    private_score: float
    public_score: float
    number: int
    entries: int
    last_submission: datetime


def takes_late(info: CompetitionInfo) -> bool:
    """Whether the competition takes a late file now: it takes late files,
    and its private board is published."""
    return info.config.late_submissions and info.is_published()


class LateSubmissions:
    """The late submissions of the competitions in ``context``'s store."""

    def __init__(self, context: EngineContext, lifecycle: Lifecycle) -> None:
        self.context = context
        self.lifecycle = lifecycle

    def _open(self, session: Session, slug: str, team: str):
        """The competition and team, locked, or :class:`CompetitionClosed`
        when the competition takes no late file now."""
        competition, _ = self.context.locked(session, slug)
        info = lookup.info(competition)
        if not takes_late(info):
            raise CompetitionClosed(f"competition {slug!r} is closed")
        team_row = lookup.team(session, competition, team)
        refuse_if_disabled(team, team_row.disabled_at)
        return competition, info, team_row

    def admits(self, slug: str, team: str) -> bool:
        """Whether a late file of ``team`` would be taken now (before it is
        read): ``False`` when the competition takes none, :class:`QuotaExceeded`
        when the team has spent today's late quota. A competition that
        publishes at its deadline, past it, is published here first."""
        now = self.context.clock()
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            info = lookup.info(competition)
            if not info.config.late_submissions:
                return False
            if not self.lifecycle.published_now(session, competition):
                return False
            team_row = lookup.team(session, competition, team)
            refuse_if_disabled(team, team_row.disabled_at)
            today, _ = calendar.late_counts(
                session.connection(), team_row.id, quotas.daily_window(now)
            )
        self._check_quota(info.config, team, today, now)
        return True

    @staticmethod
    def _check_quota(config: CompetitionConfig, team: str, today: int, now: datetime) -> None:
        """The daily quota alone (the total quota was the competition's):
        a total of 0 never reaches it."""
        quotas.check_quota(config, team, today, 0, now)

    def submit(
        self,
        slug: str,
        team: str,
        data: bytes,
        *,
        message: str = "",
        idempotency_key: str | None = None,
    ) -> SubmissionResult:
        """Score a late file exactly and store it; all of it or none.
        Raises :class:`SubmissionError` for a bad file (not recorded),
        :class:`QuotaExceeded`, :class:`CompetitionClosed` (no late files
        taken now), :class:`Conflict` (an idempotency key used for another
        file) or :class:`NotFound`. A file resent with its idempotency key
        is answered with the first answer."""
        now = self.context.clock()
        target = read_target(self.context, slug, team)
        file_sha256 = submission_sha256(data)
        scored = target.score(target.parse(data))
        config = target.config
        with self.context.transaction() as session:
            competition, _, team_row = self._open(session, slug, team)
            connection = session.connection()
            day = quotas.daily_window(now)
            if idempotency_key is not None:
                earlier = calendar.late_with_key(connection, team_row.id, idempotency_key)
                if earlier is not None:
                    if earlier.file_sha256 != file_sha256:
                        raise Conflict("this idempotency key was used for another file")
                    today, _ = calendar.late_counts(connection, team_row.id, day)
                    return self._result(config, team, earlier, today)
            today, total = calendar.late_counts(connection, team_row.id, day)
            self._check_quota(config, team, today, now)
            row = LateSubmissionRow(
                competition_id=competition.id,
                team_id=team_row.id,
                number=total + 1,
                created_at=now,
                message=message,
                idempotency_key=idempotency_key,
                file_sha256=file_sha256,
                public_score=scored.public_raw,
                private_score=scored.private,
                file=pack(data),
            )
            calendar.add_late_submission(session, row)
            return self._result(config, team, row, today + 1)

    @staticmethod
    def _result(config: CompetitionConfig, team: str, row, today: int) -> SubmissionResult:
        return SubmissionResult(
            number=row.number,
            team=team,
            public_score=row.public_score,
            status="scored late",
            remaining_today=quotas.remaining_today(
                today, 0, daily_quota=config.daily_quota, total_quota=None
            ),
            created_at=aware(row.created_at),
            late=True,
            private_score=row.private_score,
        )

    def submissions(self, slug: str, team: str) -> list[LateSubmissionView]:
        """A team's own late submissions, with both exact scores."""
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            team_row = lookup.team(session, competition, team)
            return [
                LateSubmissionView(
                    r.number, aware(r.created_at), r.message, r.public_score, r.private_score
                )
                for r in calendar.team_late_submissions(session, team_row.id)
            ]

    def board(self, slug: str) -> list[LateBoardRow]:
        """The late board: each enabled team that sent a late file, by its
        best late private score (the earlier file first among equal
        scores, then the team that sent it first). Empty until the
        publication; the final ranking is the private board's."""
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            info = lookup.info(competition)
            rows = calendar.late_board_rows(session, competition.id)
        direction = info.config.scoring().direction
        best: dict[str, tuple] = {}
        counts: dict[str, int] = {}
        last: dict[str, datetime] = {}
        for order, (name, number, created_at, public, private) in enumerate(rows):
            counts[name] = counts.get(name, 0) + 1
            last[name] = aware(created_at)
            key = (direction.key(private), order)
            if name not in best or key < best[name][0]:
                best[name] = (key, public, private, number)
        ordered = sorted(best.items(), key=lambda item: item[1][0])
        return [
            LateBoardRow(rank, name, private, public, number, counts[name], last[name])
            for rank, (name, (_, public, private, number)) in enumerate(ordered, 1)
        ]
