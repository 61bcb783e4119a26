"""The majority attack (Hardt 2017, *Climbing a shaky ladder*, Sec. 3.1 and
4, App. B).

The analyst asks ``k`` random ±1 queries ``q_i`` about a hidden ±1 vector
``y`` of ``n`` labels; the answer to ``q_i`` is the correlation ``q_i·y/n``
(``1 - 2 ×`` the 0/1 error of the labels ``(1 + q_i)/2``), possibly noisy.
Queries answered positively vote for themselves, the others for their negation,
and the coordinate-wise majority of the votes agrees with ``y`` on about
``1/2 + Ω(√(k/n))`` of the labels (Thm 3.9) while being a coin flip on fresh
data. App. B's listing measures it; Figs. 3-4 show Gaussian noise of about
``3/√n`` on the answers neutralising most of it.

:func:`majority_attack` is the listing: hidden vector, queries and noisy
full-disclosure answers simulated in-process, vectorised over queries in
exact integer arithmetic. :func:`oracle_majority_attack` is the same analyst
playing a real board through a :class:`~ladderboard.attacks.HoldoutOracle`,
its queries submitted as 0/1 label vectors.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ladderboard._validation import check_int, check_real
from ladderboard.attacks._common import (
    Oracle,
    check_fresh,
    check_n_labels,
    check_oracle,
    check_random_state,
    fresh_score,
    generator,
    read_only,
)
from ladderboard.random import RandomState

__all__ = [
    "MajorityResult",
    "OracleMajorityResult",
    "majority_attack",
    "majority_vote",
    "oracle_majority_attack",
]

_CHUNK_BYTES = 1 << 24  # unpacked query bits per chunk (16 MiB)
_MAX_REPETITIONS = 1 << 24  # sub-streams of one key (KeyedStream.generator)
_WORD = 64


@dataclass(frozen=True, eq=False, slots=True)
class MajorityResult:
    """The outcome of :func:`majority_attack`.

    With ``repetitions=None`` the fields are a single run's; with
    ``repetitions=R`` each gains a leading axis of length ``R``.

    Attributes
    ----------
    final : ndarray of int8
        The majority vector in ±1 (read-only).
    bias : float or ndarray
        ``final·y/n``, the agreement with the hidden vector beyond chance:
        ``1 - 2 × error``.
    error : float or ndarray
        ``mean(final != y)``, what App. B's listing returns (line 16).
    answers : ndarray of float64
        The (noisy) answers to the ``k`` queries (read-only).
    n_queries : int
        ``k``.
    """

    final: np.ndarray
    bias: float | np.ndarray
    error: float | np.ndarray
    answers: np.ndarray
    n_queries: int


@dataclass(frozen=True, eq=False, slots=True)
class OracleMajorityResult:
    """The outcome of :func:`oracle_majority_attack`.

    Attributes
    ----------
    prediction : ndarray of int8
        The final 0/1 submission, the majority of the signed queries (read-only).
    score : float
        Its released score.
    answers : ndarray of float64
        ``1 - 2 × release`` for each query: the correlation estimates (read-only).
    n_positive : int
        Queries that voted for themselves (answer > 0); the rest voted negated.
    n_submissions : int
        ``k + 1``.
    true_score : float or None
        The final submission's score on the caller's fresh labels, else ``None``.
    """

    prediction: np.ndarray
    score: float
    answers: np.ndarray
    n_positive: int
    n_submissions: int
    true_score: float | None = None


def majority_vote(bits: Any, positive: Any) -> np.ndarray:
    """App. B, lines 10-15: the majority of the positively answered queries and
    the negations of the others, as 0/1 labels.

    ``bits`` is the ``k × n`` 0/1 matrix of queries (``q = 2 bits - 1``) and
    ``positive`` the ``k`` booleans ``answer > 0``. Label ``j`` is 0 where
    ``Σ_i ±q_ij < 0`` and 1 otherwise, so a tie goes to 1, as the listing's
    ``final = np.ones(n)`` does.

    >>> majority_vote([[1, 0, 1], [1, 1, 0], [0, 0, 0]], [True, True, False])
    array([1, 1, 1], dtype=int8)
    """
    bits = np.asarray(bits)
    positive = np.asarray(positive, dtype=bool)
    if bits.ndim != 2 or positive.shape != (bits.shape[0],):
        raise ValueError(
            f"bits must be k × n and positive of length k, got {bits.shape} and {positive.shape}"
        )
    return (_weights(bits, positive) >= 0).astype(np.int8)


def _weights(bits: np.ndarray, positive: np.ndarray) -> np.ndarray:
    """``Σ_i s_i q_ij`` with ``s_i = ±1`` and ``q = 2 bits - 1``, in integers:
    ``2 (2 P - T) - (2 n_pos - k)``, ``P`` the column sums over positive rows
    and ``T`` over all rows."""
    total = bits.sum(axis=0, dtype=np.int64)
    pos = bits[positive].sum(axis=0, dtype=np.int64)
    n_pos = int(np.count_nonzero(positive))
    return 2 * (2 * pos - total) - (2 * n_pos - bits.shape[0])


# ------------------------------------------------------------------------ draws
def _words(n: int) -> int:
    return -(-n // _WORD)


def _last_word_mask(n: int) -> np.ndarray:
    mask = np.full(_words(n), np.uint64(0xFFFF_FFFF_FFFF_FFFF))
    if n % _WORD:
        mask[-1] = np.uint64((1 << (n % _WORD)) - 1)
    return mask


def _unpack(words: np.ndarray, n: int) -> np.ndarray:
    """Rows of packed 64-bit words as rows of ``n`` 0/1 uint8 (bit ``j`` of the
    row is bit ``j mod 64`` of word ``j // 64``)."""
    octets = words.astype("<u8").view(np.uint8).reshape(words.shape[0], -1)
    return np.unpackbits(octets, axis=1, count=n, bitorder="little")


_POPCOUNT8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)


def _popcount_rows(words: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(words).sum(axis=1, dtype=np.int64)
    octets = words.astype("<u8").view(np.uint8).reshape(words.shape[0], -1)
    return _POPCOUNT8[octets].sum(axis=1)


def _keyed_run(
    gen: np.random.Generator, n: int, k: int, sigma: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One run from a keyed generator: hidden bits, then ``k`` standard normals,
    then the queries row by row (64 bits per raw word); the noise is drawn
    whatever ``sigma``, so that runs at different noise levels with one seed
    share their hidden vector and queries."""
    raw = gen.bit_generator
    mask = _last_word_mask(n)
    hidden = raw.random_raw(_words(n)) & mask
    noise = gen.standard_normal(k)
    answers = np.empty(k)
    total = np.zeros(n, dtype=np.int64)
    pos = np.zeros(n, dtype=np.int64)
    n_pos = 0
    rows = max(1, _CHUNK_BYTES // max(n, 1))
    for start in range(0, k, rows):
        m = min(rows, k - start)
        words = raw.random_raw(m * mask.size).reshape(m, mask.size) & mask
        mismatches = _popcount_rows(words ^ hidden)
        chunk = (n - 2 * mismatches) / n  # q·y/n, exactly as a float dot product
        if sigma:
            chunk += sigma * noise[start : start + m]
        answers[start : start + m] = chunk
        bits = _unpack(words, n)
        positive = chunk > 0.0
        total += bits.sum(axis=0, dtype=np.int64)
        pos += bits[positive].sum(axis=0, dtype=np.int64)
        n_pos += int(np.count_nonzero(positive))
    weights = 2 * (2 * pos - total) - (2 * n_pos - k)
    hidden_bits = _unpack(hidden[None, :], n)[0]
    return hidden_bits, answers, weights


def _listing_run(
    rs: np.random.RandomState, n: int, k: int, sigma: float | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One run consuming ``rs`` exactly as App. B consumes ``np.random``:
    ``randint(0, 2, n)``, ``randint(0, 2, (k, n))``, then, if ``sigma``,
    ``normal(0, sigma, k)``."""
    hidden_bits = rs.randint(0, 2, n)
    bits = rs.randint(0, 2, (k, n))
    mismatches = np.count_nonzero(bits != hidden_bits, axis=1)
    answers = (n - 2 * mismatches) / n
    if sigma:
        answers += rs.normal(0, sigma, k)
    weights = _weights(bits, answers > 0.0)
    return hidden_bits, answers, weights


# ------------------------------------------------------------------- the attack
def _listing_state(random_state: Any) -> np.random.RandomState:
    if isinstance(random_state, np.random.RandomState):
        return random_state
    if random_state is None:
        return np.random.RandomState()
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral):
        raise TypeError(
            "with draws='listing', random_state must be an int seed, None or a "
            f"numpy RandomState, got {type(random_state).__name__}"
        )
    seed = int(random_state)
    if not 0 <= seed < 2**32:
        raise ValueError(
            f"random_state must be in [0, 2**32) for a RandomState, got {random_state}"
        )
    return np.random.RandomState(seed)


def majority_attack(
    *,
    n: int,
    k: int,
    sigma: float | None = None,
    repetitions: int | None = None,
    random_state: Any = None,
    draws: Literal["keyed", "listing"] = "keyed",
) -> MajorityResult:
    """The majority attack of Hardt 2017, App. B, against noisy full disclosure.

    The listing, line by line: ``y = 2 randint(0, 2, n) - 1``; ``k`` queries
    ``Q = 2 randint(0, 2, (k, n)) - 1``; answers ``a = Q y / n``, plus
    ``N(0, σ²)`` noise if ``sigma``; the rows with ``a > 0`` and the negations
    of the others are summed, and the final vector is ``-1`` where the sum is
    negative, ``+1`` elsewhere. The attacker's part (lines 10-15) sees only
    ``Q`` and ``a``. This returns ``final·y/n`` (the bias) and the listing's
    own return value ``mean(final != y)``, the error (``bias = 1 - 2 error``);
    the paper's docstring says "bias", its line 16 returns the error.

    Vectorised over queries, in integers: ``Q y`` is ``n - 2`` mismatches
    (popcounts of packed bits), so the answers equal the listing's float dot
    products bit for bit.

    Parameters
    ----------
    n : int
        Labels in the hidden vector.
    k : int
        Queries.
    sigma : float, optional
        Standard deviation of the Gaussian noise on each answer (the paper
        uses 0, ``1/√n`` and ``3/√n``); ``None`` or 0 is none.
    repetitions : int, optional
        Independent runs; every field of the result gains a leading axis.
    random_state : int, key, KeyedStream or None; with ``draws="listing"`` an
        int seed, None or a ``numpy.random.RandomState``
    draws : {"keyed", "listing"}
        ``"keyed"`` (default): run ``r`` draws from
        ``KeyedStream.from_random_state(random_state).generator(0, r)``
        (``generator(0)`` for a single run): the hidden vector and the queries
        as raw 64-bit words, and ``k`` standard normals drawn whatever
        ``sigma`` is, so that one seed gives the same hidden vector and queries
        at every noise level. ``"listing"``: the draws of App. B exactly, from
        ``numpy.random.RandomState(random_state)``: ``randint(0, 2, n)``,
        ``randint(0, 2, (k, n))`` and, only if ``sigma`` is truthy,
        ``normal(0, sigma, k)``; repetitions continue the same state, as
        calling the listing repeatedly after ``np.random.seed(random_state)``
        does. Results then equal the listing's bit for bit.

    Examples
    --------
    Shaky Ladder Fig. 3 in miniature (``n = 4000``, 20 repetitions): the bias
    grows like ``√(k/n)``, and noise of ``3/√n`` on the answers cuts it.

    >>> import numpy as np
    >>> def mean_bias(k, sigma=None):
    ...     run = majority_attack(n=4000, k=k, sigma=sigma, repetitions=20, random_state=0)
    ...     return round(float(run.bias.mean()), 3)
    >>> mean_bias(100), mean_bias(1000), mean_bias(1000, sigma=3 / np.sqrt(4000))
    (0.1, 0.309, 0.099)
    """
    n = check_int("n", n, 1)
    k = check_int("k", k, 1)
    if sigma is not None:
        sigma = check_real("sigma", sigma, low=0, low_open=False)
    if repetitions is not None:
        repetitions = check_int("repetitions", repetitions, 1)
        if repetitions > _MAX_REPETITIONS:
            raise ValueError(f"repetitions must be at most {_MAX_REPETITIONS}, got {repetitions}")
    if draws not in ("keyed", "listing"):
        raise ValueError(f"draws must be 'keyed' or 'listing', got {draws!r}")
    runs = 1 if repetitions is None else repetitions

    if draws == "listing":
        rs = _listing_state(random_state)
        outcomes = [_listing_run(rs, n, k, sigma) for _ in range(runs)]
    else:
        stream = check_random_state(random_state)
        outcomes = [_keyed_run(stream.generator(0, r), n, k, sigma or 0.0) for r in range(runs)]

    hidden = np.stack([o[0] for o in outcomes]).astype(np.int8)
    answers = np.stack([o[1] for o in outcomes])
    final = np.where(np.stack([o[2] for o in outcomes]) < 0, -1, 1).astype(np.int8)
    wrong = final != (2 * hidden - 1)
    error = np.mean(wrong, axis=1)
    bias = (n - 2 * np.count_nonzero(wrong, axis=1)) / n
    if repetitions is None:
        final, answers, error, bias = final[0], answers[0], float(error[0]), float(bias[0])
    read_only(final, answers)
    return MajorityResult(final=final, bias=bias, error=error, answers=answers, n_queries=k)


def oracle_majority_attack(
    oracle: Oracle,
    *,
    n_labels: int,
    k: int,
    random_state: RandomState,
    fresh_index: Any = None,
    fresh_labels: Any = None,
) -> OracleMajorityResult:
    """The majority attack of Hardt 2017 (Sec. 3.1, App. B) played through a board.

    Query ``i`` is a uniformly random 0/1 label vector ``u_i`` (the ±1 query
    ``q_i = 2 u_i - 1``); its released 0/1 loss ``r_i`` gives the answer
    ``a_i = 1 - 2 r_i``, the estimate of ``q_i·y/n`` on the scored labels.
    Queries with ``a_i > 0`` (``r_i < 1/2``) vote for ``u_i``, the others for
    ``1 - u_i``, and the majority (:func:`majority_vote`, ties to 1) is
    submitted. Unlike the boosting attack, which drops the guesses scored
    above 1/2, every answer is used.

    The answers are only as good as the board's releases: against full
    disclosure they are the listing's, against a ladder most are the repeated
    best and carry nothing (see :func:`shifted_majority_attack`).

    Parameters
    ----------
    oracle : HoldoutOracle
        A board scoring 0/1 labels with the 0/1 loss.
    n_labels : int
        The length of a submission.
    k : int
        Queries; ``k + 1`` submissions in all.
    random_state : int, key or KeyedStream
        The queries are the ``k × n_labels`` int8 array drawn at once from
        ``KeyedStream.from_random_state(random_state).generator(0)``, the
        same guesses :func:`boosting_attack` makes with that seed.
    fresh_index, fresh_labels : optional
        Unscored positions and their labels, to report ``true_score``.

    Examples
    --------
    Against the Kaggle board (Blum & Hardt 2015, App. A), 4000 labels, all
    public; the boosting attack with the same seed and guesses, which drops
    the negative answers, reaches 0.428:

    >>> import numpy as np
    >>> from ladderboard.attacks import HoldoutOracle
    >>> from ladderboard.mechanisms import FullDisclosure
    >>> labels = np.random.default_rng(1).integers(0, 2, size=4000)
    >>> result = oracle_majority_attack(HoldoutOracle(labels, FullDisclosure()),
    ...                                 n_labels=4000, k=400, random_state=1)
    >>> result.n_positive, result.score
    (196, 0.3905)
    """
    check_oracle(oracle)
    n_labels = check_n_labels(oracle, n_labels)
    k = check_int("k", k, 1)
    check_fresh(fresh_index, fresh_labels)

    rng = generator(random_state)
    queries = rng.integers(0, 2, size=(k, n_labels), dtype=np.int8)
    released = np.fromiter((oracle.submit(u) for u in queries), dtype=np.float64, count=k)
    answers = 1.0 - 2.0 * released
    positive = answers > 0.0
    final = majority_vote(queries, positive)
    score = float(oracle.submit(final))

    read_only(final, answers)
    return OracleMajorityResult(
        prediction=final,
        score=score,
        answers=answers,
        n_positive=int(np.count_nonzero(positive)),
        n_submissions=k + 1,
        true_score=fresh_score(oracle, final, fresh_index, fresh_labels),
    )
