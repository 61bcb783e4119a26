"""The boosting attack (Blum & Hardt 2015, Sec. 5; Hardt's 2015 blog post).

The attacker knows nothing about the labels. It submits ``k`` uniformly random
label vectors, keeps those that the board scored as better than chance, and
submits their coordinate-wise majority. Each kept vector agrees with the hidden
public labels slightly more often than half the time, so the majority climbs
the public board by about ``sqrt(k/n)`` (Thm 5.1), while on fresh data it is
still a coin flip. Against a full-disclosure (Kaggle) board this is a
leaderboard error of ``Ω(sqrt(k/n))`` (Cor. 5.2); the Ladder limits it to
about ``sqrt(log(k)/n)``.

The blog's generalisation ("A neat generalization") starts from any two candidate submissions
instead of the all-ones and all-zeros vectors, and climbs above their mean.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ladderboard._validation import check_int
from ladderboard.attacks._common import (
    Oracle,
    check_fresh,
    check_oracle,
    direction_of,
    fresh_score,
    generator,
    is_full_disclosure,
    read_only,
)
from ladderboard.attacks.oracle import HoldoutOracle
from ladderboard.direction import LOWER_IS_BETTER, Direction
from ladderboard.random import RandomState

__all__ = [
    "BoostingResult",
    "GeneralizedBoostingResult",
    "HoldoutOracle",
    "boosting_attack",
    "generalized_boosting_attack",
]

KeepRule = Literal["auto", "half", "improved"]
_CHANCE = 0.5  # the expected 0/1 loss of a uniformly random guess


@dataclass(frozen=True, eq=False, slots=True)
class BoostingResult:
    """The outcome of :func:`boosting_attack`.

    Attributes
    ----------
    prediction : ndarray of int8
        The final submission: the majority of the kept guesses (read-only).
    score : float
        The released score of the final submission.
    n_kept : int
        How many of the ``k`` random guesses went into the majority.
    keep : str
        The keep rule that was applied, ``"half"`` or ``"improved"``.
    released : ndarray of float64
        The released scores of the ``k`` random guesses, in order (read-only).
    n_submissions : int
        Submissions made: ``k + 1``.
    true_score : float or None
        The final submission's score on the fresh labels the caller gave
        (``fresh_index``, ``fresh_labels``), by the board's rule; else ``None``.
    """

    prediction: np.ndarray
    score: float
    n_kept: int
    keep: str
    released: np.ndarray
    n_submissions: int = 0
    true_score: float | None = None


@dataclass(frozen=True, eq=False, slots=True)
class GeneralizedBoostingResult:
    """The outcome of :func:`generalized_boosting_attack`.

    Attributes
    ----------
    prediction : ndarray
        The final submission, ``combine(v, v1, v2)`` (read-only).
    score : float
        The released score of the final submission.
    candidate_scores : tuple of float
        The released scores of ``v1`` and ``v2``; their mean is the bar.
    n_kept : int
        How many of the ``k`` random combinations went into the majority.
    keep : str
        The keep rule that was applied, ``"mean"`` or ``"improved"``.
    released : ndarray of float64
        The released scores of the ``k`` combinations, in order (read-only).
    n_submissions : int
        Submissions made: ``k + 3``.
    true_score : float or None
        The final submission's score on the caller's fresh labels, else ``None``.
    """

    prediction: np.ndarray
    score: float
    candidate_scores: tuple[float, float]
    n_kept: int
    keep: str
    released: np.ndarray
    n_submissions: int
    true_score: float | None = None


def _resolve_keep(keep: Any, oracle: Any, first: str = "half") -> str:
    if keep not in ("auto", first, "improved"):
        raise ValueError(f"keep must be 'auto', {first!r} or 'improved', got {keep!r}")
    if keep != "auto":
        return keep
    return first if is_full_disclosure(oracle) else "improved"


def _lowered_the_best(released: np.ndarray, start: float, direction: Direction) -> np.ndarray:
    """Which releases beat every release before them and ``start``."""
    previous = np.concatenate(([start], released[:-1]))
    return direction.better(released, direction.running_best(previous))


def boosting_attack(
    oracle: Oracle,
    *,
    n_labels: int,
    k: int,
    random_state: RandomState,
    keep: KeepRule = "auto",
    fresh_index: Any = None,
    fresh_labels: Any = None,
) -> BoostingResult:
    """Climb a board with ``k`` random guesses and their majority.

    Blum & Hardt 2015, Sec. 5 (the "whacky boosting" of Hardt's blog post):

    1. draw ``u_1, …, u_k`` uniformly from ``{0,1}^n_labels``;
    2. submit each and read its released 0/1 loss ``l_i``;
    3. keep some of them (below);
    4. submit ``u* = maj{u_i : kept}``, coordinate-wise.

    Keep rules: ``"half"`` keeps ``l_i ≤ 1/2``, the paper's rule against full
    disclosure. ``"improved"`` keeps the guesses whose release lowered the
    best score released so far, the variant the paper runs against the
    Ladder (Sec. 5.1): a ladder repeats its last release for a rejected
    guess, so only the lowering releases carry information. The running best
    starts at 1/2, the expected loss of a random guess, so a first release
    above 1/2 is not kept. ``"auto"`` is ``"half"`` when the oracle's board is
    a :class:`~ladderboard.mechanisms.FullDisclosure` and ``"improved"``
    otherwise.

    A coordinate where the kept guesses split evenly is set to 0. If no guess
    is kept, the final submission is one more uniformly random vector.

    Parameters
    ----------
    oracle : HoldoutOracle
        The board as the attacker sees it: ``oracle.submit(prediction)``
        returns the released score, and is the attack's only contact with it.
    n_labels : int
        The length of a submission.
    k : int
        The number of random guesses; ``k + 1`` submissions are made in all.
    random_state : int, key or KeyedStream
        The guesses are drawn at once (a ``k × n_labels`` int8 array) from
        ``KeyedStream.from_random_state(random_state).generator(0)``.
    keep : {"auto", "half", "improved"}
    fresh_index, fresh_labels : optional
        Positions of a submission that are *not* scored by the board, and
        their labels: the final submission's error there is reported as
        ``true_score``. The attack never reads them.

    Examples
    --------
    Fig. 3 of the paper in miniature (``n = 4000`` public labels, ``k = 400``):
    the Kaggle board reports about 0.43 for a submission that is random on
    fresh data; the parameter-free Ladder about 0.48.

    >>> import numpy as np
    >>> from ladderboard.mechanisms import FullDisclosure, ParameterFreeLadder
    >>> labels = np.random.default_rng(1).integers(0, 2, size=4000)
    >>> kaggle = boosting_attack(HoldoutOracle(labels, FullDisclosure(precision=1e-5)),
    ...                          n_labels=4000, k=400, random_state=1)
    >>> kaggle.keep, kaggle.n_kept, kaggle.score
    ('half', 200, 0.42775)
    >>> ladder = boosting_attack(HoldoutOracle(labels, ParameterFreeLadder()),
    ...                          n_labels=4000, k=400, random_state=1)
    >>> ladder.keep, ladder.n_kept, ladder.score
    ('improved', 2, 0.48)
    """
    n_labels = check_int("n_labels", n_labels, 1)
    k = check_int("k", k, 1)
    rule = _resolve_keep(keep, oracle)
    check_oracle(oracle)
    check_fresh(fresh_index, fresh_labels)

    rng = generator(random_state)
    guesses = rng.integers(0, 2, size=(k, n_labels), dtype=np.int8)
    released = np.fromiter((oracle.submit(u) for u in guesses), dtype=np.float64, count=k)

    if rule == "half":
        kept = released <= _CHANCE
    else:
        kept = _lowered_the_best(released, _CHANCE, LOWER_IS_BETTER)
    n_kept = int(np.count_nonzero(kept))

    if n_kept:
        votes = guesses[kept].sum(axis=0, dtype=np.int64)
        final = (2 * votes > n_kept).astype(np.int8)
    else:
        final = rng.integers(0, 2, size=n_labels, dtype=np.int8)
    score = float(oracle.submit(final))

    read_only(final, released)
    return BoostingResult(
        prediction=final,
        score=score,
        n_kept=n_kept,
        keep=rule,
        released=released,
        n_submissions=k + 1,
        true_score=fresh_score(oracle, final, fresh_index, fresh_labels),
    )


def _candidate(name: str, value: Any) -> np.ndarray:
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array: {exc}") from None
    if array.ndim == 0 or array.shape[0] == 0:
        raise ValueError(f"{name} must have at least one row, got shape {array.shape}")
    return array


def generalized_boosting_attack(
    oracle: Oracle,
    v1: Any,
    v2: Any,
    *,
    k: int,
    random_state: RandomState,
    keep: Literal["auto", "mean", "improved"] = "auto",
    fresh_index: Any = None,
    fresh_labels: Any = None,
) -> GeneralizedBoostingResult:
    """Climb above the mean of two candidate submissions (Hardt's 2015 blog
    post, "A neat generalization").

    The blog's ``whackyboost(v1, v2, k, score)``, with ``combine(a, v1, v2)``
    taking row ``i`` from ``v1`` where ``a_i = 1`` and from ``v2`` where
    ``a_i = 0``:

    1. ``m = mean(score(v1), score(v2))`` (two submissions);
    2. draw ``a_1, …, a_k`` uniformly from ``{0,1}^N``;
    3. keep the ``a_i`` whose combination scores better than ``m`` (``k``
       submissions);
    4. ``v = [Σ_kept a_i > n_kept/2]`` (strict majority; an even split takes
       ``v2``, and with nothing kept ``v`` is all zeros, i.e. ``v2``, as the
       blog's code does);
    5. submit ``combine(v, v1, v2)``.

    ``v1 = 1`` and ``v2 = 0`` give the boosting attack. "Better" follows the
    board's direction (lower loss, or a higher metric). Keep rules:
    ``"mean"`` is the blog's; ``"improved"`` keeps the combinations whose
    release beat the best release so far (starting from ``m``), for a ladder,
    which repeats its best for rejected submissions; ``"auto"`` is ``"mean"``
    on a :class:`~ladderboard.mechanisms.FullDisclosure` board and
    ``"improved"`` otherwise.

    Parameters
    ----------
    oracle : HoldoutOracle
    v1, v2 : array
        Two candidate submissions of the same shape, one row per label (a
        vector of labels or values, or a matrix of class probabilities).
    k : int
        The number of random combinations; ``k + 3`` submissions in all.
    random_state : int, key or KeyedStream
        The ``k × N`` selector bits are drawn at once (int8) from
        ``KeyedStream.from_random_state(random_state).generator(0)``.
    keep : {"auto", "mean", "improved"}
    fresh_index, fresh_labels : optional
        Unscored positions and their labels, to report ``true_score``.

    Examples
    --------
    The blog's point in miniature: two classifiers, each right on about 70 %
    of 4000 public labels but on different points; against full disclosure,
    300 random combinations climb well above their mean, on the public board
    only:

    >>> import numpy as np
    >>> from ladderboard.mechanisms import FullDisclosure
    >>> rng = np.random.default_rng(2)
    >>> y = rng.integers(0, 2, 4000)
    >>> v1, v2 = [np.where(rng.random(4000) < 0.3, 1 - y, y) for _ in range(2)]
    >>> result = generalized_boosting_attack(HoldoutOracle(y, FullDisclosure()), v1, v2,
    ...                                      k=300, random_state=0)
    >>> result.candidate_scores, result.keep, result.score
    ((0.29725, 0.305), 'mean', 0.24775)
    """
    check_oracle(oracle)
    k = check_int("k", k, 1)
    rule = _resolve_keep(keep, oracle, first="mean")
    check_fresh(fresh_index, fresh_labels)
    v1 = _candidate("v1", v1)
    v2 = _candidate("v2", v2)
    if v1.shape != v2.shape:
        raise ValueError(f"v1 and v2 must have the same shape, got {v1.shape} and {v2.shape}")
    n_labels = v1.shape[0]
    declared = getattr(oracle, "n_labels", None)
    if declared is not None and declared != n_labels:
        raise ValueError(f"v1 must have oracle.n_labels={declared} rows, got {n_labels}")
    direction = direction_of(oracle)
    rows = (slice(None),) + (None,) * (v1.ndim - 1)

    def combine(selector: np.ndarray) -> np.ndarray:
        return np.where(selector[rows].astype(bool), v1, v2)

    s1, s2 = float(oracle.submit(v1)), float(oracle.submit(v2))
    bar = (s1 + s2) / 2
    rng = generator(random_state)
    selectors = rng.integers(0, 2, size=(k, n_labels), dtype=np.int8)
    released = np.fromiter(
        (oracle.submit(combine(a)) for a in selectors), dtype=np.float64, count=k
    )
    if rule == "mean":
        kept = direction.better(released, bar)
    else:
        kept = _lowered_the_best(released, bar, direction)
    n_kept = int(np.count_nonzero(kept))
    votes = selectors[kept].sum(axis=0, dtype=np.int64)
    final = combine((2 * votes > n_kept).astype(np.int8))
    score = float(oracle.submit(final))

    read_only(final, released)
    return GeneralizedBoostingResult(
        prediction=final,
        score=score,
        candidate_scores=(s1, s2),
        n_kept=n_kept,
        keep=rule,
        released=released,
        n_submissions=k + 3,
        true_score=fresh_score(oracle, final, fresh_index, fresh_labels),
    )
