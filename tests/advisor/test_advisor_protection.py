"""The advisor's protection measure: the attack suite's gap (true minus released
loss) against full disclosure, the parameter-free Ladder and the Shaky Ladder,
with margins set from repeated runs (Blum & Hardt 2015, Sec. 5; Hardt 2017)."""

import numpy as np
import pytest

from ladderboard.advisor.grid import default_grid, scoring_rule, shaky_setting
from ladderboard.advisor.protection import attack_gaps, attacks_for, make_attack_data

RULE = scoring_rule("accuracy")
GRID = {s.label: s for s in default_grid(RULE)}
SEEDS = (0, 1, 2)
N, K = 1000, 200


@pytest.fixture(scope="module")
def gaps():
    """``{(setting, attack): [gap per seed]}`` at n = 1000, k = 200."""
    out = {}
    for seed in SEEDS:
        data = make_attack_data(RULE, n=N, n_private=2 * N, k=K, random_state=seed)
        for label in ("Kaggle 1e-5", "PF Ladder", "Shaky σ=1 λ=2"):
            for attack, gap in attack_gaps(
                GRID[label], RULE, data, k=K, random_state=seed + 100
            ).items():
                out.setdefault((label, attack), []).append(gap)
    return out


def _strongest(gaps, label):
    attacks = [a for s, a in gaps if s == label]
    return max(np.mean(gaps[(label, a)]) for a in attacks)


def test_full_disclosure_concedes_much_and_the_ladder_little(gaps):
    """Over seeds 0-5 the boosting gap was 0.092-0.122 under Kaggle 1e-5
    (the paper's √(k/n) regime) and 0.030-0.055 under the parameter-free
    Ladder; the strongest attack's mean 0.126 against 0.043."""
    kaggle = gaps[("Kaggle 1e-5", "boosting")]
    ladder = gaps[("PF Ladder", "boosting")]
    assert min(kaggle) > 0.07
    assert max(ladder) < 0.07
    assert _strongest(gaps, "Kaggle 1e-5") > _strongest(gaps, "PF Ladder") + 0.04


def test_the_shifted_majority_attack_beats_faithful_boards_not_the_shaky_ladder(gaps):
    """Hardt 2017, Sec. 3-4: the shifted attack needs exact answers. Over seeds
    0-5 its gap was 0.080-0.096 under Kaggle 1e-5, 0.009-0.032 under the
    parameter-free Ladder and -0.062-0.000 under the Shaky default."""
    assert min(gaps[("Kaggle 1e-5", "shifted majority")]) > 0.06
    assert max(gaps[("Shaky σ=1 λ=2", "shifted majority")]) < 0.01
    assert np.mean(gaps[("PF Ladder", "shifted majority")]) > np.mean(
        gaps[("Shaky σ=1 λ=2", "shifted majority")]
    )


def test_attacks_by_metric_and_board():
    boot = GRID["LadderBoot b=100"]
    assert attacks_for(GRID["Kaggle 1e-5"], RULE) == [
        "boosting",
        "generalized boosting",
        "majority",
        "shifted majority",
    ]
    assert attacks_for(boot, RULE)[-1] == "boosting + averaging"
    assert attacks_for(GRID["BayesBoot"], RULE) == ["boosting", "generalized boosting"]
    mse = scoring_rule("mse")
    assert attacks_for(boot, mse) == ["Freedman", "Freedman + averaging"]
    assert not any(s.family == "shaky-ladder" for s in default_grid(mse))


def test_gaps_are_seeded_and_finite():
    data = make_attack_data(RULE, n=200, n_private=400, k=30, random_state=5)
    setting = shaky_setting(1, 2)
    first = attack_gaps(setting, RULE, data, k=30, random_state=9)
    again = attack_gaps(setting, RULE, data, k=30, random_state=9)
    other = attack_gaps(setting, RULE, data, k=30, random_state=10)
    assert first == again != other
    assert all(np.isfinite(v) and -1 <= v <= 1 for v in first.values())


@pytest.mark.parametrize("metric", ["log_loss", "mse"])
def test_other_metrics_run_every_family(metric):
    rule = scoring_rule(metric)
    data = make_attack_data(rule, n=60, n_private=120, k=12, random_state=0)
    for setting in default_grid(rule):
        if setting.label not in {
            "Kaggle 1e-5",
            "Shaky σ=1 λ=2",
            "LadderBoot b=10",
            "BayesBootBoot b=100",
        }:
            continue
        gaps = attack_gaps(setting, rule, data, k=12, random_state=1)
        assert set(gaps) == set(attacks_for(setting, rule))
        assert all(np.isfinite(v) for v in gaps.values()), (setting.label, gaps)


def test_bad_metric_is_refused():
    with pytest.raises(ValueError, match="metric must be one of"):
        scoring_rule("f1")
    with pytest.raises(TypeError, match="metric"):
        scoring_rule(3)
