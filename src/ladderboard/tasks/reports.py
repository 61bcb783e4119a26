"""Figures and Markdown shared by the experiments, the advisor and the replays.

Figures are drawn on a bare :class:`matplotlib.figure.Figure` (the Agg
renderer, no pyplot and no display), and saved as PNG and SVG.

A report's prose is a Markdown template shipped as package data
(:func:`load_template`) and filled from the computed numbers
(:func:`fill`): the code that measures says nothing, the template says it.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "fill",
    "fill_part",
    "load_template",
    "markdown_table",
    "new_figure",
    "run_line",
    "save_figure",
]


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


@functools.cache
def load_template(package: str, name: str) -> string.Template:
    """The template ``templates/<name>.md`` shipped with ``package``.

    Templates use :class:`string.Template` placeholders (``$name`` or
    ``${name}``; ``$$`` is a dollar sign).

    >>> load_template("ladderboard.experiments", "e3").template.startswith("# E3")
    True
    """
    text = resources.files(package).joinpath("templates", f"{name}.md").read_text("utf-8")
    return string.Template(text)


def fill(template: string.Template, values: Mapping[str, object]) -> str:
    """``template`` with every placeholder replaced by ``str(values[name])``.

    Every placeholder must have a value and every value a placeholder, so a
    template and the code that fills it cannot drift apart silently.

    >>> fill(string.Template("k = $k, bias ${bias}."), {"k": 40, "bias": "0.12"})
    'k = 40, bias 0.12.'
    >>> fill(string.Template("$a"), {"a": 1, "b": 2})
    Traceback (most recent call last):
    ...
    ValueError: values without a placeholder in the template: ['b']
    """
    names = set(template.get_identifiers())
    missing = sorted(names - set(values))
    if missing:
        raise ValueError(f"placeholders without a value: {missing}")
    unused = sorted(set(values) - names)
    if unused:
        raise ValueError(f"values without a placeholder in the template: {unused}")
    if not template.is_valid():
        raise ValueError("template: a '$' that is neither a placeholder nor '$$'")
    return template.substitute(values)


def fill_part(template: string.Template, values: Mapping[str, object]) -> str:
    """:func:`fill` for a part of a report (a paragraph or a section that a
    report includes or not): its file's final newline is dropped, so that the
    part takes one placeholder's place in the report.

    >>> fill_part(string.Template("at k = $k.\\n"), {"k": 400})
    'at k = 400.'
    """
    return fill(template, values).removesuffix("\n")
