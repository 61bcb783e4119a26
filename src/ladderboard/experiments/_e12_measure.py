"""What E12 measures: variable selection checked on a standard holdout,
Thresholdout and ladders, per repetition
(:mod:`ladderboard.experiments.e12_reusable_holdout`; Dwork et al. 2015,
Science, Figs. 1-2).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ladderboard._validation import check_int
from ladderboard.mechanisms import (
    GaussianThresholdout,
    Mechanism,
    ParameterFreeLadder,
    ShakyLadder,
    Thresholdout,
)
from ladderboard.mechanisms.thresholdout import (
    DEFAULT_NOISE_MULTIPLE,
    DEFAULT_THRESHOLD_MULTIPLE,
    EXPERIMENT_TOLERANCE_MULTIPLE,
)
from ladderboard.random import KeyedStream, RandomState
from ladderboard.tasks.runner import Task, task_seed

N = 10_000
D = 10_000
KS = (10, 20, 50, 100, 150, 200, 250, 300, 350, 400, 450, 500)
QUICK_N = 1000
QUICK_D = 2000
QUICK_KS = (5, 10, 20, 40, 60, 80, 100)
SIGNAL_ATTRIBUTES = 20
SIGNAL_MULTIPLE = 6.0
"""Fig. 2's signal, ``0.06 = 6/√n`` at ``n = 10,000``, in units of ``1/√n``."""
THRESHOLD_MULTIPLE = DEFAULT_THRESHOLD_MULTIPLE
CLIP = 6.0
NOISE_SWEEP = (1.0, 0.5, 0.25, 0.1)
"""Thresholdout's noise scales compared (with the analysis'), in units of ``1/√n``."""
SWEEP_REPS = 10
"""Repetitions of each figure that also run the comparison of noise scales."""
QUICK_SWEEP_REPS = 2
BLOCK = 500
SETS = ("train", "holdout", "fresh")

ARMS = (
    "holdout",
    "thresholdout",
    "Gaussian Thresholdout",
    "PF Ladder",
    "Shaky Ladder",
    "PF Ladder, plain check",
)
"""The ways the holdout answers, in the order they are reported."""
THRESHOLD_ARMS = ("holdout", "thresholdout", "Gaussian Thresholdout")
ARM_TITLES = {
    "holdout": "standard holdout",
    "thresholdout": "Thresholdout (its defaults)",
    "Gaussian Thresholdout": "Thresholdout as the Science code ran it",
}


def _labels(stream: KeyedStream, n: int) -> dict[str, np.ndarray]:
    return {
        name: np.where(stream.derive(name).generator(0).random(n) < 0.5, -1.0, 1.0).astype(
            np.float32
        )
        for name in SETS
    }


def _block(
    stream: KeyedStream, name: str, y: np.ndarray, start: int, stop: int, bias: float
) -> np.ndarray:
    """Columns ``start:stop`` of set ``name``: the same draw every time it is asked for."""
    x = (
        stream.derive(name)
        .generator(1 + start // BLOCK)
        .standard_normal((y.size, stop - start), dtype=np.float32)
    )
    signal = min(stop, SIGNAL_ATTRIBUTES) - start
    if bias and signal > 0:
        x[:, :signal] += np.float32(bias) * y[:, None]
    return x


def _select(train: np.ndarray, check: np.ndarray | None, cut: float, kmax: int) -> np.ndarray:
    """Step 2: the attributes kept, largest training correlation first."""
    keep = np.abs(train) >= cut
    if check is not None:
        keep &= (np.abs(check) >= cut) & (np.sign(check) == np.sign(train))
    kept = np.flatnonzero(keep)
    return kept[np.argsort(-np.abs(train[kept]), kind="stable")][:kmax]


def analysis_noise_multiple(queries: int, *, beta: float = 0.05) -> float:
    """The noise scale of the analysis, in units of ``1/√n``, at the
    experiments' threshold ``T = 4/√n``: ``σ = τ/(96 ln(4m/β))`` with
    ``τ = 4T/3`` for ``m`` queries answered within ``τ`` with probability
    ``1 − β`` (Dwork et al., CACM 60(4), 2017, Thm 9, which sets ``T = 3τ/4``).

    >>> round(analysis_noise_multiple(10_012), 5)
    0.00409
    """
    tau = 4.0 * THRESHOLD_MULTIPLE / 3.0
    return tau / (96.0 * math.log(4.0 * queries / beta))


SCIENCE_SWEEP_ARM = "Science code, training's selection"
"""The Science experiment's code (:class:`GaussianThresholdout`) among the noise scales."""


def _sweep_arm(multiple: float) -> str:
    return f"σ = {multiple:.3g}/√n"


def _correlation_boards(
    stream: KeyedStream, *, n: int, d: int, ks: tuple[int, ...], sweep: bool
) -> dict[str, Thresholdout | GaussianThresholdout]:
    """The boards that answer the ``d`` correlation queries, on the ``[0, 1]``
    scale ``(1 + x_i·y/6)/2``: their threshold and noise are the correlation
    scale's divided by 12, so each runs its rule on the correlations exactly."""
    unit = math.sqrt(n) * 2.0 * CLIP
    boards: dict[str, Thresholdout | GaussianThresholdout] = {
        "thresholdout": Thresholdout(
            budget=d,
            threshold=THRESHOLD_MULTIPLE / unit,
            noise_scale=DEFAULT_NOISE_MULTIPLE / unit,
            n=n,
            random_state=stream.derive("thresholdout"),
        ),
        "Gaussian Thresholdout": GaussianThresholdout(
            threshold=THRESHOLD_MULTIPLE / unit,
            tolerance=EXPERIMENT_TOLERANCE_MULTIPLE / unit,
            n=n,
            random_state=stream.derive("gaussian"),
        ),
    }
    if sweep:
        for multiple in noise_sweep(d + len(ks)):
            boards[_sweep_arm(multiple)] = Thresholdout(
                budget=d,
                threshold=THRESHOLD_MULTIPLE / unit,
                noise_scale=multiple / unit,
                n=n,
                random_state=stream.derive(f"sweep:{multiple!r}"),
            )
    return boards


def _accuracy_boards(
    stream: KeyedStream, *, n: int, ks: tuple[int, ...], sweep: bool, d: int
) -> dict[str, Thresholdout | GaussianThresholdout]:
    """The boards that answer the accuracy queries, each on its own: a 0/1
    loss is on its own scale, so each runs with its defaults at ``n``."""
    boards: dict[str, Thresholdout | GaussianThresholdout] = {
        "thresholdout": Thresholdout(
            budget=len(ks), n=n, random_state=stream.derive("thresholdout accuracy")
        ),
        "Gaussian Thresholdout": GaussianThresholdout(
            n=n, random_state=stream.derive("gaussian accuracy")
        ),
    }
    if sweep:
        boards[SCIENCE_SWEEP_ARM] = GaussianThresholdout(
            n=n, random_state=stream.derive("science accuracy")
        )
        for multiple in noise_sweep(d + len(ks)):
            boards[_sweep_arm(multiple)] = Thresholdout(
                budget=len(ks),
                noise_scale=multiple / math.sqrt(n),
                n=n,
                random_state=stream.derive(f"sweep accuracy:{multiple!r}"),
            )
    return boards


def noise_sweep(queries: int) -> tuple[float, ...]:
    """The noise scales compared, in units of ``1/√n``: the Science
    experiment's ``τ``, smaller ones, and the analysis' for ``queries``."""
    return (*NOISE_SWEEP, analysis_noise_multiple(queries))


def _one_rep(
    stream: KeyedStream, *, n: int, d: int, ks: tuple[int, ...], bias: float, sweep: bool
) -> list[dict[str, Any]]:
    y = _labels(stream, n)
    cut = 1.0 / math.sqrt(n)
    scale = 2.0 * CLIP
    corr_boards = _correlation_boards(stream, n=n, d=d, ks=ks, sweep=sweep)
    train_corr = np.empty(d)
    holdout_corr = np.empty(d)
    answered = {key: np.empty(d) for key in corr_boards}
    corr_from_holdout = dict.fromkeys(corr_boards, 0)
    # Pass 1: the d correlation queries.
    for start in range(0, d, BLOCK):
        stop = min(d, start + BLOCK)
        x_train = _block(stream, "train", y["train"], start, stop, bias)
        train_corr[start:stop] = (y["train"] @ x_train) / n
        products = (
            _block(stream, "holdout", y["holdout"], start, stop, bias) * y["holdout"][:, None]
        )
        holdout_corr[start:stop] = products.mean(axis=0, dtype=np.float64)
        # One contiguous row per query.
        unit = np.clip(0.5 + products.T.astype(np.float64) / scale, 0.0, 1.0)
        for j in range(stop - start):
            train_unit = 0.5 + train_corr[start + j] / scale
            for key, board in corr_boards.items():
                release = board.submit(unit[j], train_value=train_unit)
                answered[key][start + j] = (2.0 * release.score - 1.0) * CLIP
                corr_from_holdout[key] += release.score != train_unit

    kmax = max(ks)
    chosen = {
        "holdout": _select(train_corr, holdout_corr, cut, kmax),
        "thresholdout": _select(train_corr, answered["thresholdout"], cut, kmax),
        "Gaussian Thresholdout": _select(train_corr, answered["Gaussian Thresholdout"], cut, kmax),
        "training only": _select(train_corr, None, cut, kmax),
    }
    # Pass 2: each selection's classifiers for every k, summed bucket by bucket
    # (bucket b holds the attributes of rank ks[b-1] to ks[b]).
    edges = np.asarray(ks)
    sums = {
        key: {name: np.zeros((len(ks), n), dtype=np.float64) for name in SETS} for key in chosen
    }
    for start in range(0, d, BLOCK):
        stop = min(d, start + BLOCK)
        blocks = {name: _block(stream, name, y[name], start, stop, bias) for name in SETS}
        for key, order in chosen.items():
            ranks = np.flatnonzero((order >= start) & (order < stop))
            if ranks.size == 0:
                continue
            buckets = np.searchsorted(edges, ranks, side="right")
            columns = order[ranks] - start
            signs = np.sign(train_corr[order[ranks]]).astype(np.float32)
            for bucket in np.unique(buckets):
                at = buckets == bucket
                for name in SETS:
                    sums[key][name][bucket] += blocks[name][:, columns[at]] @ signs[at]

    accuracy_boards = _accuracy_boards(stream, n=n, ks=ks, sweep=sweep, d=d)
    boards: dict[str, Mechanism] = {
        "PF Ladder": ParameterFreeLadder(n=n),
        "Shaky Ladder": ShakyLadder(n=n, random_state=stream.derive("shaky")),
        "PF Ladder, plain check": ParameterFreeLadder(n=n),
    }
    source = {
        "holdout": "holdout",
        "thresholdout": "thresholdout",
        "Gaussian Thresholdout": "Gaussian Thresholdout",
        "PF Ladder": "training only",
        "Shaky Ladder": "training only",
        "PF Ladder, plain check": "holdout",
    }
    arms = list(ARMS)
    if sweep:
        for multiple in noise_sweep(d + len(ks)):
            source[_sweep_arm(multiple)] = "training only"
            arms.append(_sweep_arm(multiple))
        source[SCIENCE_SWEEP_ARM] = "training only"
        arms.append(SCIENCE_SWEEP_ARM)
        corr_from_holdout[SCIENCE_SWEEP_ARM] = corr_from_holdout["Gaussian Thresholdout"]
    rows: list[dict[str, Any]] = []
    for arm in arms:
        key = source[arm]
        scores = {name: np.cumsum(sums[key][name], axis=0) for name in SETS}
        # A ladder's answer is its best release so far: the classifier that set
        # it, not classifier k, is the one whose fresh accuracy it claims.
        claimed_fresh = math.nan
        asked = 0
        for i, k in enumerate(ks):
            # No attribute kept: the classifier predicts 1 everywhere.
            right = {name: np.where(scores[name][i] >= 0, 1.0, -1.0) == y[name] for name in SETS}
            accuracy = {name: float(right[name].mean()) for name in SETS}
            losses = 1.0 - right["holdout"].astype(np.float64)
            from_holdout = math.nan
            if arm == "holdout":
                answer, claimed_fresh = accuracy["holdout"], accuracy["fresh"]
            elif arm in accuracy_boards:
                train_loss = 1.0 - accuracy["train"]
                release = accuracy_boards[arm].submit(losses, train_value=train_loss)
                answer, claimed_fresh = 1.0 - release.score, accuracy["fresh"]
                from_holdout = float(release.score != train_loss)
                asked += int(from_holdout)
            else:
                release = boards[arm].submit(losses)
                answer = 1.0 - release.score
                if release.improved or i == 0:
                    claimed_fresh = accuracy["fresh"]
            rows.append(
                {
                    "arm": arm,
                    "k": k,
                    "selected": min(k, chosen[key].size),
                    "train": accuracy["train"],
                    "holdout": answer,
                    "holdout_exact": accuracy["holdout"],
                    "fresh": accuracy["fresh"],
                    "answered_fresh": claimed_fresh,
                    "from_holdout": from_holdout,
                    "holdout_answers": asked if arm in accuracy_boards else math.nan,
                    "correlation_answers": corr_from_holdout.get(arm, math.nan),
                }
            )
    return rows


def e12_cell(
    *,
    figure: int,
    n: int,
    d: int,
    ks: tuple[int, ...],
    reps: int,
    first_rep: int = 0,
    sweep: bool = False,
    random_state: RandomState,
) -> Any:
    """``reps`` runs of the analyst on Fig. ``figure``'s data (1: no signal,
    2: 20 attributes with signal ``6/√n``); one row per repetition, arm and ``k``.
    ``sweep`` adds one arm per noise scale of :func:`noise_sweep`: Thresholdout
    at that scale answers the correlation queries (none overfits: they only
    spend its budget) and the accuracy queries of the classifiers selected on
    training alone (which overfit the training set).

    >>> frame = e12_cell(figure=1, n=400, d=600, ks=(5, 20), reps=1, random_state=0)
    >>> list(frame.columns)[:8]
    ['rep', 'figure', 'n', 'd', 'arm', 'k', 'selected', 'train']
    >>> sorted(set(frame.arm)) == sorted(ARMS)
    True
    >>> swept = e12_cell(figure=1, n=400, d=600, ks=(5,), reps=1, sweep=True, random_state=0)
    >>> sorted(set(swept.arm) - set(ARMS))[1:]
    ['σ = 0.00515/√n', 'σ = 0.1/√n', 'σ = 0.25/√n', 'σ = 0.5/√n', 'σ = 1/√n']
    """
    import pandas as pd

    if figure not in (1, 2):
        raise ValueError(f"figure must be 1 or 2, got {figure!r}")
    n = check_int("n", n, 4)
    d = check_int("d", d, SIGNAL_ATTRIBUTES)
    reps = check_int("reps", reps, 1)
    ks = tuple(sorted(check_int("k", k, 1) for k in ks))
    bias = SIGNAL_MULTIPLE / math.sqrt(n) if figure == 2 else 0.0
    stream = KeyedStream.from_random_state(random_state)
    rows = []
    for rep in range(first_rep, first_rep + reps):
        rep_stream = stream.derive(f"rep:{rep}")
        for row in _one_rep(rep_stream, n=n, d=d, ks=ks, bias=bias, sweep=sweep):
            rows.append({"rep": rep, "figure": figure, "n": n, "d": d, **row})
    return pd.DataFrame(rows)


def e12_tasks(*, reps: int, quick: bool, seed: int) -> list[Task]:
    """One task per figure and repetition (a full-size repetition takes seconds);
    the first :data:`SWEEP_REPS` of each figure (:data:`QUICK_SWEEP_REPS` in a
    quick run) also compare noise scales."""
    sweep_reps = QUICK_SWEEP_REPS if quick else SWEEP_REPS
    n, d, ks = (QUICK_N, QUICK_D, QUICK_KS) if quick else (N, D, KS)
    return [
        Task(
            e12_cell,
            {
                "figure": figure,
                "n": n,
                "d": d,
                "ks": ks,
                "reps": 1,
                "first_rep": rep,
                "sweep": rep < sweep_reps,
                "random_state": task_seed(seed, "e12", figure, n, d),
            },
        )
        for figure in (1, 2)
        for rep in range(reps)
    ]
