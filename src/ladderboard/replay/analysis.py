"""The Ladder paper's analyses of a replayed competition (Blum & Hardt 2015, §6).

- :func:`rank_perturbations`: the top-10 of each board beside the reference
  mechanism's (Table 1);
- :func:`kendall`: Kendall's tau between each public board and its private
  board (``scipy.stats.kendalltau``, tau-b);
- :func:`half_splits`: the top 50 of the private board rescored on 20 random
  half-splits of the private rows, mean and standard deviation (``ddof=1``)
  over the splits of each half's score (Fig. 5);
- :func:`ttests`: paired t-tests (``scipy.stats.ttest_rel``, two-sided) of
  the top public submission against ranks 2-10 on the per-row private
  losses, and the Bonferroni correction ``min(1, p · m)`` over the ``m``
  comparisons (Fig. 6). Two identical loss vectors give no evidence of a
  difference: their p-value is 1.

Half-splits and t-tests use the per-row losses, also for a metric-based
mechanism (whose boards rank by its metric).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ladderboard.random import KeyedStream
from ladderboard.replay.replay import MechanismReplay, ScoredHistory

__all__ = [
    "bonferroni",
    "half_split_indices",
    "half_split_scores",
    "half_splits",
    "kendall",
    "rank_perturbations",
    "ttests",
]

TOP_TABLE = 10
TOP_SCATTER = 50
SPLITS = 20


def rank_perturbations(
    replays: Sequence[MechanismReplay], reference: MechanismReplay, top: int = TOP_TABLE
) -> list[dict]:
    """One row per (board, mechanism, rank ≤ ``top``): the team there and its rank
    on the reference mechanism's board of the same kind (``None`` if not in it).

    A team whose ``reference_rank`` differs from its ``rank`` was moved by the
    mechanism: the positions of Table 1.
    """
    rows = []
    for kind in ("public", "private"):
        ref_board = getattr(reference, f"{kind}_board")
        ref_rank = {e.team: e.rank for e in ref_board}
        for replay in replays:
            for entry in getattr(replay, f"{kind}_board")[:top]:
                other = ref_rank.get(entry.team)
                rows.append(
                    {
                        "board": kind,
                        "mechanism": replay.name,
                        "rank": entry.rank,
                        "team": entry.team,
                        "reference": reference.name,
                        "reference_rank": other,
                        "moved": other != entry.rank,
                    }
                )
    return rows


def kendall(replays: Sequence[MechanismReplay]) -> list[dict]:
    """Kendall's tau-b between each mechanism's public and private board scores."""
    from scipy import stats

    rows = []
    for replay in replays:
        private = {e.team: e.score for e in replay.private_board}
        teams = [e.team for e in replay.public_board]
        public_scores = [e.score for e in replay.public_board]
        private_scores = [private[t] for t in teams]
        if len(teams) >= 2:
            result = stats.kendalltau(public_scores, private_scores)
            tau, p = float(result.statistic), float(result.pvalue)
        else:
            tau = p = float("nan")
        rows.append({"mechanism": replay.name, "teams": len(teams), "tau": tau, "p_value": p})
    return rows


def half_split_indices(n_private: int, splits: int = SPLITS, seed: int = 0) -> np.ndarray:
    """``(splits, 2, n_private // 2)``: for each split, the private rows of its two halves.

    Each split is a fresh permutation of the private rows (an odd row out is
    left out); drawn from ``KeyedStream.from_random_state(seed)``.

    >>> halves = half_split_indices(5, splits=3, seed=0)
    >>> halves.shape, len(set(halves[0].ravel()))    # two disjoint halves
    ((3, 2, 2), 4)
    """
    half = n_private // 2
    if half < 1:
        raise ValueError(f"n_private must be at least 2 to split, got {n_private}")
    generator = KeyedStream.from_random_state(seed).derive("replay/half-splits").generator(0)
    out = np.empty((splits, 2, half), dtype=np.int64)
    for s in range(splits):
        order = generator.permutation(n_private)
        out[s, 0], out[s, 1] = order[:half], order[half : 2 * half]
    return out


def half_split_scores(losses: np.ndarray, halves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each submission's mean loss on each half of each split: two ``(m, splits)`` arrays."""
    splits, _, half = halves.shape
    weights = np.zeros((2, losses.shape[1], splits))
    for s in range(splits):
        weights[0, halves[s, 0], s] = 1.0 / half
        weights[1, halves[s, 1], s] = 1.0 / half
    return losses @ weights[0], losses @ weights[1]


def half_splits(
    replay: MechanismReplay,
    history: ScoredHistory,
    halves: np.ndarray,
    top: int = TOP_SCATTER,
) -> list[dict]:
    """The top ``top`` of the private board on each half-split: mean ± sd (Fig. 5).

    ``gap_sd`` is the standard deviation over splits of the difference of the
    two halves; ``within_one_sd`` tells whether the observed public minus
    private gap is within it (the paper's reading of its Fig. 5).
    """
    board = replay.private_board[:top]
    chosen = np.array([e.submission for e in board], dtype=np.int64)
    if chosen.size == 0:
        return []
    a, b = half_split_scores(history.private_losses[chosen], halves)
    public = history.public_score[chosen]
    private = history.private_score[chosen]
    rows = []
    for j, entry in enumerate(board):
        gap_sd = float(np.std(a[j] - b[j], ddof=1)) if a.shape[1] > 1 else float("nan")
        gap = float(public[j] - private[j])
        rows.append(
            {
                "mechanism": replay.name,
                "private_rank": entry.rank,
                "team": entry.team,
                "submission": int(entry.submission),
                "public_loss": float(public[j]),
                "private_loss": float(private[j]),
                "mean_a": float(a[j].mean()),
                "sd_a": float(np.std(a[j], ddof=1)) if a.shape[1] > 1 else float("nan"),
                "mean_b": float(b[j].mean()),
                "sd_b": float(np.std(b[j], ddof=1)) if b.shape[1] > 1 else float("nan"),
                "gap": gap,
                "gap_sd": gap_sd,
                "within_one_sd": bool(abs(gap) <= gap_sd),
            }
        )
    return rows


def bonferroni(p_values: Sequence[float]) -> list[float]:
    """``min(1, p · m)`` for ``m`` p-values.

    >>> bonferroni([0.001, 0.02, 0.5])
    [0.003, 0.06, 1.0]
    """
    m = len(p_values)
    return [min(1.0, p * m) for p in p_values]


@dataclass(frozen=True)
class _Pair:
    t: float
    p: float


def _paired(x: np.ndarray, y: np.ndarray) -> _Pair:
    from scipy import stats

    if np.array_equal(x, y):
        return _Pair(0.0, 1.0)
    result = stats.ttest_rel(x, y)
    t, p = float(result.statistic), float(result.pvalue)
    return _Pair(t, 1.0 if np.isnan(p) else p)


def ttests(replay: MechanismReplay, history: ScoredHistory, top: int = TOP_TABLE) -> list[dict]:
    """Paired t-tests on the private rows: the top public submission vs ranks 2..``top``."""
    board = replay.public_board[:top]
    if len(board) < 2:
        return []
    best = history.private_losses[board[0].submission]
    pairs = [_paired(history.private_losses[e.submission], best) for e in board[1:]]
    corrected = bonferroni([pair.p for pair in pairs])
    rows = []
    for entry, pair, p_corrected in zip(board[1:], pairs, corrected, strict=True):
        losses = history.private_losses[entry.submission]
        rows.append(
            {
                "mechanism": replay.name,
                "rank": entry.rank,
                "team": entry.team,
                "submission": int(entry.submission),
                "top_team": board[0].team,
                "mean_difference": float(losses.mean() - best.mean()),
                "t": pair.t,
                "p_value": pair.p,
                "p_bonferroni": p_corrected,
            }
        )
    return rows
