"""Label recovery from the digits of a released log loss (Whitehill 2016, 2017).

Whitehill (2017, "Climbing the Kaggle leaderboard by exploiting the log-loss
oracle"; Whitehill 2016, "Exploiting an oracle that reports AUC scores in
machine learning contests", reads labels from AUC releases) shows that
one released log loss can carry the labels of a whole group of ``m`` rows:
the submission sets every row outside the group to ``1/2``, whose loss is
``ln 2`` whatever its label, and gives row ``j`` of the group a probability
``p_j`` whose two losses, ``−ln(1 − p_j)`` (label 0) and ``−ln p_j`` (label
1), differ from ``ln 2`` by amounts that grow geometrically with ``j``, so
that the mean loss, times the number of scored rows, spells the group's
labels as digits. The number of rows a submission can carry is limited by
the release's precision (Whitehill 2017 bounds ``m`` by the floating-point
resolution: the finer the released score, the larger ``m``).

When the board scores a hidden subset of the rows (the public part), a row
of the group adds nothing if it is not scored, so each row has three
outcomes (not scored, label 0, label 1) and the digits are balanced ternary:
with ``p = 1/2 − δ`` the row adds ``−ln(1 + 2δ)``, ``0`` or ``−ln(1 − 2δ)``
to ``n_public · (release − ln 2)``, about ``−2δ, 0, +2δ``. The attacker
learns both which rows are scored and their labels. When every row is
scored (``n_public = n_labels``, the competition stage Whitehill 2017
attacked) the digits are binary, and a submission carries about
``log 3 / log 2 ≈ 1.6`` times as many rows.

The digits are decoded from the largest: row ``j``'s outcomes must lie
further apart than everything the smaller rows can add plus the release's
uncertainty (half a rounding step times ``n_public``, and the float error
of the board's sum of ``n_public`` losses). That condition sets each
``p_j``, and ``m`` is the number of rows before ``p_j`` would have to fall
below ``1 %`` (inside the Ladder authors' clip, 0.01, and Kaggle's). A
group whose decoded digits leave a residual larger than that uncertainty
cannot have been released as the file's own score, and its rows are left
unknown. The check is weak by design: the digits are packed as densely as
the precision allows, so a release that is not the file's score (a ladder
repeats its best, a bootstrap board draws) still decodes most of the time,
into labels no better than coin flips; ``n_correct`` (organiser-side) is
what tells a leak from a guess.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ladderboard._validation import check_int, check_real
from ladderboard.attacks._common import Oracle, check_oracle, read_only

__all__ = ["LabelRecoveryResult", "encoding_probabilities", "label_recovery_attack"]

_P_MIN = 0.01
"""The smallest probability a row of a group is given: inside the Ladder
authors' clip (0.01, 0.99) and Kaggle's, so the board scores it unclipped."""
_MARGIN = 0.25
"""Room kept between a row's outcomes beyond the decoding condition."""
_EPS = 2.0**-52
_BLOCK = 128
"""numpy sums a vector pairwise over naive blocks of this many values, so
the float error of a sum of ``n`` losses is at most about
``(128 + log2 n) · eps · Σ loss``."""
_LN2 = -math.log(0.5)


@dataclass(frozen=True, eq=False, slots=True)
class LabelRecoveryResult:
    """The outcome of :func:`label_recovery_attack`.

    Attributes
    ----------
    labels : ndarray of int8
        The recovered label of each row, ``-1`` where none was recovered (not
        probed, decoded as not scored, or in a group whose release did not
        decode; read-only).
    scored : ndarray of int8
        ``1`` for a row decoded as scored by the board, ``0`` as not scored,
        ``-1`` unknown (read-only).
    rows_per_submission : int
        ``m``, the rows each submission probes.
    n_submissions : int
    n_recovered : int
        Labels recovered.
    n_inconsistent : int
        Submissions whose release did not decode: it cannot be the file's
        own score at the precision assumed (the converse does not hold).
    released : ndarray of float64
        Every release, in order (read-only).
    n_correct : int or None
        Recovered labels equal to the true ones, when the caller gave them
        (organiser-side).
    """

    labels: np.ndarray
    scored: np.ndarray
    rows_per_submission: int
    n_submissions: int
    n_recovered: int
    n_inconsistent: int
    released: np.ndarray
    n_correct: int | None = None

    @property
    def labels_per_submission(self) -> float:
        """Labels recovered per submission made."""
        return self.n_recovered / self.n_submissions if self.n_submissions else 0.0


def _outcomes(p: float, scored_known: bool) -> tuple[float, ...]:
    """What a row of probability ``p`` adds to ``n_public · (release − ln 2)``,
    in increasing order: label 0, (not scored,) label 1 (``p < 1/2``)."""
    zero, one = -math.log1p(-p) - _LN2, -math.log(p) - _LN2
    return (zero, one) if scored_known else (zero, 0.0, one)


def _gap(values: tuple[float, ...]) -> float:
    return min(b - a for a, b in itertools.pairwise(values))


def _schedule(error: float, scored_known: bool) -> list[float]:
    """The group's probabilities for a release known within ``±error``
    (in units of the summed loss), smallest digit first."""
    probabilities: list[float] = []
    spread = 0.0  # the range of what the rows so far can add
    while True:
        need = (spread + 2.0 * error) * (1.0 + _MARGIN)
        # gap(δ) = ln((1 + 2δ)/(1 − 2δ)) for binary digits, ln(1 + 2δ) for ternary.
        delta = math.tanh(need / 2) / 2 if scored_known else math.expm1(need) / 2
        if not delta < 0.5 - _P_MIN:
            return probabilities
        p = 0.5 - delta
        values = _outcomes(p, scored_known)
        while _gap(values) < need:  # p as a float may sit a hair too close to 1/2
            p = math.nextafter(p, 0.0)
            values = _outcomes(p, scored_known)
        if p < _P_MIN:
            return probabilities
        probabilities.append(p)
        spread += values[-1] - values[0]


def release_error(n_public: int, resolution: float) -> float:
    """How far ``n_public · release`` may sit from the sum of the scored
    losses: half a rounding step of the release, times ``n_public``, and the
    float error of the board's sum (losses near ``ln 2`` each)."""
    n_public = check_int("n_public", n_public, 1)
    resolution = check_real("resolution", resolution, low=0, low_open=False)
    summed = (_BLOCK + math.log2(n_public) + 4) * _EPS * n_public
    return n_public * resolution / 2 + summed


def encoding_probabilities(
    n_public: int, resolution: float, *, scored_known: bool = False
) -> np.ndarray:
    """The probabilities a submission gives the rows of one group, smallest
    digit first: as many rows as a release rounded to ``resolution`` (``0``:
    unrounded) on ``n_public`` scored rows can spell (Whitehill 2017's bound
    on ``m`` by the release's resolution, for this encoding).

    >>> len(encoding_probabilities(1000, 1e-5)), len(encoding_probabilities(1000, 1e-15))
    (4, 19)
    >>> len(encoding_probabilities(1000, 1e-15, scored_known=True))
    31
    >>> len(encoding_probabilities(1000, 1e-3))
    0
    """
    probabilities = _schedule(release_error(n_public, resolution), scored_known)
    out = np.asarray(probabilities, dtype=np.float64)
    read_only(out)
    return out


def _decode(total: float, table: list[tuple[float, ...]], error: float) -> list[int] | None:
    """The outcome index of each row (largest digit decided first), or
    ``None`` if what is left of ``total`` exceeds ``error``."""
    lows = np.concatenate([[0.0], np.cumsum([v[0] for v in table])])
    highs = np.concatenate([[0.0], np.cumsum([v[-1] for v in table])])
    chosen = [0] * len(table)
    for j in range(len(table) - 1, -1, -1):
        middle = (lows[j] + highs[j]) / 2  # the centre of what rows below j can add
        best = min(range(len(table[j])), key=lambda i: abs(total - table[j][i] - middle))
        chosen[j] = best
        total -= table[j][best]
    return chosen if abs(total) <= error else None


def _check_rows(rows: Any, n_labels: int) -> np.ndarray:
    if rows is None:
        return np.arange(n_labels)
    array = np.asarray(rows)
    if array.ndim != 1 or array.dtype.kind not in "iu":
        raise ValueError(
            f"rows must be a 1-D array of row positions, got {array.dtype} {array.shape}"
        )
    if array.size and (array.min() < 0 or array.max() >= n_labels):
        raise ValueError(f"rows must hold positions in [0, {n_labels})")
    if np.unique(array).size != array.size:
        raise ValueError("rows must not repeat a position")
    return array.astype(np.int64)


def label_recovery_attack(
    oracle: Oracle,
    *,
    n_labels: int,
    n_public: int,
    k: int,
    resolution: float | Literal["auto"] = "auto",
    m: int | Literal["auto"] = "auto",
    rows: Any = None,
    true_labels: Any = None,
) -> LabelRecoveryResult:
    """Recover labels from the digits of released log losses (Whitehill 2017).

    Each of at most ``k`` submissions probes the next ``m`` rows of ``rows``
    (by default every row in order): those rows get the probabilities of
    :func:`encoding_probabilities`, every other row ``1/2``; the release,
    times ``n_public``, less ``n_public · ln 2``, is decoded digit by digit
    into which of the rows are scored and their labels.

    Parameters
    ----------
    oracle : HoldoutOracle or a board
        A log-loss board: ``submit(probabilities) -> release``.
    n_labels : int
        Rows of a submission.
    n_public : int
        Rows the board scores (a competition states its public share).
    k : int
        Most submissions to make.
    resolution : float or "auto"
        The step the releases are rounded to, ``0`` for unrounded; ``"auto"``
        reads it from the board's public rules (``oracle.mechanism.resolution``;
        ``0`` when it has none).
    m : int or "auto"
        Rows per submission; ``"auto"``: as many as ``resolution`` allows. A
        larger ``m`` is decoded as if the releases were finer.
    rows : array of int, optional
        The rows to probe, in order.
    true_labels : array of 0/1, optional
        The labels of all ``n_labels`` rows, organiser-side, to count the
        recovered labels that are right (never seen by the attack).

    Examples
    --------
    A Kaggle board that scores 300 hidden rows of 900 and shows every
    release's full float (``precision=1e-15``): each submission probes 20 rows
    and recovers the labels of those that are scored, all right.

    >>> import numpy as np
    >>> from ladderboard.attacks import HoldoutOracle
    >>> from ladderboard.mechanisms import FullDisclosure
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 900)
    >>> public = np.sort(rng.choice(900, 300, replace=False))
    >>> board = HoldoutOracle(y[public], FullDisclosure(precision=1e-15), loss="log_loss",
    ...                       public_index=public, n_labels=900)
    >>> result = label_recovery_attack(board, n_labels=900, n_public=300, k=10, true_labels=y)
    >>> result.rows_per_submission, result.n_recovered, result.n_correct
    (20, 58, 58)

    At Kaggle's five decimals a submission carries 5 rows:

    >>> board = HoldoutOracle(y[public], FullDisclosure(), loss="log_loss",
    ...                       public_index=public, n_labels=900)
    >>> label_recovery_attack(board, n_labels=900, n_public=300, k=10).rows_per_submission
    5
    """
    check_oracle(oracle)
    n_labels = check_int("n_labels", n_labels, 1)
    n_public = check_int("n_public", n_public, 1)
    if n_public > n_labels:
        raise ValueError(f"n_public must be at most n_labels={n_labels}, got {n_public}")
    k = check_int("k", k, 1)
    if resolution == "auto":
        found = getattr(getattr(oracle, "mechanism", None), "resolution", None)
        resolution = 0.0 if found is None else float(found)
    resolution = check_real("resolution", resolution, low=0, low_open=False)
    order = _check_rows(rows, n_labels)
    truth = None
    if true_labels is not None:
        truth = np.asarray(true_labels)
        if truth.shape != (n_labels,) or not ((truth == 0) | (truth == 1)).all():
            raise ValueError(f"true_labels must be {n_labels} labels of 0/1")

    scored_known = n_public == n_labels
    error = release_error(n_public, resolution)
    schedule = _schedule(error, scored_known)
    if m != "auto":
        m = check_int("m", m, 1)
        finer = error
        for _ in range(200):
            if len(schedule) >= m:
                break
            finer /= 2
            schedule = _schedule(finer, scored_known)
        else:
            raise ValueError(f"m={m} rows cannot be spelled in one float release")
        schedule = schedule[:m]
    table = [_outcomes(p, scored_known) for p in schedule]
    width = len(schedule)

    labels = np.full(n_labels, -1, dtype=np.int8)
    scored = np.full(n_labels, -1, dtype=np.int8)
    released: list[float] = []
    inconsistent = 0
    if width:
        for start in range(0, min(order.size, k * width), width):
            group = order[start : start + width]
            prediction = np.full(n_labels, 0.5)
            prediction[group] = schedule[: group.size]
            release = float(oracle.submit(prediction))
            released.append(release)
            digits = _decode(n_public * release - n_public * _LN2, table[: group.size], error)
            if digits is None:
                inconsistent += 1
                continue
            for row, digit in zip(group, digits, strict=True):
                if scored_known:
                    scored[row], labels[row] = 1, digit
                elif digit == 1:
                    scored[row] = 0
                else:
                    scored[row], labels[row] = 1, digit // 2
    recovered = labels >= 0
    n_correct = None
    if truth is not None:
        n_correct = int(np.count_nonzero(labels[recovered] == truth[recovered]))
    out_released = np.asarray(released, dtype=np.float64)
    read_only(labels, scored, out_released)
    return LabelRecoveryResult(
        labels=labels,
        scored=scored,
        rows_per_submission=width,
        n_submissions=len(released),
        n_recovered=int(np.count_nonzero(recovered)),
        n_inconsistent=inconsistent,
        released=out_released,
        n_correct=n_correct,
    )
