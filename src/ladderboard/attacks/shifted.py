"""The shifted majority attack (Hardt 2017, *Climbing a shaky ladder*, Sec. 3-4
and Fig. 2).

Against a ladder the plain majority attack soon stops hearing anything: a
random query rarely beats the best score so far, and a rejected query gets the
old best back. Fig. 2 offsets each query so that the ladder answers it. In the
paper's general-estimation form, query ``g_t`` (values in ``[0, 1]``) is asked
as ``f_{t,i} = c + (g_t - iα)/2`` for ``i = 0, 1, …``, ``c`` the ladder's last
release, until the ladder releases a new value ``r``; then
``a_t = 2(r - c + iα/2)`` estimates the mean of ``g_t``. Sec. 4 explains how an
analyst does this in a real competition: with an "easy set" of points whose
labels it knows, it controls part of the loss exactly.

This module implements that 0/1-loss version. The holdout's ``n`` scored labels
split into the easy set ``E`` (``m`` labels known to the attacker) and the hard
set ``H`` (``h = n - m`` labels, the target). A submission puts a random 0/1
query ``u_t`` on ``H`` and the known labels on ``E``, ``w`` of them flipped, so
that its risk is

    R = (h ē_t + w) / n,        ē_t = 0/1 error of u_t on H.

``w/n`` is Fig. 2's offset ``c - iα/2`` and ``h/n`` its factor 1/2 (exactly 1/2
when ``m = n/2``); lowering ``w`` by ``shift`` is one step ``i → i + 1``
(``α/2 = shift/n``). The released risk ``r`` of the accepted submission gives
``ē_t ≈ (n r - w)/h``, the answer; the answers then feed the majority vote of
:func:`~ladderboard.attacks.majority_attack` on ``H``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ladderboard._validation import check_int, check_real
from ladderboard.attacks._common import Oracle, check_oracle, generator, read_only
from ladderboard.attacks.majority import majority_vote
from ladderboard.attacks.oracle import _binary_vector
from ladderboard.random import RandomState

__all__ = ["ShiftedMajorityResult", "default_shift", "shifted_majority_attack"]


@dataclass(frozen=True, eq=False, slots=True)
class ShiftedMajorityResult:
    """The outcome of :func:`shifted_majority_attack`.

    Attributes
    ----------
    prediction : ndarray of int8
        The final submission: the majority vote on the hard set, the known
        labels on the easy set (read-only).
    score : float
        Its released score.
    answers : ndarray of float64
        ``1 - 2 ē_t`` for each answered query, the correlation estimates on the
        hard set (read-only).
    offsets : ndarray of int
        ``w`` (flipped easy labels) of the accepted submission of each answered
        query (read-only).
    n_answered : int
        Queries the board answered (at most ``k``).
    n_submissions : int
        Submissions made, the final one included.
    exhausted : bool
        Whether the attack stopped early: the offset reached 0 without an
        answer, or ``max_submissions`` ran out.
    hard_index : ndarray of int
        The positions of the hard set, where the attack's bias is measured
        (read-only).
    """

    prediction: np.ndarray
    score: float
    answers: np.ndarray
    offsets: np.ndarray
    n_answered: int
    n_submissions: int
    exhausted: bool
    hard_index: np.ndarray


def default_shift(h: int) -> int:
    """The scan step, in easy labels, for a hard set of ``h`` labels:
    ``max(1, round(√h / 8))``, a sixteenth of the standard deviation ``√h/2``
    of a random query's hard-set loss (in labels).

    Fig. 2 of Hardt (2017) lowers the offset by ``α/2``, the accuracy it
    wants of an answer. Only the sign of ``1 - 2 ē_t`` enters the vote, and
    a step far below the spread of ``h ē_t`` buys precision the vote cannot
    use while multiplying the submissions each answer costs; at a sixteenth of
    it, about one answer in twenty is within a step of the tie.

    >>> default_shift(2000), default_shift(50)
    (6, 1)
    """
    return max(1, round(math.sqrt(h) / 8))


def _easy_set(oracle: Any, easy_index: Any, easy_labels: Any) -> tuple[int, np.ndarray, np.ndarray]:
    if getattr(oracle, "public_index", None) is not None:
        raise ValueError(
            "shifted_majority_attack needs a board that scores every label of a submission "
            "(an oracle without public_index): its offsets are counted in scored labels"
        )
    n = getattr(oracle, "n_labels", None)
    if n is None:
        raise TypeError("oracle must declare n_labels (a HoldoutOracle)")
    index = np.asarray(easy_index)
    if index.dtype.kind not in "iu" or index.ndim != 1 or index.size == 0:
        raise ValueError(
            f"easy_index must be a non-empty 1-D integer array, got {index.dtype} {index.shape}"
        )
    if index.min() < 0 or index.max() >= n or np.unique(index).size != index.size:
        raise ValueError(f"easy_index must hold distinct positions in [0, {n})")
    if index.size >= n:
        raise ValueError(f"easy_index must leave a hard set: it covers all {n} labels")
    labels = _binary_vector("easy_labels", easy_labels)
    if labels.shape != index.shape:
        raise ValueError(
            f"easy_labels must have one label per easy position ({index.size}), got {labels.size}"
        )
    return int(n), index.astype(np.intp), labels


def shifted_majority_attack(
    oracle: Oracle,
    *,
    easy_index: Any,
    easy_labels: Any,
    k: int,
    random_state: RandomState,
    shift: int | None = None,
    head_start: float | None = 3.0,
    learn_margin: bool = True,
    max_submissions: int | None = None,
) -> ShiftedMajorityResult:
    """Keep a ladder answering random queries by offsetting them with an easy
    set (Hardt 2017, Fig. 2 and Sec. 4).

    The construction, with ``n`` scored labels, the easy set ``E`` (``m``
    known labels), the hard set ``H`` (the other ``h``) and ``c`` the last
    release:

    1. Query ``t`` is a uniformly random 0/1 vector ``u_t`` on ``H``.
    2. Its first submission flips ``w`` easy labels:
       ``w = m`` for the attack's very first submission (every ladder accepts
       its first, which sets ``c``; the attack assumes a board on which it has
       not submitted before); afterwards
       ``w = min(m, ⌈n (c - μ) - h/2 + head_start · √h/2⌉)``, which puts the
       risk ``(h ē_t + w)/n`` of a typical random query ``head_start``
       standard deviations above ``c - μ``, where ``μ`` is the median of the
       drops ``c - r`` the board has released so far (floored at 0; 0 before
       the second answer or with ``learn_margin=False``): the board's margin
       as the attacker has observed it (``η`` on the Ladder, about
       ``0.7/√n`` on the parameter-free Ladder). Starting above ``c`` instead
       would cost every answer the whole margin in extra submissions, and a
       budget of ``k`` submissions would buy a tenth of the answers.
       ``head_start=None`` starts at ``w = min(m, ⌈n c⌉)``, Fig. 2's
       ``i = 0`` (offset ``c``, hard part on top).
    3. While the release equals ``c`` (rejected: a ladder repeats its best),
       lower ``w`` by ``shift`` (Fig. 2's ``i ← i + 1``) and resubmit. A
       release ``r ≠ c`` answers the query: ``ē_t = (n r - w)/h``, Fig. 2's
       ``a_t``, and ``c ← r``. (Fig. 2 stops at ``r < c - α/2``, knowing the
       board's accuracy ``α``; a participant only sees that the release
       changed.)
    4. If ``w`` would go below 0, the easy set can offset no further: the
       attack stops (``exhausted``). So does a spent ``max_submissions``.
    5. The answered queries vote as in App. B, ``u_t`` if ``1 - 2 ē_t > 0``
       and ``1 - u_t`` otherwise; the final submission is their majority on
       ``H`` (ties to 1) and the known labels on ``E``.

    Each answer costs a ladder step, so about ``(m/n)/step`` queries are
    answered: the budget behind the ``n^{-1/3}`` lower bound for faithful
    mechanisms (Cor. 3.12). On a deterministic ladder releasing
    ``[R]_{1/n}`` (ParameterFreeLadder, SignificanceLadder) the answers are
    exact; the Shaky Ladder's noise blurs both the answers and the
    acceptances. A board whose rejected releases are fresh draws (LadderBoot)
    answers every submission with noise and defeats step 3; use
    :func:`~ladderboard.attacks.averaging_attack` there.

    Parameters
    ----------
    oracle : HoldoutOracle
        A 0/1-loss board scoring whole submissions (no ``public_index``).
    easy_index : array of int
        Positions of the easy set.
    easy_labels : array of 0/1
        Their labels, known to the attacker.
    k : int
        Queries (random vectors on the hard set).
    random_state : int, key or KeyedStream
        The ``k × h`` int8 queries are drawn at once from
        ``KeyedStream.from_random_state(random_state).generator(0)``.
    shift : int, optional
        Easy labels un-flipped per scan step; :func:`default_shift` of the
        hard set's size if not given.
    head_start : float or None
        Where a scan starts, in standard deviations of a random query's
        hard-set loss (``√h/2``); ``None`` is Fig. 2's start.
    max_submissions : int, optional
        A cap on the submissions, the final one included.

    Examples
    --------
    2000 labels, half of them easy, against the parameter-free Ladder (Blum &
    Hardt 2015, Fig. 2): the ladder answers 40 shifted queries (about 13
    submissions each) before the easy set is used up, and their majority
    agrees with the hidden hard labels well beyond chance.

    >>> import numpy as np
    >>> from ladderboard.attacks import HoldoutOracle
    >>> from ladderboard.mechanisms import ParameterFreeLadder
    >>> y = np.random.default_rng(3).integers(0, 2, 2000)
    >>> easy = np.arange(1000)
    >>> result = shifted_majority_attack(HoldoutOracle(y, ParameterFreeLadder()),
    ...     easy_index=easy, easy_labels=y[easy], k=100, random_state=0)
    >>> result.n_answered, result.exhausted, result.n_submissions
    (40, True, 512)
    >>> hard = result.hard_index
    >>> float(np.mean(result.prediction[hard] == y[hard]))   # 1/2 for a coin flip
    0.568
    """
    check_oracle(oracle)
    k = check_int("k", k, 1)
    if shift is not None:
        shift = check_int("shift", shift, 1)
    if not isinstance(learn_margin, bool):
        raise TypeError(f"learn_margin must be a bool, got {type(learn_margin).__name__}")
    if head_start is not None:
        head_start = check_real("head_start", head_start, low=0, low_open=False)
    if max_submissions is not None:
        max_submissions = check_int("max_submissions", max_submissions, 2)
    n, easy, labels = _easy_set(oracle, easy_index, easy_labels)
    hard = np.setdiff1d(np.arange(n), easy)
    m, h = easy.size, hard.size
    if shift is None:
        shift = default_shift(h)

    rng = generator(random_state)
    queries = rng.integers(0, 2, size=(k, h), dtype=np.int8)

    submission = np.empty(n, dtype=np.int8)
    submission[easy] = labels

    def submit(t: int, w: int) -> float:
        submission[hard] = queries[t]
        submission[easy] = labels
        submission[easy[:w]] ^= 1
        return float(oracle.submit(submission))

    budget = math.inf if max_submissions is None else max_submissions - 1  # keep one for the final
    c: float | None = None
    answered: list[int] = []
    answers: list[float] = []
    offsets: list[int] = []
    margins: list[float] = []
    n_submissions = 0
    exhausted = False
    for t in range(k):
        if c is None:
            w = m
        elif head_start is None:
            w = min(m, math.ceil(n * c))
        else:
            margin = max(0.0, float(np.median(margins))) if learn_margin and margins else 0.0
            w = min(m, math.ceil(n * (c - margin) - h / 2 + head_start * math.sqrt(h) / 2))
        if w < 0:
            exhausted = True
            break
        while True:
            if n_submissions >= budget:
                exhausted = True
                break
            r = submit(t, w)
            n_submissions += 1
            if c is None or r != c:
                answered.append(t)
                answers.append(1.0 - 2.0 * (n * r - w) / h)
                offsets.append(w)
                if c is not None:
                    margins.append(c - r)
                c = r
                break
            if w == 0:
                exhausted = True
                break
            w = max(0, w - shift)
        if exhausted:
            break

    answers_array = np.array(answers, dtype=np.float64)
    final = np.empty(n, dtype=np.int8)
    final[easy] = labels
    if answered:
        final[hard] = majority_vote(queries[answered], answers_array > 0.0)
    else:
        final[hard] = 1
    score = float(oracle.submit(final))

    offsets_array = np.array(offsets, dtype=np.int64)
    read_only(final, answers_array, offsets_array, hard)
    return ShiftedMajorityResult(
        prediction=final,
        score=score,
        answers=answers_array,
        offsets=offsets_array,
        n_answered=len(answered),
        n_submissions=n_submissions + 1,
        exhausted=exhausted,
        hard_index=hard,
    )
