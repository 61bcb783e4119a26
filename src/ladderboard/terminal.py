"""What every ``ladderboard`` command shares at the terminal.

- :func:`parse_params`: the one reader of ``--param KEY=VALUE`` options;
- :func:`print_table`, :func:`print_json`, :func:`print_csv` and
  :func:`output_format`: a command's table as rich draws it on a terminal,
  and whole, as tab-separated values, when stdout is a pipe or a file (a
  drawn table cut to the terminal's width would lose its cells there); with
  ``--json`` the data itself, with ``--csv`` the table as CSV;
- :func:`progress`: a progress bar on stderr, only when stderr is a terminal;
- :func:`usage_error`: a usage error in one line, whatever the terminal's
  width, for messages that list the valid values;
- :data:`JobsOption`: ``--jobs``, one meaning in every command: parallel
  worker processes.

Only typer, rich and the standard library: every command may import this
module, and so may ``ladderboard --help``.
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Annotated, Any, NoReturn

import typer

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

__all__ = [
    "CsvOption",
    "JobsOption",
    "JsonOption",
    "Progress",
    "json_ready",
    "note",
    "output_format",
    "parse_params",
    "parse_value",
    "print_csv",
    "print_json",
    "print_table",
    "progress",
    "stdout_is_terminal",
    "table_cells",
    "usage_error",
]

JsonOption = Annotated[bool, typer.Option("--json", help="Print the data as JSON, for scripts.")]
CsvOption = Annotated[bool, typer.Option("--csv", help="Print the table as CSV.")]
JobsOption = Annotated[
    int,
    typer.Option(
        "--jobs",
        min=1,
        metavar="J",
        help="Parallel worker processes (the result does not depend on it).",
    ),
]
"""``--jobs``: how many worker processes share the work. Every command that
takes it means this, and draws its random numbers per unit of work, so the
same seed gives the same result at any ``--jobs``."""


# ------------------------------------------------------------------ --param
def parse_value(text: str) -> Any:
    """A parameter's value: JSON when it parses (numbers, ``true``, lists,
    quoted strings), Python's ``True``/``False``/``None`` spelled in any case,
    else the text itself.

    >>> [parse_value(v) for v in ("3", "1e-5", "True", "none", "[1, 2]", "gaussian", '"7"')]
    [3, 1e-05, True, None, [1, 2], 'gaussian', '7']
    >>> parse_value("inf")
    inf
    """
    text = text.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return float(text)  # inf, -inf, nan, which JSON does not spell
    except ValueError:
        pass
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    return text


def parse_params(pairs: Iterable[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs as a dict, each value read by :func:`parse_value`.

    A key must be a Python identifier (a mechanism's keyword argument), and
    may be given once.

    >>> parse_params(["eta=0.01", "noise=gaussian", "flag=true"])
    {'eta': 0.01, 'noise': 'gaussian', 'flag': True}
    >>> parse_params(["oops"])
    Traceback (most recent call last):
    ValueError: a parameter must be KEY=VALUE, got 'oops'
    >>> parse_params(["b=1", "b=2"])
    Traceback (most recent call last):
    ValueError: the parameter 'b' is given twice
    """
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ValueError(f"a parameter must be KEY=VALUE, got {pair!r}")
        if key in params:
            raise ValueError(f"the parameter {key!r} is given twice")
        params[key] = parse_value(value)
    return params


def usage_error(option: str, message: str) -> NoReturn:
    """Print ``Error: OPTION: MESSAGE`` on stderr as one line and exit with
    status 2, as a usage error does.

    A message listing the valid values (the registered score names) stays on
    one line here, where an error panel would wrap it to the terminal's width.
    """
    typer.echo(f"Error: {option}: {message}", err=True)
    raise typer.Exit(2)


# ------------------------------------------------------------------- output
def output_format(as_json: bool, as_csv: bool) -> str:
    """``"json"``, ``"csv"`` or ``"table"`` from a command's ``--json`` and
    ``--csv``; both at once is a usage error."""
    if as_json and as_csv:
        raise typer.BadParameter("give --json or --csv, not both", param_hint="--json/--csv")
    return "json" if as_json else "csv" if as_csv else "table"


def _plain(cell: object) -> str:
    from rich.text import Text

    if isinstance(cell, Text):
        text = cell.plain
    elif isinstance(cell, str):
        text = Text.from_markup(cell).plain
    else:  # another renderable: its text as the console would draw it, unstyled
        from rich.console import Console

        console = Console(width=10_000, color_system=None, file=None)
        with console.capture() as captured:
            console.print(cell, end="")
        text = captured.get()
    return " ".join(text.split())


def table_cells(table: Table) -> tuple[list[str], list[list[str]]]:
    """A rich table's headers and rows as plain text, one line per cell.

    >>> from rich.table import Table
    >>> table = Table("team", "score")
    >>> table.add_row("[bold]alpha[/]", "0.25")
    >>> table_cells(table)
    (['team', 'score'], [['alpha', '0.25']])
    """
    headers = [_plain(column.header) for column in table.columns]
    columns = [[_plain(cell) for cell in column.cells] for column in table.columns]
    return headers, [list(row) for row in zip(*columns, strict=True)]


def print_table(
    table: Table, console: Console | None = None, *, file: IO[str] | None = None
) -> None:
    """``table`` drawn by rich on a terminal; else whole, as tab-separated
    values with a header line (tabs and line breaks in a cell become spaces).

    ``console`` draws the table on a terminal (default: a new one on stdout);
    ``file`` is where the values go otherwise (default: stdout).
    """
    from rich.console import Console

    console = console or Console()
    if console.is_terminal:
        console.print(table)
        return
    out = file or sys.stdout
    headers, rows = table_cells(table)
    for row in (headers, *rows):
        out.write("\t".join(cell.replace("\t", " ") for cell in row) + "\n")
    out.flush()


def stdout_is_terminal() -> bool:
    """Whether stdout is a terminal (else tables go out as TSV)."""
    from rich.console import Console

    return Console().is_terminal


def note(text: str, *, markup: bool = False) -> None:
    """A sentence beside a command's table: on stdout at a terminal, on
    stderr when stdout is piped, so that what a script reads from stdout is
    the table alone."""
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console = Console(stderr=True)
    console.print(text, markup=markup, highlight=False, soft_wrap=True)


def print_csv(table: Table, file: IO[str] | None = None) -> None:
    """``table``'s headers and rows as CSV, on stdout by default."""
    out = file or sys.stdout
    headers, rows = table_cells(table)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    writer.writerows(rows)
    out.flush()


def json_ready(value: Any) -> Any:
    """``value`` with what JSON cannot hold replaced: a NaN float becomes
    ``null``, an infinity the string ``"inf"`` or ``"-inf"``, numpy scalars
    and arrays Python numbers and lists, tuples and sets lists.

    >>> json_ready({"gain": float("nan"), "delay": float("inf"), "ranks": (1, 2)})
    {'gain': None, 'delay': 'inf', 'ranks': [1, 2]}
    """
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return value if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, Mapping):
        return {str(key): json_ready(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_ready(item) for item in value]
    tolist = getattr(value, "tolist", None)  # numpy scalars and arrays
    if callable(tolist):
        return json_ready(tolist())
    return value


def print_json(data: Any, file: IO[str] | None = None) -> None:
    """``data`` as indented JSON on stdout (see :func:`json_ready`)."""
    out = file or sys.stdout
    out.write(json.dumps(json_ready(data), indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    out.flush()


# ----------------------------------------------------------------- progress
Progress = Callable[[int, int], None]
"""A progress callback: ``advance(done, total)``."""


@contextlib.contextmanager
def progress(description: str, *, enabled: bool = True) -> Iterator[Progress]:
    """A progress bar on stderr, fed by the callback this yields
    (``advance(done, total)``); it draws nothing when stderr is not a
    terminal or ``enabled`` is false, and disappears when the work is done:
    when ``done`` reaches ``total`` (so that what the command prints next,
    still inside the block, is not drawn under a finished bar), or at the
    block's end.
    """
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as Bar

    console = Console(stderr=True)
    if not (enabled and console.is_terminal):
        yield lambda done, total: None
        return
    with Bar(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task(description, total=None)

        def advance(done: int, total: int) -> None:
            finished = total > 0 and done >= total
            if finished == bar.live.is_started:
                (bar.stop if finished else bar.start)()
            bar.update(task, completed=done, total=total)

        yield advance
