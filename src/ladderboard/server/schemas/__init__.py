"""The API's response and request bodies: the privacy boundary.

Each model lists exactly what a caller may see. None of them has a field for
labels, per-sample losses, raw public scores, ``improved``, mechanism state
or keys; private scores appear only after the close (or to the organiser).
The audit key appears only in :class:`CommitmentOut` after the close, when
the engine reveals it for verification.
"""

from __future__ import annotations

from ladderboard.server.schemas.boards import (
    BoardRowOut,
    LateBoardOut,
    LateBoardRowOut,
    LeaderboardOut,
    RescoreIn,
    RescoreOut,
    RescoreRowOut,
)
from ladderboard.server.schemas.competitions import (
    CommitmentOut,
    CompetitionOut,
    CompetitionPatch,
    SettingChangeOut,
)
from ladderboard.server.schemas.exports import AuditIn, AuditOut
from ladderboard.server.schemas.files import FileOut
from ladderboard.server.schemas.shared import ErrorOut, HealthOut, LiveOut
from ladderboard.server.schemas.submissions import (
    LateSubmissionOut,
    SelectionIn,
    SelectionOut,
    SubmissionCreated,
    SubmissionOut,
)
from ladderboard.server.schemas.teams import (
    FlagOut,
    MembershipOut,
    QuotaOut,
    RejectionOut,
    TeamCreated,
    TeamOut,
    TeamPatch,
    TeamStatusOut,
    TeamSummaryOut,
    WhoAmIOut,
)

__all__ = [
    "AuditIn",
    "AuditOut",
    "BoardRowOut",
    "CommitmentOut",
    "CompetitionOut",
    "CompetitionPatch",
    "ErrorOut",
    "FileOut",
    "FlagOut",
    "HealthOut",
    "LateBoardOut",
    "LateBoardRowOut",
    "LateSubmissionOut",
    "LeaderboardOut",
    "LiveOut",
    "MembershipOut",
    "QuotaOut",
    "RejectionOut",
    "RescoreIn",
    "RescoreOut",
    "RescoreRowOut",
    "SelectionIn",
    "SelectionOut",
    "SettingChangeOut",
    "SubmissionCreated",
    "SubmissionOut",
    "TeamCreated",
    "TeamOut",
    "TeamPatch",
    "TeamStatusOut",
    "TeamSummaryOut",
    "WhoAmIOut",
]
