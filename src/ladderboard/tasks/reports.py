"""Figures and Markdown shared by the experiments, the advisor and the replays.

Figures are drawn on a bare :class:`matplotlib.figure.Figure` (the Agg
renderer, no pyplot and no display), and saved as PNG and SVG.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["markdown_table", "new_figure", "run_line", "save_figure"]


def new_figure(ncols: int, *, width: float = 5.2, height: float = 3.8) -> tuple[Any, Any]:
    """A figure with ``ncols`` side-by-side axes (Agg, no pyplot)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width * ncols, height), layout="constrained")
    axes = figure.subplots(1, ncols, squeeze=False)[0]
    return figure, axes


def save_figure(figure: Any, stem: Path) -> list[Path]:
    """Save ``figure`` as ``stem.png`` (150 dpi) and ``stem.svg``."""
    paths = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    figure.savefig(paths[0], dpi=150)
    figure.savefig(paths[1])
    return paths


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub-flavoured Markdown table.

    >>> print(markdown_table(["a", "b"], [[1, "x"]]))
    | a | b |
    |---|---|
    | 1 | x |
    """
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def run_line(info: Any, command: str) -> str:
    """How the run was made, and the command that repeats it."""
    kind = "quick run" if info.quick else "full run"
    return (
        f"{kind}: {info.reps} repetitions, seed {info.seed}, {info.jobs} job(s) on "
        f"{info.backend}, {info.seconds:.1f} s. Repeat with `{command}`."
    )
