"""The advisor's grid run, summary and recommendation rule."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

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
    return pd.DataFrame(
        rows, columns=["setting", "excess_gain", "tau", "share_released"]
    ).set_index("setting")


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
    labels = [s.label for s in default_grid(scoring_rule("zero_one"), families=FAMILIES)]
    assert list(dict.fromkeys(frame.setting)) == labels
    assert set(frame.measure) == {
        "raw_gain",
        "baseline_gap",
        "excess",
        "lberr",
        "tau",
        "share_released",
        "median_delay",
        "n_improvements",
        "blind_reference",
    }
    counts = frame.groupby(["setting", "measure"]).size()
    assert (counts.xs("tau", level="measure") == 2).all()
    utility = ~frame.measure.isin(["raw_gain", "baseline_gap", "excess", "lberr"])
    assert (frame[utility].attack == "").all() and (frame[~utility].attack != "").all()
    assert set(frame.n) == {120} and set(frame.k) == {16} and set(frame.score) == {"zero_one"}


def test_summary_names_the_binding_attack_and_its_interval(frame):
    """The binding attack has the largest mean raw gain; its excess is its
    raw gain minus the repetition's fixed reference, with the SE and 95 %
    interval of those paired differences, computed directly."""
    summary = summarise(frame)
    assert shaky_default_label() in summary.index
    gains = frame[frame.measure == "raw_gain"]
    reference = frame[frame.measure == "blind_reference"]
    for label, row in summary.iterrows():
        means = {c[5:]: row[c] for c in summary.columns if c.startswith("gap: ")}
        finite = {a: g for a, g in means.items() if not math.isnan(g)}
        assert row.binding_attack == max(finite, key=finite.get), label
        raw = gains[(gains.setting == label) & (gains.attack == row.binding_attack)]
        blind = reference[reference.setting == label]
        assert list(raw.rep) == list(blind.rep) == [0, 1]
        values = raw.value.to_numpy() - blind.value.to_numpy()
        se = values.std(ddof=1) / np.sqrt(values.size)
        half = stats.t.ppf(0.975, values.size - 1) * se
        assert row.excess_gain == pytest.approx(values.mean())
        assert row.excess_se == pytest.approx(se)
        assert (row.excess_low, row.excess_high) == pytest.approx(
            (values.mean() - half, values.mean() + half)
        )
        assert row.gain == pytest.approx(row[f"gap: {row.binding_attack}"])
        assert row.gain == pytest.approx(raw.value.mean())
        lberrs = frame[(frame.measure == "lberr") & (frame.setting == label)]
        assert row.lberr == pytest.approx(lberrs.groupby("attack").value.mean().max())
        assert row.reps == 2
        assert -1 <= row.tau <= 1 and 0 <= row.share_released <= 1


def test_the_rule_never_recommends_an_unprotected_board():
    """Full disclosure at any precision protects nothing, however its
    measured gain and tau compare (here the lowest and the highest)."""
    table = _table(
        [
            ["Kaggle 1e-5", 0.0, 0.95, 0.90],
            ["Kaggle 1/√n", 0.0, 0.95, 0.90],
            ["ladder", 0.02, 0.80, 0.80],  # tau 0.15 below: not eligible
        ]
    )
    assert recommend(table) == "ladder"  # the protected one with the highest tau
    with pytest.raises(ValueError, match="only unprotected"):
        recommend(table, among=["Kaggle 1/√n"])


def test_a_noisy_boards_own_blind_play_is_not_subtracted():
    """The summary ranks by raw gain over the fixed reference: a board whose
    noise makes blind play on it gain as much as the attack (excess over its
    own blind play 0) shows its raw gain, minus the same reference as every
    board."""
    rows = []
    for rep in range(3):
        for label, family, gain, own_blind in (
            ("Kaggle 1e-5", "full-disclosure", 0.3, 0.02),
            ("quiet", "ladder", 0.03, 0.01),
            ("noisy", "shaky-ladder", 0.06, 0.06),
        ):
            rows += [
                (rep, label, family, "raw_gain", "boosting", gain + 0.001 * rep),
                (rep, label, family, "baseline_gap", "boosting", own_blind),
                (rep, label, family, "excess", "boosting", gain + 0.001 * rep - own_blind),
                (rep, label, family, "lberr", "boosting", gain),
                (rep, label, family, "blind_reference", "", 0.02),
                (rep, label, family, "tau", "", 0.9),
                (rep, label, family, "share_released", "", 0.8),
            ]
    frame = pd.DataFrame(rows, columns=["rep", "setting", "family", "measure", "attack", "value"])
    summary = summarise(frame)
    assert summary.loc["noisy", "excess_gain"] == pytest.approx(0.061 - 0.02)
    assert summary.loc["quiet", "excess_gain"] == pytest.approx(0.031 - 0.02)
    assert recommend(summary) == "quiet"


def test_target_se_adds_repetitions_or_says_it_was_not_reached():
    small = {"n": 100, "k": 12, "families": ["parameter-free-ladder"]}
    reached = advise(reps=2, seed=0, target_se=1.0, **small)
    assert reached.target_reached and reached.reps == 2
    capped = advise(reps=2, seed=0, target_se=1e-9, max_reps=3, **small)
    assert capped.reps == 3 and capped.target_reached is False
    assert sorted(capped.frame.rep.unique()) == [0, 1, 2]
    assert capped.command.endswith("--reps 3 --seed 0 --family parameter-free-ladder")
    # repetition r is the same in any run: the first two are those of the run of two
    first = capped.frame[capped.frame.rep < 2].reset_index(drop=True)
    pd.testing.assert_frame_equal(first, reached.frame)
    assert advise(reps=2, seed=0, **small).target_reached is None


def test_same_seed_same_table_other_seed_other_table(frame):
    """Each repetition has its own seed: a run of one repetition is the first
    repetition of a run of two."""
    again = evaluate_grid(reps=1, seed=3, families=FAMILIES, **SMALL)
    pd.testing.assert_frame_equal(frame[frame.rep == 0], again)
    other = evaluate_grid(reps=1, seed=4, families=["full-disclosure"], **SMALL)
    first = frame[(frame.rep == 0) & (frame.family == "full-disclosure")].reset_index(drop=True)
    assert not first.value.equals(other.value)


def test_advise_recommends_an_eligible_setting_and_gives_the_command():
    seen = []
    advice = advise(
        n=100,
        k=12,
        reps=2,
        seed=0,
        families=["parameter-free-ladder"],
        progress=lambda *a: seen.append(a),
    )
    assert seen == [(0, 2), (1, 2), (2, 2)]
    assert set(advice.summary.index) == {"Kaggle 1e-5", "Kaggle 1/√n", "PF Ladder"}
    assert advice.recommended in advice.eligible
    assert advice.recommended_shaky is None
    assert advice.command == advise_command(
        n=100, k=12, score="zero_one", reps=2, seed=0, families=["parameter-free-ladder"]
    )
    assert advice.command.endswith("--family parameter-free-ladder")


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((9, 10, "zero_one"), ValueError, "n must be"),
        ((100, 0, "zero_one"), ValueError, "budget must be"),
        ((100, 10, "auc"), ValueError, "score must be one of"),
        ((100, 10, "accuracy"), ValueError, "score must be one of zero_one, log_loss, squared"),
        ((100.0, 10, "zero_one"), TypeError, "n must be an integer"),
    ],
)
def test_bad_options_fail_before_any_work(args, error, match):
    with pytest.raises(error, match=match):
        check_options(*args)
    with pytest.raises(error, match=match):
        advise(n=args[0], k=args[1], score=args[2])
