"""What a participant is told: the decimals a release deserves, and the
sentences of :mod:`ladderboard.rules.explain`, over every registered
mechanism (a new one without an explanation fails here)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ladderboard.direction import GREATER_IS_BETTER, LOWER_IS_BETTER
from ladderboard.mechanisms import (
    COMPETITION_MECHANISMS,
    MECHANISMS,
    Ladder,
    Mechanism,
    ParameterFreeLadder,
    ShakyLadder,
)
from ladderboard.mechanisms.traits import select
from ladderboard.rules.explain import describe, display_decimals, explain
from ladderboard.rules.rank_board import RankBoard

ALL = sorted(COMPETITION_MECHANISMS)
CASES = [(None, 0.3), (0.3, 0.25), (0.3, 0.3), (0.3, 0.32)]
RANK_CASES = [
    (None, 0.3, 3, None),
    (0.3, 0.25, 1, 3),
    (0.3, 0.3, 3, 3),
    (0.3, 0.25, 3, 3),
    (0.3, 0.3, 4, 3),
    (None, 0.4, None, None),
]


# ---------------------------------------------------------------- decimals
def test_explain_decimals_of_common_steps():
    assert display_decimals(0.01, 5) == 2
    assert display_decimals(1e-5, 5) == 5
    assert display_decimals(1e-5, 8) == 5
    assert display_decimals(0.1 * 0.1, 5) == 2  # 0.010000000000000002
    assert display_decimals(1e-3, 5) == 3
    assert display_decimals(1 / 16, 5) == 2
    assert display_decimals(1 / 64, 5) == 2
    assert display_decimals(1 / 4000, 5) == 4
    assert display_decimals(1 / 4000, 3) == 3  # the board's cap
    assert display_decimals(None, 5) == 5
    assert display_decimals(1.0, 5) == display_decimals(7.0, 5) == 0


def test_explain_decimals_show_a_snapped_release_as_it_is():
    grid = ShakyLadder(noise_scale=0.0625, random_state=0).resolution
    assert grid == 1 / 16
    assert f"{0.1875:.{display_decimals(grid, 5)}f}" == "0.19"


def test_explain_decimals_refuse_what_is_no_step():
    for bad in (0.0, -0.1, math.inf, math.nan):
        with pytest.raises(ValueError, match="resolution must be a positive finite number"):
            display_decimals(bad, 5)
    with pytest.raises(ValueError, match="cap"):
        display_decimals(0.1, -1)


def test_explain_decimals_print_every_power_of_two_grid_distinctly():
    """Exhaustive over the grids 2^-k, k = 1..16: every multiple in [0, 1] prints
    differently from every other (the hypothesis test below reaches k = 40)."""
    for k in range(1, 17):
        step = 2.0**-k
        decimals = display_decimals(step, 20)
        printed = {f"{i * step:.{decimals}f}" for i in range(2**k + 1)}
        assert len(printed) == 2**k + 1, k


@given(st.integers(1, 40), st.floats(0, 1))
def test_explain_decimals_neighbours_on_a_binary_grid_print_apart(k, where):
    step = 2.0**-k
    i = int(where * (2**k - 1))
    decimals = display_decimals(step, 20)
    a, b = f"{i * step:.{decimals}f}", f"{(i + 1) * step:.{decimals}f}"
    assert a != b
    assert abs(Fraction(a) - Fraction(i * step)) <= Fraction(1, 2 * 10**decimals)


@given(st.floats(-12, 1), st.floats(0, 1))
def test_explain_decimals_neighbours_on_any_grid_print_apart(log_step, where):
    step = 10.0**log_step
    i = int(where * min(1 / step, 10**6))
    decimals = display_decimals(step, 20)
    assert f"{i * step:.{decimals}f}" != f"{(i + 1) * step:.{decimals}f}"


@given(st.integers(0, 10))
def test_explain_decimals_are_few_enough(digits):
    """One decimal fewer would print a step of 10^-d as zero."""
    step = 10.0**-digits
    assert display_decimals(step, 20) == digits


# ---------------------------------------------------------------- sentences
@pytest.mark.parametrize("name", ALL)
def test_explain_every_mechanism_has_its_sentences(name):
    direction = LOWER_IS_BETTER
    sentence = describe(name)
    assert sentence.endswith(".") and "{" not in sentence
    texts = [explain(name, r, p, direction=direction, decimals=2) for p, r in CASES]
    texts += [
        explain(
            name, r, p, direction=direction, decimals=2, board="per-rank", rank=k, previous_rank=j
        )
        for p, r, k, j in RANK_CASES
    ]
    for text in texts:
        assert text.endswith(".") and "{" not in text and "None" not in text, text
        assert "0.3" in text or "0.25" in text or "0.4" in text
    assert len(set(texts)) == len(texts), "each case is told apart"


@pytest.mark.parametrize("name", ALL)
@given(
    released=st.floats(0, 1),
    previous=st.none() | st.floats(0, 1),
    decimals=st.integers(0, 6),
    greater=st.booleans(),
)
def test_explain_uses_only_what_the_board_prints(name, released, previous, decimals, greater):
    """Two releases that print alike are explained alike: the sentence carries
    nothing the board does not show."""
    direction = GREATER_IS_BETTER if greater else LOWER_IS_BETTER

    def printed(x):
        return None if x is None else float(f"{x:.{decimals}f}")

    def told(r, p):
        return explain(name, r, p, direction=direction, decimals=decimals)

    assert told(released, previous) == told(printed(released), printed(previous))


def test_explain_the_four_cases_of_a_team_board():
    kw = {"direction": LOWER_IS_BETTER, "decimals": 4, "params": {"eta": 0.01}}
    assert explain("ladder", 0.28, None, **kw).startswith("Your team's first board score: 0.2800.")
    assert explain("ladder", 0.24, 0.28, **kw).startswith(
        "Your team's board score is now 0.2400, better than 0.2800."
    )
    assert explain("ladder", 0.28, 0.28, **kw) == (
        "Your team's board score stays at 0.2800: under the Ladder a file must beat it by "
        "more than the step 0.01 to change it."
    )
    full = {"direction": LOWER_IS_BETTER, "decimals": 5}
    assert explain("full-disclosure", 0.31, 0.28, **full) == (
        "This file scored 0.31000, worse than your best 0.28000; the board keeps showing your best."
    )
    assert "the same as your best" in explain("full-disclosure", 0.28, 0.28, **full)
    assert "better than your previous best" in explain("full-disclosure", 0.2, 0.28, **full)


def test_explain_follows_the_direction_of_the_score():
    kw = {"decimals": 3}
    up = explain("metric-full-disclosure", 0.8, 0.7, direction=GREATER_IS_BETTER, **kw)
    down = explain("metric-full-disclosure", 0.8, 0.7, direction=LOWER_IS_BETTER, **kw)
    assert up.startswith("This file scored 0.800, better than your previous best 0.700")
    assert down.startswith("This file scored 0.800, worse than your best 0.700")


def test_explain_names_each_mechanisms_rule_and_parameters():
    kw = {"direction": LOWER_IS_BETTER, "decimals": 3}
    same = {
        name: explain(name, 0.25, 0.25, params=params, **kw)
        for name, params in [
            ("parameter-free-ladder", {}),
            ("significance-ladder", {"alpha": 0.05}),
            ("shaky-ladder", {"step": 0.02}),
            ("ladder-boot", {"alpha": 0.01, "b": 30}),
            ("bayes-boot-ladder", {"B": 100, "po_threshold": 99}),
            ("bayes-boot-ladder-boot", {"b": 10}),
        ]
    }
    assert "noise of the holdout (a paired test of its losses" in same["parameter-free-ladder"]
    assert "paired t-test" in same["significance-ladder"] and "0.05" in same["significance-ladder"]
    assert "by more than the step 0.02, compared with noise added" in same["shaky-ladder"]
    assert "a small gain can also be missed" in same["shaky-ladder"]
    assert "bootstrap estimate" in same["ladder-boot"] and "30 resamples" in same["ladder-boot"]
    assert "level 0.01" in same["ladder-boot"]
    assert "at least 100 of 100 random reweightings" in same["bayes-boot-ladder"]
    assert "10 resamples" in same["bayes-boot-ladder-boot"]
    assert "Bayesian-bootstrap test" in same["bayes-boot-ladder-boot"]
    worse = explain("shaky-ladder", 0.27, 0.25, **kw)
    assert "fresh noise" in worse and "a little worse" in worse
    assert "the step 1/√n" in describe("shaky-ladder")
    assert "beats it by more than the step," in describe("ladder")  # eta not given
    assert "0.05" in describe("ladder", {"eta": 0.05})
    assert "0.00001" in describe("full-disclosure")


def test_explain_a_shaky_first_score_of_one_is_where_it_starts():
    text = explain("shaky-ladder", 1.0, None, direction=LOWER_IS_BETTER, decimals=2)
    assert text.startswith("Your team's board score stays at 1.00")
    assert text.endswith("The board starts every team at 1.00.")
    assert explain("shaky-ladder", 0.5, None, direction=LOWER_IS_BETTER, decimals=2).startswith(
        "Your team's first board score: 0.50."
    )


def test_explain_an_undefined_score():
    text = explain("metric-full-disclosure", math.nan, 0.7, direction=GREATER_IS_BETTER, decimals=3)
    assert text.startswith("This file's score is undefined") and "0.700" in text


def test_explain_refuses_what_it_cannot_explain():
    kw = {"direction": LOWER_IS_BETTER, "decimals": 2}
    with pytest.raises(ValueError, match="unknown mechanism 'nope'"):
        explain("nope", 0.2, None, **kw)
    with pytest.raises(ValueError, match="unknown mechanism 'nope'"):
        describe("nope")
    with pytest.raises(ValueError, match="board must be one of"):
        explain("ladder", 0.2, None, board="per-day", **kw)
    with pytest.raises(ValueError, match="per-rank board only"):
        explain("ladder", 0.2, None, rank=1, **kw)
    with pytest.raises(ValueError, match="decimals"):
        explain("ladder", 0.2, None, direction=LOWER_IS_BETTER, decimals=-1)


def test_explain_refuses_a_mechanism_no_competition_runs():
    kw = {"direction": LOWER_IS_BETTER, "decimals": 2}
    assert "thresholdout" in MECHANISMS
    with pytest.raises(ValueError, match="'thresholdout' runs in no competition"):
        explain("thresholdout", 0.2, None, **kw)
    with pytest.raises(ValueError, match="runs in no competition"):
        describe("thresholdout")


def _explain_run(mechanism: Mechanism, xs) -> list[str]:
    """A team's explanations through a per-team board, ``previous`` as the
    board shows it."""
    decimals = display_decimals(mechanism.resolution, 5)
    shown: float | None = None
    texts = []
    for x in xs:
        release = mechanism.submit(x)
        texts.append(
            explain(
                mechanism.name,
                release.score,
                shown,
                direction=mechanism.direction,
                decimals=decimals,
                params=mechanism.get_params(),
            )
        )
        if mechanism.release_is_current_best or shown is None:
            shown = release.score
        else:
            shown = mechanism.direction.best([shown, release.score])
    return texts


def test_explain_a_ladders_releases_as_a_team_sees_them():
    texts = _explain_run(Ladder(eta=0.1), ([0.5] * 4, [0.45] * 4, [0.38] * 4, [0.27] * 4))
    assert texts == [
        "Your team's first board score: 0.5. This is the file's score rounded to a multiple "
        "of 0.1.",
        "Your team's board score stays at 0.5: under the Ladder a file must beat it by more "
        "than the step 0.1 to change it.",
        "Your team's board score is now 0.4, better than 0.5. This file beat it by more than "
        "the step 0.1.",
        "Your team's board score is now 0.3, better than 0.4. This file beat it by more than "
        "the step 0.1.",
    ]


@pytest.mark.parametrize("name", ALL)
def test_explain_every_mechanism_through_real_releases(name):
    klass = MECHANISMS[name]
    params = klass._unit_test_params(40, np.random.default_rng(1))
    if klass.stochastic:
        params["random_state"] = 2
    mechanism = klass(**params)
    rng = np.random.default_rng(3)
    xs = []
    for t in range(8):
        if mechanism.input_kind == "losses":
            xs.append((rng.random(40) < max(0.05, 0.5 - 0.06 * t)).astype(float))
        else:
            xs.append(mechanism.y_true + max(0.1, 2.0 - 0.3 * t) * rng.standard_normal(40))
    texts = _explain_run(mechanism, xs)
    assert texts[0].startswith(
        (
            "Your team's first board score",
            "Your team's board score stays at",
            "This file scored",
        )
    )
    assert all(t.endswith(".") for t in texts)


def _explain_rank_board(size: int) -> RankBoard:
    return RankBoard(
        size=size,
        entries=[],
        created=0,
        load=lambda entry: Mechanism.from_state(entry["state"]),
        fresh=lambda instance: ParameterFreeLadder(),
        dump=lambda mechanism: mechanism.get_state(),
    )


def _explain_losses(errors: int, n: int = 20) -> np.ndarray:
    x = np.zeros(n)
    x[:errors] = 1.0
    return x


def test_explain_a_per_rank_board_from_what_the_board_shows():
    board = _explain_rank_board(2)
    kw = {"direction": LOWER_IS_BETTER, "decimals": 2, "board": "per-rank"}

    def submit(team: int, errors: int) -> str:
        before = board.rank_of(team)
        previous = None if before is None else board.entries[before - 1]["score"]
        last = board.entries[-1]["score"] if len(board.entries) == board.size else None
        outcome = board.submit(team, 0, _explain_losses(errors))
        text = explain(
            "parameter-free-ladder",
            outcome.score,
            previous,
            rank=outcome.rank,
            previous_rank=before,
            **kw,
        )
        if outcome.rank is None:
            assert outcome.score == last
        return text

    assert submit(1, 10).startswith("Your file took rank 1, with public score 0.50.")
    assert submit(2, 4).startswith("Your file took rank 1, with public score 0.20.")
    full = submit(3, 12)
    assert full.startswith("Your file took no rank: it did not beat any ranked entry by more")
    assert "The score shown, 0.50, is the last rank's public score, not your file's own." in full
    moved = submit(1, 1)
    assert moved.startswith("Your file took rank 1, with public score 0.05.")
    assert "Your former entry at rank 2 left the board." in moved
    kept = submit(1, 1)
    assert kept.startswith("Your entry keeps rank 1. Your team's board score stays at 0.05")


def test_explain_a_baseline_and_an_update_cap_are_told():
    kw = {"direction": LOWER_IS_BETTER, "decimals": 2}
    first = explain("bayes-boot-ladder", 0.3, None, params={"baseline": [0.0, 1.0]}, **kw)
    assert first.endswith(
        "If this file did not beat the competition's baseline, it is the baseline's score instead."
    )
    assert "baseline" not in explain("bayes-boot-ladder", 0.3, None, **kw)
    took = explain(
        "bayes-boot-ladder",
        0.3,
        None,
        params={"baseline": [0.0, 1.0]},
        board="per-rank",
        rank=1,
        **kw,
    )
    assert "baseline" not in took  # a file that takes a rank was accepted
    capped = explain("shaky-ladder", 0.3, 0.3, params={"max_updates": 12}, **kw)
    assert capped.endswith("It changes at most 12 times in all.")


@pytest.mark.parametrize("name", select(hides_decision=True, competition=True), ids=str)
def test_explain_a_fresh_estimate_never_calls_a_file_better_or_worse(name):
    """Under bootstrap releases a new number is a fresh draw of the team's
    best, so the answer is the same sentence whether it went down, up or
    stayed: none attributes the number to the file just sent."""
    kw = {"direction": LOWER_IS_BETTER, "decimals": 2}
    texts = [explain(name, released, 0.30, **kw) for released in (0.25, 0.35, 0.30)]
    for text, released in zip(texts, ("0.25", "0.35", "0.30"), strict=True):
        assert text.startswith(
            f"The board's estimate of your team's best is now {released} (it was 0.30)"
        )
        assert "whether or not this one improved on your best" in text
        assert "better than" not in text and "worse" not in text
    shown = ("0.25", "0.35", "0.30")
    assert len({t.replace(r, "", 1) for t, r in zip(texts, shown, strict=True)}) == 1


@pytest.mark.parametrize("name", ALL)
def test_describe_opens_in_everyday_words(name):
    """The first sentence a participant reads names no test or level."""
    first = describe(name).split(". ")[0]
    for jargon in ("t-test", "level", "paired", "Bayesian", "bootstrap", "significance"):
        assert jargon not in first
