"""``ladderboard experiment``: list the reproductions and run one.

Imports nothing heavy until a command runs, so that ``ladderboard --help``
stays fast.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer

from ladderboard.terminal import (
    CsvOption,
    JobsOption,
    JsonOption,
    output_format,
    print_csv,
    print_json,
    print_table,
)

__all__ = ["experiment_app"]

experiment_app = typer.Typer(
    help="Reproduce the papers' experiments: a table, a figure and a report each.",
    no_args_is_help=True,
    add_completion=False,
)


class Backend(enum.StrEnum):
    loky = "loky"
    dask = "dask"
    ray = "ray"


@experiment_app.command("list")
def list_experiments(as_json: JsonOption = False, as_csv: CsvOption = False) -> None:
    """Every experiment: its id, aliases, repetitions and what it reproduces.

    A table at a terminal, whole as tab-separated values when piped.
    """
    from rich.table import Table

    from ladderboard.experiments import EXPERIMENTS

    how = output_format(as_json, as_csv)
    if how == "json":
        print_json(
            [
                {
                    "id": e.id,
                    "aliases": list(e.aliases),
                    "reps": e.reps,
                    "quick_reps": e.quick_reps,
                    "description": e.description,
                }
                for e in EXPERIMENTS.values()
            ]
        )
        return
    table = Table("id", "aliases", "reps", "reproduces")
    for e in EXPERIMENTS.values():
        table.add_row(e.id, ", ".join(e.aliases), str(e.reps), e.description)
    if how == "csv":
        print_csv(table)
    else:
        print_table(table)


@experiment_app.command("run")
def run(
    name: Annotated[str, typer.Argument(metavar="ID", help="e1, e3, ... or an alias.")],
    reps: Annotated[
        int | None,
        typer.Option("--reps", min=1, help="Repetitions (default: the paper's count)."),
    ] = None,
    quick: Annotated[
        bool, typer.Option("--quick", help="A small run, seconds long (for CI).")
    ] = False,
    out: Annotated[
        Path, typer.Option("--out", help="Where ID.csv, ID.png, ID.svg and ID.md go.")
    ] = Path("results"),
    jobs: JobsOption = 1,
    backend: Annotated[
        Backend,
        typer.Option(
            "--backend",
            help="loky (local processes), dask (a Dask cluster) or ray (a Ray cluster).",
        ),
    ] = Backend.loky,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the whole run.")] = 0,
) -> None:
    """Run one experiment and write its table, figure (PNG, SVG) and report."""
    from ladderboard.experiments import get_experiment, run_experiment
    from ladderboard.terminal import progress

    try:
        experiment = get_experiment(name)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="ID") from None
    with progress(f"{experiment.id}: tasks") as advance:
        result = run_experiment(
            experiment,
            reps=reps,
            quick=quick,
            seed=seed,
            jobs=jobs,
            backend=backend.value,
            out=out,
            progress=advance,
        )
    typer.echo(result.experiment.report(result.frame, result.info))
    for path in result.paths:
        typer.echo(f"wrote {path}")
