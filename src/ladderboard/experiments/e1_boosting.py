"""E1: the boosting attack on the Kaggle board and on the Ladder (Blum & Hardt
2015, Sec. 5.1, Fig. 3).

``N = 12000`` binary labels, of which a hidden random subset of ``n = 4000``
scores the public board and the rest are fresh data. The attacker submits
``k`` uniformly random label vectors and then the majority of those it keeps
(:func:`~ladderboard.attacks.boosting_attack`): against
:class:`~ladderboard.mechanisms.FullDisclosure` the guesses released at most
1/2, against :class:`~ladderboard.mechanisms.ParameterFreeLadder` those whose
release lowered the best so far. The table holds, for each ``k`` on a grid and
each board, the released score of the final submission, its exact public loss
and its loss on the fresh labels.

The Kaggle boards. The paper's text names two roundings, ``1e-5`` and
``1/√n ≈ 0.0158``. The authors' code (``examples/attacks.jl`` in the
``mrtzh/Ladder.jl`` repository) rounds by decimal digits instead,
``round(loss, 5)``, and its two result files
(``csvs/kaggleboosting-4000-400-5-highacc.csv`` and ``-lowacc.csv``) are the
two panels of Fig. 3; the low-accuracy curve matches two decimals (a 0.01
grid), not the nearest multiple of ``1/√n``. So E1 runs three Kaggle boards:
``1e-5`` (five decimals, the authors' high-accuracy run: on ``n = 4000`` every
loss is a multiple of ``1/4000`` and five decimals change nothing), ``0.01``
(two decimals, their low-accuracy run) and the literal ``1/√n`` of the text.
The keep rule "released ≤ 1/2" keeps a guess with a loss up to ``0.5`` at five
decimals, below ``0.505`` at two decimals, and below about ``0.498`` at
``1/√n`` (the multiple below 1/2 is 31/√n ≈ 0.4902): the rows differ because
the boards let different guesses into the majority.

What the authors' files store is the exact public loss of the final (boosted)
vector, ``empirical_loss(y, ku, loss01)`` averaged over 5 repetitions, one
independent attack for each ``k`` in ``10:10:400``; they hold ``n = 4000``
labels only, all of them public. :data:`AUTHORS_CSV` copies their numbers, and
the report compares them with the column ``public_loss``.

Vectorised over ``k``: one repetition draws the ``k_max`` guesses at once, as
``boosting_attack(random_state=seed)`` does (the attack with ``k`` guesses
uses the first ``k`` rows), scores them all with one comparison against the
public labels, and runs the Ladder's paired test on all candidates at once
between two acceptances (a matrix-vector product with the best loss vector).
The decisions are the mechanisms' own (``round_to`` for the Kaggle boards, the
integer form of ``paired_test_passes`` for the Ladder); the tests check that
each row equals ``boosting_attack`` through a :class:`HoldoutOracle`.
"""

from __future__ import annotations

import bisect
import math
from pathlib import Path
from typing import Any

import numpy as np

from ladderboard._validation import check_int
from ladderboard.analysis import kaggle_attack_error, ladder_lower_bound
from ladderboard.experiments.registry import Experiment, RunInfo
from ladderboard.mechanisms import round_to
from ladderboard.random import KeyedStream, RandomState
from ladderboard.tasks.reports import (
    markdown_table,
    new_figure,
    run_line,
    save_figure,
)
from ladderboard.tasks.runner import Task, task_seed

__all__ = [
    "AUTHORS_CSV",
    "AUTHORS_K",
    "BOARDS",
    "E1",
    "EXPERIMENT",
    "FULL_K",
    "PAPER_AT_400",
    "QUICK_K",
    "e1_repetition",
    "e1_tasks",
]

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
# fmt: off
AUTHORS_CSV: dict[str, dict[str, tuple[float, ...]]] = {
    HIGHACC: {
        "Kaggle": (
            0.49495, 0.48195, 0.4791, 0.47795, 0.4766, 0.474, 0.47285, 0.47165,
            0.4638, 0.46695, 0.46275, 0.45935, 0.4618, 0.4578, 0.45525, 0.45995,
            0.4545, 0.4506, 0.4492, 0.45225, 0.4477, 0.4477, 0.44535, 0.4432,
            0.44855, 0.44515, 0.44485, 0.44215, 0.4393, 0.4408, 0.43815, 0.43715,
            0.43395, 0.43205, 0.4321, 0.4327, 0.43, 0.4285, 0.43695, 0.42745,
        ),
        "Ladder": (
            0.4942, 0.4934, 0.49065, 0.4892, 0.48955, 0.49075, 0.48875, 0.4842,
            0.48895, 0.49035, 0.48765, 0.48465, 0.4816, 0.4883, 0.4857, 0.4908,
            0.48815, 0.488, 0.48295, 0.4864, 0.48325, 0.48595, 0.4893, 0.4869,
            0.49345, 0.48195, 0.4874, 0.4851, 0.48945, 0.48965, 0.4814, 0.47965,
            0.4821, 0.4885, 0.48495, 0.4877, 0.48405, 0.48525, 0.48615, 0.48425,
        ),
    },
    LOWACC: {
        "Kaggle": (
            0.49025, 0.494, 0.48955, 0.4851, 0.4821, 0.4818, 0.48165, 0.47835,
            0.48, 0.4753, 0.47705, 0.4759, 0.47345, 0.47795, 0.4705, 0.4677,
            0.46785, 0.4695, 0.4657, 0.46675, 0.4657, 0.4652, 0.4686, 0.46265,
            0.46165, 0.46735, 0.4608, 0.4619, 0.4565, 0.4535, 0.4581, 0.4573,
            0.4534, 0.45645, 0.456, 0.4587, 0.45145, 0.4515, 0.4535, 0.45065,
        ),
        "Ladder": (
            0.48965, 0.4937, 0.48745, 0.49205, 0.4898, 0.4878, 0.48795, 0.49255,
            0.4912, 0.4893, 0.48875, 0.4872, 0.487, 0.4893, 0.4934, 0.48705,
            0.48515, 0.49005, 0.4876, 0.4782, 0.48625, 0.4862, 0.49105, 0.4843,
            0.4853, 0.4896, 0.4818, 0.48825, 0.48465, 0.48715, 0.49085, 0.4853,
            0.4837, 0.48765, 0.4854, 0.4849, 0.4843, 0.48925, 0.485, 0.4878,
        ),
    },
}
# fmt: on
"""The authors' results for Fig. 3, from the ``csvs/`` folder of the
``mrtzh/Ladder.jl`` repository (to five decimals, which is exact: each is a
mean of 5 losses in multiples of 1/4000), one value per ``k`` of
:data:`AUTHORS_K`: the exact public loss of the final vector, averaged over
:data:`AUTHORS_REPS` repetitions. ``highacc`` is the right panel of Fig. 3,
``lowacc`` the left."""

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


# --------------------------------------------------------------------- outputs
def _band(ax: Any, frame: Any, column: str, label: str, colour: str, style: str = "-") -> None:
    stats = frame.groupby("k")[column].agg(["mean", "std"]).fillna(0.0)
    ax.plot(stats.index, stats["mean"], style, color=colour, label=label)
    ax.fill_between(
        stats.index,
        stats["mean"] - stats["std"],
        stats["mean"] + stats["std"],
        color=colour,
        alpha=0.2,
        linewidth=0,
    )


def e1_plot(frame: Any, stem: Path) -> list[Path]:
    """Fig. 3, as the authors drew it: the final vector's exact public loss.

    Left, the low-accuracy panel (two decimals, and the literal ``1/√n``
    dashed); right, the high-accuracy one (five decimals). Crosses are the
    authors' CSV (means of 5 repetitions).
    """
    figure, axes = new_figure(2)
    panels = (
        (LOWACC, (KAGGLE_2DP, KAGGLE_COARSE), "low accuracy"),
        (HIGHACC, (KAGGLE_FINE,), "high accuracy (1e-5)"),
    )
    for ax, (csv, kaggles, title) in zip(axes, panels, strict=True):
        _band(ax, frame[frame.board == kaggles[0]], "fresh_loss", "fresh data", "tab:green")
        _band(ax, frame[frame.board == LADDER], "public_loss", "Ladder", "tab:blue")
        for kaggle, style in zip(kaggles, ("-", "--"), strict=False):
            label = f"Kaggle {kaggle.removeprefix('FullDisclosure')}"
            _band(ax, frame[frame.board == kaggle], "public_loss", label, "tab:red", style)
        for curve, colour in (("Kaggle", "tab:red"), ("Ladder", "tab:blue")):
            ax.plot(AUTHORS_K, AUTHORS_CSV[csv][curve], "x", color=colour, markersize=4)
        ax.set_title(f"Boosting attack, Kaggle {title}")
        ax.set_xlabel("k (random guesses)")
        ax.set_ylabel("public 0/1 loss of the final vector")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower left", fontsize="small")
    figure.suptitle(
        f"E1 (Blum & Hardt 2015, Fig. 3): n = {N_PUBLIC} public labels, mean ± sd over "
        f"{frame.rep.nunique()} repetitions; x: the authors' CSV (Ladder.jl)"
    )
    return save_figure(figure, stem)


def _cell(values: Any) -> str:
    return f"{values.mean():.3f} ± {values.std(ddof=1) if len(values) > 1 else 0.0:.3f}"


def _sd(values: Any) -> float:
    return float(values.std(ddof=1)) if len(values) > 1 else 0.0


def _rates(frame: Any, k: int) -> list[object]:
    at = frame[frame.k == k]
    kaggle = _CHANCE - at[at.board == KAGGLE_FINE].released.mean()
    ladder = _CHANCE - at[at.board == LADDER].released.mean()
    return [
        k,
        f"{kaggle:.3f}",
        f"{kaggle_attack_error(N_PUBLIC, k):.3f}",
        f"{ladder:.3f}",
        f"{ladder_lower_bound(N_PUBLIC, k):.3f}",
    ]


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
    for board, label, csv, curve in _AUTHORS_ROWS:
        losses = frame[frame.board == board].groupby("k").public_loss
        for k, values in losses:
            if int(k) not in AUTHORS_K:
                continue
            authors = AUTHORS_CSV[csv][curve][AUTHORS_K.index(int(k))]
            sd = _sd(values)
            se = sd / math.sqrt(len(values))
            five_run_se = sd / math.sqrt(AUTHORS_REPS)
            ours = float(values.mean())
            spread = math.hypot(se, five_run_se)
            records.append(
                {
                    "board": board,
                    "label": label,
                    "csv": csv,
                    "k": int(k),
                    "authors": authors,
                    "ours": ours,
                    "se": se,
                    "five_run_se": five_run_se,
                    "z": (ours - authors) / spread if spread else math.nan,
                }
            )
    return records


def e1_report(frame: Any, info: RunInfo) -> str:
    """The measured public losses beside the authors' CSV and the paper's figure."""
    k = int(min(frame.k.unique(), key=lambda v: (abs(v - 400), v)))
    at = frame[frame.k == k]
    reps = frame.rep.nunique()

    def public(board: str) -> Any:
        return at[at.board == board].public_loss

    def mean_se(values: Any) -> str:
        return f"{values.mean():.4f} ± {_sd(values) / math.sqrt(len(values)):.4f}"

    paper_rows: list[list[object]] = [
        [
            'Kaggle, 5 decimals (right panel, "rounding 0.00001")',
            PAPER_AT_400["kaggle_fine"],
            AUTHORS_CSV[HIGHACC]["Kaggle"][-1],
            mean_se(public(KAGGLE_FINE)),
        ],
        [
            "Kaggle, 2 decimals (left panel, as the authors ran it)",
            PAPER_AT_400["kaggle_coarse"],
            AUTHORS_CSV[LOWACC]["Kaggle"][-1],
            mean_se(public(KAGGLE_2DP)),
        ],
        [
            "Kaggle, nearest multiple of 1/√n (left panel, as its caption reads)",
            PAPER_AT_400["kaggle_coarse"],
            AUTHORS_CSV[LOWACC]["Kaggle"][-1],
            mean_se(public(KAGGLE_COARSE)),
        ],
        [
            "Ladder (right panel)",
            PAPER_AT_400["ladder_fine_panel"],
            AUTHORS_CSV[HIGHACC]["Ladder"][-1],
            mean_se(public(LADDER)),
        ],
        [
            "Ladder (left panel)",
            PAPER_AT_400["ladder_coarse_panel"],
            AUTHORS_CSV[LOWACC]["Ladder"][-1],
            mean_se(public(LADDER)),
        ],
        [
            "fresh-data loss (every board)",
            f"≈ {PAPER_AT_400['fresh']:.2f}",
            "",
            mean_se(at.fresh_loss),
        ],
    ]
    records = authors_comparison(frame)
    shown = [r for r in records if r["k"] in (100, 200, 400)] or records
    comparison = [
        [
            r["label"],
            r["k"],
            f"{r['authors']:.5f}",
            f"{r['ours']:.4f} ± {r['se']:.4f}",
            f"{r['ours'] - r['authors']:+.4f}",
            f"{r['five_run_se']:.4f}",
        ]
        for r in shown
    ]
    largest = []
    for board, label, csv, _curve in _AUTHORS_ROWS:
        mine = [r for r in shown if r["board"] == board and r["csv"] == csv]
        if mine:
            worst = max(mine, key=lambda r: abs(r["ours"] - r["authors"]))
            gap = abs(worst["ours"] - worst["authors"])
            largest.append(f"{label} {gap:.4f} (k = {worst['k']})")
    closest = (
        f"The largest difference from the authors' CSV over k = "
        f"{', '.join(str(k) for k in sorted({r['k'] for r in shown}))}, row by row: "
        + "; ".join(largest)
        + "."
    )
    fits = []
    for board, label, csv, _curve in _AUTHORS_ROWS:
        zs = [r["z"] for r in records if r["board"] == board and r["csv"] == csv]
        fits.append([label, len(zs), f"{sum(z * z for z in zs):.1f}"])
    k_max = int(frame.k.max())
    last = frame[frame.k == k_max]
    tail = [
        [
            board,
            _cell(last[last.board == board].released),
            _cell(last[last.board == board].public_loss),
            _cell(last[last.board == board].fresh_loss),
        ]
        for board in BOARDS
    ]
    command = f"ladderboard experiment run e1 --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    setup = (
        "What the authors ran (`examples/attacks.jl` in the `mrtzh/Ladder.jl` repository): "
        "n = 4000 labels, all of them public; for each k in 10, 20, …, 400 an independent "
        "attack with k uniformly random guesses; the Kaggle board releases "
        "`round(loss, 5)` (five decimals) and the attack keeps the guesses released at "
        "most 1/2; the parameter-free Ladder releases its best loss and the attack keeps "
        "the guesses that lowered it; the final vector is the kept guesses' majority "
        "(ties to 1). Their CSV (`csvs/kaggleboosting-4000-400-5-highacc.csv`, "
        "`-lowacc.csv`) stores the final vector's exact loss on those labels, averaged "
        'over 5 repetitions, not a released score; their "Test" curve is the loss of '
        "one random vector against other random labels. The low-accuracy file was made by "
        "the same code with fewer digits: its Kaggle curve matches two decimals (a 0.01 "
        "grid) and not the nearest multiple of 1/√n that the paper's caption names."
    )
    why = (
        "Why the Kaggle rows differ: they release the same losses on different grids, so "
        'the keep rule "released ≤ 1/2" lets in different guesses. Five decimals change '
        "nothing on n = 4000 (every loss is a multiple of 1/4000): the guesses with loss "
        "≤ 0.5 are kept. Two decimals release 0.50 for every loss below 0.505, so guesses "
        "slightly worse than chance join the majority and dilute it: the attack gains "
        "less. The nearest multiple of 1/√n ≈ 0.0158 releases 31/√n ≈ 0.490 or "
        "32/√n ≈ 0.506, so only losses below about 0.498 are kept, and the attack does "
        "slightly better than at five decimals."
    )
    caveats = (
        "Here the public labels are a hidden random 4000 of 12000 (the paper's text), which "
        "does not change the public loss; one repetition nests the attacks at every k "
        "(the first k of k_max guesses), which leaves each k's distribution as the "
        "authors' but correlates neighbouring k. The authors' majority breaks ties to 1 and "
        "ours to 0, and their Ladder keeps a drop from a first release above 1/2 while "
        "ours keeps only releases below 1/2: neither changes the expected loss of a random "
        "attack on random labels by more than the noise. At two decimals a loss of "
        "exactly 0.505 (the double just above it) is released as 0.51 and not kept, as "
        "`round(100x)/100` with halves away from zero (Julia 0.3, current when the code "
        "was written) also does; a Julia that rounds halves to even would keep it, "
        "which raises the two-decimal loss at k = 400 by 0.0016 ± 0.0002 (a side check "
        "over 300 repetitions), inside the authors' own noise. The "
        "Ladder's low-accuracy value at k = 200 (0.4782) stands below its neighbours in "
        "the authors' own file (0.4876 at k = 190, 0.48625 at k = 210). The "
        "paper's numbers are Fig. 3 read at k = 400, the last row of each CSV to three "
        "decimals. Neither the paper nor the CSV gives the noise of the authors' means; "
        'the column "5-run SE (ours)" estimates it as our sample sd over √5.'
    )
    sections = [
        "# E1: the boosting attack (Blum & Hardt 2015, Fig. 3)",
        f"N = {N_LABELS} labels, n = {N_PUBLIC} public, k up to {k_max}, {reps} "
        "repetitions. Each number is the 0/1 loss of the attack's final vector on the "
        "public labels (its exact loss, what the authors' CSV stores), mean ± standard "
        "error over the repetitions.",
        setup,
        f"## At k = {k} (the paper's anchor is k = 400)",
        markdown_table(["row", "paper (Fig. 3)", "authors' CSV", "measured"], paper_rows),
        why,
        "## Against the authors' CSV",
        markdown_table(
            ["row", "k", "authors' CSV", "measured", "difference", "5-run SE (ours)"],
            comparison,
        ),
        closest,
    ]
    if reps >= _MIN_REPS_FOR_FIT:
        sections += [
            "χ² of the differences over every k shared with the authors' grid "
            "(difference² / (SE² + 5-run SE²), summed):",
            markdown_table(["row", "k values", "χ²"], fits),
        ]
    else:
        sections.append(
            f"With fewer than {_MIN_REPS_FOR_FIT} repetitions the standard errors are too "
            "rough for a χ² against the authors' CSV; "
            "`ladderboard experiment run e1 --quick --reps 400` gives one."
        )
    sections += [
        caveats,
        f"## Released scores at k = {k_max}",
        markdown_table(["board", "released", "public loss", "fresh-data loss"], tail),
        "Mean ± sd. The two-decimal board releases its grid's value; the Ladder "
        "releases its best accepted loss, not the final vector's.",
        "## Bias against the papers' rates (without their constants)",
        markdown_table(
            [
                "k",
                "Kaggle 1e-5: 1/2 − released",
                "√(k/n) (Cor. 5.2)",
                "Ladder: 1/2 − released",
                "√(log k / n) (Thm 3.3)",
            ],
            [_rates(frame, k_row) for k_row in sorted({k, k_max})],
        ),
        run_line(info, command),
    ]
    return "\n\n".join(sections) + "\n"


EXPERIMENT = E1 = Experiment(
    id="e1",
    aliases=("ladder-boosting", "boosting"),
    description=(
        "Ladder Fig. 3: boosting attack on Kaggle (5 and 2 decimals as the authors ran "
        "it, 1/√n) vs the parameter-free Ladder vs fresh data, N=12000, n=4000, over k"
    ),
    reps=5,
    quick_reps=5,
    tasks=e1_tasks,
    plot=e1_plot,
    report=e1_report,
)
