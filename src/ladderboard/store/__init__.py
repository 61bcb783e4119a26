"""Storage of competitions: SQLAlchemy models, connections, migrations and
every SQL statement (:mod:`~ladderboard.store.queries` for the engine's reads
and row writes, :mod:`~ladderboard.store.statements` for a submission's hot
path, :mod:`~ladderboard.store.arrays` for the large arrays of mechanism
states).

SQLite (a file) by default; PostgreSQL when ``LADDERBOARD_DATABASE_URL`` (or
the URL given) says so.
"""

from ladderboard.store.blobs import pack, unpack
from ladderboard.store.database import (
    DEFAULT_URL,
    StoreUnavailable,
    database_url,
    make_engine,
    migrate,
    open_engine,
    read_only,
    read_snapshot,
    require_schema,
    scratch_postgres_database,
)
from ladderboard.store.models import (
    Base,
    BoardFreezeRow,
    CompetitionFileRow,
    CompetitionRow,
    CompetitionSolutionRow,
    CorrectionReleaseRow,
    DuplicateFlagRow,
    LateSubmissionRow,
    MechanismArrayRow,
    MechanismStateRow,
    OrganiserSessionRow,
    RateLimitRow,
    RejectionRow,
    SettingChangeRow,
    SolutionCorrectionRow,
    StagedUploadRow,
    SubmissionFileRow,
    SubmissionRow,
    TeamRow,
    TeamSessionRow,
    TeamStandingRow,
)
from ladderboard.store.shared_limits import OrganiserSessions, RateLimits, TeamSessions
from ladderboard.store.staged_uploads import Draft, StagedUploads

__all__ = [
    "DEFAULT_URL",
    "Base",
    "BoardFreezeRow",
    "CompetitionFileRow",
    "CompetitionRow",
    "CompetitionSolutionRow",
    "CorrectionReleaseRow",
    "Draft",
    "DuplicateFlagRow",
    "LateSubmissionRow",
    "MechanismArrayRow",
    "MechanismStateRow",
    "OrganiserSessionRow",
    "OrganiserSessions",
    "RateLimitRow",
    "RateLimits",
    "RejectionRow",
    "SettingChangeRow",
    "SolutionCorrectionRow",
    "StagedUploadRow",
    "StagedUploads",
    "StoreUnavailable",
    "SubmissionFileRow",
    "SubmissionRow",
    "TeamRow",
    "TeamSessionRow",
    "TeamSessions",
    "TeamStandingRow",
    "database_url",
    "make_engine",
    "migrate",
    "open_engine",
    "pack",
    "read_only",
    "read_snapshot",
    "require_schema",
    "scratch_postgres_database",
    "unpack",
]
