"""What-if rescoring (:func:`ladderboard.engine.audit.what_if`) on SQLite and
PostgreSQL: the competition's own deterministic configuration gives its live
boards back, another score or mechanism is checked as a creation checks it,
and nothing is written."""

from __future__ import annotations

import pytest

from engine_helpers import create as create_competition
from engine_helpers import csv_for, make_solution, noisy, snapshot
from ladderboard.engine.audit import rescore, what_if
from ladderboard.engine.errors import NotFound
from ladderboard.rules.config import CompetitionConfig

PLAN = [("alpha", 0.40), ("beta", 0.35), ("gamma", 0.45), ("alpha", 0.30), ("beta", 0.2)]


def played(store, clock, **config):
    solution, _ = create_competition(store, daily_quota=None, **config)
    for team in ("alpha", "beta", "gamma"):
        store.add_team("comp", team)
    for seed, (team, flip) in enumerate(PLAN):
        clock.advance(minutes=1)
        store.submit("comp", team, csv_for(solution, noisy(solution, flip, seed)))
    return solution


def rows(board) -> list[tuple]:
    return [(r.rank, r.team, r.score, r.entries, r.number) for r in board]


def test_the_competitions_own_ladder_gives_its_live_boards_back(store, clock):
    """The parameter-free Ladder (Blum & Hardt 2015, Algorithm 2) draws no
    noise, so its what-if under the competition's configuration is the live
    board, public and private (the teams' automatic selection included)."""
    played(store, clock)
    before = snapshot(store)
    public = what_if(store, "comp", mechanism="parameter-free-ladder")
    assert rows(public.rows) == rows(store.leaderboard("comp"))
    assert public.config.mechanism == "parameter-free-ladder" and public.decimals >= 1
    assert public.live == store.leaderboard("comp")
    assert [c.moved for c in public.compared()] == [0, 0, 0]
    private = rescore(store, "comp", mechanism="parameter-free-ladder", board="private")
    assert rows(private) == rows(store.leaderboard("comp", "private", organiser=True))
    # Another key (random_state) changes nothing for a mechanism without noise.
    again = rescore(store, "comp", mechanism="parameter-free-ladder", random_state=99)
    assert rows(again) == rows(public.rows)
    assert snapshot(store) == before


def test_another_score_that_agrees_on_labels_gives_the_same_scores(store, clock):
    """On 0/1 predictions of 0/1 labels the Brier score is the zero-one
    error: rescored under it the board keeps its scores and order."""
    played(store, clock)
    brier = what_if(store, "comp", mechanism="parameter-free-ladder", score="brier")
    assert brier.config.score == "brier"
    assert rows(brier.rows) == rows(store.leaderboard("comp"))


def test_another_mechanism_changes_the_board_and_not_the_store(store, clock):
    played(store, clock, mechanism="full-disclosure")
    before = snapshot(store)
    live = store.leaderboard("comp")
    ladder = what_if(store, "comp", mechanism="ladder", mechanism_params={"eta": 0.1})
    assert ladder.config.mechanism_params["eta"] == 0.1
    assert sorted(r.team for r in ladder.rows) == sorted(r.team for r in live)
    # The Ladder rounds to multiples of eta: the board shows what it released.
    assert all(round(r.score / 0.1, 6) == round(r.score / 0.1) for r in ladder.rows)
    assert rows(ladder.rows) != rows(live)
    for compared in ladder.compared():
        assert compared.live is not None and compared.live.team == compared.row.team
        assert compared.moved == compared.live.rank - compared.row.rank
    per_rank = rescore(store, "comp", mechanism="parameter-free-ladder", mode="per-rank", ranks=2)
    assert len(per_rank) == 2
    assert snapshot(store) == before


def test_a_configuration_that_cannot_run_is_refused_as_at_creation(store, clock):
    played(store, clock)
    before = snapshot(store)
    with pytest.raises(ValueError) as at_create:
        CompetitionConfig(score="pearson", mechanism="ladder")
    with pytest.raises(ValueError) as at_rescore:
        rescore(store, "comp", mechanism="ladder", score="pearson")
    assert str(at_rescore.value) == str(at_create.value)
    with pytest.raises(ValueError, match=r"mechanism 'ladder': .*eta"):
        rescore(store, "comp", mechanism="ladder", mechanism_params={"eta": -1})
    with pytest.raises(ValueError, match="unknown mechanism 'no-such-mechanism'; known: "):
        rescore(store, "comp", mechanism="no-such-mechanism")
    with pytest.raises(ValueError, match="score 'no-such-score' is unknown"):
        rescore(store, "comp", mechanism="parameter-free-ladder", score="no-such-score")
    with pytest.raises(ValueError, match="board"):
        rescore(store, "comp", mechanism="ladder", board="secret")
    with pytest.raises(NotFound):
        rescore(store, "nothing", mechanism="ladder")
    assert snapshot(store) == before


def test_a_file_the_other_score_cannot_read_is_named(store, clock):
    """Predictions outside [0, 1], valid for the squared loss, are no
    probabilities: the Brier score refuses them, and says whose file."""
    solution = make_solution()
    squared = store.create(
        "reg",
        solution,
        CompetitionConfig(score="squared", mechanism="full-disclosure", daily_quota=None),
    )
    store.add_team(squared.slug, "alpha")
    store.submit(squared.slug, "alpha", csv_for(solution, noisy(solution, 0.3, 2) * 1.5))
    before = snapshot(store)
    named = "submission 1 of team 'alpha' cannot be scored by 'brier'"
    with pytest.raises(ValueError, match=named):
        rescore(store, squared.slug, mechanism="full-disclosure", score="brier")
    assert snapshot(store) == before
