"""A replay runs a competition's submissions again, so only under mechanisms
a competition can run."""

from __future__ import annotations

import pytest

from ladderboard.mechanisms import COMPETITION_MECHANISMS
from ladderboard.replay.mechanism_choice import choose_mechanisms


def test_mechanism_choice_all_is_every_competition_mechanism():
    chosen = [choice.name for choice in choose_mechanisms(["all"], {})]
    assert chosen == list(COMPETITION_MECHANISMS) and "thresholdout" not in chosen


def test_mechanism_choice_refuses_one_that_needs_a_training_estimate():
    with pytest.raises(ValueError, match="'thresholdout' needs a training-set estimate"):
        choose_mechanisms(["thresholdout"], {})
