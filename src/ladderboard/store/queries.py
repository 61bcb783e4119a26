"""The engine's reads and row-level writes, outside the submission's hot path
(:mod:`ladderboard.store.statements` holds that one): competitions and teams
by name, a competition's submissions for the boards, the audit's files in
board order, duplicate flags and rejections.

Each function takes an open ORM session (or Core connection) and leaves the
transaction to its caller.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any, Literal, NamedTuple

from sqlalchemy import Connection, bindparam, func, select
from sqlalchemy.orm import Session, aliased

from ladderboard.store.clock import STORE_NOW
from ladderboard.store.models import (
    CompetitionFileRow,
    CompetitionRow,
    CompetitionSolutionRow,
    DuplicateFlagRow,
    MechanismStateRow,
    RejectionRow,
    SubmissionFileRow,
    SubmissionRow,
    TeamRow,
    TeamStandingRow,
)

__all__ = [
    "MEMBER",
    "ChangedStanding",
    "StandingRow",
    "add_competition",
    "add_team",
    "board_states",
    "competition_by_slug",
    "competition_file",
    "competition_files",
    "competition_info",
    "competition_rejections",
    "competition_submissions",
    "competitions",
    "disabled_team_names",
    "duplicate_flags",
    "files_by_board",
    "files_in_order",
    "ping",
    "rejection_count",
    "rejections",
    "solution_file",
    "standings",
    "standings_since",
    "state_of",
    "submission_records",
    "submissions_with_team",
    "team_by_name",
    "team_name_with_key",
    "team_names",
    "team_submission_file",
    "team_submissions",
    "team_summaries",
    "team_with_token",
    "teams",
    "token_hash_known",
]


def ping(connection: Connection) -> None:
    connection.execute(select(1))


# ------------------------------------------------------------ competitions
def competition_by_slug(session: Session, slug: str) -> CompetitionRow | None:
    return session.scalars(select(CompetitionRow).where(CompetitionRow.slug == slug)).first()


_INFO_COLUMNS = (
    CompetitionRow.slug,
    CompetitionRow.title,
    CompetitionRow.description,
    CompetitionRow.config,
    CompetitionRow.created_at,
    CompetitionRow.deadline,
    CompetitionRow.closed_at,
    CompetitionRow.n_public,
    CompetitionRow.n_private,
    CompetitionRow.commitment,
    CompetitionRow.rules,
    CompetitionRow.key_revealed_at,
    CompetitionRow.settings_version,
)


_COMPETITION_INFO = select(*_INFO_COLUMNS, STORE_NOW.label("read_at")).where(
    CompetitionRow.slug == bindparam("slug")
)


def competition_info(connection: Connection, slug: str, store_now: datetime | None = None) -> Any:
    """What :class:`~ladderboard.engine.results.CompetitionInfo` is built from
    (a row with the model's attribute names), with ``read_at``, the store's
    time (``store_now`` when given; :mod:`~ladderboard.store.clock`), or
    ``None``: one Core query, as every API request reads it."""
    return connection.execute(_COMPETITION_INFO, {"slug": slug, "store_now": store_now}).first()


def competitions(session: Session) -> list[CompetitionRow]:
    """Every competition, in the order they were created."""
    return list(session.scalars(select(CompetitionRow).order_by(CompetitionRow.id)))


def solution_file(connection: Connection, competition_id: int) -> bytes:
    """The stored (packed) solution file of a competition."""
    query = select(CompetitionSolutionRow.file).where(
        CompetitionSolutionRow.competition_id == competition_id
    )
    return connection.execute(query).scalar_one()


def _state_row(competition_id: int, scope: str, now: datetime) -> MechanismStateRow:
    return MechanismStateRow(
        competition_id=competition_id, scope=scope, state=None, n_submissions=0, updated_at=now
    )


def add_competition(
    session: Session, row: CompetitionRow, solution_file: bytes, board_scope: str | None
) -> None:
    """Insert ``row`` with its packed ``solution_file``, and the empty state
    of its shared board when it has one (``board_scope``, a per-rank board)."""
    session.add(row)
    session.flush()
    session.add(CompetitionSolutionRow(competition_id=row.id, file=solution_file))
    if board_scope is not None:
        session.add(_state_row(row.id, board_scope, row.created_at))


# ------------------------------------------------------------------- teams
def team_by_name(session: Session, competition_id: int, name: str) -> TeamRow | None:
    return session.scalars(
        select(TeamRow).where(TeamRow.competition_id == competition_id, TeamRow.name == name)
    ).first()


def team_name_with_key(session: Session, competition_id: int, name_key: str) -> str | None:
    """The name of the competition's team whose name has this key (case and
    Unicode form folded), if any."""
    return session.scalar(
        select(TeamRow.name).where(
            TeamRow.competition_id == competition_id, TeamRow.name_key == name_key
        )
    )


def add_team(session: Session, team: TeamRow, board_scope: Callable[[int], str] | None) -> None:
    """Insert ``team``, and the empty state of its own board when it has one
    (a per-team board, whose scope is ``board_scope(team id)``). A team
    without ``home_team_id`` (a first phase's) is its own home team."""
    session.add(team)
    session.flush()
    if team.home_team_id is None:
        team.home_team_id = team.id
    if board_scope is not None:
        session.add(_state_row(team.competition_id, board_scope(team.id), team.created_at))


def teams(session: Session, competition_id: int) -> list[TeamRow]:
    return list(
        session.scalars(
            select(TeamRow).where(TeamRow.competition_id == competition_id).order_by(TeamRow.id)
        )
    )


def team_names(session: Session, competition_id: int) -> dict[int, str]:
    rows = session.execute(
        select(TeamRow.id, TeamRow.name).where(TeamRow.competition_id == competition_id)
    )
    return dict(rows.all())


def disabled_team_names(session: Session, competition_id: int) -> list[str]:
    return list(
        session.scalars(
            select(TeamRow.name).where(
                TeamRow.competition_id == competition_id, TeamRow.disabled_at.is_not(None)
            )
        )
    )


def token_hash_known(connection: Connection, token_hash: str) -> bool:
    """Whether some team of some competition has this token hash."""
    found = connection.execute(
        select(TeamRow.id).where(TeamRow.token_hash == token_hash).limit(1)
    ).first()
    return found is not None


# The first-phase team whose token has the hash; a team of a later phase is
# the row of its first-phase team (``TeamRow.home_team_id``) there, and a
# first phase's team is its own home team: both are found by one index.
_HOME = aliased(TeamRow, name="home_team")
_TOKEN_HOME = (_HOME.token_hash == bindparam("token_hash")) & (
    _HOME.competition_id == func.coalesce(CompetitionRow.first_phase_id, CompetitionRow.id)
)
_TEAM_AT_HOME = (TeamRow.competition_id == CompetitionRow.id) & (TeamRow.home_team_id == _HOME.id)

# The competition with its team whose token has this hash: every request of a
# team reads it, so it is built once (a select built per call costs about ten
# times what running it costs). The team's columns are NULL when no team has
# the token, and there is no row when there is no such competition.
MEMBER = (
    select(
        *_INFO_COLUMNS,
        TeamRow.id.label("team_id"),
        TeamRow.name.label("team_name"),
        TeamRow.created_at.label("team_created_at"),
        TeamRow.disabled_at.label("team_disabled_at"),
    )
    .outerjoin(_HOME, _TOKEN_HOME)
    .outerjoin(TeamRow, _TEAM_AT_HOME)
    .where(CompetitionRow.slug == bindparam("slug"))
)


_TEAM_WITH_TOKEN = (
    select(TeamRow.id, TeamRow.name, TeamRow.created_at, TeamRow.disabled_at)
    .select_from(CompetitionRow)
    .join(_HOME, _TOKEN_HOME)
    .join(TeamRow, _TEAM_AT_HOME)
    .where(CompetitionRow.slug == bindparam("slug"))
)


def team_with_token(connection: Connection, slug: str, token_hash: str) -> Any:
    """``(id, name, created_at, disabled_at)`` of the team of competition
    ``slug`` whose token (its first phase's team's, in a later phase) has
    this hash, or ``None``: one query, as every request a team makes asks it."""
    return connection.execute(_TEAM_WITH_TOKEN, {"slug": slug, "token_hash": token_hash}).first()


# ------------------------------------------------------------- submissions
def submissions_with_team(session: Session, competition_id: int) -> list[Any]:
    """What the boards read of the competition's submissions: ``(id, team
    name, created_at, public_score, private_score, selected, number,
    improved)`` tuples, not ORM objects (building 10,000 of those cost more
    than the query)."""
    rows = session.execute(
        select(
            SubmissionRow.id,
            TeamRow.name,
            SubmissionRow.created_at,
            SubmissionRow.public_score,
            SubmissionRow.private_score,
            SubmissionRow.selected,
            SubmissionRow.number,
            SubmissionRow.improved,
        )
        .join(TeamRow, TeamRow.id == SubmissionRow.team_id)
        .where(SubmissionRow.competition_id == competition_id)
        .order_by(SubmissionRow.id)
    )
    return list(rows.all())


class StandingRow(NamedTuple):
    """A team's stored standing as a public board reads it: what
    :func:`standings` gives (as rows with these names), one a team."""

    name: str  # the team's
    score: float
    entries: int
    last_submission_at: datetime
    submission_id: int  # the database id of the submission that gives the score
    submission_number: int  # the team's own number of it
    submission_at: datetime  # when its score was reached


class ChangedStanding(NamedTuple):
    """A standing changed since a board version: :func:`standings_since`'s
    rows, the columns of :class:`StandingRow` and whether the team is disabled."""

    name: str
    score: float
    entries: int
    last_submission_at: datetime
    submission_id: int
    submission_number: int
    submission_at: datetime
    disabled: bool


_STANDING_COLUMNS = (
    TeamRow.name,
    TeamStandingRow.score,
    TeamStandingRow.entries,
    TeamStandingRow.last_submission_at,
    TeamStandingRow.submission_id,
    TeamStandingRow.submission_number,
    TeamStandingRow.submission_at,
)


def standings(session: Session, competition_id: int) -> list[Any]:
    """The stored standing of each enabled team of the competition that has
    submitted, in no order: rows named as :class:`StandingRow`'s fields,
    one a team (from the standings' index, and each team by its key)."""
    rows = session.execute(
        select(*_STANDING_COLUMNS)
        .join(TeamRow, TeamRow.id == TeamStandingRow.team_id)
        .where(TeamStandingRow.competition_id == competition_id, TeamRow.disabled_at.is_(None))
    )
    return list(rows.all())


def standings_since(session: Session, competition_id: int, version: int) -> list[Any]:
    """The standings of the competition changed after board ``version``, the
    disabled teams' too: rows named as :class:`ChangedStanding`'s fields."""
    rows = session.execute(
        select(*_STANDING_COLUMNS, TeamRow.disabled_at.is_not(None).label("disabled"))
        .join(TeamRow, TeamRow.id == TeamStandingRow.team_id)
        .where(
            TeamStandingRow.competition_id == competition_id,
            TeamStandingRow.version > version,
        )
    )
    return list(rows.all())


def competition_submissions(session: Session, competition_id: int) -> list[SubmissionRow]:
    return list(
        session.scalars(
            select(SubmissionRow).where(SubmissionRow.competition_id == competition_id)
        ).all()
    )


def team_submissions(session: Session, team_id: int) -> list[SubmissionRow]:
    """A team's submissions, by the team's own number."""
    return list(
        session.scalars(
            select(SubmissionRow)
            .where(SubmissionRow.team_id == team_id)
            .order_by(SubmissionRow.number)
        ).all()
    )


def state_of(session: Session, competition_id: int, scope: str) -> Any:
    """The stored state of one board (``None`` before its first submission)."""
    return session.scalars(
        select(MechanismStateRow.state).where(
            MechanismStateRow.competition_id == competition_id,
            MechanismStateRow.scope == scope,
        )
    ).first()


def board_states(session: Session, competition_id: int) -> list[tuple[str, Any]]:
    """Every board's scope and stored state."""
    rows = session.execute(
        select(MechanismStateRow.scope, MechanismStateRow.state).where(
            MechanismStateRow.competition_id == competition_id
        )
    )
    return [(scope, state) for scope, state in rows.all()]


def files_by_board(session: Session, competition_id: int) -> list[tuple[SubmissionRow, bytes]]:
    """Every submission with its stored file, board by board in the order
    each board saw them (what the audit runs again)."""
    rows = session.execute(
        select(SubmissionRow, SubmissionFileRow.file)
        .join(SubmissionFileRow, SubmissionFileRow.submission_id == SubmissionRow.id)
        .where(SubmissionRow.competition_id == competition_id)
        .order_by(SubmissionRow.scope, SubmissionRow.sequence)
    )
    return [(row, file) for row, file in rows.all()]


def submission_records(
    session: Session, competition_id: int, *, order: Literal["made", "board"]
) -> Iterator[Any]:
    """Every submission of the competition with its team and its stored
    (packed) file, as an export or an audit bundle writes them: in the order
    they were made (``"made"``), or board by board in the order each board saw
    them (``"board"``). Rows are fetched a few at a time, so that a
    competition's files are never all in memory at once; the session must
    stay open while they are read."""
    by = (
        (SubmissionRow.created_at, SubmissionRow.id)
        if order == "made"
        else (SubmissionRow.scope, SubmissionRow.sequence)
    )
    query = (
        select(
            SubmissionRow.id,
            SubmissionRow.scope,
            SubmissionRow.sequence,
            SubmissionRow.team_id,
            TeamRow.name.label("team"),
            TeamRow.disabled_at.label("team_disabled_at"),
            SubmissionRow.number,
            SubmissionRow.created_at,
            SubmissionRow.message,
            SubmissionRow.file_sha256,
            SubmissionRow.public_score,
            SubmissionRow.improved,
            SubmissionRow.public_raw,
            SubmissionRow.private_score,
            SubmissionRow.selected,
            SubmissionRow.draw_versions,
            SubmissionFileRow.file,
        )
        .join(SubmissionFileRow, SubmissionFileRow.submission_id == SubmissionRow.id)
        .join(TeamRow, TeamRow.id == SubmissionRow.team_id)
        .where(SubmissionRow.competition_id == competition_id)
        .order_by(*by)
        .execution_options(yield_per=32)
    )
    yield from session.execute(query)


def team_submission_file(session: Session, team_id: int, number: int) -> bytes | None:
    """The stored (packed) file of the team's submission ``number``, or None."""
    return session.scalar(
        select(SubmissionFileRow.file)
        .join(SubmissionRow, SubmissionFileRow.submission_id == SubmissionRow.id)
        .where(SubmissionRow.team_id == team_id, SubmissionRow.number == number)
    )


def files_in_order(session: Session, competition_id: int) -> list[tuple[Any, ...]]:
    """``(id, created_at, file, selected, team name, team id)`` of every
    submission, in the order they were made."""
    rows = session.execute(
        select(
            SubmissionRow.id,
            SubmissionRow.created_at,
            SubmissionFileRow.file,
            SubmissionRow.selected,
            TeamRow.name,
            TeamRow.id,
        )
        .join(SubmissionFileRow, SubmissionFileRow.submission_id == SubmissionRow.id)
        .join(TeamRow, TeamRow.id == SubmissionRow.team_id)
        .where(SubmissionRow.competition_id == competition_id)
        .order_by(SubmissionRow.created_at, SubmissionRow.id)
    )
    return [tuple(row) for row in rows.all()]


def duplicate_flags(session: Session, competition_id: int) -> list[tuple[str, int, str, int]]:
    """``(team, number, earlier team, earlier number)`` of each submission
    that repeats another team's earlier predictions, in the order flagged."""
    later, earlier = aliased(SubmissionRow), aliased(SubmissionRow)
    later_team, earlier_team = aliased(TeamRow), aliased(TeamRow)
    rows = session.execute(
        select(later_team.name, later.number, earlier_team.name, earlier.number)
        .select_from(DuplicateFlagRow)
        .join(later, later.id == DuplicateFlagRow.submission_id)
        .join(later_team, later_team.id == later.team_id)
        .join(earlier, earlier.id == DuplicateFlagRow.earlier_submission_id)
        .join(earlier_team, earlier_team.id == earlier.team_id)
        .where(DuplicateFlagRow.competition_id == competition_id)
        .order_by(DuplicateFlagRow.id)
    )
    return [(team, number, earlier, first) for team, number, earlier, first in rows.all()]


def competition_rejections(session: Session, competition_id: int) -> list[Any]:
    """The competition's refused files with their team's name, oldest first:
    rows of ``team``, ``created_at``, ``code``, ``message``, ``size``,
    ``file_sha256`` and ``filename``."""
    rows = session.execute(
        select(
            TeamRow.name.label("team"),
            RejectionRow.created_at,
            RejectionRow.code,
            RejectionRow.message,
            RejectionRow.size,
            RejectionRow.file_sha256,
            RejectionRow.filename,
        )
        .join(TeamRow, TeamRow.id == RejectionRow.team_id)
        .where(RejectionRow.competition_id == competition_id)
        .order_by(RejectionRow.id)
    )
    return list(rows.all())


def rejection_count(session: Session, team_id: int) -> int:
    return session.scalar(select(func.count()).where(RejectionRow.team_id == team_id)) or 0


def rejections(session: Session, team_id: int) -> list[RejectionRow]:
    """The team's refused files, newest first."""
    return list(
        session.scalars(
            select(RejectionRow)
            .where(RejectionRow.team_id == team_id)
            .order_by(RejectionRow.id.desc())
        )
    )


def team_summaries(
    session: Session, competition_id: int, day: tuple[datetime, datetime]
) -> list[tuple[Any, ...]]:
    """Per team of the competition, in the order they joined: ``(team row,
    submissions, last submission, submissions in ``day`` (``[start, end)``) as
    its daily quota counts them (with those of the teams merged into it),
    invalid files, duplicate flags naming it on either side)``; four grouped
    queries, not one a team."""
    submitted = {
        team: (count, last, today)
        for team, count, last, today in session.execute(
            select(
                SubmissionRow.team_id,
                func.count(),
                func.max(SubmissionRow.created_at),
                func.count().filter(
                    (SubmissionRow.created_at >= day[0]) & (SubmissionRow.created_at < day[1])
                ),
            )
            .where(SubmissionRow.competition_id == competition_id)
            .group_by(SubmissionRow.team_id)
        ).all()
    }
    invalid = dict(
        session.execute(
            select(RejectionRow.team_id, func.count())
            .where(RejectionRow.competition_id == competition_id)
            .group_by(RejectionRow.team_id)
        ).all()
    )
    later, earlier = aliased(SubmissionRow), aliased(SubmissionRow)
    flags: dict[int, int] = {}
    for later_team, earlier_team in session.execute(
        select(later.team_id, earlier.team_id)
        .select_from(DuplicateFlagRow)
        .join(later, later.id == DuplicateFlagRow.submission_id)
        .join(earlier, earlier.id == DuplicateFlagRow.earlier_submission_id)
        .where(DuplicateFlagRow.competition_id == competition_id)
    ).all():
        flags[later_team] = flags.get(later_team, 0) + 1
        flags[earlier_team] = flags.get(earlier_team, 0) + 1
    rows = teams(session, competition_id)
    today = {team.id: submitted.get(team.id, (0, None, 0))[2] for team in rows}
    for team in rows:
        if team.merged_into_id is not None and team.merged_into_id in today:
            today[team.merged_into_id] += submitted.get(team.id, (0, None, 0))[2]
    return [
        (
            team,
            *submitted.get(team.id, (0, None, 0))[:2],
            today[team.id],
            invalid.get(team.id, 0),
            flags.get(team.id, 0),
        )
        for team in rows
    ]


# -------------------------------------------------------------- data files
def competition_files(session: Session, competition_id: int) -> list[CompetitionFileRow]:
    """The competition's data files by name, without their bytes."""
    return list(
        session.scalars(
            select(CompetitionFileRow)
            .where(CompetitionFileRow.competition_id == competition_id)
            .order_by(CompetitionFileRow.name)
        )
    )


def competition_file(session: Session, competition_id: int, name: str) -> CompetitionFileRow | None:
    return session.scalars(
        select(CompetitionFileRow).where(
            CompetitionFileRow.competition_id == competition_id, CompetitionFileRow.name == name
        )
    ).first()
