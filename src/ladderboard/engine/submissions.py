"""A team's submissions: taking one (the rules are
:mod:`~ladderboard.engine.submitting`'s), listing them, their files, the
final selection, and what happened to a release, in words."""

from __future__ import annotations

from sqlalchemy.orm import Session

from ladderboard.engine import lookup
from ladderboard.engine.boards import Boards, final_submissions
from ladderboard.engine.context import EngineContext
from ladderboard.engine.errors import CompetitionClosed, NotFound, NotOpenYet, TeamDisabled
from ladderboard.engine.late import LateSubmissions
from ladderboard.engine.lifecycle import Lifecycle
from ladderboard.engine.results import (
    Admission,
    CompetitionInfo,
    SubmissionResult,
    SubmissionView,
    aware,
)
from ladderboard.engine.submitting import Submitter
from ladderboard.mechanisms import MECHANISMS
from ladderboard.rules.boards import (
    Record,
)
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.explain import explain
from ladderboard.store import (
    queries,
    statements,
)
from ladderboard.store.blobs import unpack
from ladderboard.store.corrections import changed_by_correction

__all__ = ["Submissions"]


class Submissions:
    """The teams' submissions, over ``context``, taken by ``submitter``;
    ``lifecycle`` and ``boards`` give the competition and its public board;
    ``late`` takes the files sent after the publication."""

    def __init__(
        self,
        context: EngineContext,
        lifecycle: Lifecycle,
        boards: Boards,
        submitter: Submitter,
        late: LateSubmissions,
    ) -> None:
        self.context = context
        self.lifecycle = lifecycle
        self.boards = boards
        self.submitter = submitter
        self.late = late

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
        """Score one submission file for ``team``; all of it is stored or none.

        Raises :class:`SubmissionError` (bad file: recorded against the
        invalid cap only, with the ``filename`` it was sent under, which
        the team's list of refused files shows), :class:`QuotaExceeded`, :class:`CompetitionClosed`,
        :class:`DuplicateSubmission` or :class:`NotFound`; each leaves the
        team's quota and the mechanism's state untouched. The rules are
        :meth:`Submitter.submit_once <ladderboard.engine.submitting.Submitter.submit_once>`.
        Before the opening time the refusal is :class:`NotOpenYet`. Once the
        private board is published, a competition that takes late files
        scores one as :class:`~ladderboard.engine.late.LateSubmissions` does
        (the result's ``late`` is true); a bad late file is not recorded.
        """
        try:
            return self.submitter.submit(
                slug,
                team,
                data,
                message=message,
                idempotency_key=idempotency_key,
                filename=filename,
            )
        except CompetitionClosed as closed:
            if isinstance(closed, NotOpenYet) or not self.late.admits(slug, team):
                raise
        return self.late.submit(slug, team, data, message=message, idempotency_key=idempotency_key)

    def admit(
        self,
        slug: str,
        team: str,
        idempotency_key: str | None = None,
        *,
        read: Admission | None = None,
    ) -> None:
        """Refuse what needs no file, before one is read: a closed competition,
        a spent quota or invalid-file cap (:class:`CompetitionClosed`,
        :class:`QuotaExceeded`, :class:`NotFound`). ``submit`` checks all of it
        again under the lock; this only spares the server the work of reading
        a file it would refuse. A submission resent with an idempotency key
        already used passes: ``submit`` answers it with the first result.
        ``read`` is the admission :meth:`member_admission` read for this team
        and key, which spares reading it again. A late file is admitted
        by the late quota (:meth:`LateSubmissions.admits
        <ladderboard.engine.late.LateSubmissions.admits>`)."""
        try:
            self.submitter.admit(slug, team, idempotency_key, read)
        except CompetitionClosed as closed:
            if isinstance(closed, NotOpenYet) or not self.late.admits(slug, team):
                raise

    def submissions(self, slug: str, team: str, *, organiser: bool = False) -> list[SubmissionView]:
        """A team's own submissions: private scores, the mechanism's
        decisions and a ladder's automatic finals only once published;
        ``organiser`` sees the decisions and the finals (not the private
        scores, which the private board shows first) at any time."""
        now = self.context.clock()
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            team_row = lookup.team(session, competition, team)
            info = lookup.info(competition)
            published = info.is_published(now)
            rows = queries.team_submissions(session, team_row.id)
            corrected = changed_by_correction(session.connection(), team_row.id)
        records = [
            Record(
                r.id,
                team,
                aware(r.created_at),
                r.public_score,
                r.private_score,
                r.selected,
                bool(r.improved),
            )
            for r in rows
        ]
        decided = published or organiser
        if MECHANISMS[info.config.mechanism].release_is_current_best and not decided:
            # A ladder's automatic choice follows the mechanism's decisions,
            # which stay the organiser's until the private board is
            # published: until then only the team's own selection is shown.
            final = {r.id for r in records if r.selected}
        else:
            final = final_submissions(records, info.config)
        return [
            SubmissionView(
                r.number,
                aware(r.created_at),
                r.message,
                r.public_score,
                r.selected,
                r.private_score if published else None,
                r.id in final,
                bool(r.improved) if decided else None,
                r.id in corrected,
            )
            for r in rows
        ]

    def submission_file(self, slug: str, team: str, number: int) -> bytes:
        """The file of the team's own submission ``number`` (its number among
        the team's, as :meth:`submissions` lists them), byte for byte as it
        was received; :class:`NotFound` if the team has no such submission.
        Only the team's own: the number is looked up among its submissions."""
        with Session(self.context.reader) as session:
            team_row = lookup.team(session, lookup.competition(session, slug), team)
            blob = (
                queries.team_submission_file(session, team_row.id, number)
                if isinstance(number, int) and 0 < number < 2**31
                else None
            )
        if blob is None:
            raise NotFound(f"team {team!r} has no submission {number!r}")
        return unpack(blob)

    def select(self, slug: str, team: str, submission_ids: list[int]) -> None:
        """Choose the team's final submissions (replacing an earlier choice),
        by the team's own numbers (``SubmissionView.number``)."""
        with self.context.transaction() as session:
            # Under the lock the close takes, at the store's time: no
            # selection after the close, whatever this host's clock says.
            competition, store_now = self.context.locked(session, slug)
            team_row = lookup.team(session, competition, team)
            config = CompetitionConfig.from_json(competition.config)
            if lookup.info(competition).is_closed(store_now):
                raise CompetitionClosed(f"competition {slug!r} is closed")
            if team_row.disabled_at is not None:
                raise TeamDisabled(f"team {team!r} is disabled by the organiser")
            chosen = set(submission_ids)
            if len(chosen) > config.n_selections:
                raise ValueError(
                    f"at most {config.n_selections} final submissions, got {len(chosen)}"
                )
            rows = queries.team_submissions(session, team_row.id)
            unknown = chosen - {r.number for r in rows}
            if unknown:
                raise NotFound(f"team {team!r} has no submission {sorted(unknown)}")
            for row in rows:
                row.selected = row.number in chosen
            statements.bump_board_version(session.connection(), competition.id, reset=True)

    def explain(
        self, slug: str, team: str, result: SubmissionResult, info: CompetitionInfo | None = None
    ) -> str:
        """What happened to the team's public score, in words, from what the
        team already sees: its own released scores and its place on the
        public board (never the mechanism's hidden state). ``info``, the
        competition as read before the submission, spares reading it again."""
        if info is None or info.slug != slug:
            info = self.lifecycle.competition(slug)
        config = info.config
        direction = config.scoring().direction
        previous = result.previous_score
        rank = previous_rank = None
        if result.late:
            return (
                "A late submission: scored exactly on the public and the private rows, shown "
                "on the late board only; the final ranking does not change."
            )
        frozen = info.frozen_since(self.context.clock())
        if config.board == "per-rank" and frozen is not None:
            # The rank a file takes is read from the live board, which the
            # freeze keeps from the participants until the close.
            return (
                f"The public board is frozen since {frozen:%Y-%m-%d %H:%M} UTC: this score is "
                "the board's answer to your file, and the rank it took shows after the close."
            )
        if config.board == "per-rank":
            row = next((r for r in self.boards.leaderboard(slug) if r.team == team), None)
            if row is not None:
                rank = row.rank
                # An entry whose score is not this release was kept from before.
                previous_rank = None if row.score == result.public_score else rank
            previous = None if row is None or previous_rank is None else row.score
        elif not MECHANISMS[config.mechanism].release_is_current_best and previous is not None:
            # The board shows the team's best release: explain against the best before.
            views = self.submissions(slug, team)
            earlier = [v.public_score for v in views if v.number < result.number]
            previous = direction.best(earlier) if earlier else None
        return explain(
            config.mechanism,
            result.public_score,
            previous,
            direction=direction,
            decimals=self.lifecycle.decimals(info),
            params=config.mechanism_params,
            board=config.board,
            rank=rank,
            previous_rank=previous_rank,
        )
