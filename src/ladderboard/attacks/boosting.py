"""The boosting attack (Blum & Hardt 2015, Sec. 5; Hardt's 2015 blog post).

The attacker knows nothing about the labels. It submits ``k`` uniformly random
label vectors, keeps those that the board scored as better than chance, and
submits their coordinate-wise majority. Each kept vector agrees with the hidden
public labels slightly more often than half the time, so the majority climbs
the public board by about ``sqrt(k/n)`` (Thm 5.1), while on fresh data it is
still a coin flip. Against a full-disclosure (Kaggle) board this is a
leaderboard error of ``Ω(sqrt(k/n))`` (Cor. 5.2); the Ladder limits it to
about ``sqrt(log(k)/n)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np

from ladderboard._validation import check_int
from ladderboard.mechanisms import FullDisclosure
from ladderboard.random import KeyedStream, RandomState

__all__ = ["BoostingResult", "HoldoutOracle", "boosting_attack"]

KeepRule = Literal["auto", "half", "improved"]
_CHANCE = 0.5  # the expected 0/1 loss of a uniformly random guess


def _binary_vector(name: str, value: Any) -> np.ndarray:
    """``value`` as a 1-D int8 array of zeros and ones, or raise ValueError."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged input
        raise ValueError(f"{name} must be a 1-D vector of 0/1 labels: {exc}") from None
    if array.ndim != 1:
        raise ValueError(f"{name} must be a 1-D vector, got shape {array.shape}")
    if array.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold 0/1 labels, got dtype {array.dtype}")
    if not ((array == 0) | (array == 1)).all():
        raise ValueError(f"{name} must hold only 0/1 labels")
    return array.astype(np.int8)


class HoldoutOracle:
    """What an attacker talks to: submit a prediction, see the released score.

    The oracle holds the hidden public labels and a board (a mechanism). It
    turns each 0/1 prediction into its per-sample 0/1 loss vector on the
    public labels, submits that to the mechanism, and returns
    ``release.score``, never the labels, the losses or ``release.improved``.

    Parameters
    ----------
    labels_public : array of 0/1
        The hidden labels of the public part of the holdout.
    mechanism : Mechanism
        The board; anything with ``submit(losses) -> Release``.
    public_index : array of int, optional
        Where the public labels sit in a submission, as in a competition
        where participants predict the whole test set and the board scores a
        hidden subset of it. By default a submission covers the public labels
        only.
    n_labels : int, optional
        The length of a submission; required with ``public_index``.

    >>> from ladderboard.mechanisms import FullDisclosure
    >>> oracle = HoldoutOracle([0, 1, 1, 0], FullDisclosure(),
    ...                        public_index=[5, 0, 2, 3], n_labels=6)
    >>> oracle.submit([1, 0, 1, 0, 0, 1])   # scored at 5 (wrong), 0, 2, 3 (right)
    0.25
    """

    def __init__(
        self,
        labels_public: Any,
        mechanism: Any,
        *,
        public_index: Any = None,
        n_labels: int | None = None,
    ):
        labels = _binary_vector("labels_public", labels_public)
        if labels.shape[0] == 0:
            raise ValueError("labels_public must not be empty")
        if not callable(getattr(mechanism, "submit", None)):
            raise TypeError(f"mechanism must have a submit method, got {type(mechanism).__name__}")
        if public_index is None:
            if n_labels is not None and n_labels != labels.shape[0]:
                raise ValueError(
                    f"n_labels must equal len(labels_public)={labels.shape[0]} without "
                    f"public_index, got {n_labels!r}"
                )
            index = None
            n_labels = labels.shape[0]
        else:
            if n_labels is None:
                raise ValueError("n_labels is required with public_index")
            n_labels = check_int("n_labels", n_labels, labels.shape[0])
            index = np.asarray(public_index)
            if index.dtype.kind not in "iu" or index.shape != labels.shape:
                raise ValueError(
                    "public_index must be a 1-D integer array as long as labels_public, "
                    f"got dtype {index.dtype} and shape {index.shape}"
                )
            if index.min() < 0 or index.max() >= n_labels or np.unique(index).size != index.size:
                raise ValueError(f"public_index must hold distinct positions in [0, {n_labels})")
            index = index.astype(np.intp)
            index.setflags(write=False)
        labels.setflags(write=False)
        self._labels = labels
        self.mechanism = mechanism
        self.public_index = index
        self.n_labels = n_labels

    def submit(self, prediction: Any) -> float:
        """Score a 0/1 prediction of length ``n_labels``; return the released score."""
        prediction = _binary_vector("prediction", prediction)
        if prediction.shape[0] != self.n_labels:
            raise ValueError(
                f"prediction must have length n_labels={self.n_labels}, got {prediction.shape[0]}"
            )
        public = prediction if self.public_index is None else prediction[self.public_index]
        losses = np.not_equal(public, self._labels).astype(np.float64)
        return float(self.mechanism.submit(losses).score)

    def __repr__(self) -> str:
        return (
            f"HoldoutOracle(n_public={self._labels.shape[0]}, n_labels={self.n_labels}, "
            f"mechanism={self.mechanism!r})"
        )


class _Oracle(Protocol):
    def submit(self, prediction: Any) -> float: ...


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
    """

    prediction: np.ndarray
    score: float
    n_kept: int
    keep: str
    released: np.ndarray


def _resolve_keep(keep: Any, oracle: Any) -> str:
    if keep not in ("auto", "half", "improved"):
        raise ValueError(f"keep must be 'auto', 'half' or 'improved', got {keep!r}")
    if keep != "auto":
        return keep
    return "half" if isinstance(getattr(oracle, "mechanism", None), FullDisclosure) else "improved"


def boosting_attack(
    oracle: _Oracle,
    *,
    n_labels: int,
    k: int,
    random_state: RandomState,
    keep: KeepRule = "auto",
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
    if not callable(getattr(oracle, "submit", None)):
        raise TypeError(f"oracle must have a submit method, got {type(oracle).__name__}")

    rng = KeyedStream.from_random_state(random_state).generator(0)
    guesses = rng.integers(0, 2, size=(k, n_labels), dtype=np.int8)
    released = np.fromiter((oracle.submit(u) for u in guesses), dtype=np.float64, count=k)

    if rule == "half":
        kept = released <= _CHANCE
    else:
        best_before = np.minimum.accumulate(np.concatenate(([_CHANCE], released[:-1])))
        kept = released < best_before
    n_kept = int(np.count_nonzero(kept))

    if n_kept:
        votes = guesses[kept].sum(axis=0, dtype=np.int64)
        final = (2 * votes > n_kept).astype(np.int8)
    else:
        final = rng.integers(0, 2, size=n_labels, dtype=np.int8)
    score = float(oracle.submit(final))

    final.setflags(write=False)
    released.setflags(write=False)
    return BoostingResult(
        prediction=final, score=score, n_kept=n_kept, keep=rule, released=released
    )
