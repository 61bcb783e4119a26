"""Figures and Markdown shared by the experiments, the advisor and the replays.

Figures are drawn on a bare :class:`matplotlib.figure.Figure` (the Agg
renderer, no pyplot and no display), and saved as PNG and SVG.

A report's prose is a Markdown template shipped as package data
(:func:`load_template`) and filled from the computed numbers
(:meth:`ReportTemplate.report`): the code that measures computes and formats
the numbers, the template holds the words around them.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "ReportTemplate",
    "fill",
    "load_template",
    "markdown_table",
    "new_figure",
    "paragraphs",
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


_PART = re.compile(r"<!-- ([a-z][a-z0-9_]*) -->")


@dataclass(frozen=True, slots=True)
class ReportTemplate:
    """The prose of one report: named parts, each a :class:`string.Template`.

    ``report`` is the whole report; the other parts are paragraphs or
    sections that the report includes or not, or once per row, as the
    numbers decide. Placeholders are ``$name`` or ``${name}``; ``$$`` is a
    dollar sign.

    >>> template = ReportTemplate({"report": string.Template("# k = $k\\n\\n$verdict"),
    ...                            "held": string.Template("Held at $k.")})
    >>> print(template.report(k=400, verdict=template.part("held", k=400)))
    # k = 400
    <BLANKLINE>
    Held at 400.
    <BLANKLINE>
    """

    parts: Mapping[str, string.Template]

    def part(self, name: str, /, **values: object) -> str:
        """The part ``name`` filled with ``values`` (see :func:`fill`)."""
        if name not in self.parts:
            raise ValueError(f"name: no template part {name!r}; parts: {sorted(self.parts)}")
        return fill(self.parts[name], values)

    def report(self, **values: object) -> str:
        """The part ``report`` filled with ``values``, ending with one newline."""
        return self.part("report", **values) + "\n"


@functools.cache
def load_template(package: str, name: str) -> ReportTemplate:
    """The template ``templates/<name>.md`` shipped with ``package``.

    The file is a sequence of parts, each opened by a line ``<!-- part -->``
    (a Markdown comment, so the file reads as the report it makes); a part's
    text runs to the next such line, its final newlines left out.

    >>> template = load_template("ladderboard.experiments", "e3")
    >>> template.parts["report"].template.startswith("# E3")
    True
    """
    text = resources.files(package).joinpath("templates", f"{name}.md").read_text("utf-8")
    pieces = _PART.split(text)
    if pieces[0].strip():
        raise ValueError(f"templates/{name}.md: text before the first <!-- part --> line")
    names = pieces[1::2]
    if len(set(names)) != len(names):
        raise ValueError(f"templates/{name}.md: a part is named twice: {names}")
    bodies = (body.removeprefix("\n").rstrip("\n") for body in pieces[2::2])
    return ReportTemplate(dict(zip(names, map(string.Template, bodies), strict=True)))


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


def paragraphs(*texts: str) -> str:
    """The non-empty ``texts``, a blank line between them (a report's
    optional paragraphs, for one placeholder).

    >>> paragraphs("One.", "", "Two.")
    'One.\\n\\nTwo.'
    """
    return "\n\n".join(text for text in texts if text)
