"""Reading and closing: a team's submissions, final selection, the close,
the boards, flags and the key's reveal."""

from __future__ import annotations

import dataclasses
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, aliased

from ladderboard.engine.errors import (
    CompetitionClosed,
    NotFound,
)
from ladderboard.engine.views import (
    BOARD_SCOPE,
    BoardRow,
    CompetitionInfo,
    DuplicateFlag,
    SubmissionView,
    aware,
)
from ladderboard.mechanisms import MECHANISMS
from ladderboard.rules.boards import (
    Record,
    Standing,
    by_team,
    final_selection,
    private_board,
    public_board,
    ranked,
)
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import (
    CompetitionRow,
    DuplicateFlagRow,
    MechanismStateRow,
    RejectionRow,
    SubmissionRow,
    TeamRow,
)


class _Reading:
    """The reading half of :class:`~ladderboard.engine.competitions.Competitions`."""

    # --------------------------------------------------------------- reading
    def _records(
        self, session: Session, competition: CompetitionRow
    ) -> tuple[list[Record], dict[int, int]]:
        """The competition's submissions as the boards take them, and each
        one's number in its team (what the team calls it) by its id."""
        rows = session.execute(
            select(SubmissionRow, TeamRow.name)
            .join(TeamRow, TeamRow.id == SubmissionRow.team_id)
            .where(SubmissionRow.competition_id == competition.id)
        ).all()
        records = [
            Record(r.id, name, aware(r.created_at), r.public_score, r.private_score, r.selected)
            for r, name in rows
        ]
        return records, {r.id: r.number for r, _ in rows}

    def submissions(self, slug: str, team: str) -> list[SubmissionView]:
        """A team's own submissions; private scores only after the close."""
        now = self._clock()
        with Session(self.reader) as session:
            competition = self._competition(session, slug)
            team_row = self._team(session, competition, team)
            closed = self._info(competition).is_closed(now)
            rows = session.scalars(
                select(SubmissionRow)
                .where(SubmissionRow.team_id == team_row.id)
                .order_by(SubmissionRow.number)
            )
            return [
                SubmissionView(
                    r.number,
                    aware(r.created_at),
                    r.message,
                    r.public_score,
                    r.selected,
                    r.private_score if closed else None,
                )
                for r in rows
            ]

    def select(self, slug: str, team: str, submission_ids: list[int]) -> None:
        """Choose the team's final submissions (replacing an earlier choice),
        by the team's own numbers (``SubmissionView.id``)."""
        now = self._clock()
        with self._transaction() as session:
            competition = self._competition(session, slug)
            team_row = self._team(session, competition, team)
            config = CompetitionConfig.from_json(competition.config)
            if self._info(competition).is_closed(now):
                raise CompetitionClosed(f"competition {slug!r} is closed")
            chosen = set(submission_ids)
            if len(chosen) > config.n_selections:
                raise ValueError(
                    f"at most {config.n_selections} final submissions, got {len(chosen)}"
                )
            rows = session.scalars(
                select(SubmissionRow).where(SubmissionRow.team_id == team_row.id)
            ).all()
            unknown = chosen - {r.number for r in rows}
            if unknown:
                raise NotFound(f"team {team!r} has no submission {sorted(unknown)}")
            for row in rows:
                row.selected = row.number in chosen

    def close(self, slug: str) -> CompetitionInfo:
        """Close now (or finalise after the deadline): teams that selected
        nothing get their best released submissions selected. Idempotent."""
        now = self._clock()
        with self._transaction() as session:
            competition = self._competition(session, slug)
            if competition.closed_at is not None:
                return self._info(competition)
            config = CompetitionConfig.from_json(competition.config)
            if competition.deadline is not None and now > aware(competition.deadline):
                now = aware(competition.deadline)
            competition.closed_at = now
            competition.key_revealed_at = now  # the key is public from the close on
            greater = config.scoring().greater_is_better
            rows = session.scalars(
                select(SubmissionRow).where(SubmissionRow.competition_id == competition.id)
            ).all()
            records = [
                Record(
                    r.id,
                    str(r.team_id),
                    aware(r.created_at),
                    r.public_score,
                    r.private_score,
                    r.selected,
                )
                for r in rows
            ]
            picked = final_selection(records, config.n_selections, greater_is_better=greater)
            for row in rows:
                row.selected = row.id in picked
            return self._info(competition)

    def leaderboard(
        self, slug: str, board: str = "public", *, organiser: bool = False
    ) -> list[BoardRow]:
        """The public board as released, or the private board (after the
        close, or for the organiser before it)."""
        if board not in ("public", "private"):
            raise ValueError(f"board must be 'public' or 'private', got {board!r}")
        info = self.competition(slug)
        if board == "private" and not info.is_closed(self._clock()) and not organiser:
            raise CompetitionClosed("the private board is shown after the close")
        config = info.config
        greater = config.scoring().greater_is_better
        with Session(self.reader) as session:
            competition = self._competition(session, slug)
            records, numbers = self._records(session, competition)
            if board == "private":
                # Before the close is written (the organiser's preview, or a
                # deadline passed that nobody has closed yet: a read never
                # writes), the selections are made as the close would make them.
                if competition.closed_at is None:
                    picked = final_selection(
                        records, config.n_selections, greater_is_better=greater
                    )
                    records = [dataclasses.replace(r, selected=r.id in picked) for r in records]
                standings = private_board(records, greater_is_better=greater)
            elif config.board == "per-rank":
                standings = self._rank_standings(session, competition, records)
            else:
                standings = public_board(
                    records,
                    greater_is_better=greater,
                    release_is_current_best=MECHANISMS[config.mechanism].release_is_current_best,
                )
        return [
            dataclasses.replace(row, submission_id=numbers.get(row.submission_id))
            for row in ranked(standings)
        ]

    def _rank_standings(self, session, competition, records) -> list[Standing]:
        state = session.scalars(
            select(MechanismStateRow.state).where(
                MechanismStateRow.competition_id == competition.id,
                MechanismStateRow.scope == BOARD_SCOPE,
            )
        ).first() or {"entries": []}
        names = dict(
            session.execute(
                select(TeamRow.id, TeamRow.name).where(TeamRow.competition_id == competition.id)
            ).all()
        )
        return rank_standings(state["entries"], names, records)

    def flags(self, slug: str) -> list[DuplicateFlag]:
        """Identical predictions from different teams, for the organiser: each
        submission with the earlier one of another team it repeats."""
        later, earlier = aliased(SubmissionRow), aliased(SubmissionRow)
        later_team, earlier_team = aliased(TeamRow), aliased(TeamRow)
        with Session(self.reader) as session:
            competition = self._competition(session, slug)
            rows = session.execute(
                select(later_team.name, later.number, earlier_team.name, earlier.number)
                .select_from(DuplicateFlagRow)
                .join(later, later.id == DuplicateFlagRow.submission_id)
                .join(later_team, later_team.id == later.team_id)
                .join(earlier, earlier.id == DuplicateFlagRow.earlier_submission_id)
                .join(earlier_team, earlier_team.id == earlier.team_id)
                .where(DuplicateFlagRow.competition_id == competition.id)
                .order_by(DuplicateFlagRow.id)
            ).all()
            return [DuplicateFlag(*row) for row in rows]

    def invalid_count(self, slug: str, team: str) -> int:
        with Session(self.reader) as session:
            competition = self._competition(session, slug)
            team_row = self._team(session, competition, team)
            return session.scalar(select(func.count()).where(RejectionRow.team_id == team_row.id))

    def reveal_key(self, slug: str) -> str:
        """The random-stream key, for audit, once the competition is closed
        (by the organiser or by its deadline). A read: it writes nothing."""
        now = self._clock()
        with Session(self.reader) as session:
            competition = self._competition(session, slug)
            if not self._info(competition).is_closed(now):
                raise CompetitionClosed("the key is revealed only after the close")
            return competition.secret_key


def rank_standings(
    entries: list[dict[str, Any]], names: dict[int, str], records: list[Record]
) -> list[Standing]:
    """The public standings of a per-rank board: its ranked entries, best
    first (``names`` maps team ids to names; ``records`` give each team's
    count and time of submissions)."""
    teams = by_team(records)
    standings = []
    for entry in entries:
        name = names[entry["team"]]
        rows = teams.get(name, [])
        standings.append(
            Standing(name, entry["score"], len(rows), rows[-1].created_at if rows else None, None)
        )
    return standings
