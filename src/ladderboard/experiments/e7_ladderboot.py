"""E7: the Ladder against LadderBoot under Freedman's and the step-forward
attack (Chaibub Neto et al. 2016, Figs. 5-6 and Supplementary Text S1).

Permuted responses, so that no feature predicts the response and whatever a
final model gains on the public board over the final set is overfitting. Each
repetition draws a design (the paper's simulated one, ``n = 120`` with
strongly correlated features, and real gene-expression features standing in
for its ADNI data; ``p = 300`` features, as in Fig. 6) and attacks the
:class:`~ladderboard.mechanisms.SignificanceLadder` (Alg. 3) and
:class:`~ladderboard.mechanisms.LadderBoot` (Alg. 4) with ``b`` bootstrap
replicates, at each significance level ``α``:

* Freedman's attack (Figs. 1-2) for ``k = 1..30`` features (Fig. S6), from one
  set of univariate submissions per board;
* the step-forward attack (Alg. 7; last jump on the Ladder, binary
  segmentation told the true number of jumps on LadderBoot, as the paper
  did) for 1 to 5 iterations (Fig. 6), from one run per board. On both
  boards the board's first acceptance is a jump (both start from
  ``R_0 = ∞``): an iteration 1 whose only acceptance is the first submission
  selects the first feature on either board, so the boards differ only in
  what their releases show (see :mod:`ladderboard.attacks.stepforward`).

``ΔMSE = MSE_public - MSE_final`` (negative: overfitting) is reported twice:
with the final model's *exact* public MSE (``delta_exact``, how far the
selection fitted the holdout; the attacks' own ``public_score``) and with the
board's *release* for it (``delta_released``, what the board shows; a ladder
that rejects the final model shows its best so far). Each ``(design, α)``
and repetition is one task; its boards share the design.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ladderboard._validation import check_int, check_real
from ladderboard.attacks import HoldoutOracle
from ladderboard.experiments._bootstrap_sweeps import (
    DESIGNS,
    design_data,
    freedman_sweep,
    step_forward_sweep,
)
from ladderboard.experiments.registry import Experiment, RunInfo
from ladderboard.mechanisms import LadderBoot, SignificanceLadder
from ladderboard.random import KeyedStream, RandomState
from ladderboard.tasks.reports import (
    load_template,
    markdown_table,
    run_line,
    save_figure,
)
from ladderboard.tasks.runner import Task, task_seed

__all__ = ["E7", "EXPERIMENT", "e7_cell", "e7_tasks"]

ALPHAS = (0.01, 0.15, 0.5)
BS = (10, 100, 1000)
KS = tuple(range(1, 31))
ITERATIONS = 5
P = 300
QUICK_ALPHAS = (0.15,)
QUICK_BS = (10, 1000)
QUICK_KS = (1, 5, 10, 20)
QUICK_ITERATIONS = 3
QUICK_P = 60
LADDER = "Ladder"
BOOT = "LadderBoot"
FREEDMAN = "freedman"
STEP_FORWARD = "step-forward"


def _board(alpha: float, b: int, stream: KeyedStream) -> Any:
    if b == 0:
        return SignificanceLadder(alpha=alpha)
    return LadderBoot(alpha=alpha, b=b, random_state=stream.derive(f"board/{alpha!r}/{b}"))


def e7_cell(
    *,
    rep: int,
    design: str,
    alpha: float,
    bs: tuple[int, ...] = BS,
    p: int = P,
    ks: tuple[int, ...] = KS,
    iterations: int = ITERATIONS,
    random_state: RandomState,
) -> Any:
    """One repetition at level ``alpha``: both attacks on the Ladder and on
    LadderBoot for each ``b`` in ``bs``; a tidy DataFrame.

    The design comes from ``KeyedStream.from_random_state(random_state)``'s
    ``derive("data")`` (so every ``α`` of a repetition sees the same data),
    LadderBoot's draws from ``derive("board/α/b")``. Columns: ``rep``,
    ``design``, ``attack``, ``board``, ``alpha``, ``b`` (0 for the Ladder),
    ``k`` (Freedman's k, or the step-forward iterations), ``n_selected``,
    ``hits`` (step-forward iterations that located the true last jump),
    ``public_released``, ``public_exact``, ``final``, ``delta_exact``,
    ``delta_released``, ``accepted`` (the board's acceptances before the final
    submission) and ``n_submissions``.

    >>> frame = e7_cell(rep=0, design="simulated", alpha=0.15, bs=(10,), p=40, ks=(1, 5),
    ...                 iterations=2, random_state=0)
    >>> frame.groupby(["attack", "board"]).size().tolist()    # k = 1, 5 / 1, 2 iterations
    [2, 2, 2, 2]
    >>> ladder = frame[(frame.attack == "step-forward") & (frame.board == "Ladder")]
    >>> ladder.hits.tolist() == ladder.n_selected.tolist()   # it located the Ladder's jumps
    True
    """
    import pandas as pd

    rep = check_int("rep", rep, 0)
    alpha = check_real("alpha", alpha, low=0, high=1)
    bs = tuple(check_int("b", b, 1) for b in bs)
    p = check_int("p", p, 2)
    iterations = check_int("iterations", iterations, 1)
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {DESIGNS}, got {design!r}")
    ks = tuple(sorted({check_int("k", k, 1) for k in ks}))
    if not ks or ks[-1] > p or iterations > p:
        raise ValueError(f"ks and iterations must be in [1, p={p}], got {ks} and {iterations}")
    stream = KeyedStream.from_random_state(random_state)
    data = design_data(design, p=p, random_state=stream.derive("data"))

    rows = []
    for b in (0, *bs):
        label = {"board": LADDER if b == 0 else BOOT, "alpha": alpha, "b": b}
        oracle = HoldoutOracle(data.y_public, _board(alpha, b, stream), loss="squared")
        for row in freedman_sweep(oracle, data, ks):
            rows.append({"attack": FREEDMAN, **label, "n_selected": row["k"], "hits": 0, **row})
        for row in step_forward_sweep(_board(alpha, b, stream), data, iterations=iterations):
            rows.append({"attack": STEP_FORWARD, **label, **row})
    frame = pd.DataFrame(rows)
    frame.insert(0, "design", design)
    frame.insert(0, "rep", rep)
    frame["delta_exact"] = frame.public_exact - frame.final
    frame["delta_released"] = frame.public_released - frame.final
    columns = [
        "rep",
        "design",
        "attack",
        "board",
        "alpha",
        "b",
        "k",
        "n_selected",
        "hits",
        "public_released",
        "public_exact",
        "final",
        "delta_exact",
        "delta_released",
        "accepted",
        "n_submissions",
    ]
    return frame[columns]


def e7_tasks(*, reps: int, quick: bool, seed: int) -> list[Task]:
    """One task per design, ``α`` and repetition; a repetition's seed does not depend on ``α``."""
    settings = {
        "bs": QUICK_BS if quick else BS,
        "p": QUICK_P if quick else P,
        "ks": QUICK_KS if quick else KS,
        "iterations": QUICK_ITERATIONS if quick else ITERATIONS,
    }
    return [
        Task(
            e7_cell,
            {
                "rep": r,
                "design": design,
                "alpha": alpha,
                **settings,
                "random_state": task_seed(seed, "e7", design, r),
            },
        )
        for design in DESIGNS
        for alpha in (QUICK_ALPHAS if quick else ALPHAS)
        for r in range(reps)
    ]


# --------------------------------------------------------------------- outputs
def _label(b: int) -> str:
    return LADDER if b == 0 else f"{BOOT} b={b}"


def _boards(frame: Any) -> list[int]:
    return sorted(int(b) for b in frame.b.unique())


def _pick_alpha(frame: Any) -> float:
    alphas = sorted(frame.alpha.unique())
    return 0.15 if 0.15 in alphas else float(alphas[len(alphas) // 2])


def _curve(ax: Any, frame: Any, attack: str, alpha: float, column: str) -> None:
    cmap = {0: "black", 10: "tab:green", 100: "tab:orange", 1000: "tab:red"}
    rows = frame[(frame.attack == attack) & (frame.alpha == alpha)]
    for b in _boards(rows):
        stats = rows[rows.b == b].groupby("k")[column].agg(["mean", "std"]).fillna(0.0)
        colour = cmap.get(b)
        ax.plot(stats.index, stats["mean"], marker="o", markersize=3, color=colour, label=_label(b))
        ax.fill_between(
            stats.index,
            stats["mean"] - stats["std"],
            stats["mean"] + stats["std"],
            color=colour,
            alpha=0.12,
            linewidth=0,
        )
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.grid(alpha=0.3)


def e7_plot(frame: Any, stem: Path) -> list[Path]:
    """Per design: ΔMSE over k under Freedman's attack (Fig. S6) and over the
    step-forward iterations (Fig. 5e-h) at α = 0.15, and boxplots of ΔMSE after
    the last iteration for every α and b (Fig. 6)."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    present = [d for d in DESIGNS if d in set(frame.design)]
    figure = Figure(figsize=(16.5, 3.9 * len(present)), layout="constrained")
    axes = figure.subplots(len(present), 3, squeeze=False)
    alpha = _pick_alpha(frame)
    for row, design in zip(axes, present, strict=True):
        rows = frame[frame.design == design]
        _curve(row[0], rows, FREEDMAN, alpha, "delta_exact")
        row[0].set_xlabel("k (features of the final model)")
        row[0].set_title(f"{design}: Freedman's attack, α = {alpha:g}")
        _curve(row[1], rows, STEP_FORWARD, alpha, "delta_exact")
        row[1].set_xlabel("step-forward iterations")
        row[1].xaxis.set_major_locator(MaxNLocator(integer=True))
        row[1].set_title(f"{design}: step-forward attack, α = {alpha:g}")
        steps = rows[rows.attack == STEP_FORWARD]
        last = steps[steps.k == steps.k.max()]
        data, labels, positions = [], [], []
        for i, a in enumerate(sorted(last.alpha.unique())):
            for j, b in enumerate(_boards(last)):
                data.append(last[(last.alpha == a) & (last.b == b)].delta_exact.to_numpy())
                labels.append(f"α={a:g}\n{'Ladder' if b == 0 else f'b={b}'}")
                positions.append(i * (len(_boards(last)) + 1) + j)
        row[2].boxplot(data, positions=positions, widths=0.7)
        row[2].set_xticks(positions, labels, fontsize=6)
        row[2].axhline(0.0, color="grey", linewidth=0.8)
        row[2].set_title(f"{design}: after {int(last.k.max())} iterations (Fig. 6)")
        row[2].grid(alpha=0.3)
        for ax in row:
            ax.set_ylabel("ΔMSE = public − final (exact)")
        row[0].legend(fontsize=7)
    figure.suptitle(
        "E7 (Chaibub Neto et al. 2016, Figs. 5-6, S6): Ladder vs LadderBoot, permuted "
        f"responses, mean ± sd over {frame.rep.nunique()} repetitions"
    )
    return save_figure(figure, stem)


def _cell(values: Any) -> str:
    sd = values.std(ddof=1) if len(values) > 1 else 0.0
    return f"{values.mean():+.3f} ± {sd:.3f}"


def _claims(frame: Any) -> tuple[list[list[object]], bool, bool]:
    """Step-forward table rows; whether LadderBoot beat the Ladder everywhere, and
    whether the largest b overfit more than the smallest everywhere."""
    steps = frame[frame.attack == STEP_FORWARD]
    last = steps[steps.k == steps.k.max()]
    boards = _boards(last)
    rows: list[list[object]] = []
    beat, grows = True, True
    for design in [d for d in DESIGNS if d in set(last.design)]:
        for alpha in sorted(last.alpha.unique()):
            cell = last[(last.design == design) & (last.alpha == alpha)]
            means = {b: cell[cell.b == b].delta_exact.mean() for b in boards}
            hits = {
                b: cell[cell.b == b].hits.sum() / max(1, cell[cell.b == b].n_selected.sum())
                for b in boards
            }
            beat &= all(means[b] > means[0] for b in boards if b)
            boots = [b for b in boards if b]
            if len(boots) > 1:
                grows &= means[boots[-1]] < means[boots[0]]
            rows.append(
                [
                    design,
                    f"{alpha:g}",
                    *(f"{_cell(cell[cell.b == b].delta_exact)} ({hits[b]:.0%})" for b in boards),
                ]
            )
    return rows, beat, grows


def _paired(frame: Any) -> tuple[list[list[object]], int, int, int]:
    """Per design and α: LadderBoot's ΔMSE minus the Ladder's after the last
    iteration, paired by repetition (the boards of a repetition share its
    design), mean ± standard error; and how many (design, α, b) cells have
    a positive mean, a mean more than 2 se above 0, and how many there are."""
    import math

    steps = frame[frame.attack == STEP_FORWARD]
    last = steps[steps.k == steps.k.max()]
    boots = [b for b in _boards(last) if b]
    rows: list[list[object]] = []
    positive = clear = cells = 0
    for design in [d for d in DESIGNS if d in set(last.design)]:
        for alpha in sorted(last.alpha.unique()):
            cell = last[(last.design == design) & (last.alpha == alpha)]
            ladder = cell[cell.b == 0].set_index("rep").delta_exact
            row: list[object] = [design, f"{alpha:g}"]
            for b in boots:
                diff = (cell[cell.b == b].set_index("rep").delta_exact - ladder).dropna()
                se = diff.std(ddof=1) / math.sqrt(len(diff)) if len(diff) > 1 else 0.0
                cells += 1
                positive += bool(diff.mean() > 0)
                clear += bool(diff.mean() > 2 * se)
                row.append(f"{diff.mean():+.3f} ± {se:.3f}")
            rows.append(row)
    return rows, positive, clear, cells


def _stopped_at_once(frame: Any) -> str:
    """Per board, the step-forward runs that selected nothing in iteration 1."""
    first = frame[(frame.attack == STEP_FORWARD) & (frame.k == 1)]
    return ", ".join(
        f"{_label(b)} {int((first[first.b == b].n_selected == 0).sum())}/{len(first[first.b == b])}"
        for b in _boards(first)
    )


def _freedman_rows(frame: Any) -> list[list[object]]:
    rows = []
    fr = frame[frame.attack == FREEDMAN]
    ks = sorted(fr.k.unique())
    k = 10 if 10 in ks else int(ks[len(ks) // 2])
    at = fr[fr.k == k]
    for design in [d for d in DESIGNS if d in set(at.design)]:
        for alpha in sorted(at.alpha.unique()):
            cell = at[(at.design == design) & (at.alpha == alpha)]
            rows.append(
                [
                    design,
                    f"{alpha:g}",
                    k,
                    *(_cell(cell[cell.b == b].delta_exact) for b in _boards(at)),
                ]
            )
    return rows


def e7_report(frame: Any, info: RunInfo) -> str:
    """ΔMSE per design, α and board beside the paper's claims for Figs. 5-6 and S6."""
    boards = _boards(frame)
    step_rows, beat, grows = _claims(frame)
    paired_rows, positive, clear, cells = _paired(frame)
    iterations = int(frame[frame.attack == STEP_FORWARD].k.max())
    p = int(frame.n_submissions[frame.attack == FREEDMAN].iloc[0]) - 1
    released = frame[(frame.attack == STEP_FORWARD) & (frame.k == iterations)]
    released_rows = [
        [
            design,
            f"{alpha:g}",
            *(
                _cell(
                    released[
                        (released.design == design) & (released.alpha == alpha) & (released.b == b)
                    ].delta_released
                )
                for b in boards
            ),
        ]
        for design in [d for d in DESIGNS if d in set(released.design)]
        for alpha in sorted(released.alpha.unique())
    ]
    command = f"ladderboard experiment run e7 --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    freedman_header = ["design", "α", "k", *(_label(b) for b in boards)]
    return load_template("ladderboard.experiments", "e7").report(
        p=p,
        iterations=iterations,
        step_table=markdown_table(["design", "α", *(_label(b) for b in boards)], step_rows),
        beat="yes" if beat else "no",
        grows="yes" if grows else "no",
        paired_table=markdown_table(
            ["design", "α", *(_label(b) for b in boards if b)], paired_rows
        ),
        positive=positive,
        cells=cells,
        clear=clear,
        stopped_at_once=_stopped_at_once(frame),
        released_table=markdown_table(["design", "α", *(_label(b) for b in boards)], released_rows),
        freedman_table=markdown_table(freedman_header, _freedman_rows(frame)),
        full_p=P,
        full_iterations=ITERATIONS,
        run_line=run_line(info, command),
    )


EXPERIMENT = E7 = Experiment(
    id="e7",
    aliases=("ladderboot-b", "ladderboot"),
    description=(
        "Neto Figs. 5-6, S6: Ladder vs LadderBoot (b = 10, 100, 1000) at α = 0.01, 0.15, 0.5 "
        "under Freedman's and the step-forward attack, simulated and real designs"
    ),
    reps=100,
    quick_reps=2,
    tasks=e7_tasks,
    plot=e7_plot,
    report=e7_report,
)
