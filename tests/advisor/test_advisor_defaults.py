"""The defaults' rule over several budgets (ladderboard.advisor.defaults)."""

import math

import pandas as pd
import pytest

from ladderboard.advisor.defaults import across_budgets, default_choice


def _frame(rows):
    """A tidy grid frame from (k, rep, setting, family, attack, excess) and utility rows."""
    records = []
    for k, rep, setting, family, measure, attack, value in rows:
        records.append(
            {
                "rep": rep,
                "setting": setting,
                "family": family,
                "measure": measure,
                "attack": attack,
                "value": value,
                "score": "zero_one",
                "n": 400,
                "k": k,
            }
        )
    return pd.DataFrame(records)


def _attack(k, rep, setting, family, attack, excess):
    return [
        (k, rep, setting, family, "excess", attack, excess),
        (k, rep, setting, family, "gap", attack, excess + 0.01),
        (k, rep, setting, family, "baseline_gap", attack, 0.01),
        (k, rep, setting, family, "lberr", attack, 0.02),
    ]


def _utility(k, rep, setting, family, tau):
    return [
        (k, rep, setting, family, "tau", "", tau),
        (k, rep, setting, family, "share_released", "", 0.8),
        (k, rep, setting, family, "median_delay", "", 1.0),
        (k, rep, setting, family, "n_improvements", "", 10.0),
    ]


@pytest.fixture
def frame():
    rows = []
    # Kaggle: loses to boosting at the large budget. A: protected, tau close.
    # B: protected at k=10 but majority binds at k=100. C: protected, low tau.
    excess = {
        "Kaggle 1e-5": {10: {"boosting": 0.03}, 100: {"boosting": 0.2}},
        "A": {10: {"boosting": 0.01, "majority": 0.0}, 100: {"boosting": 0.02, "majority": 0.03}},
        "B": {10: {"boosting": 0.0}, 100: {"majority": 0.09, "boosting": 0.01}},
        "C": {10: {"boosting": 0.0}, 100: {"boosting": 0.01}},
    }
    taus = {"Kaggle 1e-5": 0.9, "A": 0.89, "B": 0.9, "C": 0.7}
    for setting, budgets in excess.items():
        for k, attacks in budgets.items():
            for rep in range(3):
                for attack, value in attacks.items():
                    rows += _attack(k, rep, setting, "x", attack, value + 0.001 * rep)
                rows += _utility(k, rep, setting, "x", taus[setting])
    return _frame(rows)


def test_across_budgets_finds_each_settings_worst_budget_and_attack(frame):
    table = across_budgets(frame)
    assert list(table.index) == ["Kaggle 1e-5", "A", "B", "C"]
    assert table.loc["B", "worst_k"] == 100 and table.loc["B", "binding_attack"] == "majority"
    assert table.loc["B", "excess_gain"] == pytest.approx(0.091)
    assert table.loc["B", "excess k=10"] == pytest.approx(0.001)
    assert table.loc["A", "attack k=10"] == "boosting"
    assert table.loc["A", "attack k=100"] == "majority"
    assert table.loc["A", "excess_low"] < 0.031 < table.loc["A", "excess_high"]
    assert table.loc["C", "tau"] == pytest.approx(0.7)
    assert (table.reps == 3).all()


def test_the_rule_keeps_protection_at_every_budget_and_utility(frame):
    table = across_budgets(frame)
    choice = default_choice(table, n=400)  # bound 1/√400 = 0.05
    # B is protected at k=10 only; C protects but loses 0.2 of tau.
    assert choice.passing == ("A",)
    assert choice.label == "A" and choice.meets
    assert choice.binding_attack == "majority" and choice.worst_k == 100
    assert choice.tau_gap == pytest.approx(0.01)
    assert choice.over_bound == 0.0


def test_when_nothing_meets_the_rule_the_closest_is_named_with_what_binds(frame):
    table = across_budgets(frame)
    choice = default_choice(table, n=10_000)  # bound 0.01: A's 0.031 is too much
    assert not choice.meets and choice.passing == ()
    assert choice.label == "A"
    assert choice.over_bound == pytest.approx(0.031 - 0.01)
    assert (choice.binding_attack, choice.worst_k) == ("majority", 100)
    among = default_choice(table, n=400, among=["B", "C"])
    assert among.label == "B" and not among.meets  # C fails tau, B the gain


def test_refuses_a_table_without_its_reference_or_settings(frame):
    table = across_budgets(frame)
    with pytest.raises(ValueError, match="reference 'nope'"):
        default_choice(table, n=400, reference="nope")
    with pytest.raises(ValueError, match="among names no setting"):
        default_choice(table, n=400, among=["Z"])
    assert math.isfinite(default_choice(table, n=400).bound)


def test_a_setting_unmeasured_at_a_budget_cannot_meet_the_rule(frame):
    # D is protected where it was measured, but nothing measured it at k=100.
    rows = []
    for rep in range(3):
        rows += _attack(10, rep, "D", "x", "boosting", 0.0)
        rows += _utility(10, rep, "D", "x", 0.9)
        rows += _utility(100, rep, "D", "x", 0.9)
    table = across_budgets(pd.concat([frame, _frame(rows)], ignore_index=True))
    assert not table.loc["D", "complete"] and table.loc["A", "complete"]
    assert "D" not in default_choice(table, n=400).passing


def test_the_interval_top_is_the_highest_over_the_budgets(frame):
    table = across_budgets(frame)
    by_budget = {k: across_budgets(frame[frame.k == k]) for k in (10, 100)}
    assert table.loc["B", "excess_high"] == max(
        by_budget[k].loc["B", "excess_high"] for k in (10, 100)
    )


def test_a_reference_without_tau_is_refused(frame):
    table = across_budgets(frame)
    table.loc["Kaggle 1e-5", "tau"] = float("nan")
    with pytest.raises(ValueError, match="has no measured tau"):
        default_choice(table, n=400)
