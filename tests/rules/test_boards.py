"""The team boards (``rules.boards``): the live engine, the audit and replays
all rank teams by these functions."""

from __future__ import annotations

import math

import pytest

from ladderboard.direction import GREATER_IS_BETTER, LOWER_IS_BETTER
from ladderboard.rules.boards import Record, final_selection, private_board, public_board

NAN = float("nan")


@pytest.mark.parametrize("current_best", [True, False])
@pytest.mark.parametrize("direction", [LOWER_IS_BETTER, GREATER_IS_BETTER])
def test_a_team_whose_score_is_undefined_ranks_last(current_best, direction):
    """A metric undefined on a team's submissions (NaN) ranks the team last,
    under either direction, whether its latest release or all are NaN."""
    records = [
        Record(1, "undefined", 1, NAN, 0.5),
        Record(2, "scored", 2, 0.4, 0.5),
        Record(3, "undefined", 3, NAN, 0.5),
    ]
    board = public_board(records, direction=direction, release_is_current_best=current_best)
    assert [s.team for s in board] == ["scored", "undefined"]
    assert math.isnan(board[1].score)
    assert board[1].submission_id == 1  # the first release at that score


def test_ties_go_to_the_team_that_reached_the_score_first():
    records = [
        Record(1, "late", 5, 0.3, 0.1),
        Record(2, "early", 1, 0.4, 0.1),
        Record(3, "early", 2, 0.3, 0.1),
        Record(4, "early", 9, 0.3, 0.1),  # a ladder repeats the release
    ]
    board = public_board(records, direction=LOWER_IS_BETTER, release_is_current_best=True)
    assert [(s.team, s.submission_id) for s in board] == [("early", 3), ("late", 1)]


def test_a_team_that_chose_nothing_is_given_its_best_releases():
    records = [
        Record(1, "a", 1, 0.5, 0.9),
        Record(2, "a", 2, 0.2, 0.1),
        Record(3, "a", 3, 0.3, 0.2),
        Record(4, "b", 4, 0.9, 0.5, selected=True),
        Record(5, "b", 5, 0.1, 0.1),
    ]
    picked = final_selection(records, 2, direction=LOWER_IS_BETTER)
    assert picked == {2, 3, 4}  # b's own choice stands
    selected = [
        Record(r.id, r.team, r.created_at, r.public_score, r.private_score, r.id in picked)
        for r in records
    ]
    board = private_board(selected, direction=LOWER_IS_BETTER)
    assert [(s.team, s.score, s.submission_id) for s in board] == [("a", 0.1, 2), ("b", 0.5, 4)]
