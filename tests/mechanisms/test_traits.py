"""The registry's traits and cards (:mod:`ladderboard.mechanisms.traits`):
what the shared suite selects mechanisms by, and the lists readers see."""

from __future__ import annotations

import numpy as np
import pytest

from ladderboard.mechanisms import COMPETITION_MECHANISMS, MECHANISMS
from ladderboard.mechanisms.traits import (
    Traits,
    card_problems,
    competition_cards,
    families,
    select,
    traits_of,
)


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_traits_read_the_class_declarations(name):
    klass = MECHANISMS[name]
    traits = traits_of(klass)
    assert isinstance(traits, Traits)
    assert traits.stochastic == klass.stochastic
    assert traits.input_kind == klass.input_kind
    assert (traits.releases == "best") == klass.release_is_current_best
    assert traits.competition == (name in COMPETITION_MECHANISMS)
    assert traits.floor == ("floor" in klass(**_params(klass)).get_params())


def _params(klass):
    params = klass._unit_test_params(20, np.random.default_rng(0))
    return params | ({"random_state": 0} if klass.stochastic else {})


def test_select_partitions_the_registry_and_refuses_an_unknown_trait():
    assert sorted(select(stochastic=True) + select(stochastic=False)) == sorted(MECHANISMS)
    assert select() == sorted(MECHANISMS)
    assert select(releases="own", competition=True) == [
        "full-disclosure",
        "metric-full-disclosure",
    ]
    with pytest.raises(ValueError, match=r"unknown trait\(s\) \['noisy'\]"):
        select(noisy=True)


def test_every_competition_mechanism_has_a_complete_card_in_one_order():
    cards = competition_cards()
    assert set(cards) == set(COMPETITION_MECHANISMS)
    orders = [card.order for card in cards.values()]
    assert orders == sorted(orders) and len(set(orders)) == len(orders)
    assert all(card_problems(MECHANISMS[name]) == [] for name in MECHANISMS)


def test_the_families_are_the_cards_each_once():
    listed = families()
    assert len(set(listed)) == len(listed)
    assert set(listed) == {
        card.family for card in competition_cards().values() if card.family is not None
    }
