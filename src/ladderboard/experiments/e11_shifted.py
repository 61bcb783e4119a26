"""E11: the shifted majority attack over the budget ``k`` against real ladders
(Hardt 2017, Sec. 3-4, Fig. 2).

E3 reproduces the paper's Fig. 3 as the paper ran it: every one of ``k``
queries answered exactly, or with Gaussian noise. The paper says it runs the
majority attack "rather than running the shifted majority attack", because
the number of queries the shifting idea gets answered "is closely related to
the inverse of the step size parameter" (Sec. 4). E11 runs the shifted attack
itself (:func:`~ladderboard.attacks.shifted_majority_attack`: Fig. 2's offsets
made with an "easy set" of ``n/2`` labels the attacker knows) against the
boards, with a budget of ``k`` submissions, the final one included:

* the Ladder with ``η = 1/√n`` (the advisor's grid) and ``η = 0.1/√n`` (a
  small step: the regime in which many answered queries break a noiseless
  ladder; Blum & Hardt 2015, Fig. 1);
* the parameter-free Ladder (Blum & Hardt 2015, Fig. 2), which "only reveals
  more feedback than the Ladder algorithm" (Hardt 2017, Sec. 4);
* the Shaky Ladder at the library's default (noise and step ``0.25/√n``)
  and at the paper's analysis setting at ``n`` and ``k`` (eq. 2, β = 0.05).

Per repetition and board: the gap (true minus released 0/1 loss of the final
submission, true ``h/(2n)`` as it is right on the easy set and a guess on the
hard set), the paper's bias on the hard set (``final·y/h`` in ±1 terms), the
queries answered, and the gap of a paired blind baseline: ``k`` submissions
right on the easy set and random on the hard set, on a board of the same
setting with the same seed, the best release kept. The excess (gap minus the
baseline's) is what adaptivity gains beyond picking the best of ``k`` blind
releases. Every board at one ``k`` sees the same labels and queries.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ladderboard._validation import check_int
from ladderboard.advisor.yardstick import t_interval
from ladderboard.attacks import HoldoutOracle, shifted_majority_attack
from ladderboard.experiments.registry import Experiment, RunInfo
from ladderboard.mechanisms import Ladder, Mechanism, ParameterFreeLadder, ShakyLadder
from ladderboard.random import KeyedStream, RandomState
from ladderboard.tasks.reports import (
    load_template,
    markdown_table,
    new_figure,
    run_line,
    save_figure,
)
from ladderboard.tasks.runner import Task, task_seed

__all__ = ["BOARDS", "E11", "EXPERIMENT", "e11_cell", "e11_tasks"]

N = 4000
KS = (100, 300, 1000, 3000, 10000)
QUICK_N = 1000
QUICK_KS = (30, 100, 300)
BETA = 0.05

BOARDS = (
    "Ladder η=1/√n",
    "Ladder η=0.1/√n",
    "PF Ladder",
    "Shaky default",
    "Shaky theory",
)
"""The boards of E11, in the order they are reported."""


def _board(name: str, n: int, k: int, seed: KeyedStream) -> Mechanism | None:
    """A fresh board ``name`` for ``n`` labels and ``k`` submissions; ``None``
    where the paper's analysis has no setting (eq. 2 needs ``ε < 1/3``)."""
    root = math.sqrt(n)
    if name == "Ladder η=1/√n":
        return Ladder(eta=1 / root, n=n)
    if name == "Ladder η=0.1/√n":
        return Ladder(eta=0.1 / root, n=n)
    if name == "PF Ladder":
        return ParameterFreeLadder(n=n)
    if name == "Shaky default":
        return ShakyLadder(n=n, random_state=seed)
    if name == "Shaky theory":
        try:
            return ShakyLadder.from_theory(n=n, k=k, beta=BETA, random_state=seed)
        except ValueError:
            return None
    raise ValueError(f"unknown board {name!r}; known: {', '.join(BOARDS)}")


def _blind_gap(board: Mechanism, y: np.ndarray, easy: np.ndarray, k: int, rng: Any) -> float:
    """``k`` submissions right on the easy set and random on the hard set; the
    true loss ``h/(2n)`` minus the best release."""
    oracle = HoldoutOracle(y, board)
    n = y.size
    guess = np.empty(n, dtype=np.int8)
    best = math.inf
    for _ in range(k):
        guess[:] = rng.integers(0, 2, size=n, dtype=np.int8)
        guess[easy] = y[easy]
        best = min(best, float(oracle.submit(guess)))
    return 0.5 * (n - easy.size) / n - best


def e11_cell(*, n: int, k: int, board: str, reps: int, random_state: RandomState) -> Any:
    """``reps`` runs of the shifted attack with a budget of ``k`` submissions
    against ``board`` and of its blind baseline; one row per repetition.

    Repetition ``r`` draws its labels from ``stream.derive(f"rep:{r}").generator(1)``,
    the attack's queries from its ``derive("attack")``, the
    blind guesses from ``generator(2)`` and the board's noise from
    ``derive("board")`` (the baseline's board the same), so
    that every board and both runs see the same draws.

    >>> frame = e11_cell(n=400, k=60, board="PF Ladder", reps=2, random_state=0)
    >>> list(frame.columns)
    ['rep', 'n', 'k', 'board', 'gap', 'blind_gap', 'excess', 'bias', 'answered', 'submissions']
    >>> bool((frame.answered > 5).all())
    True
    """
    import pandas as pd

    n = check_int("n", n, 4)
    k = check_int("k", k, 2)
    reps = check_int("reps", reps, 1)
    stream = KeyedStream.from_random_state(random_state)
    easy = np.arange(n // 2)
    h = n - easy.size
    rows: list[dict[str, Any]] = []
    for rep in range(reps):
        sub = stream.derive(f"rep:{rep}")
        y = sub.generator(1).integers(0, 2, size=n, dtype=np.int8)
        attacked = _board(board, n, k, sub.derive("board"))
        blind = _board(board, n, k, sub.derive("board"))
        if attacked is None or blind is None:
            rows.append({"rep": rep, "n": n, "k": k, "board": board})
            continue
        result = shifted_majority_attack(
            HoldoutOracle(y, attacked),
            easy_index=easy,
            easy_labels=y[easy],
            k=k,
            random_state=sub.derive("attack"),
            max_submissions=k,
        )
        hard = result.hard_index
        gap = 0.5 * h / n - result.score
        blind_gap = _blind_gap(blind, y, easy, result.n_submissions, sub.generator(2))
        agree = float(np.mean(result.prediction[hard] == y[hard]))
        rows.append(
            {
                "rep": rep,
                "n": n,
                "k": k,
                "board": board,
                "gap": gap,
                "blind_gap": blind_gap,
                "excess": gap - blind_gap,
                "bias": 2.0 * agree - 1.0,
                "answered": result.n_answered,
                "submissions": result.n_submissions,
            }
        )
    columns = [
        "rep",
        "n",
        "k",
        "board",
        "gap",
        "blind_gap",
        "excess",
        "bias",
        "answered",
        "submissions",
    ]
    return pd.DataFrame(rows, columns=columns)


def e11_tasks(*, reps: int, quick: bool, seed: int) -> list[Task]:
    """One task per ``(k, board)``; the seed depends on ``k`` only (paired boards)."""
    n = QUICK_N if quick else N
    return [
        Task(
            e11_cell,
            {
                "n": n,
                "k": k,
                "board": board,
                "reps": reps,
                "random_state": task_seed(seed, "e11", n, k),
            },
        )
        for k in (QUICK_KS if quick else KS)
        for board in BOARDS
    ]


# --------------------------------------------------------------------- outputs
def _summary(frame: Any) -> Any:
    stats = frame.groupby(["board", "k"])[["gap", "blind_gap", "excess", "bias", "answered"]]
    return stats.agg(["mean", "std", "count"])


def e11_plot(frame: Any, stem: Path) -> list[Path]:
    """Left: the attack's gap over k per board; right: its excess over the
    blind baseline."""
    stats = _summary(frame)
    figure, (left, right) = new_figure(2)
    for board in BOARDS:
        if board not in stats.index.get_level_values("board"):
            continue
        rows = stats.xs(board, level="board").dropna(subset=[("gap", "mean")])
        if rows.empty:
            continue
        for ax, column in ((left, "gap"), (right, "excess")):
            sd = rows[(column, "std")].fillna(0.0)
            ax.errorbar(
                rows.index,
                rows[(column, "mean")],
                yerr=sd,
                capsize=3,
                marker="o",
                markersize=3,
                label=board,
            )
    left.set_ylabel("gap: true − released 0/1 loss")
    left.set_title("Shifted majority attack (Hardt 2017, Fig. 2)")
    right.set_ylabel("excess: gap − blind baseline's gap")
    right.set_title("Beyond the best of k blind submissions")
    n = int(frame.n.iloc[0])
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_xlabel("k (submissions)")
        ax.axhline(0.0, color="grey", lw=0.8)
        ax.axhline(1 / math.sqrt(n), color="grey", lw=0.8, ls=":")
        ax.grid(alpha=0.3)
    left.legend(fontsize=8)
    figure.suptitle(
        f"E11: shifted majority over k, n = {n}, easy set n/2, "
        f"mean ± sd over {frame.rep.nunique()} repetitions (dotted: 1/√n)"
    )
    return save_figure(figure, stem)


def _cell_text(frame: Any, board: str, k: int, column: str, digits: int = 3) -> str:
    """``mean ± half-width`` of the 95 % Student-t interval over the
    repetitions (the mean alone from one repetition, ``–`` where the board
    has no setting).

    >>> import pandas as pd
    >>> cell = pd.DataFrame({"board": "PF Ladder", "k": 100, "gap": [0.01, 0.02, 0.03]})
    >>> _cell_text(cell, "PF Ladder", 100, "gap")  # 0.02 ± t_{0.975, 2} · 0.01/√3
    '0.020 ± 0.025'
    """
    values = frame[(frame.board == board) & (frame.k == k)][column].to_numpy(dtype=float)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return "–"
    interval = t_interval(values)
    if not math.isfinite(interval.half_width):
        return f"{interval.mean:.{digits}f}"
    return f"{interval.mean:.{digits}f} ± {interval.half_width:.{digits}f}"


def e11_report(frame: Any, info: RunInfo) -> str:
    """Gap, excess and answers per board and k, beside the paper's claims."""
    stats = _summary(frame)
    n = int(frame.n.iloc[0])
    ks = sorted(int(k) for k in frame.k.unique())
    boards = [b for b in BOARDS if b in set(frame.board)]
    tables = {}
    for column, digits in (
        ("gap", 3),
        ("blind_gap", 3),
        ("excess", 3),
        ("bias", 3),
        ("answered", 1),
    ):
        rows = [[b, *(_cell_text(frame, b, k, column, digits) for k in ks)] for b in boards]
        tables[f"{column}_table"] = markdown_table(["board", *map(str, ks)], rows)
    largest = ks[-1]

    def mean(board: str, column: str) -> float:
        try:
            return float(stats.loc[(board, largest)][(column, "mean")])
        except KeyError:
            return math.nan

    noiseless = [b for b in ("Ladder η=1/√n", "Ladder η=0.1/√n", "PF Ladder") if b in boards]
    biased = [b for b in noiseless if mean(b, "excess") > 0.5 / math.sqrt(n)]
    command = f"ladderboard experiment run e11 --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    text = load_template("ladderboard.experiments", "e11")
    return text.report(
        n=n,
        reps=frame.rep.nunique(),
        dof=frame.rep.nunique() - 1,
        inverse_root_n=f"{1 / math.sqrt(n):.4f}",
        **tables,
        largest=largest,
        biased=", ".join(biased) if biased else text.part("none"),
        pf_answered=f"{mean('PF Ladder', 'answered'):.0f}",
        ladder_answered=f"{mean('Ladder η=1/√n', 'answered'):.0f}",
        run_line=run_line(info, command),
    )


EXPERIMENT = E11 = Experiment(
    id="e11",
    aliases=("shifted-majority", "shifted"),
    description=(
        "Shaky Ladder Fig. 2 run for real: the shifted majority attack with an easy set "
        "over k submissions against Ladders, the PF Ladder and Shaky Ladders, n=4000"
    ),
    reps=20,
    quick_reps=4,
    tasks=e11_tasks,
    plot=e11_plot,
    report=e11_report,
)
