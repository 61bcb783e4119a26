"""``ladderboard simulate-competition``: write a simulated competition to replay.

Imports only typer and the standard library at module level, so that the
main command stays fast to load; the simulation is imported when the command
runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, TypedDict

import typer

__all__ = ["register"]


class _Options(TypedDict):
    """The options shared by ``check_options`` and ``simulate_competition``."""

    out: Path
    dataset: str
    teams: int
    submissions: int
    adversaries: int
    rows: int | None
    public_fraction: float
    test_fraction: float
    defect_rate: float
    seed: int
    days: int
    force: bool


def simulate_competition_command(
    out: Annotated[
        Path, typer.Option("--out", help="The competition directory to write (new or empty).")
    ],
    dataset: Annotated[
        str, typer.Option("--dataset", help="caravan (ISLR Caravan), default or synthetic.")
    ] = "caravan",
    teams: Annotated[
        int, typer.Option("--teams", help="Teams in all, adversaries included.")
    ] = 200,
    submissions: Annotated[
        int,
        typer.Option(
            "--submission-count", metavar="COUNT", help="Submission files to write, in all."
        ),
    ] = 2000,
    adversaries: Annotated[
        int, typer.Option("--adversaries", help="Teams that attack the public board.")
    ] = 3,
    rows: Annotated[
        int | None,
        typer.Option(
            "--rows",
            help="Rows of the synthetic dataset (default 24000: a 12000-row test set; "
            "--rows 15000 --test-fraction 0.8 gives one too, with faster fits).",
        ),
    ] = None,
    public_fraction: Annotated[
        float, typer.Option("--public-fraction", help="Share of the test rows on the public board.")
    ] = 0.3,
    test_fraction: Annotated[
        float, typer.Option("--test-fraction", help="Share of the dataset held out for testing.")
    ] = 0.5,
    defect_rate: Annotated[
        float, typer.Option("--defect-rate", help="Share of files with a formatting defect.")
    ] = 0.015,
    days: Annotated[int, typer.Option("--days", help="Length of the competition.")] = 90,
    seed: Annotated[int, typer.Option("--seed", help="Seed of every random draw.")] = 0,
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite a previous simulation in OUT.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Simulate a Kaggle-style competition (honest scikit-learn teams and a few
    adversaries) and write its solution, submissions and ground truth to OUT."""
    from ladderboard.simulation.competition import check_options

    options: _Options = {
        "out": out,
        "dataset": dataset,
        "teams": teams,
        "submissions": submissions,
        "adversaries": adversaries,
        "rows": rows,
        "public_fraction": public_fraction,
        "test_fraction": test_fraction,
        "defect_rate": defect_rate,
        "seed": seed,
        "days": days,
        "force": force,
    }
    try:
        check_options(**options)
    except (TypeError, ValueError) as exc:
        message = str(exc)
        if message.startswith("submissions "):  # the library's name for --submission-count
            message = f"--submission-count: the count {message.removeprefix('submissions ')}"
        typer.echo(f"Error: {message}", err=True)
        raise typer.Exit(code=2) from None

    from ladderboard.simulation.competition import simulate_competition
    from ladderboard.terminal import progress

    with progress("simulating", enabled=not quiet) as advance:
        summary = simulate_competition(**options, progress=advance)
    typer.echo(
        f"wrote {summary.n_submissions} submissions of {summary.n_teams} teams "
        f"({summary.n_adversaries} adversaries, {summary.n_defects} files with a defect) "
        f"to {summary.out}"
    )


def register(app: typer.Typer) -> None:
    """Add ``simulate-competition`` to ``app``."""
    app.command("simulate-competition")(simulate_competition_command)
