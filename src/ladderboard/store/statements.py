"""The statements of a submission's hot path, built once (bind parameters
carry the values), and the queries that count a team's submissions.

Each is answered from an index (a test reads SQLite's query plans): the
target (the competition and team, whose rows never change, read once per
process), the locked state row with its competition, the team's counts with
its own duplicate, another team's duplicate and its invalid files in one
round trip, the state update and the inserts.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import bindparam, func, insert, or_, select, true, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert

from ladderboard.store import queries
from ladderboard.store.clock import STORE_NOW, store_time
from ladderboard.store.models import (
    CompetitionRow,
    DuplicateFlagRow,
    MechanismStateRow,
    RateLimitRow,
    RejectionRow,
    StoreIdentityRow,
    SubmissionFileRow,
    SubmissionRow,
    TeamRow,
    TeamStandingRow,
    table_of,
)

__all__ = [
    "ADMISSION",
    "BUMP_BOARD_VERSION",
    "BUMP_IF_OPEN",
    "COUNTS",
    "INSERT_FILE",
    "INSERT_STANDING",
    "INSERT_SUBMISSION",
    "INVALID",
    "LOCK_STATE",
    "MEMBER_ADMISSION",
    "MERGED_COUNTS",
    "OTHER_TEAM",
    "RESET_BOARD_VERSION",
    "STAMP_STANDING",
    "TARGET",
    "TEAM_COUNTS",
    "TEAM_RELEASES",
    "TEAM_STANDING",
    "UPDATE_STANDING",
    "UPDATE_STATE",
    "StoredStanding",
    "admission",
    "bump_board_version",
    "commitment",
    "count_params",
    "counts",
    "invalid_files",
    "lock_competition",
    "lock_state",
    "member_admission",
    "released_before",
    "stamp_standing",
    "store_rejection",
    "store_standing",
    "store_standing_and_bump",
    "store_submission",
    "submission_with_key",
    "target",
    "team_counts",
    "team_releases",
]

_STATES = table_of(MechanismStateRow)
_SUBMISSIONS = table_of(SubmissionRow)
_FILES = table_of(SubmissionFileRow)
_DUPLICATE_FLAGS = table_of(DuplicateFlagRow)
_REJECTIONS = table_of(RejectionRow)
_STANDINGS = table_of(TeamStandingRow)
_COMPETITIONS = table_of(CompetitionRow)
_RATE_LIMITS = table_of(RateLimitRow)
TARGET = (
    select(
        CompetitionRow.id.label("competition_id"),
        CompetitionRow.config,
        CompetitionRow.deadline,
        CompetitionRow.solution_sha256,
        CompetitionRow.commitment,
        CompetitionRow.settings_version,
        TeamRow.id.label("team_id"),
    )
    .join(TeamRow, TeamRow.competition_id == CompetitionRow.id)
    .where(CompetitionRow.slug == bindparam("slug"), TeamRow.name == bindparam("team"))
)
# Whether the team was disabled (the organiser may do it at any time).
_DISABLED = select(TeamRow.disabled_at).where(TeamRow.id == bindparam("team")).scalar_subquery()
LOCK_STATE = (
    select(
        _STATES.c.id,
        _STATES.c.state,
        _STATES.c.n_submissions,
        CompetitionRow.closed_at,
        CompetitionRow.secret_key,
        CompetitionRow.commitment,
        CompetitionRow.slug,
        CompetitionRow.deadline,
        CompetitionRow.settings_version,
        STORE_NOW.label("store_now"),
        # The calendar as stored now (ISO text, or null): an edit made by
        # another process reaches every submission, whatever its cached target says.
        CompetitionRow.config["opens_at"].as_string().label("opens_at"),
        CompetitionRow.config["freeze_at"].as_string().label("freeze_at"),
    )
    .join(CompetitionRow, CompetitionRow.id == _STATES.c.competition_id)
    .where(
        _STATES.c.competition_id == bindparam("competition"),
        _STATES.c.scope == bindparam("scope"),
    )
    .with_for_update(of=_STATES)
)
TEAM_DISABLED = select(
    TeamRow.disabled_at,
    # The store's identity, read under the board's lock: a process whose
    # caches were filled from another (a store put back from a backup since)
    # must not write through them (:mod:`~ladderboard.store.identity`).
    select(StoreIdentityRow.value).where(StoreIdentityRow.id == 1).scalar_subquery(),
).where(TeamRow.id == bindparam("team"))


class _Locked(NamedTuple):
    """A board's state row as :func:`lock_state` locks it."""

    id: int
    state: Any
    n_submissions: int
    closed_at: datetime | None
    secret_key: str
    commitment: str
    slug: str
    deadline: datetime | None
    settings_version: int
    store_now: datetime | None
    opens_at: str | None
    freeze_at: str | None
    disabled_at: datetime | None
    identity: str | None


_SAME = _SUBMISSIONS.c.predictions_sha256 == bindparam("hash")
_TODAY = (_SUBMISSIONS.c.created_at >= bindparam("day")) & (
    _SUBMISSIONS.c.created_at < bindparam("next_day")
)
# Two queries, each on its own index (a single one with ``team OR hash`` makes
# SQLite scan every submission of the competition).
TEAM_COUNTS = select(
    func.count().filter(_TODAY),
    func.count(),
    func.min(_SUBMISSIONS.c.number).filter(_SAME),
).where(_SUBMISSIONS.c.team_id == bindparam("team"))
OTHER_TEAM = select(func.min(_SUBMISSIONS.c.id)).where(
    _SUBMISSIONS.c.competition_id == bindparam("competition"),
    _SAME,
    _SUBMISSIONS.c.team_id != bindparam("team"),
)
# The retired teams merged into a team: its quotas count their submissions
# too (``ladderboard.engine.membership``), each team's from its own index.
_MERGED = table_of(TeamRow).alias("merged")


def _merged_counts(team: Any) -> tuple[Any, Any]:
    """The valid submissions today and in all of the retired teams merged
    into ``team`` (a bound parameter, or a column to correlate with)."""
    merged = _SUBMISSIONS.join(_MERGED, _MERGED.c.id == _SUBMISSIONS.c.team_id)
    where = _MERGED.c.merged_into_id == team
    return (
        select(func.count().filter(_TODAY)).select_from(merged).where(where).scalar_subquery(),
        select(func.count()).select_from(merged).where(where).scalar_subquery(),
    )


MERGED_COUNTS = select(*_merged_counts(bindparam("team")))
_INVALID_FILES = select(func.count()).where(RejectionRow.team_id == bindparam("team"))
# The team's last released score, which its next release is explained against.
_PREVIOUS_SCORE = (
    select(_SUBMISSIONS.c.public_score)
    .where(_SUBMISSIONS.c.team_id == bindparam("team"))
    .order_by(_SUBMISSIONS.c.number.desc())
    .limit(1)
)
TEAM_STANDING = select(
    _STANDINGS.c.score,
    _STANDINGS.c.entries,
    _STANDINGS.c.submission_id,
    _STANDINGS.c.submission_number,
    _STANDINGS.c.submission_at,
    _STANDINGS.c.last_submission_at,
).where(_STANDINGS.c.team_id == bindparam("team"))
# All in one round trip (a round trip to PostgreSQL costs more than the query), each
# subquery still planned on its own index; the counts are one row, to which the
# team's standing (none before its first submission) is joined.
_TEAM_SUB = TEAM_COUNTS.subquery()
_STANDING_SUB = TEAM_STANDING.subquery()
COUNTS = select(
    *_TEAM_SUB.c,
    OTHER_TEAM.scalar_subquery(),
    _INVALID_FILES.scalar_subquery(),
    _PREVIOUS_SCORE.scalar_subquery(),
    *_merged_counts(bindparam("team")),
    *_STANDING_SUB.c,
).select_from(_TEAM_SUB.outerjoin(_STANDING_SUB, true()))
_STANDING_AT = len(COUNTS.selected_columns) - len(_STANDING_SUB.c)  # COUNTS' standing columns
# What a bad file is checked against before it is recorded, under its board's
# lock (LOCK_STATE): the team's invalid files so far.
INVALID = _INVALID_FILES


def _admission_counts(team: Any) -> tuple[Any, ...]:
    """The team's valid submissions today and in all (with those of the
    teams merged into it, which its quotas count), its invalid files, and
    its submissions sent with the idempotency key ``key``, for the team whose
    id is ``team`` (a bound parameter, or a column to correlate with)."""
    own = _SUBMISSIONS.c.team_id == team
    merged_today, merged_total = _merged_counts(team)
    return (
        select(func.count().filter(_TODAY)).where(own).scalar_subquery() + merged_today,
        select(func.count()).where(own).scalar_subquery() + merged_total,
        select(func.count()).where(RejectionRow.team_id == team).scalar_subquery(),
        select(func.count())
        .where(own, _SUBMISSIONS.c.idempotency_key == bindparam("key"))
        .scalar_subquery(),
    )


# What a submission is refused for before its file is read: the close, and the
# team's counts and invalid files (no hash: duplicates need the parsed file);
# and whether its idempotency key was used (a resent submission is answered).
ADMISSION = select(
    CompetitionRow.closed_at,
    CompetitionRow.deadline,
    _DISABLED.label("disabled_at"),
    *(
        count.label(name)
        for name, count in zip(
            ("today", "total", "invalid", "resent"),
            _admission_counts(bindparam("team")),
            strict=True,
        )
    ),
    STORE_NOW.label("store_now"),
    CompetitionRow.settings_version,
).where(CompetitionRow.id == bindparam("competition"))
# The member read (the competition and the caller's team) with the same counts
# for the team it finds, correlated to its row, so that a submission's
# admission is read with its caller in one query, built once; and the rate
# limit bucket ``rate_key``'s ``tat`` (the caller's address's failed
# authentications), which its authentication would otherwise read alone.
MEMBER_ADMISSION = queries.MEMBER.add_columns(
    *(
        count.label(f"admission_{name}")
        for name, count in zip(
            ("today", "total", "invalid", "resent"), _admission_counts(TeamRow.id), strict=True
        )
    ),
    select(_RATE_LIMITS.c.tat)
    .where(_RATE_LIMITS.c.key == bindparam("rate_key"))
    .scalar_subquery()
    .label("rate_tat"),
    STORE_NOW.label("store_now"),
)
UPDATE_STATE = (
    update(_STATES)
    .where(_STATES.c.id == bindparam("state_id"))
    .values(
        state=bindparam("new_state", type_=_STATES.c.state.type),
        n_submissions=bindparam("n"),
        updated_at=bindparam("now", type_=_STATES.c.updated_at.type),
    )
)
INSERT_SUBMISSION = insert(_SUBMISSIONS).returning(_SUBMISSIONS.c.id)
INSERT_FILE = insert(_FILES)


@functools.cache
def _store_submission_at_once(columns: tuple[str, ...]) -> Any:
    """UPDATE_STATE, INSERT_SUBMISSION and INSERT_FILE as one PostgreSQL
    statement (data-modifying CTEs), the submission's ``columns`` bound as
    ``v_<column>``; it returns the new submission's id."""
    stored = (
        insert(_SUBMISSIONS)
        .values({c: bindparam(f"v_{c}", type_=_SUBMISSIONS.c[c].type) for c in columns})
        .returning(_SUBMISSIONS.c.id)
        .cte("stored")
    )
    filed = insert(_FILES).from_select(
        ["submission_id", "file"],
        select(stored.c.id, bindparam("file", type_=_FILES.c.file.type)),
    )
    return select(stored.c.id).add_cte(UPDATE_STATE.cte("state"), filed.cte("filed"))


# What a team's standing is built from: its released scores, from its index.
TEAM_RELEASES = select(
    _SUBMISSIONS.c.id,
    _SUBMISSIONS.c.created_at,
    _SUBMISSIONS.c.public_score,
    _SUBMISSIONS.c.number,
    _SUBMISSIONS.c.improved,
).where(_SUBMISSIONS.c.team_id == bindparam("team"))
_STANDING_VALUES = {
    name: bindparam(name, type_=_STANDINGS.c[name].type)
    for name in (
        "version",
        "score",
        "entries",
        "last_submission_at",
        "submission_id",
        "submission_number",
        "submission_at",
    )
}
UPDATE_STANDING = (
    update(_STANDINGS).where(_STANDINGS.c.team_id == bindparam("team")).values(**_STANDING_VALUES)
)
INSERT_STANDING = insert(_STANDINGS).values(
    team_id=bindparam("team"), competition_id=bindparam("competition"), **_STANDING_VALUES
)
# Late in a transaction that changes a board: the competition's row stays
# locked only until the commit. It returns the new version, with which the
# transaction stamps the standings it changes.
BUMP_BOARD_VERSION = (
    update(_COMPETITIONS)
    .where(_COMPETITIONS.c.id == bindparam("competition"))
    .values(board_version=_COMPETITIONS.c.board_version + 1)
    .returning(_COMPETITIONS.c.board_version)
)
# A submission's BUMP_BOARD_VERSION, which also decides whether the
# competition is still open and still under the commitment the submission was
# scored for: under the competition row's lock, which the close, the
# publication and a correction of the solution take before they write, and
# by the store's clock. No row when it is closed or its solution was
# corrected. A submission that read "open" when it took its board's lock but
# reaches this after the close committed is refused here; one that read the
# old commitment (PostgreSQL reads the competition's row in the board's lock
# as of the statement's start, when a correction held the board) is refused
# too, and scored again.
BUMP_IF_OPEN = (
    update(_COMPETITIONS)
    .where(
        _COMPETITIONS.c.id == bindparam("competition"),
        _COMPETITIONS.c.commitment == bindparam("scored_for"),
        _COMPETITIONS.c.closed_at.is_(None),
        or_(_COMPETITIONS.c.deadline.is_(None), _COMPETITIONS.c.deadline > STORE_NOW),
    )
    .values(board_version=_COMPETITIONS.c.board_version + 1)
    .returning(_COMPETITIONS.c.board_version)
)
RESET_BOARD_VERSION = (
    update(_COMPETITIONS)
    .where(_COMPETITIONS.c.id == bindparam("competition"))
    .values(
        board_version=_COMPETITIONS.c.board_version + 1,
        board_reset_version=_COMPETITIONS.c.board_version + 1,
    )
    .returning(_COMPETITIONS.c.board_version)
)


def _upsert_standing_bumped() -> Any:
    """BUMP_IF_OPEN and the team's standing written at the new version, as
    one PostgreSQL statement returning the version (no row when the
    competition is closed: nothing is written)."""
    bumped = BUMP_IF_OPEN.cte("bumped")
    names = [n for n in _STANDING_VALUES if n != "version"]
    row = select(
        bindparam("team", type_=_STANDINGS.c.team_id.type),
        bindparam("competition", type_=_STANDINGS.c.competition_id.type),
        bumped.c.board_version,
        *(_STANDING_VALUES[n] for n in names),
    )
    upsert = postgresql_insert(_STANDINGS).from_select(
        ["team_id", "competition_id", "version", *names], row
    )
    return upsert.on_conflict_do_update(
        index_elements=[_STANDINGS.c.team_id],
        set_={n: upsert.excluded[n] for n in ["version", *names]},
    ).returning(_STANDINGS.c.version)


STAMP_STANDING = (
    update(_STANDINGS)
    .where(_STANDINGS.c.team_id == bindparam("team"))
    .values(version=bindparam("version"))
)
_UPSERT_STANDING_BUMPED = _upsert_standing_bumped()


def _day_params(day: tuple[datetime, datetime]) -> dict[str, datetime]:
    """The bounds of ``day``, ``(start, end)``, as the counts of today bind
    them: the engine decides which day it is (``ladderboard.engine.quotas``)."""
    return {"day": day[0], "next_day": day[1]}


def count_params(
    team_id: int, predictions_sha256: str, day: tuple[datetime, datetime]
) -> dict[str, Any]:
    """The parameters of :data:`TEAM_COUNTS` and :data:`COUNTS`."""
    return {"team": team_id, "hash": predictions_sha256, **_day_params(day)}


def team_counts(
    connection: Any, team_id: int, predictions_sha256: str, day: tuple[datetime, datetime]
) -> tuple[int, int, int | None]:
    """The valid submissions the team's quotas count (its own and those of
    the teams merged into it) stamped in ``day`` (``[start, end)``) and in
    all, and the number of its earliest submission with these predictions
    (None if none)."""
    params = count_params(team_id, predictions_sha256, day)
    today, total, same = connection.execute(TEAM_COUNTS, params).one()
    merged_today, merged_total = connection.execute(MERGED_COUNTS, params).one()
    return today + merged_today, total + merged_total, same


# ------------------------------------------------------------ the calls
# What the engine runs on the hot path, each a named call over one of the
# statements above, so that no SQL lives outside the store.


def target(connection: Any, slug: str, team: str) -> Any:
    """A team of a competition as a submission needs it, or ``None``: a row
    of ``competition_id``, ``config``, ``deadline``, ``solution_sha256``,
    ``commitment``, ``settings_version`` and ``team_id``."""
    return connection.execute(TARGET, {"slug": slug, "team": team}).first()


def admission(
    connection: Any,
    competition_id: int,
    team_id: int,
    idempotency_key: str | None,
    day: tuple[datetime, datetime],
    store_now: datetime | None,
) -> Any:
    """``(closed_at, deadline, disabled_at, today, total, invalid, resent,
    store_now, settings_version)``: what refuses a submission before its file is read
    (``today`` counts the valid submissions stamped in ``day``), with the
    store's time (``store_now`` when given), or ``None`` when the
    competition is gone."""
    params = count_params(team_id, "", day) | {
        "competition": competition_id,
        "key": idempotency_key,
        "store_now": store_now,
    }
    return connection.execute(ADMISSION, params).one_or_none()


def member_admission(
    connection: Any,
    slug: str,
    token_hash: str,
    idempotency_key: str | None,
    day: tuple[datetime, datetime],
    rate_key: str | None = None,
    store_now: datetime | None = None,
) -> Any:
    """:data:`~ladderboard.store.queries.MEMBER`'s row followed by the
    admission's counts of its team in ``day`` (``admission_today``,
    ``admission_total``, ``admission_invalid``, ``admission_resent``; see
    :func:`admission`), ``rate_tat``, the ``tat`` of the rate-limit bucket
    ``rate_key`` (``None`` without one), and ``store_now``, the store's time
    (the given ``store_now``, else the database's)."""
    params = _day_params(day) | {
        "slug": slug,
        "token_hash": token_hash,
        "key": idempotency_key,
        "rate_key": rate_key,
        "store_now": store_now,
    }
    return connection.execute(MEMBER_ADMISSION, params).first()


def lock_state(
    connection: Any, competition_id: int, scope: str, team_id: int, store_now: datetime | None
) -> Any:
    """Lock a board's state row (``FOR UPDATE`` on PostgreSQL; SQLite's
    writer lock is the transaction's); ``(id, state, n_submissions,
    closed_at, secret_key, commitment, slug, deadline, settings_version,
    store_now, opens_at, freeze_at, disabled_at, identity)`` (``store_now``
    the store's time, see :mod:`~ladderboard.store.clock`; the calendar's
    times as ISO text or ``None``; ``disabled_at`` of team ``team_id``;
    ``identity`` the store's, :mod:`~ladderboard.store.identity`) or ``None``. The
    close is read here without its lock, to refuse early: the submission's
    :data:`BUMP_IF_OPEN` decides.

    ``disabled_at`` is read by a statement of its own once the lock is held:
    on PostgreSQL (read committed) a statement that waited for a lock returns
    the other rows it joins as they stood when it began, and a team retired
    by a merge or the organiser while the file waited must be read retired."""
    params = {"competition": competition_id, "scope": scope, "team": team_id}
    locked = connection.execute(LOCK_STATE, params | {"store_now": store_now}).first()
    if locked is None:
        return None
    team = connection.execute(TEAM_DISABLED, {"team": team_id}).first()
    disabled_at, identity = (None, None) if team is None else team
    return _Locked(**locked._mapping, disabled_at=disabled_at, identity=identity)


def lock_states(connection: Any, competition_id: int, scopes: Sequence[str]) -> None:
    """Lock the boards' state rows of ``scopes`` as a submission locks its
    own (``FOR UPDATE`` on PostgreSQL, in the rows' order; SQLite's writer
    lock is the transaction's), for a change that must wait for the
    submissions in flight on those boards and hold back the next ones."""
    connection.execute(
        select(_STATES.c.id)
        .where(_STATES.c.competition_id == competition_id, _STATES.c.scope.in_(scopes))
        .order_by(_STATES.c.id)
        .with_for_update()
    ).all()


class StoredStanding(NamedTuple):
    """A team's row of ``team_standings``: its score on the public board, its
    valid submissions, which one gives the score, and the latest one's time."""

    score: float
    entries: int
    submission_id: int
    submission_number: int
    submission_at: datetime
    last_submission_at: datetime


def counts(
    connection: Any,
    competition_id: int,
    team_id: int,
    predictions_sha256: str,
    day: tuple[datetime, datetime],
) -> tuple[
    int, int, int | None, int | None, int, float | None, StoredStanding | None, tuple[int, int]
]:
    """The team's valid submissions in ``day`` (``[start, end)``) and in all, its own
    submission with these predictions, another team's, the team's invalid
    files, its last released score, its stored standing (``None`` before
    its first submission), and the valid submissions in ``day`` and in all
    of the teams merged into it (which its quotas count too)."""
    params = count_params(team_id, predictions_sha256, day) | {"competition": competition_id}
    row = connection.execute(COUNTS, params).one()
    today, total, own, other, invalid, previous, merged_today, merged_total = row[:_STANDING_AT]
    stored = StoredStanding(*row[_STANDING_AT:])  # all None before the team's first submission
    standing = None if stored.submission_id is None else stored
    return today, total, own, other, invalid, previous, standing, (merged_today, merged_total)


def released_before(connection: Any, team_id: int, number: int) -> float | None:
    """The score released for the team's submission before its ``number``-th."""
    return connection.execute(
        select(_SUBMISSIONS.c.public_score).where(
            _SUBMISSIONS.c.team_id == team_id, _SUBMISSIONS.c.number == number - 1
        )
    ).scalar()


def invalid_files(connection: Any, team_id: int) -> int:
    return connection.execute(INVALID, {"team": team_id}).scalar_one()


def submission_with_key(connection: Any, team_id: int, idempotency_key: str) -> Any:
    """The team's submission sent with this idempotency key, or ``None``."""
    return connection.execute(
        select(_SUBMISSIONS).where(
            _SUBMISSIONS.c.team_id == team_id, _SUBMISSIONS.c.idempotency_key == idempotency_key
        )
    ).first()


def store_submission(
    connection: Any,
    *,
    state_id: int,
    state: Any,
    file: bytes,
    earlier_submission_id: int | None,
    **values: Any,
) -> int:
    """Write one scored submission: its board's new state, the submission
    row (``values``), its file, and its duplicate flag when it repeats
    ``earlier_submission_id`` of another team; return the new row's id.
    On PostgreSQL the state, the row and the file are one statement (one
    round trip rather than three)."""
    state_params = {
        "state_id": state_id,
        "new_state": state,
        "n": values["sequence"],
        "now": values["created_at"],
    }
    if connection.dialect.name == "postgresql":
        statement = _store_submission_at_once(tuple(values))
        params = state_params | {f"v_{k}": v for k, v in values.items()} | {"file": file}
        submission_id = connection.execute(statement, params).scalar_one()
    else:
        connection.execute(UPDATE_STATE, state_params)
        submission_id = connection.execute(INSERT_SUBMISSION, values).scalar_one()
        connection.execute(INSERT_FILE, {"submission_id": submission_id, "file": file})
    if earlier_submission_id is not None:
        connection.execute(
            insert(_DUPLICATE_FLAGS).values(
                competition_id=values["competition_id"],
                submission_id=submission_id,
                earlier_submission_id=earlier_submission_id,
                created_at=values["created_at"],
            )
        )
    return submission_id


def store_rejection(connection: Any, **values: Any) -> None:
    """Record a refused file against its team's invalid-file cap."""
    connection.execute(insert(_REJECTIONS).values(**values))


def team_releases(connection: Any, team_id: int) -> list[Any]:
    """``(id, created_at, public_score, number, improved)`` of each of the team's submissions."""
    return list(connection.execute(TEAM_RELEASES, {"team": team_id}).all())


def store_standing(connection: Any, competition_id: int, team_id: int, **values: Any) -> None:
    """Write the team's standing (``values``: the columns of
    :class:`~ladderboard.store.models.TeamStandingRow` but its keys). The
    caller holds the lock of the team's board, so no other transaction
    writes this row meanwhile."""
    params = {"team": team_id, "competition": competition_id, **values}
    if connection.execute(UPDATE_STANDING, params).rowcount == 0:
        connection.execute(INSERT_STANDING, params)


def store_standing_and_bump(
    connection: Any,
    competition_id: int,
    team_id: int,
    store_now: datetime | None,
    commitment: str,
    **values: Any,
) -> int | None:
    """Count a submission's change to the boards, if the competition is still
    open by the store's time and under ``commitment`` (:data:`BUMP_IF_OPEN`),
    and write the team's standing stamped with the new version
    (:func:`store_standing`; ``values`` without ``version``); return the
    version, or ``None`` when the competition is closed or its solution was
    corrected (nothing written: the caller rolls back; :func:`commitment`
    says which). On
    PostgreSQL one statement: the version is bumped in a CTE and the
    standing upserted."""
    params = {
        "team": team_id,
        "competition": competition_id,
        "store_now": store_now,
        "scored_for": commitment,
    }
    if connection.dialect.name != "postgresql":
        version = connection.execute(BUMP_IF_OPEN, params).scalar()
        if version is not None:
            store_standing(connection, competition_id, team_id, version=version, **values)
        return version
    return connection.execute(_UPSERT_STANDING_BUMPED, params | values).scalar()


def commitment(connection: Any, competition_id: int) -> str | None:
    """The competition's commitment as last committed (``None``: no such competition)."""
    return connection.execute(
        select(_COMPETITIONS.c.commitment).where(_COMPETITIONS.c.id == competition_id)
    ).scalar()


_LOCK_COMPETITION = (
    select(CompetitionRow.id).where(CompetitionRow.slug == bindparam("slug")).with_for_update()
)


def lock_competition(connection: Any, slug: str, store_now: datetime | None) -> Any:
    """Lock the competition's row (``FOR UPDATE`` on PostgreSQL; on SQLite
    the transaction's writer lock) and return ``(id, store_now)``, the
    store's time taken once the lock is held, or ``None`` when there is no
    such competition. The close, the publication, a selection and a new
    deadline take it before they read the row, so that each reads the row as
    the last of them left it; a submission's :data:`BUMP_IF_OPEN` waits for
    it, and so is refused after a close."""
    found = connection.execute(_LOCK_COMPETITION, {"slug": slug}).scalar()
    if found is None:
        return None
    # Read after the lock, which the statement above may have waited for.
    return found, store_time(connection, store_now)


def bump_board_version(connection: Any, competition_id: int, *, reset: bool = False) -> int:
    """Count one change to the competition's boards (see
    ``CompetitionRow.board_version``) and return the new version; ``reset``
    when the change is not one of standings, so that no kept board is
    patched across it (``CompetitionRow.board_reset_version``)."""
    statement = RESET_BOARD_VERSION if reset else BUMP_BOARD_VERSION
    return connection.execute(statement, {"competition": competition_id}).scalar_one()


def stamp_standing(connection: Any, team_id: int, version: int) -> None:
    """Mark the team's standing (if it has one) as changed at ``version``:
    the team was disabled or enabled."""
    connection.execute(STAMP_STANDING, {"team": team_id, "version": version})
