"""The advisor's grid run, summary and recommendation rule."""

import math

import pandas as pd
import pytest

from ladderboard.advisor.advice import (
    advise,
    advise_command,
    check_options,
    eligible,
    evaluate_grid,
    recommend,
    summarise,
)
from ladderboard.advisor.grid import default_grid, scoring_rule, shaky_default_label
from ladderboard.advisor.honest import HonestTeams

SMALL = {"n": 120, "k": 16, "model": HonestTeams(teams=5, submissions=8)}
FAMILIES = ("full-disclosure", "parameter-free-ladder", "shaky-ladder")


@pytest.fixture(scope="module")
def frame():
    return evaluate_grid(reps=2, seed=3, families=FAMILIES, **SMALL)


def _table(rows):
    return pd.DataFrame(rows, columns=["setting", "gain", "tau", "share_released"]).set_index(
        "setting"
    )


def test_the_rule_on_a_hand_made_table():
    table = _table(
        [
            ["Kaggle 1e-5", 0.10, 0.90, 0.80],
            ["tight", 0.01, 0.86, 0.41],  # within both tolerances
            ["cheap", 0.00, 0.84, 0.95],  # tau 0.06 below: out
            ["stingy", 0.00, 0.95, 0.39],  # under half the share: out
            ["twin", 0.01, 0.89, 0.85],  # same gain as "tight", higher tau
        ]
    )
    assert eligible(table) == ["Kaggle 1e-5", "tight", "twin"]
    assert recommend(table) == "twin"
    assert recommend(table, tau_tolerance=0.1) == "cheap"
    assert recommend(table, share_fraction=0.4, tau_tolerance=0.0) == "stingy"
    assert recommend(table, among=["cheap", "stingy"]) == "stingy"  # none eligible: top tau
    with pytest.raises(ValueError, match="reference"):
        recommend(table.drop("Kaggle 1e-5"))
    with pytest.raises(ValueError, match="among"):
        recommend(table, among=["nothing"])
    with pytest.raises(ValueError, match="tau_tolerance"):
        recommend(table, tau_tolerance=-1)
    with pytest.raises(ValueError, match="share_fraction"):
        recommend(table, share_fraction=1.5)


def test_the_table_is_tidy_and_complete(frame):
    labels = [s.label for s in default_grid(scoring_rule("accuracy"), families=FAMILIES)]
    assert list(dict.fromkeys(frame.setting)) == labels
    assert set(frame.measure) == {"gap", "tau", "share_released", "median_delay", "n_improvements"}
    counts = frame.groupby(["setting", "measure"]).size()
    assert (counts.xs("tau", level="measure") == 2).all()
    assert (frame[frame.measure != "gap"].attack == "").all()
    assert set(frame.n) == {120} and set(frame.k) == {16} and set(frame.metric) == {"accuracy"}


def test_summary_names_the_strongest_attack(frame):
    summary = summarise(frame)
    assert shaky_default_label() in summary.index
    for label, row in summary.iterrows():
        gaps = {c[5:]: row[c] for c in summary.columns if c.startswith("gap: ")}
        finite = {a: g for a, g in gaps.items() if not math.isnan(g)}
        assert row.strongest_attack == max(finite, key=finite.get), label
        assert row.gain == max(finite.values())
        assert -1 <= row.tau <= 1 and 0 <= row.share_released <= 1


def test_same_seed_same_table_other_seed_other_table(frame):
    """Each repetition has its own seed: a run of one repetition is the first
    repetition of a run of two."""
    again = evaluate_grid(reps=1, seed=3, families=FAMILIES, **SMALL)
    pd.testing.assert_frame_equal(frame[frame.rep == 0], again)
    other = evaluate_grid(reps=1, seed=4, families=["full-disclosure"], **SMALL)
    first = frame[(frame.rep == 0) & (frame.family == "full-disclosure")].reset_index(drop=True)
    assert not first.value.equals(other.value)


def test_advise_recommends_an_eligible_setting_and_gives_the_command():
    advice = advise(n=100, k=12, reps=1, seed=0, families=["parameter-free-ladder"])
    assert set(advice.summary.index) == {"Kaggle 1e-5", "Kaggle 1/√n", "PF Ladder"}
    assert advice.recommended in advice.eligible
    assert advice.recommended_shaky is None
    assert advice.command == advise_command(
        n=100, k=12, metric="accuracy", reps=1, seed=0, families=["parameter-free-ladder"]
    )
    assert advice.command.endswith("--family parameter-free-ladder")


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((9, 10, "accuracy"), ValueError, "n must be"),
        ((100, 0, "accuracy"), ValueError, "submissions must be"),
        ((100, 10, "auc"), ValueError, "metric must be one of"),
        ((100.0, 10, "accuracy"), TypeError, "n must be an integer"),
    ],
)
def test_bad_options_fail_before_any_work(args, error, match):
    with pytest.raises(error, match=match):
        check_options(*args)
    with pytest.raises(error, match=match):
        advise(n=args[0], k=args[1], metric=args[2])
