"""The cards of full disclosure and the deterministic ladders (Blum & Hardt
2015; Chaibub Neto et al. 2016, Alg. 3): what each says to a participant
(:mod:`ladderboard.mechanisms.card`).

The words count only what is released: a ladder's release is the team's best
score, so its answers never speak of a file that did not become the best.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ladderboard.mechanisms.card import OWN_SCORE, Card, HowSection, Wording, plain_number

__all__ = [
    "FULL_DISCLOSURE_CARD",
    "LADDER_CARD",
    "METRIC_FULL_DISCLOSURE_CARD",
    "PARAMETER_FREE_LADDER_CARD",
    "SIGNIFICANCE_LADDER_CARD",
    "STEP_PLAIN",
    "floor_clause",
]

STEP_PLAIN = (
    "The board keeps the file it holds as your team's best and shows its score; a new file "
    "replaces it only when it is clearly better, so that the board cannot be climbed by luck "
    "or by guessing."
)
"""What a ladder does, in everyday words (:attr:`Wording.plain`)."""

_PAIRED = "a paired test of its losses against your best file's"
_FULL_RANK = "a rank accepts a file whose score is better than that rank's best"
_FULL_ANSWER = "your file's own score, but your file does not enter the board"
_OWN_RANK = "the public score of your own rank, or of the last rank if you have none"
_BLUM_HARDT = (
    "Blum &amp; Hardt, <cite>The Ladder: A Reliable Leaderboard for Machine Learning\n"
    "    Competitions</cite>, ICML 2015"
)


def floor_clause(p: Mapping[str, Any]) -> str:
    """The floor of a paired-test ladder, as a clause ending its test: a file
    must also beat the best by more than it (empty when there is none)."""
    floor = p.get("floor")
    return "" if floor is None else f", and by more than {plain_number(floor)}"


def _full_disclosure(p: Mapping[str, Any], what: str) -> Wording:
    precision = p.get("precision")
    rounded = f", rounded to {plain_number(precision)}" if precision else ""
    return Wording(
        describe=(
            f"Full disclosure (the Kaggle mechanism): every file's {what} is shown{rounded}, "
            "and the board shows each team's best."
        ),
        margin=" at all",
        first="",
        better="",
        same=(
            "This file scored {released}, the same as your best at the board's precision; "
            "the board shows your best."
        ),
        worse="This file scored {released}, worse than your best {previous}; "
        "the board keeps showing your best.",
        shown=OWN_SCORE,
        previous="your previous best",
        lead="This file scored {released}, better than your previous best {previous}; the "
        "board now shows it.",
        first_lead="This file scored {released}: your first public score.",
    )


FULL_DISCLOSURE_CARD = Card(
    title="Full disclosure (the Kaggle mechanism)",
    gist="Every file you send is answered with its own score, and the board shows your best one.",
    family="full-disclosure",
    order=10,
    words=lambda p: _full_disclosure(p, "score"),
    how=HowSection(
        released="""Every file's own score on the public rows, rounded to the competition's
    precision (five decimals unless the organiser chose otherwise). The board shows your best
    score.""",
        changes="""Each file is answered with its own score. The board changes when a file beats
    your best; a worse file is still answered with its score, but the board keeps showing your
    best. Nothing guards the public rows here: this is the board the Ladder was designed to
    replace, and the one its authors show can be climbed by random guesses.""",
        rank_accepts=_FULL_RANK,
        rank_answer=_FULL_ANSWER,
        reference=f"{_BLUM_HARDT}, Appendix A and Section 5.",
    ),
)

METRIC_FULL_DISCLOSURE_CARD = Card(
    title="Full disclosure of a metric",
    gist="Every file you send is answered with its own score on the competition's metric, and "
    "the board shows your best one.",
    family="full-disclosure",
    order=20,
    words=lambda p: _full_disclosure(p, "score on the metric"),
    how=HowSection(
        released="""Every file's own score on the competition's metric (an AUC, a correlation, an
    error) over the public rows, rounded to the competition's precision. For some metrics higher
    is better, for others lower; the board says which by its order. The board shows your best
    score.""",
        changes="""As under <a href="#full-disclosure">full disclosure</a>: each file is answered
    with its own score, and the board changes when a file beats your best. Nothing guards the
    public rows; competitions use it as the plain baseline that the <a
    href="#bayes-boot-ladder">Bayesian-bootstrap ladders</a> improve on.""",
        rank_accepts=_FULL_RANK,
        rank_answer=_FULL_ANSWER,
        reference="""Blum &amp; Hardt, ICML 2015, Appendix A; Chaibub Neto et al., <cite>Reducing
    overfitting in challenge-based competitions</cite>, 2016, Supplement S2.""",
    ),
)


def _ladder(p: Mapping[str, Any]) -> Wording:
    eta = p.get("eta")
    step = "the step" if eta is None else f"the step {plain_number(eta)}"
    by = "the step" if eta is None else plain_number(eta)
    return Wording(
        plain=STEP_PLAIN,
        describe=(
            f"A Ladder: your public score changes only when a file beats it by more than {by}, "
            f"and it is shown rounded to a multiple of {by}."
        ),
        margin=f" by more than {step}",
        first=f" This is the file's score rounded to a multiple of {by}.",
        better=f" This file beat it by more than {step}.",
        same=(
            "Your team's board score stays at {previous}: under the Ladder a file must beat "
            f"it by more than {step} to change it."
        ),
        worse="Your team's board score is now {released} (it was {previous}).",
    )


LADDER_CARD = Card(
    title="The Ladder",
    gist="Your public score changes only when a file beats it by more than a fixed step, so "
    "small gains are not shown.",
    family="ladder",
    order=30,
    words=_ladder,
    how=HowSection(
        released="""Your best score so far, rounded to a multiple of the competition's step &eta;
    (for example 0.01). The step is shown on the competition's page.""",
        changes="""Only when a file's score beats your current public score by more than &eta;.
    Otherwise the board answers with your previous score again. Gains smaller than the step are
    mostly the noise of which rows happen to be public; refusing them means the board reveals
    little about those rows, and its scores stay close to the scores on rows no one has seen,
    however many files are submitted.""",
        rank_accepts="a rank accepts a file that beats that rank's public score by more than "
        "the step",
        rank_answer=_OWN_RANK,
        reference=f"{_BLUM_HARDT}, Figure 1 and Theorem 3.1.",
    ),
)


def _parameter_free(p: Mapping[str, Any]) -> Wording:
    floor = floor_clause(p)
    return Wording(
        plain=STEP_PLAIN,
        describe=(
            "A parameter-free Ladder: your public score changes only when a file beats it by "
            f"more than the holdout's noise, judged by {_PAIRED}{floor}; scores are shown "
            "rounded to 1/n for n public rows."
        ),
        margin=f" by more than the holdout's noise (a paired test of the losses){floor}",
        first=" This is the file's score rounded to 1/n for n public rows.",
        better=f" This file beat it by more than the holdout's noise ({_PAIRED}){floor}.",
        same=(
            "Your team's board score stays at {previous}: under the parameter-free Ladder a "
            f"file must beat it by more than the noise of the holdout ({_PAIRED}){floor} to "
            "change it."
        ),
        worse="Your team's board score is now {released} (it was {previous}).",
    )


PARAMETER_FREE_LADDER_CARD = Card(
    title="The parameter-free Ladder",
    gist="Your public score changes only when a file is better than your best one by more than "
    "luck on the public rows could explain.",
    family="parameter-free-ladder",
    order=40,
    words=_parameter_free,
    how=HowSection(
        released="Your best score so far, rounded to 1/n, n being the number of public rows.",
        changes="""Only when a file beats your current public score by more than the noise of the
    public rows, measured on your own files: the spread of the row-by-row differences between
    this file's losses and your best file's, divided by &radic;n. This is roughly a one-sided
    paired test. A file that differs little from your best needs only a small gain; one that
    differs a lot needs a larger one; the same file submitted again never changes the score.
    There is no step to choose, and the board reveals little about the public rows, as <a
    href="#ladder">the Ladder</a> does.""",
        rank_accepts="a rank accepts a file that beats that rank's public score by more than "
        "the noise of the public rows, measured against that rank's best file",
        rank_answer=_OWN_RANK,
        reference=f"{_BLUM_HARDT}, Figure 2.",
    ),
)


def _significance(p: Mapping[str, Any]) -> Wording:
    alpha = plain_number(p["alpha"])
    test = (
        f"a one-sided paired t-test of its losses against your best file's, at level {alpha}"
        + floor_clause(p)
    )
    return Wording(
        plain=STEP_PLAIN,
        describe=(
            f"A Ladder at significance level {alpha}: your public score changes only when a "
            f"file beats it in {test}; scores are shown rounded to 1/n for n public rows."
        ),
        margin=f" in a one-sided paired t-test of the losses at level {alpha}{floor_clause(p)}",
        first=" This is the file's score rounded to 1/n for n public rows.",
        better=f" This file beat it in {test}.",
        same=(
            "Your team's board score stays at {previous}: under this Ladder a file must beat it by "
            f"more than the noise of the holdout ({test}) to change it."
        ),
        worse="Your team's board score is now {released} (it was {previous}): the test took this "
        "file as your new best.",
    )


SIGNIFICANCE_LADDER_CARD = Card(
    title="The Ladder at a significance level",
    gist="Your public score changes only when a file is clearly better than your best one, not "
    "just luckily better on a few rows; the competition sets how clear is clear enough.",
    family="significance-ladder",
    order=50,
    words=_significance,
    how=HowSection(
        released="Your best score so far, rounded to 1/n, n being the number of public rows.",
        changes="""Only when a file beats your current public score in a one-sided paired t-test
    of its row-by-row losses against your best file's, at the competition's level &alpha; (0.15
    unless the organiser chose otherwise). The lower &alpha;, the larger the gain it takes. At
    0.15 this is close to <a href="#parameter-free-ladder">the parameter-free Ladder</a>; a
    stricter level reveals even less about the public rows, at the cost of missing more small
    real gains.""",
        rank_accepts="a rank accepts a file that passes the paired t-test against that rank's "
        "best file",
        rank_answer=_OWN_RANK,
        reference="""Chaibub Neto et al., <cite>Reducing overfitting in challenge-based
    competitions</cite>, 2016, Algorithm 3.""",
    ),
)
