"""The engine's results under the module name the web edge's modules still
import; :mod:`ladderboard.engine.results` holds them. Importers use that
module; this one goes once none imports it."""

from ladderboard.engine.results import (
    BOARD_SCOPE,
    Admission,
    BoardRow,
    CompetitionInfo,
    DuplicateFlag,
    FileInfo,
    MemberRead,
    QuotaView,
    RejectionView,
    SubmissionResult,
    SubmissionView,
    TeamInfo,
    TeamSummary,
    aware,
    commitment_of,
    is_closed,
    now_utc,
    team_scope,
)

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
