"""The honest-teams model: its losses match their expectations, and full
disclosure on a large holdout serves honest teams where a very noisy Shaky
Ladder does not."""

import math

import numpy as np
import pytest

from ladderboard.advisor.grid import default_grid, scoring_rule, shaky_setting
from ladderboard.advisor.honest import (
    HonestTeams,
    _delays,
    _true_improvements,
    expected_loss,
    honest_utility,
    simulate_teams,
)

RULE = scoring_rule("zero_one")
KAGGLE = default_grid(RULE, families=["full-disclosure"])[0]
MODEL = HonestTeams(teams=8, submissions=16)
SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def utilities():
    """Full disclosure (1e-5) and the Shaky Ladder at noise and step 10/√n on
    n = 20000 public and 20000 private labels, per seed."""
    out = {"kaggle": [], "noisy": []}
    for seed in SEEDS:
        data = simulate_teams(RULE, n=20000, n_private=20000, model=MODEL, random_state=seed)
        out["kaggle"].append(honest_utility(KAGGLE, RULE, data, model=MODEL, random_state=seed))
        out["noisy"].append(
            honest_utility(shaky_setting(10, 10), RULE, data, model=MODEL, random_state=seed)
        )
    return out


def test_full_disclosure_on_a_large_holdout_shows_nearly_every_improvement(utilities):
    """Over seeds 0-5: tau 0.86-1.00, share released 0.92-1.00, delay 1."""
    for u in utilities["kaggle"]:
        assert u["tau"] > 0.85
        assert u["share_released"] > 0.93
        assert u["median_delay"] == 1.0
        assert u["n_improvements"] > 20


def test_a_very_noisy_shaky_ladder_hides_improvements(utilities):
    """Over seeds 0-5: tau 0.34-0.70 (full disclosure's mean 0.96, the noisy
    board's 0.50), share released 0.08-0.33, delay 2 to never."""
    for kaggle, noisy in zip(utilities["kaggle"], utilities["noisy"], strict=True):
        assert noisy["share_released"] < 0.45
        assert noisy["share_released"] < kaggle["share_released"] - 0.5
        assert noisy["median_delay"] > 1
    tau = {board: np.mean([u["tau"] for u in utilities[board]]) for board in utilities}
    assert tau["noisy"] < tau["kaggle"] - 0.2


@pytest.mark.parametrize("score", ["zero_one", "log_loss", "squared"])
def test_simulated_losses_have_their_expected_values(score):
    rule = scoring_rule(score)
    model = HonestTeams(teams=3, submissions=4)
    data = simulate_teams(rule, n=500, n_private=20000, model=model, random_state=3)
    assert data.predictions.shape == (3, 4, 500)
    assert np.allclose(data.private, data.expected, rtol=0.1, atol=0.01)


def test_expected_loss_by_hand():
    assert expected_loss(RULE, [0.0])[0] == 0.5
    assert math.isclose(expected_loss(scoring_rule("squared"), [0.5])[0], math.exp(-1))
    log = expected_loss(scoring_rule("log_loss"), [0.0, 1.0])
    assert log[0] > log[1] > 0  # more skill, lower loss


def test_improvements_and_delays_by_hand():
    expected = np.array([[0.40, 0.38, 0.385, 0.30, 0.299]])
    events = _true_improvements(expected, 0.01)
    assert events.tolist() == [[False, True, False, True, False]]  # 0.299: under 1 %
    accepted = np.array([[True, False, False, True, False]])
    assert _delays(events, accepted).tolist() == [3.0, 1.0]
    assert _delays(events, np.zeros_like(accepted)).tolist() == [math.inf, math.inf]


def test_model_parameters_are_checked():
    with pytest.raises(ValueError, match="teams"):
        HonestTeams(teams=1)
    with pytest.raises(ValueError, match="correlation"):
        HonestTeams(correlation=1.0)
    with pytest.raises(TypeError, match="submissions"):
        HonestTeams(submissions=2.5)
