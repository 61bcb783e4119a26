"""Properties of the per-team boards over random histories (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ladderboard.direction import Direction
from ladderboard.replay.replay import boards

histories = st.lists(
    st.tuples(
        st.sampled_from("abcde"),
        st.sampled_from([0.1, 0.2, 0.3, 0.4]),
        st.booleans(),
        st.floats(0, 1),
    ),
    min_size=1,
    max_size=25,
)


def teams_of(history):
    teams: dict[str, list[int]] = {}
    for i, (team, *_) in enumerate(history):
        teams.setdefault(team, []).append(i)
    return teams


@settings(max_examples=60, deadline=None)
@given(histories, st.booleans(), st.booleans())
def test_boards_hold_every_team_once_in_order(history, current_best, greater):
    teams = teams_of(history)
    released = np.array([h[1] for h in history])
    private = np.array([h[3] for h in history])
    public, private_board = boards(
        teams,
        released,
        private,
        np.array([h[2] for h in history]),
        direction=Direction(greater),
        release_is_current_best=current_best,
    )
    sign = -1 if greater else 1
    for board in (public, private_board):
        assert sorted(e.team for e in board) == sorted(teams)
        assert [e.rank for e in board] == list(range(1, len(teams) + 1))
        scores = [sign * e.score for e in board]
        assert scores == sorted(scores)
    chosen = {e.team: e.submission for e in public}
    for entry in public:
        rows = teams[entry.team]
        assert entry.entries == len(rows) and chosen[entry.team] in rows
        if current_best:  # the latest release; the file the mechanism last took as best
            assert entry.score == released[rows[-1]]
            taken = [i for i in rows if history[i][2]]
            assert entry.submission == (taken[-1] if taken else rows[0])
        else:  # the best release, the earliest among equals
            best = min(sign * released[i] for i in rows)
            assert sign * entry.score == best
            assert entry.submission == min(i for i in rows if sign * released[i] == best)
    for entry in private_board:
        assert entry.submission == chosen[entry.team]
        assert entry.score == private[entry.submission]
