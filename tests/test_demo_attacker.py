"""The demo's attackers, played through the HTTP API against Kaggle's board
and ladderboard's default board.

The hill-climber (near-duplicate hill-climbing from the majority class, the
attack that breaks paired-test ladders, Hardt 2017, Sec. 3-4) wins far more
on the Kaggle board than on the default: its selected file's public score
flatters it against the private rows by much more than the split's sampling
error. The perturbation attacker (Blum & Hardt 2015, Sec. 5; Hardt's 2015
blog post) climbs to first place on the Kaggle board's public side and falls
on its private side.

The default board is :data:`~ladderboard.recommended.RECOMMENDED`'s, the
fixed-step Ladder with ``η = 1/√n_public`` (Blum & Hardt 2015, Fig. 1). One
honest team and the demo's default budget: a smaller budget leaves the Kaggle
board's hill-climber too close to what a noisier board would concede at the
demo's 171 public rows.
"""

import math

import pytest

import ladderboard.recommended as recommended
from ladderboard.demo import (
    ATTACKER,
    BOARDS,
    CLIMBER,
    DEFAULT,
    KAGGLE,
    DemoResult,
    demo_summary,
    run_demo,
)
from ladderboard.demo.boards import board_title
from ladderboard.recommended import Recommended

K = 400


@pytest.fixture(scope="module")
def played() -> tuple[Recommended, DemoResult]:
    """The default the demo was asked to play, and what it played (that the
    demo follows whatever ``RECOMMENDED`` names is ``tests/test_demo_boards.py``'s)."""
    return recommended.RECOMMENDED, run_demo(k=K, n_teams=1, seed=0)


@pytest.fixture
def result(played) -> DemoResult:
    return played[1]


@pytest.mark.slow
def test_the_second_board_is_the_recommended_default(played):
    default, result = played
    mechanism, params = result.mechanisms[DEFAULT]  # as the server states them
    assert mechanism == default.mechanism
    assert result.mechanisms[KAGGLE][0] == "full-disclosure"
    if mechanism == "ladder":
        assert params["eta"] == pytest.approx(1 / math.sqrt(result.n_public), rel=1e-3)
    else:
        assert params.items() >= default.params.items()
    assert f"The default board, {board_title(mechanism)}" in demo_summary(result)


@pytest.mark.slow
def test_the_hill_climber_wins_more_on_the_kaggle_board_than_on_the_default(result):
    kaggle, default = (result.attack_gain(slug, CLIMBER) for slug in (KAGGLE, DEFAULT))
    # Two sds of the difference's sampling error: each gain's sd had the
    # same rows been changed blind, the two boards independent.
    noise = math.hypot(result.blind_sd(KAGGLE, CLIMBER), result.blind_sd(DEFAULT, CLIMBER))
    assert kaggle - default > 2 * noise
    assert kaggle > 3 * result.blind_sd(KAGGLE, CLIMBER)  # the Kaggle board gave it away


@pytest.mark.slow
def test_the_summary_reports_what_each_attacker_won_on_each_board(result):
    text = demo_summary(result)
    sections = text.split("The default board")
    assert len(sections) == 2 and sections[0].startswith("Kaggle's board")
    for slug, section in zip(BOARDS, sections, strict=True):
        for team in (ATTACKER, CLIMBER):
            line = next(x for x in section.splitlines() if x.startswith(f"  {team}:"))
            won = result.attack_gain(slug, team)
            assert f"{abs(won):.3f}" in line
            s = result.standings[slug][team]
            assert f"{s.public:.3f}" in line and f"{s.private:.3f}" in line
    # The step's cost to honest teams is said where the board has a step.
    mechanism, params = result.mechanisms[DEFAULT]
    if mechanism == "ladder":
        assert f"Its step is {params['eta']:g}" in sections[1]
        assert "improvements hide too" in sections[1] and "Its step" not in sections[0]


@pytest.mark.slow
def test_on_the_kaggle_board_the_attacker_is_first_in_public_and_falls_in_private(result):
    s = result.standings[KAGGLE][ATTACKER]
    assert s.public_rank == 1
    assert s.private_rank > s.public_rank
    assert s.public < result.start_public[KAGGLE][ATTACKER]  # it climbed above its model
    assert s.private > result.start_private[ATTACKER]  # and paid for it on the private rows


@pytest.mark.slow
def test_on_the_fixed_step_ladder_neither_attacker_moves_the_board(result):
    if result.mechanisms[DEFAULT][0] != "ladder":
        pytest.skip("the default is not the fixed-step Ladder")
    for team in (ATTACKER, CLIMBER):
        s = result.standings[DEFAULT][team]
        assert s.public == result.start_public[DEFAULT][team]
        assert s.private == pytest.approx(result.start_private[team])  # its first file
        assert result.attack_gain(DEFAULT, team) == pytest.approx(0)
