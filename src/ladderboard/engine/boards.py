"""The boards: the public board as released, the private board once
published, each kept in process under the competition's board version
(:mod:`~ladderboard.engine.caches`), and the duplicate flags."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from ladderboard.engine import lookup
from ladderboard.engine.context import EngineContext
from ladderboard.engine.errors import CompetitionClosed
from ladderboard.engine.kept_board import KeptBoard
from ladderboard.engine.lifecycle import Lifecycle
from ladderboard.engine.results import (
    BOARD_SCOPE,
    CompetitionInfo,
    DuplicateFlag,
    aware,
)
from ladderboard.mechanisms import MECHANISMS
from ladderboard.rules.boards import (
    BoardRow,
    Record,
    Standing,
    final_selection,
    private_board,
    public_board,
    rank_entries,
    rank_standings,
    ranked,
)
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import (
    CompetitionRow,
    calendar,
    queries,
)
from ladderboard.store.clock import store_time

__all__ = ["Boards", "final_submissions"]


def _records(
    session: Session, competition_id: int, left_out: frozenset[str] = frozenset()
) -> tuple[list[Record[datetime]], dict[int, int]]:
    """The competition's submissions as the boards take them (but those of
    the teams ``left_out``), and each one's number in its team (what the team
    calls it) by its id."""
    rows = queries.submissions_with_team(session, competition_id)
    records = [
        Record(
            r.id,
            r.name,
            aware(r.created_at),
            r.public_score,
            r.private_score,
            r.selected,
            bool(r.improved),
        )
        for r in rows
        if r.name not in left_out
    ]
    return records, {r.id: r.number for r in rows}


def final_submissions(records: Sequence[Record[datetime]], config: CompetitionConfig) -> set[int]:
    """The submissions that count for the final ranking: each team's own
    selection, or, for a team that selected nothing, the files the mechanism
    took as its best on a ladder, its best releases under full disclosure
    (:func:`~ladderboard.rules.boards.auto_select`)."""
    return final_selection(
        records,
        config.n_selections,
        direction=config.scoring().direction,
        by_decision=MECHANISMS[config.mechanism].release_is_current_best,
    )


class Boards:
    """The competitions' boards, over ``context``; ``lifecycle`` publishes a
    competition whose deadline has passed when its private board is asked for."""

    def __init__(self, context: EngineContext, lifecycle: Lifecycle) -> None:
        self.context = context
        self.lifecycle = lifecycle

    def leaderboard(
        self, slug: str, board: str = "public", *, organiser: bool = False
    ) -> list[BoardRow]:
        """:meth:`board` as a list of its own."""
        return list(self.board(slug, board, organiser=organiser))

    def board(
        self, slug: str, board: str = "public", *, organiser: bool = False
    ) -> tuple[BoardRow, ...]:
        """The public board as released, or the private board (once the
        organiser publishes it; to the organiser at any time). Disabled teams
        are left off both.

        The public board is read from the teams' stored standings (one row a
        team, sorted here); either board is then kept in this process under
        the competition's board version, and handed out again while the store
        says the version is the same (one query, the competition's row, which
        every call reads anyway); a board not kept is built by one caller
        while the others that ask for it at the same version wait for it. A
        per-team public board kept at a later version is handed out too, and
        one kept at an older version is patched with the standings changed
        since (:mod:`~ladderboard.engine.kept_board`). The tuple returned is
        the one kept: the same object while the board stays the same, so
        that what a caller derives from it (a serialised response) may be
        kept by its identity."""
        found = self.kept_board(slug, board, organiser=organiser)
        return found.rows if isinstance(found, KeptBoard) else found

    def kept_board(
        self, slug: str, board: str = "public", *, organiser: bool = False
    ) -> tuple[BoardRow, ...] | KeptBoard:
        """:meth:`board` as this process keeps it: the tuple of rows, or for
        the public board of a per-team competition the
        :class:`~ladderboard.engine.kept_board.KeptBoard`, whose rows are
        ranked only when asked for and which says how it was patched from the
        board before it. A serialiser that follows those edits (the API's
        JSON) does not pay for a row at every rank a submission moved."""
        if board not in ("public", "private"):
            raise ValueError(f"board must be 'public' or 'private', got {board!r}")
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            info = lookup.info(competition)
            unpublished = board == "private" and not organiser and not info.is_published()
            if unpublished and self.lifecycle.published_now(session, competition):
                session.close()  # published just now: read it as written
                return self.kept_board(slug, board, organiser=organiser)
            self._refuse_private(board, info, organiser)
            key = (competition.id, competition.commitment, board)
            version = competition.board_version
            if board == "public" and not organiser and info.config.freeze_at is not None:
                now = store_time(session.connection(), self.context.store_now())
                if info.frozen_since(now) is not None:
                    return self._frozen_or_live(slug, session, competition)
            if board == "public" and info.config.board == "per-team":
                return self._patched_public_board(session, competition, info, key)

            def build() -> tuple[BoardRow, ...]:
                if board == "private":
                    return tuple(self._private_board(session, competition, info))
                return tuple(self._public_board(session, competition, info))

            return self.context.caches.boards.made(key, version, build)

    def frozen_board(self, slug: str) -> tuple[BoardRow, ...] | None:
        """The public board as it stood at the freeze, once a submission
        has come after it (``None`` before: the public board is then the
        board at the freeze). What participants see from the freeze to the
        close; the organiser sees it beside the live board."""
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            return self._frozen(session, competition)

    def _frozen(self, session: Session, competition: CompetitionRow) -> tuple[BoardRow, ...] | None:
        """The kept frozen board, without the teams disabled since, ranked
        again; kept in process at the board version (a team disabled or
        enabled changes it)."""
        found = calendar.board_freeze(session.connection(), competition.id)
        if found is None:
            return None

        def build() -> tuple[BoardRow, ...]:
            disabled = set(queries.disabled_team_names(session, competition.id))
            kept = [row for row in found.rows if row["team"] not in disabled]
            return tuple(
                BoardRow(
                    rank,
                    row["team"],
                    row["score"],
                    row["entries"],
                    None
                    if row["last_submission"] is None
                    else datetime.fromisoformat(row["last_submission"]),
                    row["number"],
                )
                for rank, row in enumerate(kept, 1)
            )

        key = (competition.id, competition.commitment, "frozen")
        return self.context.caches.boards.made(key, competition.board_version, build)

    def _frozen_or_live(
        self, slug: str, session: Session, competition: CompetitionRow
    ) -> tuple[BoardRow, ...] | KeptBoard:
        """The public board during the freeze: the frozen board, or while no
        submission has come after the freeze, the live board (the same
        board). The frozen board is looked for again after the live one is
        read, on a connection of its own: a live board that holds a
        submission made after the freeze (a board this process kept at a
        later version) was read after that submission committed, and with
        it the frozen board."""
        frozen = self._frozen(session, competition)
        if frozen is not None:
            return frozen
        live = self.kept_board(slug, "public", organiser=True)
        with Session(self.context.reader) as again:
            frozen = self._frozen(again, lookup.competition(again, slug))
        return live if frozen is None else frozen

    def _patched_public_board(
        self, session: Session, competition: CompetitionRow, info: CompetitionInfo, key: Any
    ) -> KeptBoard:
        """The public board of a per-team competition: the one kept here if it
        is at the store's board version (or a later one); else the one kept
        patched with the standings changed since
        (:mod:`~ladderboard.engine.kept_board`), unless a change that is not
        one of standings came between; else built from every standing. Its
        readers after a submission or a restart arrive together: one of them
        patches or builds it while the others wait for it."""
        version = competition.board_version

        def patch() -> KeptBoard:
            direction = info.config.scoring().direction
            found = self.context.caches.public_boards.latest(key)
            kept = None if found is None else found[1]
            if kept is not None and competition.board_reset_version <= kept.version < version:
                changed = queries.standings_since(session, competition.id, kept.version)
                return kept.patched(version, changed, direction)
            return KeptBoard.build(version, queries.standings(session, competition.id), direction)

        # A board kept at a later version holds every change up to this one
        # (public_boards hands it out: BoardCache's ``later``).
        return self.context.caches.public_boards.made(key, version, patch)

    def leaderboard_from_submissions(
        self, slug: str, board: str = "public", *, with_disabled: bool = False
    ) -> list[BoardRow]:
        """The board rebuilt from every stored submission by the rules, as
        :meth:`leaderboard` once built each one: what the stored standings
        must agree with (the audit checks it). The organiser's view.

        ``with_disabled`` keeps the teams disabled now on the public board:
        the board a freeze keeps, which leaves out the teams disabled when
        it is read (a team enabled again after the freeze is on it)."""
        if board not in ("public", "private"):
            raise ValueError(f"board must be 'public' or 'private', got {board!r}")
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            info = lookup.info(competition)
            if board == "private":
                return self._private_board(session, competition, info)
            config = info.config
            disabled = frozenset(
                () if with_disabled else queries.disabled_team_names(session, competition.id)
            )
            records, numbers = _records(session, competition.id, disabled)
            standings: Sequence[Standing[datetime | None, int | None]]
            if config.board == "per-rank":
                standings = rank_standings(
                    self._rank_entries(session, competition.id, disabled),
                    queries.team_names(session, competition.id),
                    records,
                )
            else:
                mechanism = MECHANISMS[config.mechanism]
                standings = public_board(
                    records,
                    direction=config.scoring().direction,
                    release_is_current_best=mechanism.release_is_current_best,
                    release_hides_decision=mechanism.release_hides_decision,
                )
        return ranked(standings, numbers)

    def _refuse_private(self, board: str, info: CompetitionInfo, organiser: bool) -> None:
        if board == "private" and not info.is_published() and not organiser:
            raise CompetitionClosed(
                "the private board is shown once the organiser publishes it after the close"
            )

    @staticmethod
    def _rank_entries(
        session: Session, competition_id: int, disabled: frozenset[str]
    ) -> list[dict[str, Any]]:
        """The ranked entries of a per-rank board, but those of disabled teams."""
        state = queries.state_of(session, competition_id, BOARD_SCOPE) or {"entries": []}
        names = queries.team_names(session, competition_id)
        return [e for e in state["entries"] if names[e["team"]] not in disabled]

    def _public_board(
        self, session: Session, competition: CompetitionRow, info: CompetitionInfo
    ) -> list[BoardRow]:
        """The public board of a per-rank competition: its ranked entries,
        with each team's count and latest submission from its standing."""
        rows = queries.standings(session, competition.id)
        disabled = frozenset(queries.disabled_team_names(session, competition.id))
        activity = {r.name: (r.entries, aware(r.last_submission_at)) for r in rows}
        return ranked(
            rank_entries(
                self._rank_entries(session, competition.id, disabled),
                queries.team_names(session, competition.id),
                activity,
            )
        )

    def _private_board(
        self, session: Session, competition: CompetitionRow, info: CompetitionInfo
    ) -> list[BoardRow]:
        """The private board, from every submission: it is asked for after
        the close, when it no longer changes and stays in the board cache."""
        config = info.config
        direction = config.scoring().direction
        disabled = frozenset(queries.disabled_team_names(session, competition.id))
        records, numbers = _records(session, competition.id, disabled)
        # ``selected`` is each team's own choice; the automatic one for a
        # team that chose nothing is made here, as at any time.
        picked = final_submissions(records, config)
        records = [dataclasses.replace(r, selected=r.id in picked) for r in records]
        return ranked(private_board(records, direction=direction), numbers)

    def flags(self, slug: str) -> list[DuplicateFlag]:
        """Identical predictions from different teams, for the organiser: each
        submission with the earlier one of another team it repeats."""
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            return [DuplicateFlag(*row) for row in queries.duplicate_flags(session, competition.id)]
