"""The Shaky Ladder's card (Hardt 2017): what it says to a participant
(:mod:`ladderboard.mechanisms.card`). Its releases carry noise, so its words
say that a number is near a file's score, never that it is the score."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ladderboard.mechanisms.card import Card, HowSection, Wording, plain_number

__all__ = ["SHAKY_LADDER_CARD"]

_NOISY_PLAIN = (
    "The board keeps the file it holds as your team's best and shows its score with a little "
    "noise added; a new file replaces it only when it is clearly better, so a better file can "
    "read slightly worse, and the board cannot be climbed by luck or by guessing."
)


def _shaky(p: Mapping[str, Any]) -> Wording:
    step = p.get("step")
    by = "the step 1/√n (n public rows)" if step is None else f"the step {plain_number(step)}"
    noise = "Gaussian" if p.get("noise") == "gaussian" else "Laplace"
    cap = p.get("max_updates")
    at_most = "" if cap is None else f" It changes at most {cap} times in all."
    return Wording(
        plain=_NOISY_PLAIN,
        describe=(
            f"A Shaky Ladder: your public score changes only when a file's score, with noise "
            f"added, beats it by more than {by}, compared with noise added too; what is shown "
            f"carries {noise} noise of its own, so it is near a file's score, not exactly it."
        ),
        margin=f" by more than {by}, with noise added to both",
        first=" It is the file's score with noise added, near it but not exactly it.",
        better=(
            " This file passed the Shaky Ladder's noisy test; the number shown has fresh noise "
            "added, so it is near this file's score, not exactly it (and a better file can "
            "read worse)."
        ),
        same=(
            "Your team's board score stays at {previous}: under the Shaky Ladder a file must "
            f"beat it by more than {by}, compared with noise added, so a small gain can also be "
            "missed." + at_most
        ),
        worse=(
            "Your team's board score moved to {released} from {previous}: a file that passes "
            "the Shaky Ladder's noisy test is shown with fresh noise added, so a file that "
            "passes, even a better one, can read a little worse than the score before."
        ),
        start=1.0,
    )


SHAKY_LADDER_CARD = Card(
    title="The Shaky Ladder",
    gist="Your public score changes only when a file looks clearly better, and the numbers you "
    "are shown are slightly blurred on purpose, so that they give little away.",
    family="shaky-ladder",
    order=60,
    words=_shaky,
    how=HowSection(
        released="""The board starts every team at 1 (losses here lie between 0 and 1). When a
    file passes the test below, its score is released with fresh random noise added and, unless
    the organiser turned this off, rounded to a grid as coarse as the noise (for example
    sixteenths or sixty-fourths), so the board shows no more digits than the noise leaves
    meaningful.""",
        changes="""Only when the file's score, with noise added, beats your current public score
    by more than the step, itself compared with noise added. So a small real gain can be missed,
    a file that is no better can now and then pass, and the same file can get different answers.
    A new public score is near the file's score but not exactly it, and can even land a little
    above the one before. The score changes at most a fixed number of times. The noise is what
    protects the public rows: it makes the board's answers depend very little on any single row,
    which keeps its scores closer to the scores on unseen rows than the Ladder can promise.""",
        rank_accepts="a rank accepts a file that passes the noisy test against that rank's "
        "public score",
        rank_answer="the public score of your own rank, or of the last rank if you have none",
        reference="""Hardt, <cite>Climbing a shaky ladder: Better adaptive risk estimation</cite>,
    2017, Figure 1.""",
    ),
)
