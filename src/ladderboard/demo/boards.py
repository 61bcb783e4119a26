"""The demo's two boards and the words that explain them to a participant.

The ``kaggle`` competition runs on :class:`~ladderboard.mechanisms.FullDisclosure`,
Kaggle's board (every public score shown exactly). The ``default`` competition
runs on ladderboard's default board, :data:`ladderboard.recommended.RECOMMENDED`,
with its parameters made explicit for the demo's public rows
(:func:`default_board`): the demo shows what an organiser gets by not
choosing.
"""

from __future__ import annotations

from typing import Any

from ladderboard._validation import check_int
from ladderboard.mechanisms.base import MECHANISMS

__all__ = [
    "BOARDS",
    "DEFAULT",
    "KAGGLE",
    "board_mechanisms",
    "board_text",
    "board_title",
    "default_board",
]

KAGGLE = "kaggle"
"""The slug of the competition on Kaggle's board."""

DEFAULT = "default"
"""The slug of the competition on ladderboard's default board."""

BOARDS = (KAGGLE, DEFAULT)
"""The two competitions the demo plays and closes, by slug."""


def default_board(n_public: int) -> tuple[str, dict[str, Any]]:
    """ladderboard's default board at ``n_public`` public rows, as
    ``(mechanism, params)`` with every parameter explicit
    (:meth:`~ladderboard.recommended.Recommended.params_at`).

    >>> from ladderboard.recommended import RECOMMENDED
    >>> mechanism, params = default_board(171)
    >>> mechanism == RECOMMENDED.mechanism
    True
    """
    from ladderboard import recommended

    n_public = check_int("n_public", n_public, 1)
    default = recommended.RECOMMENDED
    return default.mechanism, dict(default.params_at(n_public))


def board_mechanisms(n_public: int) -> dict[str, tuple[str, dict[str, Any]]]:
    """Each competition's ``(mechanism, params)``, by slug (see :data:`BOARDS`)."""
    return {KAGGLE: ("full-disclosure", {}), DEFAULT: default_board(n_public)}


def board_title(mechanism: str) -> str:
    """A mechanism's class name, as the papers and the API docs name it.

    >>> board_title("full-disclosure"), board_title("ladder")
    ('FullDisclosure', 'Ladder')
    """
    return MECHANISMS[mechanism].__name__


def _shown(params: dict[str, Any]) -> str:
    return ", ".join(f"{name} = {value}" for name, value in params.items() if value is not None)


def board_text(mechanism: str, params: dict[str, Any]) -> str:
    """What a participant reads about the board in a competition's overview.

    >>> print(board_text("ladder", {"eta": 0.0765}))  # doctest: +ELLIPSIS
    This board is ladderboard's default, the *Ladder* (Blum & Hardt 2015) with step 0.0765...
    """
    if mechanism == "full-disclosure":
        return (
            "This board is Kaggle's (*FullDisclosure*): each submission's public score is shown "
            "exactly. A team can climb it by fitting the public rows rather than the task, "
            "keeping whatever changes the board liked: watch the `attacker` and the "
            "`hill-climber`."
        )
    if mechanism == "ladder":
        return (
            "This board is ladderboard's default, the *Ladder* (Blum & Hardt 2015) with step "
            f"{params['eta']}, about one over the square root of the public rows: a new score "
            "is shown only when a submission beats the team's shown score by more than the "
            "step, and it is shown rounded to a multiple of the step; otherwise the board "
            "shows the same score again. Differences smaller than the public rows' sampling "
            "error do not show, so neither perturbing a model nor changing a few rows at a "
            "time climbs it."
        )
    if mechanism == "ladder-boot":
        return (
            "This board is ladderboard's default, *LadderBoot* (Chaibub Neto et al. 2016) "
            f"with {_shown(params)}: a submission replaces the team's best only when a "
            "bootstrap test says it is better, and every submission is answered with a fresh "
            "bootstrap estimate of the best one's score, so shown scores jitter around it."
        )
    return (
        f"This board is ladderboard's default, *{board_title(mechanism)}* with "
        f"{_shown(params) or 'its default parameters'}: it shows a new score only for a "
        "submission it judges better than the team's best."
    )
