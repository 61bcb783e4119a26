"""The tables of a ladderboard store (SQLAlchemy 2.x declarative models).

Secrets live in two places only: ``competition_solutions.file`` (the labels)
and ``competitions.secret_key`` (the key of every random stream). Nothing reads
them except the engine's scoring and the explicit reveal after the close;
public schemas of the web edge never include these rows.

Schema changes go through Alembic (``store/migrations``); these models and the
newest migration describe the same schema, which a test checks.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "AccountIdentityRow",
    "AccountRow",
    "AccountSessionRow",
    "ApiTokenRow",
    "Base",
    "BoardFreezeRow",
    "CompetitionFileRow",
    "CompetitionInvitationRow",
    "CompetitionOrganiserRow",
    "CompetitionRegistrationRow",
    "CompetitionRow",
    "CompetitionSolutionRow",
    "CorrectionReleaseRow",
    "DuplicateFlagRow",
    "EmailLinkRow",
    "LateSubmissionRow",
    "LookAlikeDismissalRow",
    "MechanismArrayRow",
    "MechanismStateRow",
    "OidcRequestRow",
    "OrganiserActionRow",
    "OrganiserSessionRow",
    "RateLimitRow",
    "RejectionRow",
    "SettingChangeRow",
    "SolutionCorrectionRow",
    "StagedUploadRow",
    "SubmissionFileRow",
    "SubmissionRow",
    "TeamEventRow",
    "TeamInvitationRow",
    "TeamMemberRow",
    "TeamMergeRow",
    "TeamRow",
    "TeamSessionRow",
    "TeamStandingRow",
    "table_of",
]

UTC_DATETIME = DateTime(timezone=True)
ID = BigInteger().with_variant(Integer, "sqlite")  # SQLite autoincrements INTEGER keys only


class Base(DeclarativeBase):
    pass


def table_of(model: type[Base]) -> Table:
    """``model.__table__``, typed as the :class:`~sqlalchemy.Table` it is:
    every model here declares ``__tablename__`` and so gets a Table, which
    the declarative typing only knows as a ``FromClause``."""
    return cast(Table, model.__table__)


class CompetitionRow(Base):
    __tablename__ = "competitions"

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    slug: Mapped[str] = mapped_column(String(64), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")  # the overview, Markdown
    rules: Mapped[str] = mapped_column(Text, default="", server_default="")  # Markdown
    config: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    deadline: Mapped[datetime | None] = mapped_column(UTC_DATETIME, nullable=True)
    closed_at: Mapped[datetime | None] = mapped_column(UTC_DATETIME, nullable=True)
    # Secrets: the key of every random stream here, the solution file in
    # ``competition_solutions``.
    solution_sha256: Mapped[str] = mapped_column(String(64))
    split_sha256: Mapped[str] = mapped_column(String(64))
    secret_key: Mapped[str] = mapped_column(String(64))
    commitment: Mapped[str] = mapped_column(String(64))
    # When the private board was published and the key revealed: a separate
    # act of the organiser's after the close (or the deadline, when the
    # competition publishes automatically).
    key_revealed_at: Mapped[datetime | None] = mapped_column(UTC_DATETIME, nullable=True)
    # The audit bundle anyone may download, once the organiser publishes it
    # after the key: "full" (every submitted file) or "hashes" (their SHA-256
    # only); None until then.
    audit_files: Mapped[str | None] = mapped_column(String(10), nullable=True)
    audit_published_at: Mapped[datetime | None] = mapped_column(UTC_DATETIME, nullable=True)
    n_public: Mapped[int] = mapped_column(Integer)
    n_private: Mapped[int] = mapped_column(Integer)
    # Counts the changes to the competition's boards (a submission, a team
    # disabled or enabled, a selection, the close), each in the transaction
    # that makes it: a board built at one count is the board while it lasts,
    # in any process.
    board_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # The last board_version whose change a kept public board cannot take
    # as changed standings (the close, the publication, a selection): a
    # board kept from before it is built afresh, not patched.
    board_reset_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Counts the changes to ``config`` and ``deadline`` (the organiser's
    # edits, each in its own transaction): a process that kept what a
    # submission reads of them (its quotas, its size limit) reads them again
    # when the count under the lock is not the one it kept.
    settings_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # The first phase of the series this competition is a later phase of
    # (``config["phase_of"]`` names it); ``None`` for a first phase. Teams
    # form there and have a row of their own in each later phase.
    first_phase_id: Mapped[int | None] = mapped_column(ID, nullable=True, index=True)


class CompetitionSolutionRow(Base):
    """A competition's solution file, packed (:func:`ladderboard.store.blobs.pack`).

    A table of its own: every submission updates its competition's row (the
    board version), and SQLite writes a row whole, so a file kept in it
    would be read and compared again on each submission (at ten million
    rows, a blob of about 27 MB).
    """

    __tablename__ = "competition_solutions"

    competition_id: Mapped[int] = mapped_column(
        ID, ForeignKey("competitions.id", ondelete="CASCADE"), primary_key=True
    )
    file: Mapped[bytes] = mapped_column(LargeBinary)


class TeamRow(Base):
    __tablename__ = "teams"
    __table_args__ = (
        UniqueConstraint("competition_id", "name"),
        UniqueConstraint("competition_id", "name_key"),
        Index("ix_teams_competition_home", "competition_id", "home_team_id", unique=True),
    )

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(100))
    # SHA-256 of the name under compatibility normalisation, case folding and
    # look-alike letters folded (``ladderboard.rules.text.name_key``): names equal in
    # that form are one team. A hash, so that its index stays small
    # whatever the normalisation expands a name to.
    name_key: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str | None] = mapped_column(String(128), nullable=True, unique=True)
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    # A disabled team cannot sign in, submit or select, and is left off the boards.
    disabled_at: Mapped[datetime | None] = mapped_column(UTC_DATETIME, nullable=True)
    # The live team this one merged into (it is then disabled): that team's
    # quotas count this one's submissions too (``ladderboard.engine.membership``).
    merged_into_id: Mapped[int | None] = mapped_column(ID, nullable=True, index=True)
    # The team of the series' first phase this row stands for: its own id in
    # a first phase, the first phase's team in a later phase (which has no
    # token and no members of its own: both are the first phase's). Set by
    # ``ladderboard.store.queries.add_team``.
    home_team_id: Mapped[int | None] = mapped_column(ID, nullable=True)
    # When a later phase's organiser disabled this row in its phase alone:
    # the row is disabled while this or its first-phase team is
    # (``ladderboard.engine.phases.follow``).
    own_disabled_at: Mapped[datetime | None] = mapped_column(UTC_DATETIME, nullable=True)


class MechanismStateRow(Base):
    """One row per lock scope: a team (per-team board) or the competition
    (per-rank board). Submissions lock it for the whole transaction."""

    __tablename__ = "mechanism_states"
    __table_args__ = (UniqueConstraint("competition_id", "scope"),)

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id", ondelete="CASCADE"))
    scope: Mapped[str] = mapped_column(String(40))  # "team:<id>" or "board"
    state: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    n_submissions: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(UTC_DATETIME)


class MechanismArrayRow(Base):
    """A large array of a mechanism state (a ladder's best losses), stored once
    by the hash its states refer to it by (``ladderboard.store.arrays``)."""

    __tablename__ = "mechanism_arrays"

    competition_id: Mapped[int] = mapped_column(
        ID, ForeignKey("competitions.id", ondelete="CASCADE"), primary_key=True
    )
    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    data: Mapped[str] = mapped_column(Text)  # the encoded array, as JSON


class SubmissionRow(Base):
    __tablename__ = "submissions"
    __table_args__ = (
        UniqueConstraint("competition_id", "scope", "sequence"),
        UniqueConstraint("team_id", "idempotency_key"),
        UniqueConstraint("team_id", "number"),
        Index("ix_submissions_team_created", "team_id", "created_at"),
        Index("ix_submissions_predictions", "competition_id", "predictions_sha256"),
    )

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id", ondelete="CASCADE"))
    team_id: Mapped[int] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    scope: Mapped[str] = mapped_column(String(40))
    sequence: Mapped[int] = mapped_column(Integer)  # position in its scope's mechanism stream
    # The team's own count, 1, 2, ...: the id a team sees, which says nothing
    # of other teams' activity (``id`` counts across the whole server).
    number: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    message: Mapped[str] = mapped_column(Text, default="")
    idempotency_key: Mapped[str | None] = mapped_column(String(200), nullable=True)
    file_sha256: Mapped[str] = mapped_column(String(64))  # of the bytes received
    predictions_sha256: Mapped[str] = mapped_column(String(64))
    public_score: Mapped[float] = mapped_column(Float)  # released: what the team saw
    improved: Mapped[bool] = mapped_column(Boolean)  # organiser-side
    public_raw: Mapped[float] = mapped_column(Float)  # organiser-side, unrounded
    private_score: Mapped[float] = mapped_column(Float)  # hidden until the close
    selected: Mapped[bool] = mapped_column(Boolean, default=False)
    # The versions the mechanism's draws for it were made with
    # (:data:`ladderboard.random.DRAW_VERSIONS`); NULL before revision 0024.
    draw_versions: Mapped[str | None] = mapped_column(String(100), nullable=True)


class StoreIdentityRow(Base):
    """One row: the store's identity (:mod:`ladderboard.store.identity`),
    made anew by ``ladderboard init``, so that a process notices a store put
    back from a backup."""

    __tablename__ = "store_identity"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    value: Mapped[str] = mapped_column(String(64))


class TeamStandingRow(Base):
    """A team's place on the public board of a per-team competition, kept by
    each of the team's submissions in its own transaction (under the lock of
    the team's board), so that the board reads one row a team instead of
    every submission. ``submission_id`` and ``submission_at`` say which
    submission gives ``score`` and when it was made (what orders teams with
    equal scores); ``submission_number`` is the team's own number of it;
    ``entries`` and ``last_submission_at`` count the team's submissions and
    date its latest (per-rank boards show these too); ``version`` says when
    it last changed."""

    __tablename__ = "team_standings"
    __table_args__ = (
        Index("ix_team_standings_competition", "competition_id"),
        Index("ix_team_standings_version", "competition_id", "version"),
    )

    team_id: Mapped[int] = mapped_column(
        ID, ForeignKey("teams.id", ondelete="CASCADE"), primary_key=True
    )
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id", ondelete="CASCADE"))
    score: Mapped[float] = mapped_column(Float)
    entries: Mapped[int] = mapped_column(Integer)
    last_submission_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    submission_id: Mapped[int] = mapped_column(ID)
    submission_number: Mapped[int] = mapped_column(Integer)
    submission_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    # The competition's board_version of the standing's last change (its
    # team's submission, or the team disabled or enabled): a process that
    # kept the board at version v patches it with the standings above v.
    version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class SubmissionFileRow(Base):
    """The bytes a submission was received as, packed (:func:`ladderboard.store.blobs.pack`).

    A table of its own: in one row with the scores, SQLite would pass over the
    file's overflow pages to reach any column stored after it, so every count,
    board and duplicate check would read every file.
    """

    __tablename__ = "submission_files"

    submission_id: Mapped[int] = mapped_column(
        ID, ForeignKey("submissions.id", ondelete="CASCADE"), primary_key=True
    )
    file: Mapped[bytes] = mapped_column(LargeBinary)


class RejectionRow(Base):
    """An invalid submission: counts against the invalid cap, nothing else."""

    __tablename__ = "rejections"
    __table_args__ = (Index("ix_rejections_team", "team_id"),)

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id", ondelete="CASCADE"))
    team_id: Mapped[int] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    code: Mapped[str] = mapped_column(String(40))
    message: Mapped[str] = mapped_column(Text)
    file_sha256: Mapped[str] = mapped_column(String(64))
    size: Mapped[int] = mapped_column(BigInteger)
    # The name the file was sent under, as its team knows it; None when the
    # request named none (a file sent as the whole body, without a name).
    filename: Mapped[str | None] = mapped_column(String(255), nullable=True)


class DuplicateFlagRow(Base):
    """Identical predictions from two different teams, for the organiser."""

    __tablename__ = "duplicate_flags"

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id", ondelete="CASCADE"))
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    earlier_submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE")
    )
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)


class RateLimitRow(Base):
    """A rate limit's state, shared by every worker and host over the store:
    the theoretical arrival time of the generic cell rate algorithm
    (``ladderboard.store.shared_limits.RateLimits``), in seconds since the epoch."""

    __tablename__ = "rate_limits"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    tat: Mapped[float] = mapped_column(Float)
    allowed: Mapped[bool] = mapped_column(Boolean)  # the last request's answer


class OrganiserSessionRow(Base):
    """A signed-in organiser's browser: the SHA-256 of its random cookie,
    valid until ``expires_at`` or until it signs out."""

    __tablename__ = "organiser_sessions"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    expires_at: Mapped[datetime] = mapped_column(UTC_DATETIME, index=True)


class CompetitionFileRow(Base):
    """A data file the organiser attached for the participants (training
    data, descriptions), packed (:func:`ladderboard.store.blobs.pack`); never
    the solution."""

    __tablename__ = "competition_files"
    __table_args__ = (UniqueConstraint("competition_id", "name"),)

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(100))
    size: Mapped[int] = mapped_column(BigInteger)  # of the file as uploaded
    sha256: Mapped[str] = mapped_column(String(64))  # of the file as uploaded
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    data: Mapped[bytes] = mapped_column(LargeBinary, deferred=True)


class TeamSessionRow(Base):
    """A team's browser, signed in once with the team's token: the SHA-256 of
    its random cookie, valid until ``expires_at`` or until it signs out."""

    __tablename__ = "team_sessions"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    team_id: Mapped[int] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    expires_at: Mapped[datetime] = mapped_column(UTC_DATETIME, index=True)


class SettingChangeRow(Base):
    """One change of a competition's setting while it runs, as the Rules page
    lists it: when (the engine's clock), which setting, its value before and
    after (JSON; both ``None`` for the overview and the rules, whose change
    is recorded but not their text twice), and who made it."""

    __tablename__ = "setting_changes"
    __table_args__ = (Index("ix_setting_changes_competition", "competition_id", "id"),)

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id", ondelete="CASCADE"))
    changed_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    setting: Mapped[str] = mapped_column(String(40))
    old: Mapped[Any] = mapped_column(JSON, nullable=True)
    new: Mapped[Any] = mapped_column(JSON, nullable=True)
    # Who changed it: "organiser" for the organiser's token; a person's
    # name once organisers have accounts of their own.
    actor: Mapped[str | None] = mapped_column(String(100), nullable=True)


class StagedUploadRow(Base):
    """A file of a creation form that was refused, kept for the organiser's
    next try (a browser cannot choose a file again by itself): packed
    (:func:`ladderboard.store.blobs.pack`), under the SHA-256 of the form's
    random draft id and of the session that sent it, until ``expires_at``."""

    __tablename__ = "staged_uploads"
    __table_args__ = (Index("ix_staged_uploads_draft", "draft_sha256", "session_sha256"),)

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    draft_sha256: Mapped[str] = mapped_column(String(64))
    session_sha256: Mapped[str] = mapped_column(String(64))
    role: Mapped[str] = mapped_column(String(10))  # "solution" or "data"
    name: Mapped[str] = mapped_column(String(255))
    size: Mapped[int] = mapped_column(BigInteger)  # of the file as uploaded
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    expires_at: Mapped[datetime] = mapped_column(UTC_DATETIME, index=True)


class LateSubmissionRow(Base):
    """A file a team sent after the private board was published, when the
    competition takes late submissions: scored exactly on the public and
    private rows, no mechanism involved. A table of its own, so that no
    board, final selection or audit that reads ``submissions`` takes one."""

    __tablename__ = "late_submissions"
    __table_args__ = (
        UniqueConstraint("team_id", "number"),
        UniqueConstraint("team_id", "idempotency_key"),
        Index("ix_late_submissions_competition", "competition_id"),
    )

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id", ondelete="CASCADE"))
    team_id: Mapped[int] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)  # the team's own count of its late files
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    message: Mapped[str] = mapped_column(Text, default="")
    idempotency_key: Mapped[str | None] = mapped_column(String(200), nullable=True)
    file_sha256: Mapped[str] = mapped_column(String(64))  # of the bytes received
    public_score: Mapped[float] = mapped_column(Float)  # exact: the competition is over
    private_score: Mapped[float] = mapped_column(Float)
    file: Mapped[bytes] = mapped_column(LargeBinary, deferred=True)  # packed


class BoardFreezeRow(Base):
    """The public board as it stood at the competition's ``freeze_at``,
    written by the first submission made after it (before that submission
    changes the board): what participants see until the close. ``rows``
    are the board's rows as JSON, best first."""

    __tablename__ = "board_freezes"

    competition_id: Mapped[int] = mapped_column(
        ID, ForeignKey("competitions.id", ondelete="CASCADE"), primary_key=True
    )
    frozen_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    rows: Mapped[list] = mapped_column(JSON)


class SolutionCorrectionRow(Base):
    """One correction of a competition's solution (a label with a mistake):
    the solution file it replaced (packed, :func:`ladderboard.store.blobs.pack`),
    that file's and its split's SHA-256, the key and the commitment it ran
    under, the commitment that replaced it, why, when and by whom. ``number``
    counts the competition's corrections, 1, 2, ..."""

    __tablename__ = "solution_corrections"
    __table_args__ = (UniqueConstraint("competition_id", "number"),)

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    competition_id: Mapped[int] = mapped_column(
        ID, ForeignKey("competitions.id", ondelete="CASCADE")
    )
    number: Mapped[int] = mapped_column(Integer)
    corrected_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    reason: Mapped[str] = mapped_column(Text)
    actor: Mapped[str | None] = mapped_column(String(100), nullable=True)
    old_file: Mapped[bytes] = mapped_column(LargeBinary, deferred=True)
    old_solution_sha256: Mapped[str] = mapped_column(String(64))
    old_split_sha256: Mapped[str] = mapped_column(String(64))
    old_key: Mapped[str] = mapped_column(String(64))
    old_commitment: Mapped[str] = mapped_column(String(64))
    new_commitment: Mapped[str] = mapped_column(String(64))


class CorrectionReleaseRow(Base):
    """A submission's release, decision, raw public and private score as they
    stood before a correction of the solution (what the audit runs the old
    solution again against)."""

    __tablename__ = "correction_releases"
    __table_args__ = (Index("ix_correction_releases_submission", "submission_id"),)

    correction_id: Mapped[int] = mapped_column(
        ID, ForeignKey("solution_corrections.id", ondelete="CASCADE"), primary_key=True
    )
    submission_id: Mapped[int] = mapped_column(
        ID, ForeignKey("submissions.id", ondelete="CASCADE"), primary_key=True
    )
    public_score: Mapped[float] = mapped_column(Float)
    improved: Mapped[bool] = mapped_column(Boolean)
    public_raw: Mapped[float] = mapped_column(Float)
    private_score: Mapped[float] = mapped_column(Float)


class AccountRow(Base):
    """A person's account: a participant, an organiser (who may create
    competitions) or a server administrator. One account per person is what
    a per-team board's guarantee assumes (Blum & Hardt 2015, Sec. 2.1); the
    organiser's desk flags accounts that look alike rather than refusing
    them, so ``email`` is not unique."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    handle: Mapped[str] = mapped_column(String(100))
    # SHA-256 of the handle's look-alike fold (``ladderboard.rules.text.name_key``),
    # as for team names: handles equal in that form are one.
    handle_key: Mapped[str] = mapped_column(String(64), unique=True)
    email: Mapped[str | None] = mapped_column(String(320), nullable=True, index=True)
    email_verified_at: Mapped[datetime | None] = mapped_column(UTC_DATETIME, nullable=True)
    password_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    role: Mapped[str] = mapped_column(String(20), default="participant")
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    created_from: Mapped[str] = mapped_column(String(64), default="")  # the client address
    disabled_at: Mapped[datetime | None] = mapped_column(UTC_DATETIME, nullable=True)


class AccountIdentityRow(Base):
    """An OpenID Connect identity (its issuer and subject) an account signs in with."""

    __tablename__ = "account_identities"
    __table_args__ = (UniqueConstraint("issuer", "subject"),)

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    issuer: Mapped[str] = mapped_column(String(300))
    subject: Mapped[str] = mapped_column(String(300))
    email: Mapped[str | None] = mapped_column(String(320), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)


class AccountSessionRow(Base):
    """A browser signed in to an account: the SHA-256 of its random cookie,
    valid until ``expires_at`` or until it signs out."""

    __tablename__ = "account_sessions"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    expires_at: Mapped[datetime] = mapped_column(UTC_DATETIME, index=True)


class ApiTokenRow(Base):
    """A person's API token for the CLI and scripts: its SHA-256 only, valid
    in every competition its account belongs to until revoked."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    label: Mapped[str] = mapped_column(String(100))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    last_used_at: Mapped[datetime | None] = mapped_column(UTC_DATETIME, nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(UTC_DATETIME, nullable=True)


class TeamMemberRow(Base):
    """An account's membership of a team: one team per person per competition."""

    __tablename__ = "team_members"
    __table_args__ = (
        UniqueConstraint("competition_id", "account_id"),
        UniqueConstraint("team_id", "account_id"),
    )

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id", ondelete="CASCADE"))
    team_id: Mapped[int] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    role: Mapped[str] = mapped_column(String(20), default="member")  # captain | member
    joined_at: Mapped[datetime] = mapped_column(UTC_DATETIME)


class CompetitionRegistrationRow(Base):
    """An account registered in a competition, with the rules it accepted
    (the SHA-256 of their text) and when, and how it came in."""

    __tablename__ = "competition_registrations"

    competition_id: Mapped[int] = mapped_column(
        ForeignKey("competitions.id", ondelete="CASCADE"), primary_key=True
    )
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    accepted_rules_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    rules_sha256: Mapped[str] = mapped_column(String(64))
    via: Mapped[str] = mapped_column(String(20))  # open | invitation | list
    invitation: Mapped[str | None] = mapped_column(String(64), nullable=True)


class CompetitionOrganiserRow(Base):
    """An account organising a competition: an owner, or a co-organiser
    (who runs its teams and files but does not close, publish or delete it)."""

    __tablename__ = "competition_organisers"

    competition_id: Mapped[int] = mapped_column(
        ForeignKey("competitions.id", ondelete="CASCADE"), primary_key=True
    )
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    role: Mapped[str] = mapped_column(String(20))  # owner | co-organiser
    added_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    added_by: Mapped[str] = mapped_column(String(120))


class LookAlikeDismissalRow(Base):
    """A flag of look-alike accounts the organiser dismissed, by its key
    (:attr:`ladderboard.engine.look_alikes.LookAlike.key`)."""

    __tablename__ = "look_alike_dismissals"

    competition_id: Mapped[int] = mapped_column(
        ForeignKey("competitions.id", ondelete="CASCADE"), primary_key=True
    )
    flag_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    dismissed_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    dismissed_by: Mapped[str] = mapped_column(String(120))


class OrganiserActionRow(Base):
    """One organiser action: who (the administrator token or an account),
    what (a name and a small detail, never a secret), when and from where."""

    __tablename__ = "organiser_actions"
    __table_args__ = (Index("ix_organiser_actions_competition", "competition_id", "id"),)

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    competition_id: Mapped[int | None] = mapped_column(
        ForeignKey("competitions.id", ondelete="CASCADE"), nullable=True
    )
    actor: Mapped[str] = mapped_column(String(120))
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True
    )
    action: Mapped[str] = mapped_column(String(60))
    detail: Mapped[dict] = mapped_column(JSON)
    at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    address: Mapped[str] = mapped_column(String(64), default="")


class TeamInvitationRow(Base):
    """A code a team's captain hands out: its SHA-256 only, admitting one
    account to the team until it expires or is revoked."""

    __tablename__ = "team_invitations"

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id", ondelete="CASCADE"))
    team_id: Mapped[int] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"), index=True)
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_by: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    expires_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    revoked_at: Mapped[datetime | None] = mapped_column(UTC_DATETIME, nullable=True)
    used_at: Mapped[datetime | None] = mapped_column(UTC_DATETIME, nullable=True)
    used_by: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True
    )


class TeamMergeRow(Base):
    """A request of one team to merge into another, and its answer:
    ``pending``, ``accepted``, ``refused`` or ``withdrawn``."""

    __tablename__ = "team_merges"

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id", ondelete="CASCADE"))
    from_team_id: Mapped[int] = mapped_column(
        ForeignKey("teams.id", ondelete="CASCADE"), index=True
    )
    into_team_id: Mapped[int] = mapped_column(
        ForeignKey("teams.id", ondelete="CASCADE"), index=True
    )
    requested_by: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True
    )
    requested_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    status: Mapped[str] = mapped_column(String(20))
    answered_at: Mapped[datetime | None] = mapped_column(UTC_DATETIME, nullable=True)
    answered_by: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True
    )


class TeamEventRow(Base):
    """One event of a team's history (created, joined, left, invited,
    captain changed, merges, token reissued), with who and when; never a
    secret in ``detail``."""

    __tablename__ = "team_events"
    __table_args__ = (Index("ix_team_events_team", "team_id", "id"),)

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id", ondelete="CASCADE"))
    team_id: Mapped[int] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    actor: Mapped[str] = mapped_column(String(120))
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True
    )
    event: Mapped[str] = mapped_column(String(40))
    detail: Mapped[dict] = mapped_column(JSON)


class CompetitionInvitationRow(Base):
    """A code that admits accounts to a competition whose registration is by
    invitation: stored as its SHA-256 (the code is shown once, to the
    organiser who made it), with a label, who made it and when, its expiry
    (``None``: none), how many accounts it may admit (``max_uses``,
    ``None``: no limit), how many it has admitted, and its revocation."""

    __tablename__ = "competition_invitations"
    __table_args__ = (Index("ix_competition_invitations_competition", "competition_id"),)

    id: Mapped[int] = mapped_column(ID, primary_key=True)
    competition_id: Mapped[int] = mapped_column(
        ID, ForeignKey("competitions.id", ondelete="CASCADE")
    )
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    created_by: Mapped[str] = mapped_column(String(120))
    expires_at: Mapped[datetime | None] = mapped_column(UTC_DATETIME, nullable=True)
    max_uses: Mapped[int | None] = mapped_column(Integer, nullable=True)
    uses: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    revoked_at: Mapped[datetime | None] = mapped_column(UTC_DATETIME, nullable=True)


class EmailLinkRow(Base):
    """A sign-in link, mailed to ``email`` (or handed to an administrator for
    the account ``account_id``): the SHA-256 of its random token, valid once,
    until ``expires_at``."""

    __tablename__ = "email_links"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    email: Mapped[str] = mapped_column(String(320))
    account_id: Mapped[int | None] = mapped_column(
        ID, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    expires_at: Mapped[datetime] = mapped_column(UTC_DATETIME, index=True)


class OidcRequestRow(Base):
    """An OpenID Connect sign-in under way: the SHA-256 of its ``state``, the
    provider, the ``nonce`` the ID token must carry, the PKCE code verifier
    and the page to come back to; used once, until ``expires_at``."""

    __tablename__ = "oidc_requests"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    provider: Mapped[str] = mapped_column(String(40))
    nonce: Mapped[str] = mapped_column(String(100))
    code_verifier: Mapped[str] = mapped_column(String(128))
    next_path: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[datetime] = mapped_column(UTC_DATETIME)
    expires_at: Mapped[datetime] = mapped_column(UTC_DATETIME, index=True)
