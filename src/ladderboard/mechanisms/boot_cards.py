"""The cards of LadderBoot and the Bayesian-bootstrap ladders (Chaibub Neto
et al. 2016, Alg. 4-6): what each says to a participant
(:mod:`ladderboard.mechanisms.card`).

Under bootstrap releases every file is answered with a fresh estimate of the
team's best, so a changed number says nothing of the file just sent: the
answers never say better or worse (:attr:`Wording.moved`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ladderboard.bootstrap import successes_needed
from ladderboard.mechanisms.card import Card, HowSection, Wording, plain_number
from ladderboard.mechanisms.ladder_cards import STEP_PLAIN, floor_clause

__all__ = ["BAYES_BOOT_LADDER_BOOT_CARD", "BAYES_BOOT_LADDER_CARD", "LADDER_BOOT_CARD"]

_FRESH_PLAIN = (
    "The board keeps the file it holds as your team's best, replaces it only when a new file "
    "is clearly better, and answers every file you send with a fresh estimate of your best's "
    "score: the number moves a little each time, whether or not your file was better."
)
_FRESH_SHOWN = "a fresh bootstrap estimate of that rank's score"
_FRESH_ANSWER = (
    "a fresh bootstrap estimate of the score at your own rank, or at the last rank if you have none"
)
_OWN_RANK = "the public score of your own rank, or of the last rank if you have none"
_PAPER = """Chaibub Neto et al., <cite>Reducing overfitting in challenge-based
    competitions</cite>, 2016"""


def _bootstrap_release(b: Any) -> str:
    resamples = "" if b is None else f" (the mean of {b} resamples)"
    return f"a fresh bootstrap estimate of your best file's score{resamples}"


def _moved(fresh: str) -> str:
    """The answer to every file after the first on a board of bootstrap
    releases, ``fresh`` saying what each release is."""
    return (
        "The board's estimate of your team's best is now {released} (it was {previous}), "
        f"{fresh}. It moves with every file you send, whether or not this one improved on "
        "your best."
    )


def _ladder_boot(p: Mapping[str, Any]) -> Wording:
    alpha = plain_number(p["alpha"])
    test = f"a one-sided paired t-test of their losses at level {alpha}{floor_clause(p)}"
    fresh = _bootstrap_release(p.get("b"))
    best = f"your best file changes only when a file beats it in {test}."
    return Wording(
        plain=_FRESH_PLAIN,
        describe=(
            f"LadderBoot: your best file changes only when a file beats it in {test}, and every "
            f"submission is answered with {fresh}, so the number moves a little each time."
        ),
        margin=f" in {test}",
        first=" It is a bootstrap estimate of this file's score, near it but not exactly it.",
        better=(
            f" LadderBoot answers every file with {fresh}, so a small change need not mean a new "
            f"best: {best}"
        ),
        same="",
        worse="",
        shown=_FRESH_SHOWN,
        moved=f"{_moved(fresh)} {best[0].upper()}{best[1:]}",
    )


LADDER_BOOT_CARD = Card(
    title="LadderBoot",
    gist="Your best file changes only when a file is clearly better than it, not just luckily "
    "better on a few rows; every answer is an estimate of that file's score that varies a "
    "little each time.",
    family="ladder-boot",
    order=70,
    words=_ladder_boot,
    how=HowSection(
        released="""Every submission is answered with a fresh bootstrap estimate of your best
    file's score: the average of its score over many random resamplings of the public rows. The
    number moves a little every time, even when your best file has not changed.""",
        changes="""Your best file changes only when a file beats it in a one-sided paired t-test
    of their row-by-row losses at the competition's level &alpha;, as in <a
    href="#significance-ladder">the Ladder at a significance level</a>. Because every answer is
    a fresh estimate, a small move up or down does not tell you whether your file became your
    best; that uncertainty is what makes the public rows hard to fit through the board.""",
        rank_accepts="a rank accepts a file that passes the paired t-test against that rank's "
        "best file",
        rank_answer=_FRESH_ANSWER,
        reference=f"{_PAPER}, Algorithm 4.",
    ),
)


def _bayes_test(p: Mapping[str, Any]) -> str:
    B, po = p.get("B"), p.get("po_threshold")
    if B is None or po is None:
        return "the Bayesian-bootstrap test" + floor_clause(p)
    needed = successes_needed(int(B), float(po))
    return (
        f"the Bayesian-bootstrap test (better in at least {needed} of {B} random reweightings "
        f"of the holdout){floor_clause(p)}"
    )


def _baseline(p: Mapping[str, Any], what: str) -> str:
    if p.get("baseline") is None:
        return ""
    return f" If this file did not beat the competition's baseline, it {what} instead."


def _bayes_boot(p: Mapping[str, Any]) -> Wording:
    test = _bayes_test(p)
    return Wording(
        plain=STEP_PLAIN,
        describe=(
            f"A Bayesian-bootstrap Ladder: your public score changes only when a file beats "
            f"your best in {test}; scores are shown rounded to 1/n for n public rows."
        ),
        margin=f" in {test}",
        first=" This is the file's score rounded to 1/n for n public rows.",
        opening=_baseline(p, "is the baseline's score"),
        better=f" This file beat your best in {test}.",
        same=(
            "Your team's board score stays at {previous}: a file changes it only when it beats "
            f"your best in {test}."
        ),
        worse=(
            "Your team's board score is now {released} (it was {previous}): this file beat your "
            f"best in {test}, although its score on the whole holdout is worse."
        ),
    )


BAYES_BOOT_LADDER_CARD = Card(
    title="The Bayesian-bootstrap Ladder",
    gist="Your public score changes only when a file beats your best one on the public rows as "
    "a whole, not just on a few lucky rows; it works for any kind of score.",
    family="bayes-boot",
    order=80,
    words=_bayes_boot,
    how=HowSection(
        released="""Your best file's score on the competition's metric, rounded to 1/n, n being
    the number of public rows. It works for metrics that are not an average over rows, such as
    an AUC or a correlation.""",
        changes="""Only when a file beats your best in the Bayesian bootstrap: the public rows are
    given random weights many times (1000 unless the organiser chose otherwise), and the file
    must score better than your best under enough of these weightings that the odds in its
    favour reach the competition's threshold (5.67 by default, which takes about 85 in 100). A
    gain that holds only on a few lucky rows does not pass. The organiser may also set a
    baseline prediction that your first file must beat; until one does, you are shown the
    baseline's score.""",
        rank_accepts="a rank accepts a file that beats that rank's best file in the Bayesian "
        "bootstrap",
        rank_answer=_OWN_RANK,
        reference=f"{_PAPER}, Algorithm 5.",
    ),
)


def _bayes_boot_boot(p: Mapping[str, Any]) -> Wording:
    test = _bayes_test(p)
    fresh = _bootstrap_release(p.get("b"))
    moves = (
        f"this Ladder answers every file with {fresh}, so the number moves a little each "
        f"time; your best file changes only when a file beats it in {test}."
    )
    return Wording(
        plain=_FRESH_PLAIN,
        describe=(
            f"A Bayesian-bootstrap Ladder with bootstrap releases: your best file changes only "
            f"when a file beats it in {test}, and every submission is answered with {fresh}."
        ),
        margin=f" in {test}",
        first=" It is a bootstrap estimate of this file's score, near it but not exactly it.",
        better=" A small change need not mean a new best: " + moves,
        same="",
        worse="",
        moved=f"{_moved(fresh)} Your best file changes only when a file beats it in {test}.",
        shown=_FRESH_SHOWN,
        opening=_baseline(p, "estimates the baseline's score"),
    )


BAYES_BOOT_LADDER_BOOT_CARD = Card(
    title="The Bayesian-bootstrap Ladder with bootstrap releases",
    gist="Your best file changes only when a file beats it on the public rows as a whole, not "
    "just on a few lucky rows; every answer is an estimate of that file's score that varies a "
    "little each time.",
    family="bayes-boot",
    order=90,
    words=_bayes_boot_boot,
    how=HowSection(
        released="""Every submission is answered with a fresh bootstrap estimate of your best
    file's score on the competition's metric: the average of the metric over many random
    resamplings of the public rows. The number moves a little every time, even when your best
    file has not changed.""",
        changes="""Your best file changes only when a file beats it in the Bayesian bootstrap, as
    in <a href="#bayes-boot-ladder">the Bayesian-bootstrap Ladder</a>. Because every answer is a
    fresh estimate, a small move up or down does not tell you whether your file became your
    best, which makes the public rows hard to fit through the board.""",
        rank_accepts="a rank accepts a file that beats that rank's best file in the Bayesian "
        "bootstrap",
        rank_answer=_FRESH_ANSWER,
        reference=f"{_PAPER}, Algorithm 6.",
    ),
)
