"""The rules of a competition, as pure functions and values that the engine,
the audit and replays share: its configuration and scoring, the text its
fields may hold, the team boards and final selection, and the per-rank board.
"""

from ladderboard.rules.boards import (
    BoardRow,
    Record,
    Standing,
    final_selection,
    private_board,
    public_board,
    ranked,
)
from ladderboard.rules.config import BOARD_MODES, CompetitionConfig, Scoring
from ladderboard.rules.rank_board import RankBoard, RankOutcome
from ladderboard.rules.scoring import Scored, check_targets, score_predictions

__all__ = [
    "BOARD_MODES",
    "BoardRow",
    "CompetitionConfig",
    "RankBoard",
    "RankOutcome",
    "Record",
    "Scored",
    "Scoring",
    "Standing",
    "check_targets",
    "final_selection",
    "private_board",
    "public_board",
    "ranked",
    "score_predictions",
]
