"""The public mechanism checks (:mod:`ladderboard.mechanisms.checks`): every
registered mechanism passes each of them, a small mechanism written here
passes them too, and broken variants of it fail with a message that says
what is wrong."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from ladderboard.mechanisms import COMPETITION_MECHANISMS, MECHANISMS, Mechanism, round_to
from ladderboard.mechanisms.card import Card, HowSection, Wording
from ladderboard.mechanisms.checks import MechanismCheckError, check_mechanism, mechanism_checks
from ladderboard.mechanisms.traits import select

CASES = [
    (name, check) for name in sorted(MECHANISMS) for check, _ in mechanism_checks(MECHANISMS[name])
]


@pytest.mark.parametrize(("name", "check"), CASES, ids=[f"{n}-{c}" for n, c in CASES])
def test_every_registered_mechanism_passes_the_check(name, check):
    dict(mechanism_checks(MECHANISMS[name]))[check]()


def test_the_stochastic_checks_follow_the_declared_trait():
    for name in select(stochastic=True):
        assert "check_secret_key_by_default" in dict(mechanism_checks(MECHANISMS[name]))
    for name in select(stochastic=False):
        assert "check_secret_key_by_default" not in dict(mechanism_checks(MECHANISMS[name]))


def test_an_instance_is_checked_with_its_own_parameters():
    check_mechanism(MECHANISMS["ladder"](eta=0.05, n=40))


# ------------------------------------------------------------------ a toy
TOY_CARD = Card(
    title="The rounded best",
    gist="Your public score is your best file's score, rounded to a fixed step.",
    family=None,
    order=1000,
    words=lambda p: Wording(
        describe=f"The best score so far, rounded to {p.get('step')}.",
        margin=" at all",
        first="",
        better="",
        same="Your score stays at {previous}.",
        worse="Your score stays at {previous}.",
    ),
    how=HowSection(
        released="Your best score, rounded.",
        changes="When a file beats your best.",
        rank_accepts="a rank accepts a better file",
        rank_answer="your rank's score",
        reference="After Blum &amp; Hardt, ICML 2015, Appendix A.",
    ),
)


def _toy_classes() -> dict[str, type[Mechanism]]:
    """A small mechanism written outside the package, and broken variants of it."""

    class RoundedBest(Mechanism):
        """The best mean loss so far, rounded to ``step`` (after the Kaggle
        mechanism, Blum & Hardt 2015, App. A)."""

        name = "toy-rounded-best"
        card = TOY_CARD

        def __init__(self, *, step: float = 0.1, n: int | None = None) -> None:
            if not step > 0:
                raise ValueError(f"step must be positive, got {step!r}")
            self.step = float(step)
            super().__init__(n=n)

        def _step(self, x: np.ndarray, total: float, index: int) -> tuple[float, bool]:
            score = total / x.shape[0] + self._noise(index)
            improved = score < self._best
            if improved:
                self._best = score
            return round_to(self._best, self.step), improved

        def _noise(self, index: int) -> float:
            return 0.0

        @property
        def best_score(self) -> float:
            return self._best

        @property
        def resolution(self) -> float:
            return self.step

        def _reset_vars(self) -> None:
            self._best = np.inf

        def _get_vars(self) -> dict[str, Any]:
            return {"best": self._best}

        def _set_vars(self, data: dict[str, Any]) -> None:
            self._best = float(data["best"])

    class NoisyRoundedBest(RoundedBest):
        """The rounded best with seeded noise on each score (after Hardt 2017)."""

        name = "toy-noisy-rounded-best"
        stochastic = True

        def __init__(self, *, step: float = 0.1, n: int | None = None, random_state=None):
            self.step = float(step)
            Mechanism.__init__(self, n=n, random_state=random_state)

        def _noise(self, index: int) -> float:
            return float(self._generator(index).normal(scale=0.05))

    class UnseededNoisyBest(NoisyRoundedBest):
        """Broken: its noise comes from one stream shared by the whole
        process, not from the seed (after Hardt 2017). Each draw moves the
        score by a whole rounding step, so two runs with one seed always
        release different scores and the seed check, not chance, catches it."""

        name = "toy-unseeded-noisy-best"
        _draws = itertools.count(1)

        def _noise(self, index: int) -> float:
            return -self.step * next(self._draws)

    class CardlessBest(RoundedBest):
        """Broken: no card (after Blum & Hardt 2015)."""

        name = "toy-cardless-best"
        card = None

    return {
        "good": RoundedBest,
        "noisy": NoisyRoundedBest,
        "unseeded": UnseededNoisyBest,
        "cardless": CardlessBest,
    }


@pytest.fixture(scope="module")
def toys() -> Iterator[dict[str, type[Mechanism]]]:
    """The toy mechanisms, registered while this module runs and removed
    after, so that no other test sees them."""
    classes = _toy_classes()
    yield classes
    for klass in classes.values():
        MECHANISMS.pop(klass.name, None)
        COMPETITION_MECHANISMS.pop(klass.name, None)


def test_a_mechanism_written_elsewhere_passes_the_checks(toys):
    check_mechanism(toys["good"])
    check_mechanism(toys["noisy"])
    check_mechanism(toys["good"](step=0.05, n=30))


def test_a_mechanism_that_ignores_its_seed_fails_clearly(toys):
    with pytest.raises(MechanismCheckError, match="same random_state gave different releases"):
        check_mechanism(toys["unseeded"])


def test_a_mechanism_without_a_card_fails_clearly(toys):
    with pytest.raises(MechanismCheckError, match=r"check_card: CardlessBest has no card"):
        check_mechanism(toys["cardless"])


def test_what_is_no_mechanism_is_refused():
    with pytest.raises(TypeError, match="Mechanism class or instance"):
        check_mechanism(object)


def test_a_registered_mechanism_is_explained_and_listed_from_its_card(toys):
    """Nothing else names a new mechanism: once registered, the explanations
    and the how page's list read its card."""
    from ladderboard.direction import LOWER_IS_BETTER
    from ladderboard.mechanisms.traits import competition_cards
    from ladderboard.rules.explain import describe, explain

    name = toys["good"].name
    assert describe(name, {"step": 0.1}) == "The best score so far, rounded to 0.1."
    text = explain(name, 0.3, 0.3, direction=LOWER_IS_BETTER, decimals=1)
    assert text == "Your score stays at 0.3."
    assert name in competition_cards()


def test_a_page_lists_no_cardless_or_inherited_card(toys):
    """The how page is read while it is served: a mechanism registered
    without a card of its own (defined in a notebook, a subclass that only
    inherits its parent's) is left out, never a 500 and never a second
    section under the parent's title; check_mechanism is what refuses it."""
    from ladderboard.mechanisms import Ladder
    from ladderboard.mechanisms.traits import competition_cards, families

    class InheritsLadderCard(Ladder):
        name = "toy-inherits-ladder-card"

    try:
        cards = competition_cards()
        assert toys["cardless"].name not in cards
        assert InheritsLadderCard.name not in cards
        assert [c.title for c in cards.values()].count(Ladder.card.title) == 1
        assert "ladder" in families()
    finally:
        MECHANISMS.pop(InheritsLadderCard.name, None)
        COMPETITION_MECHANISMS.pop(InheritsLadderCard.name, None)
