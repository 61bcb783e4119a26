"""``ladderboard experiment``: list the reproductions and run one.

Imports nothing heavy until a command runs, so that ``ladderboard --help``
stays fast.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer

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
def list_experiments() -> None:
    """One line per experiment: its id, aliases and what it reproduces."""
    from ladderboard.experiments import EXPERIMENTS

    for experiment in EXPERIMENTS.values():
        aliases = ", ".join(experiment.aliases)
        typer.echo(f"{experiment.id:<4} [{aliases}] {experiment.description}")


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
    jobs: Annotated[int, typer.Option("--jobs", min=1, help="Parallel workers.")] = 1,
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

    try:
        experiment = get_experiment(name)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="ID") from None
    result = run_experiment(
        experiment,
        reps=reps,
        quick=quick,
        seed=seed,
        jobs=jobs,
        backend=backend.value,
        out=out,
        progress=not quick,
    )
    typer.echo(result.experiment.report(result.frame, result.info))
    for path in result.paths:
        typer.echo(f"wrote {path}")
