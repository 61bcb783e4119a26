"""Competitions in phases: a development phase, then a final phase, each
with its own holdout, split, schedule, quotas and boards, and the same teams.

A later phase is a competition created with ``phase_of`` naming the first
phase of its series. Teams, their members, tokens, invitations and merges
live in the first phase; a later phase keeps a row for each first-phase team
(made when the phase is created and whenever a team is added), which
follows its team: disabled, enabled or retired by a merge with it. A token
or an account of a first-phase team is its team in every phase of the
series, and each phase counts its own submissions, quotas and boards (as
Kaggle's two-stage competitions and CodaLab's phases do). The final ranking
is the last phase's private board; each phase is published, revealed and
audited on its own, as any competition is.

What a team belongs to in a later phase is read by one query on the hot path
(:data:`ladderboard.store.queries.MEMBER`); this module writes the rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.orm import Session

from ladderboard.engine import lookup
from ladderboard.engine.errors import NotFound
from ladderboard.engine.results import team_scope
from ladderboard.store import TeamRow, TeamSessions, queries, statements
from ladderboard.store import phases as phase_rows
from ladderboard.store.models import CompetitionRow

__all__ = ["first_phase", "follow", "mirror_teams", "series_closed", "series_of"]


def first_phase(session: Session, competition: CompetitionRow) -> CompetitionRow:
    """The first phase of the competition's series (itself, for a first phase)."""
    if competition.first_phase_id is None:
        return competition
    first = session.get(CompetitionRow, competition.first_phase_id)
    if first is None:
        raise NotFound(f"the first phase of {competition.slug!r} is gone")
    return first


def series_of(session: Session, phase_of: str) -> CompetitionRow:
    """The first phase that a new phase naming ``phase_of`` joins: the named
    competition, or its own first phase when it is a later phase."""
    return first_phase(session, lookup.competition(session, phase_of))


def series_closed(session: Session, first: CompetitionRow, store_now: datetime) -> bool:
    """Whether every phase of the series of first phase ``first`` is closed
    at ``store_now``: until then its teams may still form and change."""
    rows = [first, *phase_rows.later_phases(session, first.id)]
    return all(lookup.info(row).is_closed(store_now) for row in rows)


def mirror_teams(
    session: Session, phase: CompetitionRow, homes: Sequence[TeamRow], now: datetime
) -> None:
    """Give later phase ``phase`` a row for each first-phase team of
    ``homes`` (with its board's state, on a per-team board), as each stands:
    its name, disabled or not, merged into which team."""
    own = team_scope if phase.config["board"] == "per-team" else None
    rows: dict[int, TeamRow] = {}
    for home in homes:
        row = TeamRow(
            competition_id=phase.id,
            name=home.name,
            name_key=home.name_key,
            token_hash=None,
            created_at=now,
            disabled_at=home.disabled_at,
            home_team_id=home.id,
        )
        queries.add_team(session, row, own)
        rows[home.id] = row
    for home in homes:
        if home.merged_into_id is not None and home.merged_into_id in rows:
            rows[home.id].merged_into_id = rows[home.merged_into_id].id
    session.flush()


def follow(session: Session, home: TeamRow) -> list[str]:
    """Make the rows of first-phase team ``home`` in the later phases follow
    it: disabled while it is or while their own phase disabled them
    (``own_disabled_at``), merged into the row of the team it merged into,
    signed out when disabled, each phase's board changed. The slugs of the
    phases changed (whose caches the caller drops)."""
    changed = []
    connection = session.connection()
    for row in phase_rows.team_in_phases(session, home.id):
        merged_into = row.merged_into_id
        if home.merged_into_id is not None:
            target = phase_rows.team_at_home(session, row.competition_id, home.merged_into_id)
            merged_into = None if target is None else target.id
        disabled_at = home.disabled_at or row.own_disabled_at
        if (disabled_at is None, merged_into) == (row.disabled_at is None, row.merged_into_id):
            continue
        row.disabled_at, row.merged_into_id = disabled_at, merged_into
        TeamSessions.revoke_team(connection, row.id)
        version = statements.bump_board_version(connection, row.competition_id)
        statements.stamp_standing(connection, row.id, version)
        competition = session.get(CompetitionRow, row.competition_id)
        assert competition is not None
        changed.append(competition.slug)
    session.flush()
    return changed
