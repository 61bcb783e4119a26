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
        Record(1, "late", 5, 0.3, 0.1, improved=True),
        Record(2, "early", 1, 0.4, 0.1, improved=True),
        Record(3, "early", 2, 0.3, 0.1, improved=True),
        Record(4, "early", 9, 0.3, 0.1),  # a ladder repeats the release
    ]
    board = public_board(records, direction=LOWER_IS_BETTER, release_is_current_best=True)
    assert [(s.team, s.submission_id) for s in board] == [("early", 3), ("late", 1)]


def test_a_ladder_standing_is_given_by_the_file_the_mechanism_holds_as_best():
    """A later file the mechanism took as the best gives the team's score even
    when its release equals an earlier one's (a Ladder's rounding), and it,
    not the first release at that score, orders ties."""
    records = [
        Record(1, "a", 1, 0.3, 0.1, improved=True),
        Record(2, "a", 3, 0.3, 0.1, improved=True),
        Record(3, "a", 4, 0.3, 0.1),
        Record(4, "b", 2, 0.3, 0.1, improved=True),  # "b" took its best before "a" did
    ]
    board = public_board(records, direction=LOWER_IS_BETTER, release_is_current_best=True)
    assert [(s.team, s.submission_id) for s in board] == [("b", 4), ("a", 2)]


def test_a_board_that_hides_its_decisions_names_the_latest_submission():
    """Under bootstrap releases (a fresh draw of the best at every file), the
    standing names the latest submission, whatever the mechanism took as best:
    naming the best would tell the team which files were accepted."""
    first = Record(1, "a", 1, 0.31, 0.1, improved=True)
    for accepted in (True, False):
        records = [first, Record(2, "a", 2, 0.29, 0.1, improved=accepted)]
        (standing,) = public_board(
            records,
            direction=LOWER_IS_BETTER,
            release_is_current_best=True,
            release_hides_decision=True,
        )
        assert (standing.score, standing.submission_id) == (0.29, 2)


def test_a_ladder_team_that_chose_nothing_is_given_the_files_its_mechanism_took():
    """A good file, then files of random guesses whose bootstrap releases
    happened to be lower: the automatic choice is the files the mechanism
    accepted, most recent first, not the lowest releases."""
    records = [
        Record(1, "a", 1, 0.30, 0.05, improved=True),  # a real model
        Record(2, "a", 2, 0.26, 0.90),  # random guesses: fresh draws of the best
        Record(3, "a", 3, 0.25, 0.89),
        Record(4, "a", 4, 0.27, 0.04, improved=True),  # a better model
        Record(5, "a", 5, 0.24, 0.91),
    ]
    assert final_selection(records, 2, direction=LOWER_IS_BETTER, by_decision=True) == {1, 4}
    assert final_selection(records, 1, direction=LOWER_IS_BETTER, by_decision=True) == {4}
    # Fewer accepted files than selections: only those, no file picked for nothing.
    assert final_selection(records, 3, direction=LOWER_IS_BETTER, by_decision=True) == {1, 4}
    # None accepted (a Shaky Ladder no file passed): the latest file still ranks the team.
    untaken = [Record(1, "b", 1, 1.0, 0.3), Record(2, "b", 2, 1.0, 0.2)]
    assert final_selection(untaken, 2, direction=LOWER_IS_BETTER, by_decision=True) == {2}
    # Full disclosure ranks files by their own scores, as released.
    assert final_selection(records, 2, direction=LOWER_IS_BETTER) == {5, 3}


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
