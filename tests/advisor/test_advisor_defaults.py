"""The defaults' rule over several budgets (ladderboard.advisor.defaults):
raw gain against a fixed reference, never against a board's own noise."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ladderboard.advisor.defaults import across_budgets, default_choice, goal

ETA = "Ladder η=1/√n"


def _frame(rows, n=400):
    """A tidy grid frame from (k, rep, setting, measure, attack, value) rows."""
    records = [
        {
            "rep": rep,
            "setting": setting,
            "family": "x",
            "measure": measure,
            "attack": attack,
            "value": value,
            "score": "zero_one",
            "n": n,
            "k": k,
        }
        for k, rep, setting, measure, attack, value in rows
    ]
    return pd.DataFrame(records)


REFERENCE = {10: 0.01, 100: 0.02}
"""The blind reference by budget (plus 0.001 per repetition)."""


def _setting(setting, gains, tau, reps=3, own_blind=None):
    """Rows of one setting: ``gains[k][attack]`` raw gains (plus 0.001 per
    repetition), the fixed reference, tau; with ``own_blind``, also the old
    suite's rows (a baseline on the board itself and the excess over it)."""
    rows = []
    for k, attacks in gains.items():
        for rep in range(reps):
            for attack, gain in attacks.items():
                value = gain + 0.001 * rep
                rows += [
                    (k, rep, setting, "raw_gain", attack, value),
                    (k, rep, setting, "lberr", attack, value / 2),
                ]
                if own_blind is not None:
                    rows += [
                        (k, rep, setting, "baseline_gap", attack, own_blind),
                        (k, rep, setting, "excess", attack, value - own_blind),
                        (k, rep, setting, "gap", attack, value),
                    ]
            rows.append((k, rep, setting, "blind_reference", "", REFERENCE[k] + 0.001 * rep))
            rows += [
                (k, rep, setting, "tau", "", tau),
                (k, rep, setting, "share_released", "", 0.8),
            ]
    return rows


@pytest.fixture
def frame():
    rows = []
    # Kaggle loses to boosting at the large budget. A: protected at both
    # budgets, tau close. B: protected at k=10, majority breaks it at k=100.
    # C: protected, low tau. The η-Ladder: protected, close tau.
    rows += _setting("Kaggle 1e-5", {10: {"boosting": 0.04}, 100: {"boosting": 0.2}}, 0.9)
    rows += _setting(
        "A",
        {10: {"boosting": 0.02, "majority": 0.01}, 100: {"boosting": 0.03, "majority": 0.05}},
        0.895,
    )
    rows += _setting("B", {10: {"boosting": 0.01}, 100: {"majority": 0.12, "boosting": 0.02}}, 0.9)
    rows += _setting("C", {10: {"boosting": 0.01}, 100: {"boosting": 0.02}}, 0.7)
    rows += _setting(ETA, {10: {"boosting": 0.02}, 100: {"boosting": 0.04}}, 0.85)
    return _frame(rows)


def test_across_budgets_reads_the_binding_raw_gain_and_its_excess_over_the_reference(frame):
    table = across_budgets(frame)
    assert list(table.index) == ["Kaggle 1e-5", "A", "B", "C", ETA]
    assert table.loc["B", "worst_k"] == 100 and table.loc["B", "binding_attack"] == "majority"
    assert table.loc["B", "raw_gain"] == pytest.approx(0.121)
    # Paired by repetition: (0.12 + 0.001 r) − (0.02 + 0.001 r) = 0.1 exactly.
    assert table.loc["B", "excess_gain"] == pytest.approx(0.1)
    assert table.loc["B", "excess± k=100"] == pytest.approx(0.0, abs=1e-12)
    assert table.loc["A", "attack k=10"] == "boosting"
    assert table.loc["A", "attack k=100"] == "majority"
    half = stats.t.ppf(0.975, 2) * np.std([0.05, 0.051, 0.052], ddof=1) / np.sqrt(3)
    assert table.loc["A", "gain± k=100"] == pytest.approx(half)
    assert table.loc["A", "lberr k=100"] == pytest.approx(0.0255)
    assert table.loc["A", "blind k=100"] == pytest.approx(0.021)
    assert table.loc["A", "floor k=100"] == pytest.approx(math.sqrt(math.log(100) / 400))
    assert table.loc["A", "vs eta k=100"] == pytest.approx(0.01)
    assert table.loc["C", "tau"] == pytest.approx(0.7)
    assert (table.reps == 3).all() and table.complete.all()


def test_the_rule_keeps_protection_at_every_budget_and_utility(frame):
    table = across_budgets(frame)
    choice = default_choice(table, n=400)  # bound 1/√400 = 0.05
    # B is protected at k=10 only; C protects but loses 0.2 of tau; the
    # η-Ladder's tau is 0.05 below Kaggle's, more than the 0.01 allowed.
    assert choice.passing == ("A",)
    assert choice.label == "A" and choice.meets
    assert choice.binding_attack == "majority" and choice.worst_k == 100
    assert choice.excess_gain == pytest.approx(0.03)
    assert choice.tau_gap == pytest.approx(0.005)
    assert choice.over_bound == 0.0


def test_a_board_whose_noise_makes_blind_play_gain_does_not_look_safer():
    """The bug of the old rule: it subtracted what blind files gain on the
    same board, so a noisy board whose noise blind play selects (Noisy: raw
    gain 0.06 at k = 100, blind play on it 0.06, excess 0) beat a quiet board
    with a smaller raw gain (Quiet: 0.03, blind play on it 0.01, excess
    0.02). Over the fixed reference (the best of k blind files on the
    noiseless board, 0.02 at k = 100) Noisy's excess is 0.04, above the
    bound 1/√n = 0.0316, Quiet's 0.01, and Quiet is chosen."""
    rows = []
    rows += _setting(
        "Kaggle 1e-5", {10: {"boosting": 0.3}, 100: {"boosting": 0.3}}, 0.9, own_blind=0.02
    )
    rows += _setting(
        "Quiet", {10: {"boosting": 0.02}, 100: {"boosting": 0.03}}, 0.9, own_blind=0.01
    )
    rows += _setting(
        "Noisy", {10: {"boosting": 0.03}, 100: {"boosting": 0.06}}, 0.9, own_blind=0.06
    )
    table = across_budgets(_frame(rows, n=1000))
    assert table.loc["Noisy", "excess k=100"] > table.loc["Quiet", "excess k=100"]
    choice = default_choice(table, n=1000)
    assert choice.label == "Quiet" and choice.passing == ("Quiet",)
    assert choice.excess_gain == pytest.approx(0.03 + 0.001 - (0.02 + 0.001))


def test_when_nothing_meets_the_rule_the_closest_is_named_with_what_binds(frame):
    table = across_budgets(frame)
    choice = default_choice(table, n=10_000)  # bound 0.01: A's 0.03 is too much
    assert not choice.meets and choice.passing == ()
    assert choice.label == "A"
    assert choice.over_bound == pytest.approx(0.03 - 0.01)
    assert (choice.binding_attack, choice.worst_k) == ("majority", 100)
    among = default_choice(table, n=400, among=["B", "C"])
    assert among.label == "B" and not among.meets  # C fails tau, B the gain


def test_refuses_a_table_without_its_reference_or_settings(frame):
    table = across_budgets(frame)
    with pytest.raises(ValueError, match="reference 'nope'"):
        default_choice(table, n=400, reference="nope")
    with pytest.raises(ValueError, match="among names no setting"):
        default_choice(table, n=400, among=["Z"])
    table.loc["Kaggle 1e-5", "tau"] = float("nan")
    with pytest.raises(ValueError, match="has no measured tau"):
        default_choice(table, n=400)


def test_a_setting_unmeasured_at_a_budget_cannot_meet_the_rule(frame):
    # D is protected where it was measured, but nothing attacked it at k=100.
    rows = _setting("D", {10: {"boosting": 0.0}}, 0.9)
    rows += [(100, rep, "D", "tau", "", 0.9) for rep in range(3)]
    table = across_budgets(pd.concat([frame, _frame(rows)], ignore_index=True))
    assert not table.loc["D", "complete"] and table.loc["A", "complete"]
    assert "D" not in default_choice(table, n=400).passing


def test_the_goal_pairs_the_choice_with_the_eta_ladder(frame):
    table = across_budgets(frame)
    result = goal(table, "A")
    # A's binding raw gain is 0.01 above the η-Ladder's at k=100, in every
    # repetition: above it beyond the interval.
    assert result.versus[100].mean == pytest.approx(0.01)
    assert not result.protected and result.useful and not result.met
    assert goal(table, "C").protected and not goal(table, "C").useful
    with pytest.raises(ValueError, match="must hold"):
        goal(table, "Z")
