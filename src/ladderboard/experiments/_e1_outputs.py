"""E1's figure and report (Blum & Hardt 2015, Fig. 3): what a run of
:mod:`ladderboard.experiments.e1_boosting` shows, apart from what it computes.
The report's words are in ``templates/e1.md``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ladderboard.analysis import kaggle_attack_error, ladder_lower_bound
from ladderboard.experiments._e1_measure import (
    _AUTHORS_ROWS,
    _CHANCE,
    _MIN_REPS_FOR_FIT,
    AUTHORS_K,
    BOARDS,
    HIGHACC,
    KAGGLE_2DP,
    KAGGLE_COARSE,
    KAGGLE_FINE,
    LADDER,
    LOWACC,
    N_LABELS,
    N_PUBLIC,
    PAPER_AT_400,
    _sd,
    authors_comparison,
    authors_csv,
)
from ladderboard.experiments.registry import RunInfo
from ladderboard.tasks.reports import (
    load_template,
    markdown_table,
    new_figure,
    run_line,
    save_figure,
)


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
    for ax, (csv_name, kaggles, title) in zip(axes, panels, strict=True):
        _band(ax, frame[frame.board == kaggles[0]], "fresh_loss", "fresh data", "tab:green")
        _band(ax, frame[frame.board == LADDER], "public_loss", "Ladder", "tab:blue")
        for kaggle, style in zip(kaggles, ("-", "--"), strict=False):
            label = f"Kaggle {kaggle.removeprefix('FullDisclosure')}"
            _band(ax, frame[frame.board == kaggle], "public_loss", label, "tab:red", style)
        for curve, colour in (("Kaggle", "tab:red"), ("Ladder", "tab:blue")):
            ax.plot(AUTHORS_K, authors_csv()[csv_name][curve], "x", color=colour, markersize=4)
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
            authors_csv()[HIGHACC]["Kaggle"][-1],
            mean_se(public(KAGGLE_FINE)),
        ],
        [
            "Kaggle, 2 decimals (left panel, as the authors ran it)",
            PAPER_AT_400["kaggle_coarse"],
            authors_csv()[LOWACC]["Kaggle"][-1],
            mean_se(public(KAGGLE_2DP)),
        ],
        [
            "Kaggle, nearest multiple of 1/√n (left panel, as its caption reads)",
            PAPER_AT_400["kaggle_coarse"],
            authors_csv()[LOWACC]["Kaggle"][-1],
            mean_se(public(KAGGLE_COARSE)),
        ],
        [
            "Ladder (right panel)",
            PAPER_AT_400["ladder_fine_panel"],
            authors_csv()[HIGHACC]["Ladder"][-1],
            mean_se(public(LADDER)),
        ],
        [
            "Ladder (left panel)",
            PAPER_AT_400["ladder_coarse_panel"],
            authors_csv()[LOWACC]["Ladder"][-1],
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
    for board, label, csv_name, _curve in _AUTHORS_ROWS:
        mine = [r for r in shown if r["board"] == board and r["csv"] == csv_name]
        if mine:
            worst = max(mine, key=lambda r: abs(r["ours"] - r["authors"]))
            gap = abs(worst["ours"] - worst["authors"])
            largest.append(f"{label} {gap:.4f} (k = {worst['k']})")
    fits = []
    for board, label, csv_name, _curve in _AUTHORS_ROWS:
        zs = [r["z"] for r in records if r["board"] == board and r["csv"] == csv_name]
        fits.append([label, len(zs), f"{sum(z * z for z in zs):.1f}"])
    text = load_template("ladderboard.experiments", "e1")
    if reps >= _MIN_REPS_FOR_FIT:
        fit_table = markdown_table(["row", "k values", "χ²"], fits)
        fit = text.part("fit", fit_table=fit_table)
    else:
        fit = text.part("no_fit", min_reps=_MIN_REPS_FOR_FIT)
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
    rates_header = [
        "k",
        "Kaggle 1e-5: 1/2 − released",
        "√(k/n) (Cor. 5.2)",
        "Ladder: 1/2 − released",
        "√(log k / n) (Thm 3.3)",
    ]
    command = f"ladderboard experiment run e1 --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    comparison_header = ["row", "k", "authors' CSV", "measured", "difference", "5-run SE (ours)"]
    return text.report(
        n_labels=N_LABELS,
        n_public=N_PUBLIC,
        k_max=k_max,
        reps=reps,
        k=k,
        paper_table=markdown_table(
            ["row", "paper (Fig. 3)", "authors' CSV", "measured"], paper_rows
        ),
        comparison_table=markdown_table(comparison_header, comparison),
        shown_ks=", ".join(str(k) for k in sorted({r["k"] for r in shown})),
        largest_differences="; ".join(largest),
        fit=fit,
        released_table=markdown_table(
            ["board", "released", "public loss", "fresh-data loss"], tail
        ),
        rates_table=markdown_table(
            rates_header, [_rates(frame, k_row) for k_row in sorted({k, k_max})]
        ),
        run_line=run_line(info, command),
    )
