"""A competition's configuration refuses what no competition can run."""

from __future__ import annotations

import pytest

from ladderboard.mechanisms import COMPETITION_MECHANISMS, MECHANISMS
from ladderboard.rules.config import CompetitionConfig


def test_config_refuses_a_mechanism_that_needs_a_training_estimate():
    needing = sorted(set(MECHANISMS) - set(COMPETITION_MECHANISMS))
    assert needing == ["gaussian-thresholdout", "thresholdout"]
    assert all(MECHANISMS[name].takes_training_estimate for name in needing)
    with pytest.raises(ValueError, match=r"training-set estimate .*GuardedHoldout"):
        CompetitionConfig(score="zero_one", mechanism="thresholdout", mechanism_params={})
    for name, klass in COMPETITION_MECHANISMS.items():
        assert not klass.takes_training_estimate, name
