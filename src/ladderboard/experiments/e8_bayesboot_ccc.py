"""E8: the Bayesian-bootstrap ladders with Lin's concordance correlation
coefficient under Freedman's attack (Chaibub Neto et al. 2016,
Supplementary Text S2, Figs. S8-S9).

A metric that is no mean of per-sample losses needs the Bayesian-bootstrap
test: :class:`~ladderboard.mechanisms.BayesBootLadder` (Alg. 5) releases the
rounded CCC of its best submission, :class:`~ladderboard.mechanisms.
BayesBootLadderBoot` (Alg. 6) the mean of ``b`` bootstrap replicates of it;
both accept a submission when the posterior odds that it beats the best reach
``PO_thr`` (99, 5.67 and 1, i.e. ``(1-α)/α`` for α = 0.01, 0.15, 0.5). The
initial prediction ``ŷ_0`` is the training mean (CCC 0). Full disclosure
releases every CCC (to ``1e-5``). Freedman's attack (Chaibub Neto et al. 2016, Figs. 1-2) ranks the
univariate models by their released CCC and refits on the ``k`` best, for
``k = 1..30``, on permuted responses: ``ΔCCC = CCC_public - CCC_final`` is
then pure overfitting (positive here, since a higher CCC is better), with the
exact public CCC (``delta_exact``) and with the board's release
(``delta_released``). Each design, ``PO_thr`` and repetition is one task.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ladderboard._validation import check_int, check_real
from ladderboard.attacks import HoldoutOracle
from ladderboard.experiments._bootstrap_sweeps import (
    DESIGNS,
    DisclosedToAll,
    design_data,
    freedman_sweep,
)
from ladderboard.experiments.registry import Experiment, RunInfo
from ladderboard.losses import get_metric
from ladderboard.mechanisms import BayesBootLadder, BayesBootLadderBoot
from ladderboard.random import KeyedStream, RandomState
from ladderboard.tasks.reports import (
    load_template,
    markdown_table,
    run_line,
    save_figure,
)
from ladderboard.tasks.runner import Task, task_seed

__all__ = ["E8", "EXPERIMENT", "e8_cell", "e8_tasks"]

PO_THRESHOLDS = (99.0, 5.67, 1.0)
BS = (10, 100, 1000)
KS = tuple(range(1, 31))
P = 300
B = 1000
QUICK_PO_THRESHOLDS = (99.0, 1.0)
QUICK_BS = (10, 100)
QUICK_KS = (1, 5, 10)
QUICK_P = 40
QUICK_B = 200
FULL = "FullDisclosure"
BBL = "BayesBootLadder"
BBLB = "BayesBootLadderBoot"
METRIC = "ccc"


def e8_cell(
    *,
    rep: int,
    design: str,
    po_threshold: float,
    bs: tuple[int, ...] = BS,
    B: int = B,
    p: int = P,
    ks: tuple[int, ...] = KS,
    full_disclosure: bool = True,
    random_state: RandomState,
) -> Any:
    """One repetition of Freedman's attack on BayesBootLadder and on
    BayesBootLadderBoot for each ``b`` in ``bs``, at threshold
    ``po_threshold`` (and on full disclosure, if ``full_disclosure``); a tidy
    DataFrame.

    The design comes from ``KeyedStream.from_random_state(random_state)``'s
    ``derive("data")``, so every threshold of a repetition sees the same data;
    the boards draw from ``derive("board/PO/b")``. Columns: ``rep``,
    ``design``, ``board``, ``po_threshold`` (0 for full disclosure, which
    accepts everything), ``b`` (0 for no bootstrap release), ``B``, ``k``,
    ``public_released``, ``public_exact``, ``final``, ``delta_exact``,
    ``delta_released``, ``accepted`` (univariate submissions the board accepted)
    and ``n_submissions``.

    >>> frame = e8_cell(rep=0, design="simulated", po_threshold=5.67, bs=(10,), B=100,
    ...                 p=20, ks=(1, 3), random_state=0)
    >>> frame.groupby("board").size().to_dict()
    {'BayesBootLadder': 2, 'BayesBootLadderBoot': 2, 'FullDisclosure': 2}
    >>> bool((frame[frame.board == "FullDisclosure"].public_released.round(5)
    ...       == frame[frame.board == "FullDisclosure"].public_exact.round(5)).all())
    True
    """
    import pandas as pd

    rep = check_int("rep", rep, 0)
    po_threshold = check_real("po_threshold", po_threshold, low=0)
    bs = tuple(check_int("b", b, 1) for b in bs)
    B = check_int("B", B, 1)
    p = check_int("p", p, 1)
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {DESIGNS}, got {design!r}")
    if not isinstance(full_disclosure, bool):
        raise TypeError(f"full_disclosure must be a bool, got {type(full_disclosure).__name__}")
    ks = tuple(sorted({check_int("k", k, 1) for k in ks}))
    if not ks or ks[-1] > p:
        raise ValueError(f"ks must be in [1, p={p}], got {ks}")
    stream = KeyedStream.from_random_state(random_state)
    data = design_data(design, p=p, random_state=stream.derive("data"))
    metric = get_metric(METRIC)
    baseline = np.full(data.y_public.shape[0], data.y_train.mean())

    boards: list[tuple[str, float, int, Any]] = []
    if full_disclosure:
        boards.append((FULL, 0.0, 0, DisclosedToAll(metric=metric, y_true=data.y_public)))
    for b in (0, *bs):
        key = stream.derive(f"board/{po_threshold!r}/{b}")
        common = {"metric": metric, "y_true": data.y_public, "B": B, "baseline": baseline}
        if b == 0:
            board = BayesBootLadder(po_threshold=po_threshold, random_state=key, **common)
        else:
            board = BayesBootLadderBoot(po_threshold=po_threshold, b=b, random_state=key, **common)
        boards.append((BBL if b == 0 else BBLB, po_threshold, b, board))

    rows = []
    for name, threshold, b, board in boards:
        for row in freedman_sweep(HoldoutOracle(None, board), data, ks):
            rows.append({"board": name, "po_threshold": threshold, "b": b, "B": B, **row})
    frame = pd.DataFrame(rows)
    frame.insert(0, "design", design)
    frame.insert(0, "rep", rep)
    frame["delta_exact"] = frame.public_exact - frame.final
    frame["delta_released"] = frame.public_released - frame.final
    columns = [
        "rep",
        "design",
        "board",
        "po_threshold",
        "b",
        "B",
        "k",
        "public_released",
        "public_exact",
        "final",
        "delta_exact",
        "delta_released",
        "accepted",
        "n_submissions",
    ]
    return frame[columns]


def e8_tasks(*, reps: int, quick: bool, seed: int) -> list[Task]:
    """One task per design, threshold and repetition; full disclosure runs
    with the first threshold only, and a repetition's seed does not depend on
    the threshold."""
    thresholds = QUICK_PO_THRESHOLDS if quick else PO_THRESHOLDS
    settings = {
        "bs": QUICK_BS if quick else BS,
        "B": QUICK_B if quick else B,
        "p": QUICK_P if quick else P,
        "ks": QUICK_KS if quick else KS,
    }
    return [
        Task(
            e8_cell,
            {
                "rep": r,
                "design": design,
                "po_threshold": threshold,
                **settings,
                "full_disclosure": threshold == thresholds[0],
                "random_state": task_seed(seed, "e8", design, r),
            },
        )
        for design in DESIGNS
        for threshold in thresholds
        for r in range(reps)
    ]


# --------------------------------------------------------------------- outputs
def _label(board: str, threshold: float, b: int) -> str:
    if board == FULL:
        return FULL
    return f"{'BBL' if b == 0 else f'BBLB b={b}'}, PO={threshold:g}"


def _cells(frame: Any) -> list[tuple[str, float, int]]:
    keys = frame[["board", "po_threshold", "b"]].drop_duplicates()
    order = {FULL: 0, BBL: 1, BBLB: 2}
    return sorted(
        ((r.board, float(r.po_threshold), int(r.b)) for r in keys.itertuples()),
        key=lambda c: (order[c[0]], -c[1], c[2]),
    )


def e8_plot(frame: Any, stem: Path) -> list[Path]:
    """Per design: ΔCCC over k for full disclosure and each threshold's
    BayesBootLadder (Figs. S8-S9), and boxplots of ΔCCC at k = 10 for every
    board (Fig. S9's panels)."""
    from matplotlib.figure import Figure

    present = [d for d in DESIGNS if d in set(frame.design)]
    figure = Figure(figsize=(14, 4.0 * len(present)), layout="constrained")
    axes = figure.subplots(len(present), 2, squeeze=False, width_ratios=(1, 1.6))
    k_box = _k_for_table(frame)
    for row, design in zip(axes, present, strict=True):
        rows = frame[frame.design == design]
        for board, threshold, b in _cells(rows):
            if board == BBLB:
                continue
            cell = rows[(rows.board == board) & (rows.po_threshold == threshold) & (rows.b == b)]
            stats = cell.groupby("k").delta_exact.agg(["mean", "std"]).fillna(0.0)
            row[0].errorbar(
                stats.index,
                stats["mean"],
                yerr=stats["std"],
                capsize=2,
                marker="o",
                markersize=3,
                label=_label(board, threshold, b),
            )
        row[0].axhline(0.0, color="grey", linewidth=0.8)
        row[0].set_xlabel("k (features of the final model)")
        row[0].set_ylabel("ΔCCC = public − final (exact)")
        row[0].set_title(f"{design}: Freedman's attack, CCC")
        row[0].grid(alpha=0.3)
        row[0].legend(fontsize=7)
        at = rows[rows.k == k_box]
        cells = _cells(at)
        data = [
            at[(at.board == c[0]) & (at.po_threshold == c[1]) & (at.b == c[2])].delta_exact
            for c in cells
        ]
        row[1].boxplot([d.to_numpy() for d in data], positions=range(len(cells)), widths=0.7)
        row[1].set_xticks(
            range(len(cells)), [_label(*c).replace(", ", "\n") for c in cells], fontsize=6
        )
        row[1].axhline(0.0, color="grey", linewidth=0.8)
        row[1].set_ylabel("ΔCCC (exact)")
        row[1].set_title(f"{design}: k = {k_box}")
        row[1].grid(alpha=0.3)
    figure.suptitle(
        "E8 (Chaibub Neto et al. 2016, S2, Figs. S8-S9): Bayesian-bootstrap ladders with "
        f"Lin's CCC, permuted responses, {frame.rep.nunique()} repetitions"
    )
    return save_figure(figure, stem)


def _k_for_table(frame: Any) -> int:
    ks = sorted(int(k) for k in frame.k.unique())
    return 10 if 10 in ks else ks[len(ks) // 2]


def _cell(values: Any) -> str:
    sd = values.std(ddof=1) if len(values) > 1 else 0.0
    return f"{values.mean():+.3f} ± {sd:.3f}"


def e8_report(frame: Any, info: RunInfo) -> str:
    """ΔCCC per board and threshold at one k and the largest k, beside S2's claims."""
    text = load_template("ladderboard.experiments", "e8")
    k = _k_for_table(frame)
    k_max = int(frame.k.max())
    rows = []
    verdicts = []
    for design in [d for d in DESIGNS if d in set(frame.design)]:
        rows_d = frame[frame.design == design]
        full = rows_d[(rows_d.board == FULL) & (rows_d.k == k)].delta_exact.mean()
        worst = 0.0
        for board, threshold, b in _cells(rows_d):
            cell = rows_d[
                (rows_d.board == board) & (rows_d.po_threshold == threshold) & (rows_d.b == b)
            ]
            if board != FULL:
                worst = max(worst, abs(cell[cell.k == k].delta_exact.mean()))
            rows.append(
                [
                    design,
                    _label(board, threshold, b),
                    _cell(cell[cell.k == k].delta_exact),
                    _cell(cell[cell.k == k].delta_released),
                    *([_cell(cell[cell.k == k_max].delta_exact)] if k_max != k else []),
                    f"{cell[cell.k == k].accepted.mean():.1f}",
                ]
            )
        verdicts.append(
            text.part(
                "verdict",
                design=design,
                full=f"{full:+.3f}",
                worst=f"{worst:.3f}",
                held=text.part("held" if worst < 0.5 * full else "not_held"),
            )
        )
    p = int(frame.n_submissions.iloc[0]) - 1
    B_used = int(frame.B.iloc[0])
    command = f"ladderboard experiment run e8 --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    header = [
        "design",
        "board",
        f"ΔCCC exact, k = {k}",
        f"ΔCCC released, k = {k}",
        *([f"ΔCCC exact, k = {k_max}"] if k_max != k else []),
        f"accepted of {p}",
    ]
    return text.report(
        p=p,
        replicates=B_used,
        table=markdown_table(header, rows),
        k=k,
        verdicts="; ".join(verdicts),
        run_line=run_line(info, command),
    )


EXPERIMENT = E8 = Experiment(
    id="e8",
    aliases=("bayesboot-ccc", "bayesboot"),
    description=(
        "Neto S2, Figs. S8-S9: full disclosure vs BayesBootLadder and BayesBootLadderBoot "
        "(b = 10, 100, 1000) with Lin's CCC, PO_thr = 99, 5.67, 1, under Freedman's attack"
    ),
    reps=100,
    quick_reps=2,
    tasks=e8_tasks,
    plot=e8_plot,
    report=e8_report,
)
