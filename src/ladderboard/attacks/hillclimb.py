"""Near-duplicate hill-climbing, and averaging through near-duplicates.

A paired-test ladder (Blum & Hardt 2015, Fig. 2; Chaibub Neto et al. 2016,
Alg. 3-6) accepts a submission when its risk beats the best's by
``c · s/√n``, with ``s = std(l_t − l_best)``. For a file that differs from
the best in ``m`` scored rows, ``l_t − l_best`` has ``m`` entries of ``±1``,
so ``s/√n ≈ √m/n``: the file passes whenever its flips fix about ``c·√m``
more rows than they break, however small that is against ``1/√n``. Every
pass is a public gain the attacker keeps, and since the files differ in
``m`` rows a competition's refusal of identical files never fires. This is
the attack the Shaky Ladder paper predicts for "faithful" mechanisms (Hardt
2017, Sec. 3-4, where the parameter-free Ladder "fares even more poorly"):
the step of a fixed-step Ladder, ``η``, does not shrink with ``m``, so that
Ladder concedes little to it (Blum & Hardt 2015, Thm 3.1).

How the attacker reads acceptance from releases only:

* ``"changes"``: on an exact ladder (and the Shaky Ladder, whose release
  stays put until an update, Hardt 2017, Fig. 1) a changed release means the
  file became the best.
* ``"best"``: under full disclosure (Blum & Hardt 2015, App. A) a release is
  the file's own score; the file is the best when its release beats every
  earlier one, and the board shows a team's best release.
* ``"draws"``: a bootstrap board (Chaibub Neto et al. 2016, Alg. 4 and 6)
  answers every file with a fresh draw around the current best's score,
  accepted or not. The attacker tracks the mean of the draws since it last
  adopted a file; a release well below that mean makes the file a suspect,
  and a few files that change one row of it confirm it when their draws
  sit below the old mean too (the level changed at the file whose draws
  separate best from the earlier ones: the suspect, or a file that passed
  unseen before it); an adoption whose later draws do not stay below the
  old level is undone. Such a board shows a team's latest release, so the
  attacker spends its last files *fishing*: it stops at the first draw
  below the optimal-stopping threshold for the files it has left.

Its measure is the raw gain of Blum & Hardt (2015, Def. 2.1): the true score
of the file it would select minus what the board displays at the end, the
board's distance from the truth.
"""

from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ladderboard._validation import check_int, check_real
from ladderboard.attacks._common import (
    Oracle,
    check_fresh,
    check_oracle,
    direction_of,
    fresh_score,
    generator,
    read_only,
)
from ladderboard.attacks.averaging import AveragingResult
from ladderboard.random import RandomState

__all__ = [
    "NearDuplicateResult",
    "Reading",
    "near_duplicate_attack",
    "near_duplicate_averaging_attack",
    "pass_margin",
    "reading_of",
]

Reading = Literal["changes", "best", "draws"]
_READINGS = ("changes", "best", "draws")

_SUSPECT_Z = 1.5
"""A draw this many release sds below the best's running mean makes a suspect."""
_CONFIRM_Z = 2.0
"""The confirming draws' mean must sit this many standard errors below it."""
_CONFIRM_FILES = (2, 8)
"""Fewest and most near-duplicates spent to confirm one suspect."""
_MIN_SD_DRAWS = 8
"""Draws needed before the pooled release sd replaces the attacker's prior."""
_EXACT_M = 64
"""Up to this many rows, the gain of a flip is summed exactly (binomial)."""
_DRAWS_PER_FILE = 1000
"""Draws of rows to change before giving up on finding a file not yet sent."""
_RECHECK_DRAWS = 10
"""Draws after an adoption at which the attacker checks it: if they are not
below the level before it, the adoption was a false alarm and is undone."""
_RECHECK_Z = 1.0
"""How far below the old level (in standard errors) those draws must sit."""


def _normal_cdf(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def _normal_pdf(z: float) -> float:
    return math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)


@dataclass(frozen=True, eq=False, slots=True)
class NearDuplicateResult:
    """The outcome of :func:`near_duplicate_attack`.

    Attributes
    ----------
    prediction : ndarray of int8
        The file the attacker would select: the one it believes the board
        holds as best (read-only).
    displayed : float
        What the board displays for the team at the end: the last release on
        a board that shows the latest (every ladder, the bootstrap boards),
        the best release under full disclosure.
    released : ndarray of float64
        Every release, in order (read-only).
    n_submissions : int
        Files submitted: at most ``k``, fewer when fishing stopped early.
    n_adopted : int
        How many times the attacker moved its best to a new file.
    reading : str
        How acceptance was read: ``"changes"``, ``"best"`` or ``"draws"``.
    flips : ndarray of int64
        Rows each file changed from the file it was made from (0 for the
        start; read-only).
    n_fished : int
        Files spent fishing at the end.
    true_score : float or None
        The selected file's true score: as the caller gave it (``true_score``)
        or on the fresh labels it gave.
    raw_gain : float or None
        ``true_score − displayed`` in the board's direction (how much better
        the board says the file is than it is; Blum & Hardt 2015, Def. 2.1).
    """

    prediction: np.ndarray
    displayed: float
    released: np.ndarray
    n_submissions: int
    n_adopted: int
    reading: str
    flips: np.ndarray
    n_fished: int = 0
    true_score: float | None = None
    raw_gain: float | None = None


def _mechanism(oracle: Any) -> Any:
    return getattr(oracle, "mechanism", None)


def reading_of(oracle: Any) -> Reading:
    """How acceptance shows in a board's releases, from its public rules:
    ``"draws"`` when every release is a fresh estimate of the current best
    (``release_hides_decision``), ``"best"`` when a release is the file's own
    score and the board shows the best one (full disclosure), ``"changes"``
    otherwise (a ladder repeats its release until a file passes)."""
    mechanism = _mechanism(oracle)
    if getattr(mechanism, "release_hides_decision", False):
        return "draws"
    if not getattr(mechanism, "release_is_current_best", True):
        return "best"
    return "changes"


def pass_margin(oracle: Any, n_public: int) -> tuple[float, float]:
    """``(c, a)``: the attacker's model of the board's test, read from its
    public rules. A file differing from the best in ``m`` scored 0/1 rows
    passes when its flips fix ``c·√m + a`` more rows than they break.

    * paired-test ladders: ``c`` is the critical value of the test, 1 for the
      parameter-free Ladder (Blum & Hardt 2015, Fig. 2), ``c_α`` for the
      Significance Ladder and LadderBoot (Chaibub Neto et al. 2016, Alg. 3-4),
      the normal quantile at ``1/(1 + PO_thr)`` for the Bayesian-bootstrap
      ladders (Alg. 5-6, whose posterior probability is about that of a
      paired z-test);
    * the fixed-step Ladder: ``a = η n`` (Blum & Hardt 2015, Fig. 1), and the
      Shaky Ladder, ``a = λ n`` (Hardt 2017, Fig. 1; its noise is ignored);
    * full disclosure: ``(0, 0)``, any improvement shows.

    A paired-test ladder with a ``floor`` (not in the papers; see
    :func:`~ladderboard.mechanisms.ladder.check_floor`) also asks for
    ``floor · n`` rows: the attacker's model adds it, ``a = floor · n``.
    """
    from scipy import stats

    from ladderboard.mechanisms import (
        BayesBootLadder,
        FullDisclosure,
        Ladder,
        LadderBoot,
        ParameterFreeLadder,
        ShakyLadder,
        SignificanceLadder,
    )

    mechanism = _mechanism(oracle)
    floor = float(getattr(mechanism, "floor", None) or 0.0) * n_public
    if isinstance(mechanism, ParameterFreeLadder):
        return 1.0, floor
    if isinstance(mechanism, SignificanceLadder | LadderBoot):
        return float(mechanism.critical_value(n_public)), floor
    if isinstance(mechanism, BayesBootLadder):
        alpha = 1.0 / (1.0 + float(mechanism.po_threshold))
        return float(stats.norm.ppf(1.0 - alpha)), floor
    if isinstance(mechanism, Ladder):
        return 0.0, float(mechanism.eta) * n_public
    if isinstance(mechanism, ShakyLadder):
        return 0.0, float(mechanism.step or 0.0) * n_public  # None until n is known
    if isinstance(mechanism, FullDisclosure):
        return 0.0, 0.0
    return 1.0, 0.0


@functools.lru_cache(maxsize=4096)
def _best_m(
    error: float, c: float, a: float, m_max: int, *, n_public: int = 1, release_sd: float = 0.0
) -> int:
    """The number of scored rows to flip that maximises the expected public
    gain of one file, ``E[X; X > c√m + a]/n``, where ``X``, the net rows a
    flip of ``m`` rows fixes at error rate ``error``, is about normal with mean
    ``m(2·error − 1)`` and variance ``4m·error(1 − error)``; for
    ``m ≤ _EXACT_M`` it is summed over the binomial law of the rows fixed, as
    the test is discrete there: one row fixed lowers the risk by ``1/n``,
    which never beats the parameter-free Ladder's ``s/√n = 1/n``.

    With ``release_sd > 0`` (a board whose releases are draws) a pass counts
    only when the attacker sees it: the gain is weighted by the chance that a
    draw around the new best, lower by the mean passing gain, falls
    ``_SUSPECT_Z`` sds below the old level.

    Cached: on a board that repeats its release the arguments change only
    when a file passes."""
    p = min(max(error, 1e-3), 0.5)
    best_m, best_value = 1, -math.inf
    for m in np.unique(np.geomspace(1, max(m_max, 1), 60).astype(np.int64)):
        m = int(m)
        bar = c * math.sqrt(m) + a
        if m <= _EXACT_M:
            tail = value = 0.0
            for fixed in range(m + 1):
                net = 2 * fixed - m
                if net > bar:
                    chance = math.comb(m, fixed) * p**fixed * (1 - p) ** (m - fixed)
                    tail += chance
                    value += net * chance
        else:
            mean = m * (2 * p - 1)
            sd = 2 * math.sqrt(m * p * (1 - p))
            z = (bar - mean) / sd
            tail = 1 - _normal_cdf(z)
            value = mean * tail + sd * _normal_pdf(z)
        if release_sd > 0 and tail > 0:
            shift = value / tail / n_public  # the mean gain of a passing file
            value *= _normal_cdf(shift / release_sd - _SUSPECT_Z)
        if value > best_value:
            best_m, best_value = m, value
    return best_m


def _stopping_thresholds(mean: float, sd: float, files: int) -> list[float]:
    """``v[j]``: stop at a draw below ``v[j]`` with ``j`` files left after it.

    For i.i.d. normal draws that must be kept once passed (the board shows
    the latest), the optimal rule compares a draw with the expected value of
    going on: ``v[0] = mean`` and ``v[j+1] = E[min(X, v[j])]``, with
    ``E[min(X, v)] = v − (v − μ)Φ(d) − σφ(d)``, ``d = (v − μ)/σ``.
    """
    v = [mean]
    for _ in range(files):
        last = v[-1]
        d = (last - mean) / sd if sd > 0 else 0.0
        v.append(last - (last - mean) * _normal_cdf(d) - sd * _normal_pdf(d))
    return v


def _level_change(keys: np.ndarray, last: int) -> int:
    """The split ``s ≤ last`` of ``keys`` (lower is better) whose two sides'
    means differ most in standard errors, the lower side after it: the index
    of the first draw of the new level."""
    size = keys.size
    split = np.arange(1, last + 1)
    sums = np.cumsum(keys)
    before = sums[split - 1] / split
    after = (sums[-1] - sums[split - 1]) / (size - split)
    z = (before - after) / np.sqrt(1 / split + 1 / (size - split))
    return int(split[int(np.argmax(z))])


def _key(vector: np.ndarray) -> bytes:
    return hashlib.blake2b(vector.tobytes(), digest_size=16).digest()


def near_duplicate_attack(
    oracle: Oracle,
    start: Any,
    *,
    k: int,
    random_state: RandomState,
    m: int | Literal["auto"] = "auto",
    min_rows: int = 1,
    n_public: int | None = None,
    reading: Reading | Literal["auto"] = "auto",
    fish: int | Literal["auto"] = "auto",
    true_score: float | None = None,
    fresh_index: Any = None,
    fresh_labels: Any = None,
) -> NearDuplicateResult:
    """Hill-climb a board with near-duplicates of the file believed best.

    1. Submit ``start``; it is the first best (every ladder accepts its first
       file, Blum & Hardt 2015, Fig. 1-2).
    2. Each next file flips ``m`` random rows of the believed best; read from
       the releases whether it passed (``reading``) and, if so, make it the
       believed best.
    3. On a board whose releases are fresh draws and which shows the latest
       (LadderBoot, Chaibub Neto et al. 2016, Alg. 4), spend the last ``fish``
       files on near-duplicates of the best and stop at the first low draw.

    No two files are identical (a file equal to an earlier one is drawn
    again), so a competition's refusal of identical files never fires.

    Parameters
    ----------
    oracle : HoldoutOracle
        The board; ``submit`` is the attack's only contact with the labels.
        Its public rules (``oracle.mechanism``'s type and parameters) decide
        ``reading``, ``m`` and ``fish`` when these are ``"auto"``.
    start : array of 0/1
        The first file, one row per label (``oracle.n_labels`` rows).
    k : int
        The budget: at most ``k`` files, ``start`` included.
    random_state : int, key or KeyedStream
        Rows to flip come from ``KeyedStream.from_random_state(rs).generator(0)``.
    m : int or "auto"
        Rows flipped per file. ``"auto"`` chooses, before each file, the number
        of scored rows that maximises the expected public gain of one file
        under the board's test (:func:`pass_margin`) at the error rate the
        board shows, at most ``n_public/2``, and scales it to the whole file
        (``n_labels/n_public``: the attacker does not know which rows are
        scored). It assumes a 0/1 score (an error, or an accuracy read as one
        minus it).
    min_rows : int
        The fewest rows any file changes from the file it is made from, the
        confirming files included: ``d + 1`` against a competition that
        refuses a file within ``d`` rows of one of the team's earlier files
        (the attacker knows the rule and steps over it).
    n_public : int, optional
        Rows the board scores (public in a competition's rules);
        ``oracle.n_public`` by default.
    reading : "changes", "best", "draws" or "auto"
        :func:`reading_of` the oracle by default.
    fish : int or "auto"
        Files kept for fishing; ``"auto"`` is ``min(20, k // 10)`` when
        reading ``"draws"`` and 0 otherwise (nothing to fish for on a board
        that repeats its release or shows the best one).
    true_score : float, optional
        The selected file's true score, when the caller knows it (0.5 for
        random labels: no file predicts fresh coin flips).
    fresh_index, fresh_labels : optional
        Unscored rows of a file and their labels, for the true score instead.

    Examples
    --------
    Random labels (every file's true error is 0.5), 4000 public rows, 300
    files: the parameter-free Ladder is talked down to 0.414, far more than
    ``1/√n = 0.016`` below the truth, while the fixed-step Ladder with
    ``η = 1/√n`` moves one step, from the start's 0.507 to 0.490.

    >>> import numpy as np
    >>> from ladderboard.attacks import HoldoutOracle
    >>> from ladderboard.mechanisms import Ladder, ParameterFreeLadder
    >>> y = np.random.default_rng(0).integers(0, 2, 4000)
    >>> start = np.zeros(4000, dtype=np.int8)
    >>> pf = near_duplicate_attack(HoldoutOracle(y, ParameterFreeLadder()), start,
    ...                            k=300, random_state=0, true_score=0.5)
    >>> fixed = near_duplicate_attack(HoldoutOracle(y, Ladder(eta=1 / np.sqrt(4000))),
    ...                               start, k=300, random_state=0, true_score=0.5)
    >>> pf.displayed, round(pf.raw_gain, 3), pf.n_adopted
    (0.41375, 0.086, 51)
    >>> round(fixed.displayed, 3), round(fixed.raw_gain, 3), fixed.n_adopted
    (0.49, 0.01, 1)
    >>> pf.n_submissions
    300
    """
    check_oracle(oracle)
    k = check_int("k", k, 1)
    check_fresh(fresh_index, fresh_labels)
    if true_score is not None:
        true_score = check_real("true_score", true_score)
        if fresh_index is not None:
            raise ValueError("give true_score or fresh labels, not both")
    try:
        best = np.asarray(start)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"start must be a vector of 0/1 labels: {exc}") from None
    if best.ndim != 1 or best.size == 0 or not ((best == 0) | (best == 1)).all():
        raise ValueError("start must be a non-empty 1-D vector of 0/1 labels")
    best = best.astype(np.int8)
    n_labels = best.size
    declared = getattr(oracle, "n_labels", None)
    if declared is not None and declared != n_labels:
        raise ValueError(f"start must have oracle.n_labels={declared} rows, got {n_labels}")
    if n_public is None:
        n_public = int(getattr(oracle, "n_public", n_labels))
    n_public = check_int("n_public", n_public, 1)
    if reading == "auto":
        reading = reading_of(oracle)
    if reading not in _READINGS:
        raise ValueError(f"reading must be one of {_READINGS} or 'auto', got {reading!r}")
    if fish == "auto":
        n_fish = min(20, k // 10) if reading == "draws" else 0
    else:
        n_fish = min(check_int("fish", fish, 0), k - 1)
    fixed_m = None if m == "auto" else check_int("m", m, 1)
    if fixed_m is not None and fixed_m > n_labels:
        raise ValueError(f"m must be at most the file's {n_labels} rows, got {fixed_m}")
    min_rows = check_int("min_rows", min_rows, 1)
    if min_rows > n_labels:
        raise ValueError(f"min_rows must be at most the file's {n_labels} rows, got {min_rows}")

    direction = direction_of(oracle)
    sign = -1.0 if direction.greater_is_better else 1.0  # key(x) = sign·x, lower is better
    c, a = pass_margin(oracle, n_public)
    b = getattr(_mechanism(oracle), "b", 1)
    scale = n_labels / n_public
    rng = generator(random_state)
    seen: set[bytes] = set()
    released: list[float] = []
    flips: list[int] = []

    def submit(vector: np.ndarray, changed: int) -> float:
        seen.add(_key(vector))
        score = float(oracle.submit(vector))
        released.append(score)
        flips.append(changed)
        return score

    def near(parent: np.ndarray, rows: int) -> np.ndarray:
        for attempt in range(_DRAWS_PER_FILE):
            if attempt and attempt % 100 == 0:
                # Every file this close was sent already: go one row further.
                rows = min(rows + 1, n_labels)
            child = parent.copy()
            at = rng.choice(n_labels, size=rows, replace=False)
            child[at] ^= 1
            key = _key(child)
            if key not in seen:
                # Taken now, not when sent: the confirming files are all drawn
                # before the first is sent, and must differ from each other.
                seen.add(key)
                return child
        raise RuntimeError(
            f"no new file near the best after {_DRAWS_PER_FILE} draws: "
            "the budget exceeds the files near it"
        )

    def error_of(score: float) -> float:
        return 1.0 - score if direction.greater_is_better else score

    def rows_for(score: float, release_sd: float = 0.0) -> int:
        if fixed_m is not None:
            return max(fixed_m, min_rows)
        scored = _best_m(
            error_of(score),
            c,
            a,
            max(1, n_public // 2),
            n_public=n_public,
            release_sd=release_sd,
        )
        return max(min_rows, min(n_labels, round(scored * scale)))

    best_key_score = sign * submit(best, 0)  # the running best, as a key
    n_adopted = 0
    # "draws": releases since the best was adopted, and pooled squared
    # deviations of earlier segments, for the release sd.
    segment = [released[0]]
    segment_files = [best]  # the file behind each draw of the segment
    pooled_ss, pooled_dof = 0.0, 0
    # The best and segment before the latest adoption, until it is rechecked.
    # (best, its draws, their files, confirming draws, the smallest shift)
    undo: tuple[np.ndarray, list[float], list[np.ndarray], int, float] | None = None

    def draw_sd(level: float) -> float:
        ss = pooled_ss + float(np.var(segment) * len(segment))
        dof = pooled_dof + len(segment) - 1
        if dof >= _MIN_SD_DRAWS and ss > 0:
            return math.sqrt(ss / dof)
        # The attacker's prior: a bootstrap mean of b·n 0/1 losses (Chaibub
        # Neto et al. 2016, Alg. 4), whose b is a public parameter.
        p = min(max(error_of(level), 1e-3), 0.5)
        return math.sqrt(p * (1 - p) / (b * n_public))

    climb_budget = k - n_fish
    while len(released) < climb_budget:
        if reading == "draws":
            level = float(np.mean(segment))
            sd = draw_sd(level)
            rows = rows_for(level, sd)
            candidate = near(best, rows)
            r = submit(candidate, rows)
            if sign * r >= sign * level - _SUSPECT_Z * sd:
                segment.append(r)
                segment_files.append(candidate)
                if undo is not None and len(segment) >= undo[3] + _RECHECK_DRAWS:
                    old_best, old_segment, old_files, used, old_shift = undo
                    undo = None
                    # Only the draws after the confirming ones: those were
                    # chosen for being low.
                    fresh = segment[used:]
                    se = sd * math.sqrt(1 / len(fresh) + 1 / len(old_segment))
                    drop = sign * (float(np.mean(old_segment)) - float(np.mean(fresh)))
                    if drop < max(_RECHECK_Z * se, old_shift / 2):
                        # A false alarm: the board's best never moved, and
                        # flips of a file it did not take would rarely pass.
                        best = old_best
                        segment = old_segment + segment
                        segment_files = old_files + segment_files
                        n_adopted -= 1
                continue
            # A suspect: confirm with files that change one row of it
            # (``min_rows`` against a distance guard). If it passed, none of
            # them can pass in turn (one row fixed lowers the risk by exactly
            # 1/n, and the test asks for more than c·s/√n = c/n; with more
            # rows, rarely), so their draws are all of the suspect's score and
            # the attacker's best stays the board's; if it did not, they are
            # candidates as good as it was.
            shift = (c * math.sqrt(rows / scale) + a) / n_public
            wanted = math.ceil((2.5 * sd / max(shift, 1e-12)) ** 2)
            j = min(max(wanted, _CONFIRM_FILES[0]), _CONFIRM_FILES[1])
            j = min(j, climb_budget - len(released))
            if j == 0:
                segment.append(r)
                segment_files.append(candidate)
                break
            confirm_files = [near(candidate, min_rows) for _ in range(j)]
            confirms = [submit(f, min_rows) for f in confirm_files]
            # Below the old level by a significant margin and by half the
            # smallest shift a pass makes.
            margin = max(_CONFIRM_Z * sd * math.sqrt(1 / j + 1 / len(segment)), shift / 2)
            if sign * float(np.mean(confirms)) < sign * level - margin:
                pooled_ss += float(np.var(segment) * len(segment))
                pooled_dof += len(segment) - 1
                # Which file moved the level: the suspect, unless an earlier
                # file passed unseen and the suspect's draw only showed it.
                # A file that passes is answered by a draw of its own score,
                # so the level changes at it: take the split of all the draws
                # since the last adoption that best separates two levels,
                # with every confirming draw on the lower side.
                draws = [*segment, r, *confirms]
                files = [*segment_files, candidate, *confirm_files]
                split = _level_change(sign * np.asarray(draws), len(segment) + 1)
                undo = (best, draws[:split], files[:split], len(draws) - split, shift)
                best, segment, segment_files = files[split], draws[split:], files[split:]
                n_adopted += 1
            else:
                segment.extend([r, *confirms])
                segment_files.extend([candidate, *confirm_files])
        else:
            previous = released[-1]
            rows = rows_for(previous if reading == "changes" else sign * best_key_score)
            candidate = near(best, rows)
            r = submit(candidate, rows)
            passed = r != previous if reading == "changes" else sign * r < best_key_score
            if passed:
                best, best_key_score = candidate, sign * r
                n_adopted += 1

    n_fished = 0
    if n_fish and reading == "draws" and len(released) < k:
        level = float(np.mean(segment))
        sd = draw_sd(level)
        left = k - len(released)
        # Thresholds in key units (lower is better), then back.
        thresholds = _stopping_thresholds(sign * level, sd, left)
        rows = rows_for(level)
        while len(released) < k:
            r = submit(near(best, rows), rows)
            n_fished += 1
            left = k - len(released)
            if left == 0 or sign * r <= thresholds[left]:
                break

    # Full disclosure shows a team's best release; every other board its latest.
    shown = min(sign * s for s in released) * sign if reading == "best" else released[-1]
    truth = (
        true_score
        if true_score is not None
        else fresh_score(oracle, best, fresh_index, fresh_labels)
    )
    gain = None if truth is None else sign * (truth - shown)
    out_released = np.asarray(released, dtype=np.float64)
    out_flips = np.asarray(flips, dtype=np.int64)
    read_only(best, out_released, out_flips)
    return NearDuplicateResult(
        prediction=best,
        displayed=float(shown),
        released=out_released,
        n_submissions=len(released),
        n_adopted=n_adopted,
        reading=reading,
        flips=out_flips,
        n_fished=n_fished,
        true_score=truth,
        raw_gain=gain,
    )


def near_duplicate_averaging_attack(
    oracle: Oracle,
    prediction: Any,
    *,
    T: int,
    random_state: RandomState,
    rows: int = 1,
    jitter: float = 1e-6,
    true_score: float | None = None,
) -> AveragingResult:
    """Average the releases of ``T`` near-duplicates of one model.

    The averaging attack of Chaibub Neto et al. (2016, Discussion) resubmits
    one model ``T`` times and averages a bootstrap board's releases; a
    competition that refuses identical files stops that
    (:func:`~ladderboard.attacks.averaging_attack`), but not this: each copy
    changes ``rows`` random rows of the model (a 0/1 label flipped, or a real
    prediction moved by ``jitter`` standard deviations), so no two copies are
    identical and none equals the model. A copy that does not beat the
    board's best is answered by a fresh draw around the best's score (Alg. 4),
    so the mean of the ``T`` releases estimates it with error shrinking like
    ``1/√T``, as with identical files.

    Parameters
    ----------
    oracle : HoldoutOracle
    prediction : array
        The model: 0/1 labels (then flipped) or real values (then jittered).
    T : int
        Near-duplicates submitted.
    random_state : int, key or KeyedStream
        Rows and jitter come from ``KeyedStream.from_random_state(rs).generator(0)``.
    rows : int
        Rows changed per copy.
    jitter : float
        Standard deviation of the change of a real-valued row.
    true_score : float, optional
        What to measure the estimate against (``error = estimate − true_score``).

    Examples
    --------
    LadderBoot with ``b = 10`` on 500 squared losses, as in
    :func:`~ladderboard.attacks.averaging_attack`, with 400 distinct files:

    >>> import numpy as np
    >>> from ladderboard.attacks import HoldoutOracle
    >>> from ladderboard.mechanisms import LadderBoot
    >>> rng = np.random.default_rng(5)
    >>> y = rng.normal(size=500)
    >>> model = y + rng.normal(scale=0.5, size=500)
    >>> oracle = HoldoutOracle(y, LadderBoot(b=10, random_state=5), loss="squared")
    >>> oracle.submit(model) > 0   # the model is the board's best
    True
    >>> result = near_duplicate_averaging_attack(
    ...     oracle, model, T=400, random_state=0, true_score=oracle.holdout_score(model))
    >>> bool(abs(result.error) < 3 * result.standard_error)
    True
    """
    check_oracle(oracle)
    T = check_int("T", T, 1)
    if true_score is not None:
        true_score = check_real("true_score", true_score)
    jitter = check_real("jitter", jitter, low=0)
    try:
        model = np.asarray(prediction)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"prediction must be an array: {exc}") from None
    if model.ndim == 0 or model.shape[0] == 0:
        raise ValueError("prediction must have one row per label")
    rows = check_int("rows", rows, 1)
    if rows > model.shape[0]:
        raise ValueError(f"rows must be at most the model's {model.shape[0]} rows, got {rows}")
    labels = model.dtype.kind in "biu"
    if labels and not ((model == 0) | (model == 1)).all():
        raise ValueError("an integer prediction must hold 0/1 labels (they are flipped)")

    rng = generator(random_state)
    seen = {_key(np.ascontiguousarray(model))}
    released = np.empty(T, dtype=np.float64)
    for t in range(T):
        while True:
            copy = model.copy()
            at = rng.choice(model.shape[0], size=rows, replace=False)
            if labels:
                copy[at] = 1 - copy[at]
            else:
                copy[at] = copy[at] + rng.normal(0.0, jitter, size=copy[at].shape)
            key = _key(np.ascontiguousarray(copy))
            if key not in seen:
                break
        seen.add(key)
        released[t] = float(oracle.submit(copy))
    estimate = float(released.mean())
    standard_error = float(released.std(ddof=1) / math.sqrt(T)) if T > 1 else math.nan
    read_only(released)
    return AveragingResult(
        estimate=estimate,
        released=released,
        standard_error=standard_error,
        n_submissions=T,
        true_score=true_score,
        error=None if true_score is None else estimate - true_score,
    )
