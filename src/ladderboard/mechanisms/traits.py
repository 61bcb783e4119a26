"""What the shared checks and tests select mechanisms by, and the registry's
cards in the order a reader sees them.

A mechanism's traits are its class's own declarations (``stochastic``,
``input_kind``, ``release_is_current_best``, ...), gathered in one record by
:func:`traits_of`, so that a check or a test asks for "every stochastic
mechanism" or "every mechanism releasing the current best" and a new
mechanism joins it the moment it is registered (:func:`select`). Its card
(:mod:`ladderboard.mechanisms.card`) is read here for the lists a reader
sees: :func:`competition_cards` (the how page) and :func:`families` (the
advisor's and ``ladderboard advise --family``'s).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ladderboard.mechanisms.base import COMPETITION_MECHANISMS, MECHANISMS, Mechanism, _param_names
from ladderboard.mechanisms.card import Card, HowSection

__all__ = [
    "Traits",
    "card_problems",
    "competition_cards",
    "families",
    "select",
    "traits_of",
]


@dataclass(frozen=True)
class Traits:
    """What a mechanism declares about itself, for selecting it in checks and
    tests without naming it.

    ``input_kind`` is ``"losses"`` or ``"predictions"``; ``releases`` is
    ``"best"`` when each release states the team's current best (the
    ladders) and ``"own"`` when it is the file's own score (full
    disclosure); ``hides_decision`` when every file is answered with a fresh
    estimate of the best (bootstrap releases); ``noisy_comparison`` when a
    file is taken as the best on scores with noise added, so that the best
    may get worse (the Shaky Ladder); ``competition`` when a
    competition can run it; ``floor`` when it takes a ``floor`` parameter;
    ``loss_bounded`` when it needs losses in a bounded range.
    """

    stochastic: bool
    input_kind: Literal["losses", "predictions"]
    releases: Literal["best", "own"]
    hides_decision: bool
    noisy_comparison: bool
    competition: bool
    floor: bool
    loss_bounded: bool


def traits_of(klass: type[Mechanism]) -> Traits:
    """The traits ``klass`` declares (its class attributes and parameters).

    >>> from ladderboard.mechanisms import FullDisclosure
    >>> traits_of(FullDisclosure).releases
    'own'
    """
    lo, hi = klass.loss_bounds
    return Traits(
        stochastic=bool(klass.stochastic),
        input_kind="predictions" if klass.input_kind == "predictions" else "losses",
        releases="best" if klass.release_is_current_best else "own",
        hides_decision=bool(klass.release_hides_decision),
        noisy_comparison=bool(klass.noisy_comparison),
        competition=not klass.takes_training_estimate,
        floor="floor" in _param_names(klass),
        loss_bounded=bool(lo > -np.inf or hi < np.inf),
    )


def select(**wanted: Any) -> list[str]:
    """The registered mechanisms whose traits match every one of ``wanted``
    (:class:`Traits` fields), by name, sorted.

    >>> select(competition=True, input_kind="predictions", stochastic=False)
    ['metric-full-disclosure']
    """
    fields = set(Traits.__dataclass_fields__)
    unknown = sorted(set(wanted) - fields)
    if unknown:
        raise ValueError(f"unknown trait(s) {unknown}; known: {sorted(fields)}")
    return sorted(
        name
        for name, klass in MECHANISMS.items()
        if all(getattr(traits_of(klass), key) == value for key, value in wanted.items())
    )


def competition_cards() -> dict[str, Card]:
    """Every mechanism a competition can run that declares a card of its own,
    by name, in the cards' order (the how page's).

    A mechanism without a card (one registered by defining a subclass in a
    notebook, say) and a subclass that only inherits its parent's card are
    left out rather than refused: this is read while a page is served, and a
    second section under the parent's title would mislead. The package's own
    mechanisms are held to a complete card by
    :func:`ladderboard.mechanisms.checks.check_mechanism`.
    """
    cards = {
        name: klass.__dict__["card"]
        for name, klass in COMPETITION_MECHANISMS.items()
        if isinstance(klass.__dict__.get("card"), Card)
    }
    return dict(sorted(cards.items(), key=lambda item: (item[1].order, item[0])))


def families() -> tuple[str, ...]:
    """The mechanism families a competition can run, in the cards' order, each
    once.

    >>> families()
    ('full-disclosure', 'ladder', 'parameter-free-ladder', 'significance-ladder', \
'shaky-ladder', 'ladder-boot', 'bayes-boot')
    """
    out: list[str] = []
    for card in competition_cards().values():
        if card.family is not None and card.family not in out:
            out.append(card.family)
    return tuple(out)


def card_problems(klass: type[Mechanism]) -> list[str]:
    """What is missing from ``klass``'s card, in sentences (empty if nothing).

    A mechanism a competition can run needs the wording after a submission and
    its section of the how page; every mechanism needs a title, a gist and an
    order.
    """
    card = getattr(klass, "card", None)
    kind = klass.__name__
    if card is None:
        return [f"{kind} has no card: set `card = Card(...)` in its class body"]
    if not isinstance(card, Card):
        return [f"{kind}.card must be a Card, got {type(card).__name__}"]
    problems = [
        f"{kind}.card.{field} is empty"
        for field in ("title", "gist")
        if not isinstance(getattr(card, field), str) or not getattr(card, field).strip()
    ]
    if isinstance(card.order, bool) or not isinstance(card.order, int):
        problems.append(f"{kind}.card.order must be an int, got {card.order!r}")
    if not klass.takes_training_estimate:
        if card.words is None:
            problems.append(f"{kind} runs in competitions but its card has no words")
        if card.how is None:
            problems.append(f"{kind} runs in competitions but its card has no how-page section")
    if card.how is not None:
        problems += [
            f"{kind}.card.how.{field} is empty"
            for field in HowSection.__dataclass_fields__
            if not getattr(card.how, field).strip()
        ]
    return problems
