"""The replay's figures, on bare matplotlib Figures (Agg, no pyplot), as PNG and SVG.

=====================  ==========================================================
``rank_perturbation``  each board's top 10 against the reference's ranks (Table 1)
``public_private``     public board score against private score, top 50 (Fig. 4)
``half_splits``        top 50 over the half-splits, mean ± sd, and the observed
                       public and private losses (Fig. 5)
``ttests``             p-values of top vs rank r, before and after Bonferroni (Fig. 6)
=====================  ==========================================================
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

from ladderboard.tasks.reports import save_figure

if TYPE_CHECKING:
    from ladderboard.replay.run import ReplayResult

__all__ = ["label", "write_figures"]

_LABELS = {"full-disclosure": "Kaggle"}


def label(name: str) -> str:
    """How a mechanism is named in figures and the report: Kaggle's board by its name.

    >>> label("full-disclosure"), label("parameter-free-ladder")
    ('Kaggle', 'parameter-free-ladder')
    """
    return _LABELS.get(name, name)


def _grid(count: int, *, width: float = 4.2, height: float = 3.8):
    from matplotlib.figure import Figure

    ncols = min(count, 4)
    nrows = math.ceil(count / ncols)
    figure = Figure(figsize=(width * ncols, height * nrows))
    figure.subplots_adjust(left=0.09, right=0.97, bottom=0.13, top=0.9, wspace=0.35, hspace=0.4)
    axes = figure.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in axes[count:]:
        ax.set_visible(False)
    return figure, axes[:count]


def _diagonal(ax) -> None:
    lo = min(ax.get_xlim()[0], ax.get_ylim()[0])
    hi = max(ax.get_xlim()[1], ax.get_ylim()[1])
    ax.plot([lo, hi], [lo, hi], color="0.5", linewidth=0.8, zorder=0)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)


def write_figures(result: ReplayResult, out: Path) -> list[Path]:
    """The four figures, each as PNG and SVG; returns their paths."""
    from matplotlib.ticker import NullLocator

    from ladderboard.replay.analysis import TOP_SCATTER, TOP_TABLE

    paths: list[Path] = []
    replays = result.replays
    # Table 1: each mechanism's top 10 against the reference's ranks.
    figure, axes = _grid(2)
    for ax, kind in zip(axes, ("public", "private"), strict=True):
        for offset, replay in enumerate(replays):
            rows = [
                r
                for r in result.perturbations
                if r["board"] == kind and r["mechanism"] == replay.name
            ]
            x = [r["rank"] for r in rows]
            y = [r["reference_rank"] if r["reference_rank"] is not None else 0 for r in rows]
            ax.plot(
                [v + 0.08 * (offset - len(replays) / 2) for v in x],
                y,
                "o-",
                markersize=4,
                linewidth=0.8,
                label=label(replay.name),
            )
        ax.set_xlabel(f"rank on the {kind} board")
        ax.set_ylabel(f"rank of that team on {label(result.reference.name)}'s board")
        ax.set_title(f"{kind.capitalize()} top {TOP_TABLE}")
        ax.invert_yaxis()
        ax.legend(fontsize=7)
    paths += save_figure(figure, out / "rank_perturbation")
    # Fig. 4: public vs private scores of the top 50 of the private board.
    figure, axes = _grid(len(replays))
    for ax, replay in zip(axes, replays, strict=True):
        board = replay.private_board[:TOP_SCATTER]
        public = {e.team: e.score for e in replay.public_board}
        ax.scatter([public[e.team] for e in board], [e.score for e in board], s=10, color="C0")
        _diagonal(ax)
        ax.set_title(label(replay.name))
        ax.set_xlabel("public board score")
        ax.set_ylabel("private score")
    paths += save_figure(figure, out / "public_private")
    # Fig. 5: half-splits of the private rows.
    figure, axes = _grid(len(replays))
    for ax, replay in zip(axes, replays, strict=True):
        rows = [r for r in result.half_splits if r["mechanism"] == replay.name]
        ax.errorbar(
            [r["mean_a"] for r in rows],
            [r["mean_b"] for r in rows],
            xerr=[r["sd_a"] for r in rows],
            yerr=[r["sd_b"] for r in rows],
            fmt="o",
            markersize=3,
            elinewidth=0.6,
            color="C0",
            label="mean ± sd over splits",
        )
        ax.scatter(
            [r["public_loss"] for r in rows],
            [r["private_loss"] for r in rows],
            s=10,
            facecolors="none",
            edgecolors="C3",
            label="public vs private",
        )
        _diagonal(ax)
        ax.set_title(label(replay.name))
        ax.set_xlabel("loss on half A")
        ax.set_ylabel("loss on half B")
        ax.legend(fontsize=7)
    paths += save_figure(figure, out / "half_splits")
    # Fig. 6: p-values before and after Bonferroni.
    figure, axes = _grid(2)
    for ax, column, title in zip(
        axes, ("p_value", "p_bonferroni"), ("before correction", "after Bonferroni"), strict=True
    ):
        for replay in replays:
            rows = [r for r in result.ttests if r["mechanism"] == replay.name]
            ax.plot(
                [r["rank"] for r in rows],
                [max(r[column], 1e-300) for r in rows],
                "o-",
                markersize=4,
                linewidth=0.8,
                label=label(replay.name),
            )
        ax.axhline(0.05, color="0.5", linestyle="--", linewidth=0.8)
        ax.set_yscale("log")
        ax.yaxis.set_minor_locator(NullLocator())
        ax.set_xlabel("rank r on the public board")
        ax.set_ylabel("p-value, top vs rank r (private rows)")
        ax.set_title(title)
        ax.legend(fontsize=7)
    paths += save_figure(figure, out / "ttests")
    return paths
