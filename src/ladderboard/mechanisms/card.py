"""A mechanism's card: everything it contributes besides its algorithm.

A card holds a mechanism's participant-facing words and where it belongs:
its title and plain-words gist, the sentences a team reads after each
submission (:class:`Wording`, filled with the competition's parameters), its
section of the "How this leaderboard works" page (:class:`HowSection`), and
its family, the name the advisor and ``ladderboard advise --family`` group it
under. Each mechanism class points to its card (``card = ...`` in the class
body); the cards of the package's own mechanisms are declared beside their
classes, in ``ladder_cards.py``, ``shaky_cards.py``, ``boot_cards.py`` and
``thresholdout.py``. Its traits, what the shared checks and tests select
mechanisms by, are the class's own declarations, read by
:func:`ladderboard.mechanisms.traits.traits_of`.

Readers go through the registry, never through a list of names:
:mod:`ladderboard.rules.explain` takes a card's wording, the how page loops
over :func:`~ladderboard.mechanisms.traits.competition_cards`, the advisor's
families are :func:`~ladderboard.mechanisms.traits.families`, and the
shared test suite picks mechanisms with
:func:`~ladderboard.mechanisms.traits.select`.

Adding a mechanism
------------------
A new mechanism is its class, its card and its test; the files it touches:

1. ``src/ladderboard/mechanisms/<module>.py``: its class, a subclass of
   :class:`~ladderboard.mechanisms.Mechanism` with a registry ``name`` (it
   registers itself on creation), keyword-only parameters, and its traits
   declared as class attributes (``stochastic``, ``input_kind``,
   ``loss_bounds``, ``release_is_current_best``, ``release_hides_decision``,
   ``noisy_comparison``, ``takes_training_estimate``); ``_unit_test_params``
   if a parameter is required. Export it from
   ``src/ladderboard/mechanisms/__init__.py``.
2. ``src/ladderboard/mechanisms/<module>_cards.py``: its :class:`Card`
   (title, gist, family, order; for a mechanism a competition can run, the
   ``words`` after a submission and the how page's :class:`HowSection`),
   set as ``card`` in the class body.
3. ``tests/mechanisms/test_<module>.py``: what its paper says it does.

Nothing else names it. The shared checks
(:func:`ladderboard.mechanisms.checks.check_mechanism`, run over the
registry by ``tests/mechanisms/test_checks.py``) and the trait-selected
suites (``tests/mechanisms/test_base.py``, ``tests/rules``) test it the
moment it is registered; the explanations, the how page and the families
read its card. Two tests then ask for a deliberate step: the golden
histories (``python tests/golden_histories.py`` records its releases,
leaving every other one as it was), and, for a new family, a setting of it
in the advisor's grid (``ladderboard.advisor.grid.default_grid``).

>>> from ladderboard.mechanisms import Ladder
>>> Ladder.card.title, Ladder.card.family
('The Ladder', 'ladder')
>>> Ladder.card.words({"eta": 0.01}).margin
' by more than the step 0.01'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["OWN_SCORE", "Card", "HowSection", "Wording", "plain_number"]


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
        parameters (every parameter present, ``None`` for one left open or
        settled from the holdout); ``None`` for a mechanism no competition runs.
    how : HowSection or None
        Its section of the how page; ``None`` for a mechanism no competition runs.
    """

    title: str
    gist: str
    family: str | None
    order: int
    words: Callable[[Mapping[str, Any]], Wording] | None = None
    how: HowSection | None = None


def plain_number(x: float) -> str:
    """A parameter in plain digits: 0.00001, not 1e-05; three significant ones.

    >>> plain_number(1e-5), plain_number(0.123456)
    ('0.00001', '0.123')
    """
    return np.format_float_positional(float(x), precision=3, fractional=False, trim="-")
