"""A mechanism's card: everything it contributes besides its algorithm.

A card holds a mechanism's participant-facing words and where it belongs:
its title and plain-words gist, the sentences a team reads after each
submission (:class:`Wording`, filled with the competition's parameters), its
section of the "How this leaderboard works" page (:class:`HowSection`), and
its family, the name the advisor and ``ladderboard advise --family`` group it
under. Each mechanism class points to its card (``card = ...`` in the class
body); the cards of the package's own mechanisms are declared beside their
classes, in ``ladder_cards.py``, ``shaky_card.py``, ``boot_cards.py`` and
``thresholdout.py``. Its traits, what the shared checks and tests select
mechanisms by, are the class's own declarations, read by :func:`traits_of`.

Readers go through the registry, never through a list of names:
:mod:`ladderboard.rules.explain` takes a card's wording, the how page loops
over :func:`competition_cards`, the advisor's families are :func:`families`,
and the shared test suite picks mechanisms with :func:`select`.

Adding a mechanism
------------------
A new mechanism is its class, its card and its test:

1. its class, in ``src/ladderboard/mechanisms/<module>.py`` (a subclass of
   :class:`~ladderboard.mechanisms.Mechanism` with a registry ``name``; it
   registers itself on creation), exported from
   ``src/ladderboard/mechanisms/__init__.py``;
2. its card, a :class:`Card` beside the class (``<module>_cards.py``), set as
   ``card`` in the class body: title, gist, family, order, the wording
   after a submission and the how page's section (these two for a mechanism a
   competition can run);
3. its test, ``tests/mechanisms/test_<module>.py``, for what its paper says
   it does. The shared suite (``tests/mechanisms/test_base.py``,
   :func:`ladderboard.mechanisms.checks.check_mechanism`) checks its contract
   the moment it is registered; the explanations, the how page and the
   advisor's family list pick it up from the card.

>>> from ladderboard.mechanisms import Ladder
>>> Ladder.card.title, Ladder.card.family
('The Ladder', 'ladder')
>>> traits_of(Ladder).releases, traits_of(Ladder).stochastic
('best', False)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ladderboard.mechanisms.base import COMPETITION_MECHANISMS, MECHANISMS, Mechanism, _param_names
from ladderboard.mechanisms.parameters import REQUIRED

__all__ = [
    "Card",
    "HowSection",
    "Traits",
    "Wording",
    "card_problems",
    "competition_cards",
    "families",
    "given",
    "plain_number",
    "select",
    "traits_of",
]


@dataclass(frozen=True)
class Wording:
    """What one mechanism says after a submission, its parameters filled in.

    ``first`` and ``better`` follow a sentence giving the score; ``same`` and
    ``worse`` are whole sentences with ``{released}`` and ``{previous}`` to
    fill; ``margin`` completes "a file beats X ..."; ``shown`` says what a
    file that takes no rank on a per-rank board is answered with;
    ``previous`` names the score the board showed before; ``start`` is the
    score a board shows before any submission, if it shows one; ``opening``
    follows ``first`` on a team's own board, where a first file may meet a
    baseline instead of nothing. ``plain`` is what the mechanism does in
    everyday words, read before ``describe``'s precise statement. ``lead``
    opens the answer to a file that moved the score the better way,
    ``first_lead`` the answer to a team's first file. ``moved``, on a board
    that answers every file with a fresh estimate of the team's best, is the
    one answer to every later file: there a changed number says nothing of
    the file just sent, so the answer never says better or worse.
    """

    describe: str
    margin: str
    first: str
    better: str
    same: str
    worse: str
    shown: str = "that rank's public score"
    previous: str = "your previous"
    start: float | None = None
    opening: str = ""
    plain: str = ""
    lead: str = "Your team's board score is now {released}, better than {previous}."
    first_lead: str = "Your team's first board score: {released}."
    moved: str | None = None


OWN_SCORE = "this file's score"
"""What a full-disclosure mechanism answers on a per-rank board, whatever the
rank: the file's own score (:attr:`Wording.shown`)."""


@dataclass(frozen=True)
class HowSection:
    """A mechanism's section of the how-it-works page, below its title and gist.

    Each field is an HTML fragment written here (never from input), so the
    page inserts it as it is: ``released`` says what is released,
    ``changes`` when a team's score changes and why, ``rank_accepts`` which
    file a rank accepts on a per-rank board and ``rank_answer`` what a file
    that takes no rank is shown there; ``reference`` cites the paper.
    """

    released: str
    changes: str
    rank_accepts: str
    rank_answer: str
    reference: str


@dataclass(frozen=True)
class Card:
    """What a mechanism contributes besides its algorithm.

    Attributes
    ----------
    title : str
        Its name for a participant ("The Ladder").
    gist : str
        One sentence in everyday words, free of jargon: what a participant
        reads first about it.
    family : str or None
        The group the advisor compares and ``ladderboard advise --family``
        names it by (variants of one idea share a family); ``None`` for a
        mechanism the advisor does not compare.
    order : int
        Where it comes in every list a reader sees (the how page, the
        families), plainest first.
    words : callable or None
        ``words(params)`` returns its :class:`Wording` for a competition's
        parameters (every parameter present, :data:`~ladderboard.mechanisms.REQUIRED`
        for one settled from the holdout); ``None`` for a mechanism no
        competition runs.
    how : HowSection or None
        Its section of the how page; ``None`` for a mechanism no competition runs.
    """

    title: str
    gist: str
    family: str | None
    order: int
    words: Callable[[Mapping[str, Any]], Wording] | None = None
    how: HowSection | None = None


@dataclass(frozen=True)
class Traits:
    """What a mechanism declares about itself, for selecting it in checks and
    tests without naming it.

    ``input_kind`` is ``"losses"`` or ``"predictions"``; ``releases`` is
    ``"best"`` when each release states the team's current best (the
    ladders) and ``"own"`` when it is the file's own score (full
    disclosure); ``hides_decision`` when every file is answered with a fresh
    estimate of the best (bootstrap releases); ``competition`` when a
    competition can run it; ``floor`` when it takes a ``floor`` parameter;
    ``loss_bounded`` when it needs losses in a bounded range.
    """

    stochastic: bool
    input_kind: Literal["losses", "predictions"]
    releases: Literal["best", "own"]
    hides_decision: bool
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
    """Every mechanism a competition can run, by name, with its card, in the
    cards' order (the how page's)."""
    pairs = [(name, klass.card) for name, klass in COMPETITION_MECHANISMS.items()]
    missing = sorted(name for name, card in pairs if card is None)
    if missing:
        raise ValueError(f"mechanisms without a card: {missing}")
    return {name: card for name, card in sorted(pairs, key=lambda p: (p[1].order, p[0]))}  # type: ignore[union-attr]


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


def plain_number(x: float) -> str:
    """A parameter in plain digits: 0.00001, not 1e-05; three significant ones.

    >>> plain_number(1e-5), plain_number(0.123456)
    ('0.00001', '0.123')
    """
    return np.format_float_positional(float(x), precision=3, fractional=False, trim="-")


def given(params: Mapping[str, Any], name: str) -> Any:
    """The parameter's value, ``None`` if the mechanism settles it or none is given."""
    value = params.get(name)
    return None if value is REQUIRED else value
