"""The demo's attacker: a good model perturbed through the HTTP API climbs to
first place on the Kaggle board's public side and falls on its private side,
while on the Ladder it gains nothing (Blum & Hardt 2015, Sec. 5; Hardt's 2015
blog post).

A small configuration (two honest teams, few perturbations) keeps the server
run short; the default's ranks for seeds 0 to 4 are in the README.
"""

import pytest

from ladderboard.demo import ATTACKER, HONEST_TEAMS, DemoResult, demo_summary, run_demo

K = 150


@pytest.fixture(scope="module")
def result() -> DemoResult:
    return run_demo(k=K, n_teams=2, seed=0)


@pytest.mark.slow
def test_on_the_kaggle_board_the_attacker_is_first_in_public_and_falls_in_private(result):
    s = result.standings["kaggle"][ATTACKER]
    assert s.public_rank == 1
    assert s.private_rank > s.public_rank
    assert s.public < result.start_public["kaggle"]  # it climbed above its model
    assert s.private > result.start_private  # and paid for it on the private rows
    assert s.private > s.public


@pytest.mark.slow
def test_on_the_ladder_the_attacker_gains_nothing_over_its_model(result):
    s = result.standings["ladder"][ATTACKER]
    assert s.public >= result.start_public["ladder"]
    assert s.private == pytest.approx(result.start_private)  # it selected its model


@pytest.mark.slow
def test_the_summary_gives_both_boards_ranks_and_scores(result):
    text = demo_summary(result)
    kaggle, ladder = text.splitlines()
    n = len(list(HONEST_TEAMS)[:2]) + 1
    s = result.standings["kaggle"][ATTACKER]
    assert f"to {s.public:.3f} on the public board, rank 1 of {n}" in kaggle
    assert f"errs {s.private:.3f}" in kaggle and f"rank {s.private_rank} of {n}" in kaggle
    assert "stayed at its model's" in ladder
