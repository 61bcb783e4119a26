"""What a participant is told: how many decimals a release deserves, one
sentence on what a new release means, and one on what a mechanism does.

An explanation is made only from what the team already sees: the score the
board showed for it before the submission, the score released now, and, on a
per-rank board, its rank before and after. It never uses what the organiser
alone knows (whether the mechanism took the file as the team's new best, the
unrounded score, a test statistic). The guarantees count only what is
released: the Ladder's, the bits its releases carry (Blum & Hardt 2015, Claim
3.2); the Shaky Ladder's, the differential privacy of its noisy releases
(Hardt 2017). Under a noisy or bootstrap mechanism, whether a file became the
best cannot be read from the releases, and saying so would tell more.

The sentences themselves are each mechanism's own, on its card
(:attr:`ladderboard.mechanisms.card.Card.words`); this module picks the one
that fits what the team sees, so a new mechanism is explained the moment its
card is declared.

>>> from ladderboard.direction import LOWER_IS_BETTER
>>> print(explain("ladder", 0.28, 0.28, direction=LOWER_IS_BETTER, decimals=2,
...               params={"eta": 0.01}))
Your team's board score stays at 0.28: under the Ladder a file must beat it
by more than the step 0.01 to change it.
>>> print(describe("ladder", {"eta": 0.01}))
The board keeps the file it holds as your team's best and shows its score; a
new file replaces it only when it is clearly better, so that the board cannot
be climbed by luck or by guessing. A Ladder: your public score changes only
when a file beats it by more than 0.01, and it is shown rounded to a multiple
of 0.01.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ladderboard._validation import check_int
from ladderboard.direction import Direction
from ladderboard.mechanisms import COMPETITION_MECHANISMS, MECHANISMS, REQUIRED, parameters_of
from ladderboard.mechanisms.card import OWN_SCORE, Wording
from ladderboard.rules.config import BOARD_MODES, CompetitionConfig

__all__ = [
    "ReleaseWords",
    "calendar_words",
    "describe",
    "display_decimals",
    "explain",
    "release_words",
]

_DIGITS_TOLERANCE = 1e-9
"""Room for the representation error of a step such as 0.01, whose ``-log10``
may come out a hair above 2."""


def display_decimals(resolution: float | None, cap: int) -> int:
    """The decimals that show a release with the precision it really has:
    ``min(cap, ceil(-log10(resolution)))``, at least 0; ``cap`` for a release
    on no grid (``resolution`` ``None``).

    With ``d`` decimals, ``10**-d <= resolution``, so two releases on the grid
    (at least one resolution apart) never print alike, while the digits beyond
    are left out: they would show rounding or noise, not information.

    >>> display_decimals(1 / 16, 5), display_decimals(0.01, 5), display_decimals(1e-5, 8)
    (2, 2, 5)
    >>> f"{0.1875:.{display_decimals(1 / 16, 5)}f}"
    '0.19'
    >>> display_decimals(None, 5), display_decimals(1 / 4000, 3), display_decimals(2.0, 5)
    (5, 3, 0)
    """
    cap = check_int("cap", cap, 0)
    if resolution is None:
        return cap
    if not (isinstance(resolution, int | float) and math.isfinite(resolution) and resolution > 0):
        raise ValueError(f"resolution must be a positive finite number or None, got {resolution!r}")
    digits = math.ceil(-math.log10(resolution) - _DIGITS_TOLERANCE)
    return max(0, min(cap, digits))


# ------------------------------------------------------------------ wordings
def _wording(mechanism: str, params: Mapping[str, Any] | None) -> Wording:
    """The words of ``mechanism``'s card, filled with ``params`` (its defaults
    for those not given)."""
    if mechanism not in MECHANISMS:
        known = ", ".join(sorted(MECHANISMS))
        raise ValueError(f"unknown mechanism {mechanism!r}; known: {known}")
    if mechanism not in COMPETITION_MECHANISMS:
        raise ValueError(
            f"mechanism {mechanism!r} runs in no competition (it takes a training-set "
            "estimate with each submission): there is no board to explain"
        )
    card = MECHANISMS[mechanism].card
    if card is None or card.words is None:
        raise ValueError(
            f"mechanism {mechanism!r} has no words on its card "
            "(ladderboard.mechanisms.card.Card.words)"
        )
    filled: dict[str, Any] = {info.name: info.default for info in parameters_of(mechanism)}
    filled.update(params or {})
    # A parameter settled from the holdout has no value to name yet.
    return card.words({k: None if v is REQUIRED else v for k, v in filled.items()})


# ------------------------------------------------------------------ labels
@dataclass(frozen=True)
class ReleaseWords:
    """How every page, table, chart and export names a release, so that all
    say the same thing of it.

    ``of`` is ``"file"`` when a release is the score of the file just sent
    (full disclosure) and ``"team"`` when it is the team's board score after
    that file: on a ladder a release states the team's current best (Blum &
    Hardt 2015, Fig. 1-2), and under bootstrap releases it is a fresh
    estimate of the best's score at every file (Chaibub Neto et al. 2016,
    Alg. 4 and 6), never a score of a file that did not become the best.
    """

    of: Literal["file", "team"]
    column: str
    result: str
    chart_title: str
    chart_caption: str


_FILE_WORDS = ReleaseWords(
    of="file",
    column="Public score",
    result="This file's public score",
    chart_title="Public score of each file",
    chart_caption="Each point is one file's public score",
)
_TEAM_WORDS = ReleaseWords(
    of="team",
    column="Board score after this file",
    result="Your team's board score",
    chart_title="Your team's board score over time",
    chart_caption="Each point is your team's board score after one file, not that file's own score",
)


_RANK_WORDS = ReleaseWords(
    of="team",
    column="Score shown after this file",
    result="The score shown",
    chart_title="The score shown after each file",
    chart_caption="Each point is the score shown after one file: the score of the rank it "
    "took, or, if it took none, of the last rank it was tested against",
)


def release_words(mechanism: str, board: str = "per-team") -> ReleaseWords:
    """The words for a release of ``mechanism`` (a registry name) on a
    ``board`` of that kind. On a per-rank ladder a file that takes no rank is
    answered with the last rank's score, which may be another team's
    (:mod:`ladderboard.rules.rank_board`).

    >>> release_words("full-disclosure").column, release_words("ladder-boot").column
    ('Public score', 'Board score after this file')
    >>> release_words("ladder-boot", "per-rank").result
    'The score shown'
    """
    if mechanism not in MECHANISMS:
        raise ValueError(f"unknown mechanism {mechanism!r}; known: {', '.join(sorted(MECHANISMS))}")
    if board not in BOARD_MODES:
        raise ValueError(f"board must be one of {BOARD_MODES}, got {board!r}")
    if not MECHANISMS[mechanism].release_is_current_best:
        return _FILE_WORDS
    return _RANK_WORDS if board == "per-rank" else _TEAM_WORDS


# ------------------------------------------------------------------ public
def describe(mechanism: str, params: Mapping[str, Any] | None = None) -> str:
    """What ``mechanism`` (a registry name) does with these parameters (its
    defaults for those not given), for a competition's overview: first in
    everyday words, then precisely.

    >>> print(describe("shaky-ladder", {"step": 0.02}))
    The board keeps the file it holds as your team's best and shows its score
    with a little noise added; a new file replaces it only when it is clearly
    better, so a better file can read slightly worse, and the board cannot be
    climbed by luck or by guessing. A Shaky Ladder: your public score changes
    only when a file's score, with noise added, beats it by more than the step
    0.02, compared with noise added too; what is shown carries Laplace noise of its own, so it
    is near a file's
    score, not exactly it.
    """
    wording = _wording(mechanism, params)
    if not wording.plain:
        return wording.describe
    return f"{wording.plain} {wording.describe}"


def _show(x: float, decimals: int) -> str:
    return "undefined" if math.isnan(x) else f"{x:.{decimals}f}"


def explain(
    mechanism: str,
    released: float,
    previous: float | None,
    *,
    direction: Direction,
    decimals: int,
    params: Mapping[str, Any] | None = None,
    board: str = "per-team",
    rank: int | None = None,
    previous_rank: int | None = None,
) -> str:
    """A short sentence telling a team what its new public score means.

    Parameters
    ----------
    mechanism : str
        The competition's mechanism, a name of :data:`~ladderboard.mechanisms.MECHANISMS`.
    released : float
        The score released for this submission.
    previous : float or None
        The score the board showed for the team before this submission (its
        latest release, or its best one under full disclosure; on a per-rank
        board, its entry's score); ``None`` if it showed none: the team's first
        submission, or, per rank, a team with no entry.
    direction : Direction
        Which way the competition's score improves.
    decimals : int
        The decimals the board shows, :func:`display_decimals` of the
        mechanism's resolution.
    params : mapping, optional
        The mechanism's parameters, to name its step or level; its defaults
        for those not given.
    board : {"per-team", "per-rank"}
        The kind of board.
    rank, previous_rank : int or None
        On a per-rank board, the team's rank after and before this submission
        (``None`` when it has none); both are on the public board.

    >>> from ladderboard.direction import LOWER_IS_BETTER
    >>> print(explain("ladder", 0.24, 0.28, direction=LOWER_IS_BETTER, decimals=2,
    ...               params={"eta": 0.01}))
    Your team's board score is now 0.24, better than 0.28. This file beat it by
    more than the step 0.01.
    >>> print(explain("parameter-free-ladder", 0.3, None, direction=LOWER_IS_BETTER, decimals=4))
    Your team's first board score: 0.3000. This is the file's score rounded to
    1/n for n public rows.
    """
    if board not in BOARD_MODES:
        raise ValueError(f"board must be one of {BOARD_MODES}, got {board!r}")
    if board != "per-rank" and (rank is not None or previous_rank is not None):
        raise ValueError("rank and previous_rank apply to a per-rank board only")
    decimals = check_int("decimals", decimals, 0)
    wording = _wording(mechanism, params)
    if board == "per-rank":
        return _explain_rank(wording, released, previous, rank, previous_rank, direction, decimals)
    if previous is None:
        shown = _show(released, decimals)
        if wording.start is not None and shown == _show(wording.start, decimals):
            kept = wording.same.format(released=shown, previous=shown)
            return f"{kept} The board starts every team at {shown}."
        lead = wording.first_lead.format(released=shown)
        return f"{lead}{wording.first}{wording.opening}"
    return _change(wording, released, previous, direction, decimals)


def _change(
    wording: Wording, released: float, previous: float, direction: Direction, decimals: int
) -> str:
    shown, before = _show(released, decimals), _show(previous, decimals)
    if math.isnan(released):
        return (
            "This file's score is undefined on the holdout (constant predictions under a "
            f"correlation, for example), so it cannot improve on your {before}."
        )
    if wording.moved is not None:
        template = wording.moved
    elif shown == before:
        template = wording.same
    elif direction.better(released, previous):
        return wording.lead.format(released=shown, previous=before) + wording.better
    else:
        template = wording.worse
    return template.format(released=shown, previous=before)


def _explain_rank(
    wording: Wording,
    released: float,
    previous: float | None,
    rank: int | None,
    previous_rank: int | None,
    direction: Direction,
    decimals: int,
) -> str:
    """Per rank (:mod:`ladderboard.rules.rank_board`): a file is tested against
    the ranks from the top, down to the team's own or the last, and takes the
    first whose mechanism accepts it; a file that takes none is answered with
    the release of the last rank it was tested against."""
    shown = _show(released, decimals)
    takes = f"A file takes the highest rank whose best it beats{wording.margin}, or a free rank."
    if rank is None:
        if wording.shown == OWN_SCORE:
            return f"Your file scored {shown} but took no rank: it beat no ranked entry. {takes}"
        answer = wording.shown.replace("that rank", "the last rank")
        return (
            f"Your file took no rank: it did not beat any ranked entry{wording.margin}. "
            f"The score shown, {shown}, is {answer}, not your file's own."
        )
    if previous_rank is None or rank < previous_rank:
        left = (
            ""
            if previous_rank is None
            else f" Your former entry at rank {previous_rank} left the board."
        )
        return (
            f"Your file took rank {rank}, with public score {shown}.{left}{wording.first} {takes}"
        )
    if rank == previous_rank:
        where = f"Your entry keeps rank {rank}."
    else:  # only other teams' files move an entry down
        where = f"Your entry is at rank {rank}: other teams' files took ranks above it."
    if previous is None:
        return f"{where} The score shown is {shown}."
    return f"{where} {_change(wording, released, previous, direction, decimals)}"


def _at(when: Any) -> str:
    return f"{when:%Y-%m-%d %H:%M} UTC"


def calendar_words(config: CompetitionConfig) -> list[str]:
    """The competition's calendar in plain words, one sentence a date: when
    files are taken, when the public board freezes, and what happens to a
    file sent after the private board is published.

    >>> from datetime import datetime, UTC
    >>> config = CompetitionConfig(score="zero_one", mechanism="ladder",
    ...     mechanism_params={"eta": 0.01},
    ...     opens_at=datetime(2026, 3, 1, tzinfo=UTC),
    ...     freeze_at=datetime(2026, 3, 25, tzinfo=UTC),
    ...     deadline=datetime(2026, 4, 1, tzinfo=UTC), late_submissions=True)
    >>> for sentence in calendar_words(config):
    ...     print(sentence)
    Submissions open at 2026-03-01 00:00 UTC; until then teams may register, sign in and download the data, and a file sent is refused without counting against any quota.
    The public board freezes at 2026-03-25 00:00 UTC: from then until the close it shows the standings as they were at the freeze, while every file still counts and each team still sees its own scores.
    No file is taken after the deadline, 2026-04-01 00:00 UTC.
    Once the private board is published, teams may send late files: each is scored on the public and the private rows exactly, shown to its team and on a separate board marked late, and never changes the final ranking.
    """  # noqa: E501
    words = []
    if config.opens_at is not None:
        words.append(
            f"Submissions open at {_at(config.opens_at)}; until then teams may register, sign "
            "in and download the data, and a file sent is refused without counting against "
            "any quota."
        )
    if config.freeze_at is not None:
        words.append(
            f"The public board freezes at {_at(config.freeze_at)}: from then until the close "
            "it shows the standings as they were at the freeze, while every file still counts "
            "and each team still sees its own scores."
        )
    if config.deadline is not None:
        words.append(f"No file is taken after the deadline, {_at(config.deadline)}.")
    else:
        words.append("No deadline is set: the organiser closes the competition.")
    if config.late_submissions:
        words.append(
            "Once the private board is published, teams may send late files: each is scored "
            "on the public and the private rows exactly, shown to its team and on a separate "
            "board marked late, and never changes the final ranking."
        )
    return words
