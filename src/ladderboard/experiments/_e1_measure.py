"""What E1 measures: the boosting attack against every board, vectorised over
``k`` (:mod:`ladderboard.experiments.e1_boosting`), and the authors' results it
is compared with (Blum & Hardt 2015, Fig. 3).
"""

from __future__ import annotations

import bisect
import csv
import functools
import io
import math
from importlib import resources
from typing import Any

import numpy as np

from ladderboard._validation import check_int
from ladderboard.mechanisms import round_to
from ladderboard.random import KeyedStream, RandomState
from ladderboard.tasks.runner import Task, task_seed

N_LABELS = 12000
N_PUBLIC = 4000
FULL_K = (10, 25, *range(50, 2001, 50))
QUICK_K = (50, 100, 200, 400)
KAGGLE_FINE = "FullDisclosure(1e-5)"
KAGGLE_2DP = "FullDisclosure(0.01)"
KAGGLE_COARSE = "FullDisclosure(1/sqrt(n))"
LADDER = "ParameterFreeLadder"
BOARDS = (KAGGLE_FINE, KAGGLE_2DP, KAGGLE_COARSE, LADDER)
_CHANCE = 0.5

PAPER_AT_400 = {
    "kaggle_fine": 0.427,
    "kaggle_coarse": 0.451,
    "ladder_fine_panel": 0.484,
    "ladder_coarse_panel": 0.488,
    "fresh": 0.50,
}
"""Fig. 3 at ``k = 400`` to three decimals: the right panel ("rounding
0.00001"), the left panel ("rounding 1/√n"), the Ladder in each panel, and
the independent test set."""

HIGHACC = "kaggleboosting-4000-400-5-highacc.csv"
LOWACC = "kaggleboosting-4000-400-5-lowacc.csv"
AUTHORS_K = tuple(range(10, 401, 10))
"""The authors' grid of ``k`` (``10:10:400`` in ``plotboostingattack``)."""
AUTHORS_REPS = 5
CURVES = ("Kaggle", "Ladder")
AUTHORS_DATA = "e1_authors_fig3.csv"
"""The authors' results for Fig. 3, shipped as ``data/e1_authors_fig3.csv``
(columns ``file``, ``k``, ``Kaggle``, ``Ladder``): copied from the ``csvs/``
folder of the ``mrtzh/Ladder.jl`` repository, to five decimals, which is
exact (each is a mean of 5 losses in multiples of 1/4000)."""


@functools.cache
def authors_csv() -> dict[str, dict[str, tuple[float, ...]]]:
    """The authors' results for Fig. 3, by file and curve (``"Kaggle"``,
    ``"Ladder"``): one value per ``k`` of :data:`AUTHORS_K`, the exact public
    loss of the final vector averaged over :data:`AUTHORS_REPS` repetitions.
    ``highacc`` is the right panel of Fig. 3, ``lowacc`` the left.

    >>> authors_csv()[HIGHACC]["Kaggle"][-1], len(authors_csv()[LOWACC]["Ladder"])
    (0.42745, 40)
    """
    text = resources.files("ladderboard.experiments").joinpath("data", AUTHORS_DATA)
    rows = list(csv.DictReader(io.StringIO(text.read_text("utf-8"))))
    out: dict[str, dict[str, tuple[float, ...]]] = {}
    for name in (HIGHACC, LOWACC):
        mine = [row for row in rows if row["file"] == name]
        if tuple(int(row["k"]) for row in mine) != AUTHORS_K:
            raise ValueError(f"{AUTHORS_DATA}: the k of {name} are not 10, 20, ..., 400")
        out[name] = {curve: tuple(float(row[curve]) for row in mine) for curve in CURVES}
    return out


_AUTHORS_ROWS = (
    (KAGGLE_FINE, "Kaggle, 5 decimals (the authors' high-accuracy run)", HIGHACC, "Kaggle"),
    (KAGGLE_2DP, "Kaggle, 2 decimals (the authors' low-accuracy run)", LOWACC, "Kaggle"),
    (KAGGLE_COARSE, "Kaggle, nearest multiple of 1/√n (the paper's text)", LOWACC, "Kaggle"),
    (LADDER, "Ladder (high-accuracy run)", HIGHACC, "Ladder"),
    (LADDER, "Ladder (low-accuracy run)", LOWACC, "Ladder"),
)
"""Each board beside the authors' curve it is compared with."""

_MIN_REPS_FOR_FIT = 20
"""Repetitions below which the report gives no χ²: the standard errors come
from the repetitions' own spread, which a handful of them estimates badly."""


def _ladder_releases(losses: np.ndarray, totals: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """The ParameterFreeLadder's release for each guess, and the accepted guesses.

    0/1 losses make every sum an integer, so the paired test is the Ladder's
    exact integer form: with ``A = B - t`` (``B`` the best total, ``t`` the
    guess's), ``s1 = t - B`` and ``s2 = Σ(x - best)² = t - 2 x·best + B``, a
    guess passes iff ``A > 0`` and ``A² (n - 1) > n s2 - s1²``.
    """
    k, n = losses.shape
    released = np.empty(k)
    accepted = [0]  # R_0 = ∞: the first submission is accepted
    best_total = int(totals[0])
    released[0] = best_total / n
    i = 1
    while i < k:
        candidates = np.flatnonzero(totals[i:] < best_total) + i
        passes = np.zeros(0, dtype=bool)
        if candidates.size:
            dots = (losses[candidates] @ losses[accepted[-1]]).astype(np.int64)
            t = totals[candidates]
            a = best_total - t
            s2 = t - 2 * dots + best_total
            passes = a * a * (n - 1) > n * s2 - a * a
        if not passes.any():
            released[i:] = best_total / n
            break
        j = int(candidates[np.argmax(passes)])
        released[i:j] = best_total / n
        best_total = int(totals[j])
        released[j] = best_total / n
        accepted.append(j)
        i = j + 1
    return released, accepted


def _kept(board: str, released: np.ndarray) -> np.ndarray:
    """The boosting attack's keep rule for ``board`` (``"half"`` or ``"improved"``)."""
    if board != LADDER:
        return released <= _CHANCE
    previous = np.concatenate(([_CHANCE], released[:-1]))
    return released < np.minimum.accumulate(previous)


def e1_repetition(
    *,
    rep: int,
    random_state: RandomState,
    ks: tuple[int, ...] = FULL_K,
    n_labels: int = N_LABELS,
    n_public: int = N_PUBLIC,
) -> Any:
    """One repetition of Fig. 3: every board, every ``k`` in ``ks``.

    Draws from ``KeyedStream.from_random_state(random_state)``: the guesses
    from ``generator(0)`` (the draws of ``boosting_attack``), the labels and
    the public positions from ``generator(1)``, and the final submission used
    when no guess is kept from ``generator(2)``.

    Returns a tidy DataFrame with one row per ``(k, board)``: ``rep``, ``k``,
    ``board``, ``released`` (the final submission's released score),
    ``public_loss`` (its exact loss on the public labels), ``fresh_loss`` (on
    the fresh labels) and ``n_kept``.

    >>> frame = e1_repetition(rep=0, random_state=1, ks=(100,), n_labels=3000, n_public=1000)
    >>> frame.set_index("board").loc[["FullDisclosure(1e-5)", "ParameterFreeLadder"],
    ...                              "released"].tolist()
    [0.426, 0.474]
    """
    import pandas as pd

    n_labels = check_int("n_labels", n_labels, 3)
    n_public = check_int("n_public", n_public, 2)
    if n_public >= n_labels:
        raise ValueError(f"n_public must be below n_labels={n_labels}, got {n_public}")
    ks = tuple(sorted({check_int("k", k, 1) for k in ks}))
    if not ks:
        raise ValueError("ks must hold at least one k")
    stream = KeyedStream.from_random_state(random_state)
    guesses = stream.generator(0).integers(0, 2, size=(ks[-1], n_labels), dtype=np.int8)
    holdout = stream.generator(1)
    labels = holdout.integers(0, 2, size=n_labels, dtype=np.int8)
    public = np.sort(holdout.permutation(n_labels)[:n_public])
    fresh = np.ones(n_labels, dtype=bool)
    fresh[public] = False
    fallback = stream.generator(2).integers(0, 2, size=n_labels, dtype=np.int8)

    y = labels[public]
    losses = (guesses[:, public] != y).astype(np.float32)  # sums below 2**24 are exact
    totals = losses.sum(axis=1, dtype=np.float64).astype(np.int64)
    risks = totals / n_public
    steps = {KAGGLE_FINE: 1e-5, KAGGLE_2DP: 0.01, KAGGLE_COARSE: 1.0 / math.sqrt(n_public)}
    ladder_released, accepted = _ladder_releases(losses, totals)
    released = {
        board: np.array([round_to(r, step) for r in risks]) for board, step in steps.items()
    }
    released[LADDER] = ladder_released

    rows = []
    for board in BOARDS:
        kept = _kept(board, released[board])
        votes = np.zeros(n_labels, dtype=np.int64)
        n_kept = 0
        start = 0
        for k in ks:
            block = np.flatnonzero(kept[start:k]) + start
            votes += guesses[block].sum(axis=0, dtype=np.int64)
            n_kept += block.size
            start = k
            final = (2 * votes > n_kept).astype(np.int8) if n_kept else fallback
            f = (final[public] != y).astype(np.float32)
            f_total = int(f.sum(dtype=np.float64))
            if board in steps:
                score = round_to(f_total / n_public, steps[board])
            else:
                best = accepted[bisect.bisect_left(accepted, k) - 1]
                score = _ladder_final(f, f_total, losses[best], int(totals[best]))
            rows.append(
                {
                    "rep": rep,
                    "k": k,
                    "board": board,
                    "released": score,
                    "public_loss": f_total / n_public,
                    "fresh_loss": float(np.mean(final[fresh] != labels[fresh])),
                    "n_kept": n_kept,
                }
            )
    return pd.DataFrame(rows)


def _ladder_final(f: np.ndarray, f_total: int, best: np.ndarray, best_total: int) -> float:
    """The Ladder's release for the final submission, given its best so far."""
    n = f.shape[0]
    a = best_total - f_total
    if a > 0:
        s2 = f_total - 2 * int(f @ best) + best_total
        if a * a * (n - 1) > n * s2 - a * a:
            return f_total / n
    return best_total / n


def e1_tasks(*, reps: int, quick: bool, seed: int) -> list[Task]:
    """One task per repetition, each with its own seed."""
    ks = QUICK_K if quick else FULL_K
    return [
        Task(e1_repetition, {"rep": r, "random_state": task_seed(seed, "e1", r), "ks": ks})
        for r in range(reps)
    ]


def _sd(values: Any) -> float:
    return float(values.std(ddof=1)) if len(values) > 1 else 0.0


def authors_comparison(frame: Any) -> list[dict[str, Any]]:
    """Each board's mean public loss beside the authors' CSV, at every shared ``k``.

    One record per ``(row, k)``: ``board``, ``label``, ``csv`` (the authors'
    file), ``k``, ``authors``, ``ours`` (mean of ``public_loss``), ``se`` (its
    standard error over our repetitions), ``five_run_se`` and ``z``, the
    difference over the standard error of the difference.

    ``five_run_se`` is *ours*, not the authors': the paper's Fig. 3 gives no
    error bars ("averaged over 5 independent repetitions") and the authors'
    CSV only the means, so the noise of their 5-run mean is estimated by our
    sample sd over √5, the standard error a 5-run mean has at our spread.
    """
    records = []
    for board, label, csv_name, curve in _AUTHORS_ROWS:
        losses = frame[frame.board == board].groupby("k").public_loss
        for k, values in losses:
            if int(k) not in AUTHORS_K:
                continue
            authors = authors_csv()[csv_name][curve][AUTHORS_K.index(int(k))]
            sd = _sd(values)
            se = sd / math.sqrt(len(values))
            five_run_se = sd / math.sqrt(AUTHORS_REPS)
            ours = float(values.mean())
            spread = math.hypot(se, five_run_se)
            records.append(
                {
                    "board": board,
                    "label": label,
                    "csv": csv_name,
                    "k": int(k),
                    "authors": authors,
                    "ours": ours,
                    "se": se,
                    "five_run_se": five_run_se,
                    "z": (ours - authors) / spread if spread else math.nan,
                }
            )
    return records
