"""E12: the reusable holdout's variable-selection experiment (Dwork, Feldman,
Hardt, Pitassi, Reingold and Roth, *The reusable holdout*, Science 2015,
Figs. 1-2; CACM 60(4), 2017, Figs. 2-3).

Data: labels ``y`` uniform on ``{−1, 1}``, ``d`` attributes drawn from
``N(0, 1)``; training, holdout and fresh sets of ``n`` points each. Fig. 1
has no signal; in Fig. 2, 20 attributes are drawn from ``N(0.06·y, 1)``
instead. The quick run shrinks ``n`` and ``d`` and keeps the signal at
``6/√n`` (0.06 at the paper's ``n``), so the selection sees the same z-scores.

The analyst (the paper's Sec. "Experiments", as its text describes it):

1. computes each attribute's correlation with the label on the training set
   and asks the holdout for the same; correlation here is the statistical
   query ``mean(x_i·y)`` (the attributes have unit variance and ``y² = 1``,
   so it is the correlation up to the sample standard deviations);
2. keeps the attributes whose two correlations have the same sign and both
   exceed ``1/√n`` in absolute value (the paper says "some threshold"; ``1/√n``
   is one standard error of either), and of those the ``k`` with the largest
   training correlation in absolute value (fewer if fewer pass);
3. builds the classifier ``sign(Σ sign(c_i)·x_i)`` over them and asks the
   holdout for its accuracy, for every ``k`` of the grid.

Arms, each a way the holdout answers those queries:

* ``holdout``: the standard holdout, every answer exact (Figs. 1A, 2A);
* ``thresholdout``: the library's :class:`~ladderboard.mechanisms.Thresholdout`
  at its defaults (Figs. 1B, 2B): one instance answers the ``d`` correlation
  queries, another the accuracy queries, each on its own scale. The mechanism
  takes values in ``[0, 1]``: a correlation query ``x_i·y`` is clipped to
  ``±6`` and mapped to ``(1 + x_i·y/6)/2``, with ``T`` and ``σ`` divided by
  12, so that it runs the default rule on the correlation scale (a standard
  normal exceeds 6 with probability 1e-9); a 0/1 loss is already in
  ``[0, 1]``, and its instance runs the defaults at ``n`` as they are. The
  budgets never run out; the count of answers that came from the holdout is
  reported;
* ``Gaussian Thresholdout``: the same with
  :class:`~ladderboard.mechanisms.GaussianThresholdout`, the Science
  experiment's code (``T = 0.04``, ``τ = 0.01`` at ``n = 10,000``);
* ``PF Ladder`` and ``Shaky Ladder``: a ladder answers submissions with the
  best loss so far, never a per-attribute statistic, so it cannot answer
  step 1: the analyst selects on training alone (``|c_i| ≥ 1/√n``, top ``k``)
  and submits the classifiers in order of ``k``; the answer for ``k`` is the
  board's release (the best 0/1 loss so far as the ladder releases it);
* ``PF Ladder, plain check``: step 1 on the standard holdout, step 3 through
  the parameter-free Ladder: a ladder guards only the queries it answers.

The first :data:`SWEEP_REPS` repetitions of each figure also compare noise
scales for Thresholdout's default (:func:`noise_sweep`): how many of the
correlation queries, none of which overfits, each scale answers from the
holdout (budget spent for nothing), and how far its answers to the accuracy
queries of the classifiers selected on training alone, which overfit, are from
their fresh accuracy.

The attributes are drawn in blocks of columns, each from its own keyed
generator, and drawn twice (correlations first, classifiers second), so
memory stays at a block, not ``3·n·d`` numbers.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ladderboard._validation import check_int
from ladderboard.experiments.registry import Experiment, RunInfo
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
from ladderboard.tasks.reports import (
    load_template,
    markdown_table,
    paragraphs,
    run_line,
    save_figure,
)
from ladderboard.tasks.runner import Task, task_seed

__all__ = ["ARMS", "E12", "EXPERIMENT", "e12_cell", "e12_tasks"]

_TEXT = "ladderboard.experiments", "e12"
"""Where the report's words are: ``templates/e12.md`` of the package."""
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


# --------------------------------------------------------------------- outputs
def _oracle_accuracy(n: int) -> float:
    """Fig. 2's best classifier, the sum of the 20 signal attributes:
    ``Φ(bias·√20)`` with ``bias = 6/√n``."""
    z = SIGNAL_MULTIPLE / math.sqrt(n) * math.sqrt(SIGNAL_ATTRIBUTES)
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def e12_plot(frame: Any, stem: Path) -> list[Path]:
    """Rows: Figs. 1 and 2; columns: the standard holdout, Thresholdout, the
    ladders (their answer solid, fresh dashed)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(20.8, 7.6), layout="constrained")
    axes = figure.subplots(2, 4, squeeze=False)
    columns = ["train", "holdout", "fresh", "answered_fresh"]
    stats = frame.groupby(["figure", "arm", "k"])[columns].agg(["mean", "std"])
    for row, fig in enumerate((1, 2)):
        for col, arm in enumerate(THRESHOLD_ARMS):
            ax = axes[row][col]
            part = stats.loc[(fig, arm)]
            for column in ("train", "holdout", "fresh"):
                ax.errorbar(
                    part.index,
                    part[(column, "mean")],
                    yerr=part[(column, "std")].fillna(0.0),
                    capsize=2,
                    marker="o",
                    markersize=3,
                    label=column,
                )
            ax.set_title(f"Fig. {fig}{'ABB'[col]}: {ARM_TITLES[arm]}")
        ax = axes[row][3]
        for arm in ("PF Ladder", "Shaky Ladder", "PF Ladder, plain check"):
            part = stats.loc[(fig, arm)]
            line = ax.plot(part.index, part[("holdout", "mean")], marker="o", ms=3, label=arm)
            ax.plot(
                part.index, part[("answered_fresh", "mean")], ls="--", color=line[0].get_color()
            )
        ax.set_title(f"Fig. {fig} data: ladders (solid: release, dashed: its fresh)")
        for ax in axes[row]:
            ax.axhline(0.5, color="grey", lw=0.8)
            if fig == 2:
                ax.axhline(_oracle_accuracy(int(frame.n.iloc[0])), color="grey", lw=0.8, ls=":")
            ax.set_xlabel("number of variables k")
            ax.set_ylabel("accuracy")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
    n, d = int(frame.n.iloc[0]), int(frame.d.iloc[0])
    figure.suptitle(
        f"E12 (Dwork et al. 2015): n = {n}, d = {d}, mean ± sd over "
        f"{frame.rep.nunique()} repetitions (dotted: the 20 signal attributes' accuracy)"
    )
    return save_figure(figure, stem)


def _t_interval(values: Any) -> str:
    """Mean and the half-width of its 95 % Student-t interval over repetitions."""
    from scipy import stats

    values = np.asarray(values, dtype=np.float64)
    mean = float(values.mean())
    if values.size < 2:
        return f"{mean:.3f}"
    half = stats.t.ppf(0.975, values.size - 1) * values.std(ddof=1) / math.sqrt(values.size)
    return f"{mean:.3f} ± {half:.3f}"


def _sweep_section(frame: Any, n: int) -> str:
    """The noise scales compared (the repetitions run with ``sweep``): how
    much budget the correlation queries spend, none of which overfits, and
    how far the answers to overfit accuracy queries are from fresh data."""
    swept = frame[frame.arm.str.startswith("σ = ") | (frame.arm == SCIENCE_SWEEP_ARM)]
    if swept.empty:
        return ""
    threshold = THRESHOLD_MULTIPLE / math.sqrt(n)
    d = int(frame.d.iloc[0])
    arms = sorted(
        set(swept.arm) - {SCIENCE_SWEEP_ARM}, key=lambda arm: -float(arm[4:].split("/")[0])
    )
    arms.append(SCIENCE_SWEEP_ARM)
    science_row = load_template(*_TEXT).part("science_sweep_row")
    rows = []
    for fig in (1, 2):
        for arm in arms:
            part = frame[(frame.figure == fig) & (frame.arm == arm)]
            if part.empty:
                continue
            per_rep = part.groupby("rep")
            error = (part.holdout - part.fresh).abs()
            rows.append(
                [
                    fig,
                    arm[4:] if arm != SCIENCE_SWEEP_ARM else science_row,
                    _t_interval(per_rep.correlation_answers.first() / d),
                    _t_interval(per_rep.from_holdout.mean()),
                    _t_interval(error.groupby(part.rep).mean()),
                    _t_interval(error.groupby(part.rep).max()),
                    _t_interval((error > threshold).groupby(part.rep).mean()),
                ]
            )
    header = [
        "figure",
        "σ",
        "correlation queries from the holdout",
        "accuracy queries from the holdout",
        "mean distance to fresh",
        "largest distance to fresh",
        "answers farther than T from fresh",
    ]
    return load_template(*_TEXT).part(
        "sweep",
        reps=swept.rep.nunique(),
        threshold_multiple=f"{THRESHOLD_MULTIPLE:g}",
        d=d,
        queries=d + len(frame.k.unique()),
        table=markdown_table(header, rows),
    )


def _cell(part: Any, column: str) -> str:
    values = part[column]
    sd = values.std()
    return f"{values.mean():.3f} ± {0.0 if not math.isfinite(sd) else sd:.3f}"


def e12_report(frame: Any, info: RunInfo) -> str:
    """Train / answered / fresh accuracy per arm at a few k, beside the paper's."""
    n, d = int(frame.n.iloc[0]), int(frame.d.iloc[0])
    ks = sorted(int(k) for k in frame.k.unique())
    shown = sorted({ks[0], ks[len(ks) // 2], ks[-1]})
    text = load_template(*_TEXT)
    sections = []
    for fig in (1, 2):
        rows = []
        for arm in ARMS:
            for k in shown:
                part = frame[(frame.figure == fig) & (frame.arm == arm) & (frame.k == k)]
                if part.empty:
                    continue
                rows.append(
                    [
                        arm,
                        k,
                        f"{part.selected.mean():.0f}",
                        _cell(part, "train"),
                        _cell(part, "holdout"),
                        _cell(part, "holdout_exact"),
                        _cell(part, "fresh"),
                        _cell(part, "answered_fresh"),
                    ]
                )
        title = (
            text.part("fig1_title")
            if fig == 1
            else text.part("fig2_title", oracle_accuracy=f"{_oracle_accuracy(n):.3f}")
        )
        header = ["arm", "k", "used", "train", "answered", "exact holdout", "fresh", "its fresh"]
        sections.append(text.part("figure_table", title=title, table=markdown_table(header, rows)))
    kmax = ks[-1]

    def at(fig: int, arm: str, column: str) -> str:
        part = frame[(frame.figure == fig) & (frame.arm == arm) & (frame.k == kmax)]
        return f"{float(part[column].mean()):.3f}"

    last = frame[(frame.arm == "thresholdout") & (frame.k == kmax)]
    spent = (last.correlation_answers + last.holdout_answers).mean()
    command = f"ladderboard experiment run e12 --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    return text.report(
        n=n,
        d=d,
        inverse_root_n=f"{1 / math.sqrt(n):.4f}",
        noise_multiple=f"{DEFAULT_NOISE_MULTIPLE:g}",
        arms=len(ARMS),
        reps=frame.rep.nunique(),
        figure_tables=paragraphs(*sections),
        kmax=kmax,
        fig1_holdout_answered=at(1, "holdout", "holdout"),
        fig1_holdout_train=at(1, "holdout", "train"),
        fig1_holdout_fresh=at(1, "holdout", "fresh"),
        fig1_thresholdout_answered=at(1, "thresholdout", "holdout"),
        fig1_thresholdout_fresh=at(1, "thresholdout", "fresh"),
        spent=f"{spent:.0f}",
        queries=d + len(ks),
        fig1_gaussian_answered=at(1, "Gaussian Thresholdout", "holdout"),
        fig1_gaussian_fresh=at(1, "Gaussian Thresholdout", "fresh"),
        fig1_ladder_answered=at(1, "PF Ladder", "holdout"),
        fig1_checked_answered=at(1, "PF Ladder, plain check", "holdout"),
        fig1_checked_fresh=at(1, "PF Ladder, plain check", "fresh"),
        fig2_holdout_answered=at(2, "holdout", "holdout"),
        fig2_holdout_fresh=at(2, "holdout", "fresh"),
        fig2_thresholdout_answered=at(2, "thresholdout", "holdout"),
        fig2_thresholdout_fresh=at(2, "thresholdout", "fresh"),
        fig2_gaussian_answered=at(2, "Gaussian Thresholdout", "holdout"),
        fig2_gaussian_fresh=at(2, "Gaussian Thresholdout", "fresh"),
        tail=paragraphs(_sweep_section(frame, n), run_line(info, command)),
    )


EXPERIMENT = E12 = Experiment(
    id="e12",
    aliases=("dwork", "reusable-holdout"),
    description=(
        "Reusable holdout Figs. 1-2: variable selection checked on a standard holdout, "
        "Thresholdout and ladders, n = d = 10,000"
    ),
    reps=100,
    quick_reps=4,
    tasks=e12_tasks,
    plot=e12_plot,
    report=e12_report,
)
"""E12: the reusable holdout's Figs. 1-2 (Dwork et al. 2015, Science)."""
