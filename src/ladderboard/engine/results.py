"""What the engine returns: plain, frozen results of competitions, teams,
submissions and boards (never ORM rows), and the audit commitment.

A team's line on a board is one small family, each member for one step:

- :class:`~ladderboard.rules.boards.Standing`: the rules' line, unranked,
  computed from a team's submissions (its ``submission_id`` is whatever
  the records are keyed by);
- :class:`~ladderboard.store.queries.StandingRow` (and
  :class:`~ladderboard.store.queries.ChangedStanding`, with whether the team
  is disabled): the line as the store keeps it, read to build or patch a
  board; it holds both the database id of the submission (below the
  engine) and the team's own number of it;
- :class:`~ladderboard.store.statements.StoredStanding`: the same stored
  line read under the lock by a submission, to compute the next one;
- :class:`BoardRow`: the ranked line the engine hands out, the only one
  above the engine; its ``number`` is the team's own number of the
  submission.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import NamedTuple, overload

from ladderboard.engine.quotas import remaining_today
from ladderboard.rules.boards import BoardRow
from ladderboard.rules.config import CompetitionConfig

__all__ = [
    "BOARD_SCOPE",
    "Admission",
    "BoardRow",
    "CompetitionInfo",
    "DuplicateFlag",
    "FileInfo",
    "MemberRead",
    "QuotaView",
    "RejectionView",
    "SubmissionResult",
    "SubmissionView",
    "TeamInfo",
    "TeamSummary",
    "aware",
    "commitment_of",
    "is_closed",
    "now_utc",
    "team_scope",
]

BOARD_SCOPE = "board"  # the one board of a per-rank competition


def team_scope(team_id: int) -> str:
    """The scope of a team's own board (a per-team competition)."""
    return f"team:{team_id}"


def now_utc() -> datetime:
    return datetime.now(UTC)


@overload
def aware(value: datetime) -> datetime: ...
@overload
def aware(value: None) -> None: ...
def aware(value: datetime | None) -> datetime | None:
    """``value`` in UTC: SQLite returns naive datetimes for timezone-aware
    columns, and they are UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


def commitment_of(solution_sha256: str, split_sha256: str, key_hex: str) -> str:
    """SHA-256 binding the solution file, its public/private split and the
    random-stream key; publish it at creation, check it after the reveal.

    >>> len(commitment_of("a" * 64, "b" * 64, "c" * 32))
    64
    """
    text = f"ladderboard-commitment-v1\n{solution_sha256}\n{split_sha256}\n{key_hex}\n"
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class CompetitionInfo:
    slug: str
    title: str
    description: str
    config: CompetitionConfig
    created_at: datetime
    deadline: datetime | None
    closed_at: datetime | None
    n_public: int
    n_private: int
    commitment: str
    rules: str = ""
    published_at: datetime | None = None
    # The store's time when the row was read (None when the read did not take
    # it): what decides the deadline, whatever this host's clock says.
    read_at: datetime | None = field(default=None, compare=False)

    def is_closed(self, now: datetime | None = None) -> bool:
        """Whether the competition is closed at ``now``; without it, at the
        store's time of the read (``read_at``), else at this host's time."""
        return is_closed(self.closed_at, self.deadline, now or self.read_at or now_utc())

    def is_published(self, now: datetime | None = None) -> bool:
        """Whether the private board and the audit key are public: whether
        the publication is written in the store, by the organiser after the
        close or, for a competition that publishes automatically, by the
        engine that first reads it past its deadline by the store's time
        (with the close, under the lock submissions take). It is the same at
        any ``now`` (taken for symmetry with :meth:`is_closed`): no host
        shows as published what another may still take submissions for."""
        return self.published_at is not None

    def is_opened(self, now: datetime | None = None) -> bool:
        """Whether submissions have opened at ``now`` (as :meth:`is_closed`
        reads the time): no opening time, or one passed."""
        opens_at = self.config.opens_at
        return opens_at is None or (now or self.read_at or now_utc()) >= opens_at

    def frozen_since(self, now: datetime | None = None) -> datetime | None:
        """The freeze time while the public board is frozen at ``now`` (from
        ``freeze_at`` until the close), else ``None``."""
        now = now or self.read_at or now_utc()
        freeze_at = self.config.freeze_at
        if freeze_at is None or now < freeze_at or self.is_closed(now):
            return None
        return freeze_at

    def publication_due(self, store_now: datetime) -> bool:
        """Whether the competition publishes automatically and its deadline
        has passed at the store's time ``store_now``, with no publication
        written yet."""
        return (
            self.config.auto_publish
            and self.published_at is None
            and self.deadline is not None
            and store_now >= self.deadline
        )


def is_closed(closed_at: datetime | None, deadline: datetime | None, now: datetime) -> bool:
    """Whether a competition closed at ``closed_at`` (or not yet) with
    ``deadline`` is closed at ``now``: closed by the organiser, or past the deadline."""
    return closed_at is not None or (deadline is not None and now >= deadline)


@dataclass(frozen=True)
class TeamInfo:
    id: int
    name: str
    created_at: datetime
    disabled: bool = False


class Admission(NamedTuple):
    """What refuses a team's submission before its file is read (the close,
    the team's being disabled, its quota and invalid files; whether its
    idempotency key was used), as read at ``now`` with the team itself:
    :meth:`~ladderboard.engine.Competitions.member_admission`."""

    now: datetime
    team_id: int
    commitment: str  # the competition's (a slug may name another one later)
    closed_at: datetime | None
    deadline: datetime | None
    disabled_at: datetime | None
    today: int
    total: int
    invalid: int
    resent: int
    store_now: datetime | None = None  # the store's time of the read
    settings_version: int | None = None  # the competition's (its quotas change with it)


class MemberRead(NamedTuple):
    """What one read gives a team's request: the competition and the team
    of its token (each ``None`` when there is none), what admits the team's
    submission (``None`` when there is no team), and the ``tat`` of the
    rate-limit bucket asked for with it (``None`` when it has no row or none
    was asked for)."""

    competition: CompetitionInfo | None
    team: TeamInfo | None
    admission: Admission | None
    rate_tat: float | None = None


@dataclass(frozen=True)
class TeamSummary:
    """A team as the organiser's desk lists it: its activity, its invalid
    files and the duplicate flags it is part of."""

    name: str
    created_at: datetime
    disabled: bool
    submissions: int
    last_submission: datetime | None
    used_today: int
    invalid: int
    flags: int  # duplicate flags naming this team, on either side


@dataclass(frozen=True)
class QuotaView:
    """A team's submissions counted against the competition's quotas; the
    daily quota resets at ``resets_at`` (the next UTC midnight)."""

    used_today: int
    daily_quota: int | None
    used_total: int
    total_quota: int | None
    invalid: int
    invalid_quota: int | None
    resets_at: datetime

    @property
    def remaining_today(self) -> int | None:
        """What is left today: the tighter of the daily and the total quota."""
        return remaining_today(
            self.used_today,
            self.used_total,
            daily_quota=self.daily_quota,
            total_quota=self.total_quota,
        )


# A line break of a refusal's message, as the store keeps it: escaped to the
# two characters backslash and n (rules.text.printable), after an even number
# of backslashes (a backslash the message quoted is written doubled, by repr).
_STORED_LINE_BREAK = re.compile(r"(?<!\\)((?:\\\\)*)\\n|\n")


@dataclass(frozen=True)
class RejectionView:
    """A file the server refused as invalid, as its team sees it;
    ``filename`` is the name it was sent under (None when none was given)."""

    created_at: datetime
    code: str
    message: str
    size: int
    filename: str | None = None

    @property
    def first_line(self) -> str:
        """The message's first line: what a list of refused files shows.

        >>> RejectionView(datetime(2026, 1, 1), "bad_csv", "no\\nmore\\\\n", 3).first_line
        'no'
        """
        found = _STORED_LINE_BREAK.search(self.message)
        if found is None:
            return self.message
        return self.message[: found.start()] + (found.group(1) or "")


@dataclass(frozen=True)
class FileInfo:
    """A data file participants download. ``generated`` marks the sample
    submission, made from the solution's ids (never its labels)."""

    name: str
    size: int
    sha256: str
    created_at: datetime
    generated: bool = False


@dataclass(frozen=True)
class SubmissionResult:
    """What a team is told about its submission; ``number`` is the team's
    own number of it (1, 2, ... among the team's submissions)."""

    number: int
    team: str
    public_score: float
    status: str
    remaining_today: int | None
    created_at: datetime
    previous_score: float | None = None  # the team's previous released score
    # A late submission (after the publication): its exact private score, shown at once.
    late: bool = False
    private_score: float | None = None


@dataclass(frozen=True)
class SubmissionView:
    """A team's own submission as the team may see it (no private score
    before the close, no organiser-side fields); ``number`` is the team's
    own number of it."""

    number: int
    created_at: datetime
    message: str
    public_score: float
    selected: bool
    private_score: float | None
    final: bool = False  # counts for the final ranking: selected, or chosen automatically
    # Whether the mechanism took the file as the team's best: known to the
    # team once the private board is published, ``None`` before.
    best: bool | None = None
    # Whether a correction of the solution changed its released score
    # (:mod:`~ladderboard.engine.corrections`).
    corrected: bool = False


@dataclass(frozen=True)
class DuplicateFlag:
    """Submission ``number`` of ``team`` repeats ``earlier_team``'s submission
    ``earlier_number`` (each team's own numbers)."""

    team: str
    number: int
    earlier_team: str
    earlier_number: int
