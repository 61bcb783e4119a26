"""The ``ladderboard`` command."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from ladderboard import __version__
from ladderboard.experiments.cli import experiment_app  # light: typer only

app = typer.Typer(
    help="Leaderboards that resist overfitting to the holdout.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(experiment_app, name="experiment")


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"ladderboard {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_show_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Leaderboards that resist overfitting to the holdout: the Ladder, the
    Shaky Ladder and LadderBoot."""


@app.command()
def demo(
    seed: Annotated[int, typer.Option(min=0, help="Seed of every random draw.")] = 0,
    n_public: Annotated[
        int, typer.Option("--n-public", min=2, help="Labels that score the public board.")
    ] = 4000,
    k: Annotated[int, typer.Option("--k", min=1, help="The attacker's random guesses.")] = 400,
    n_labels: Annotated[
        int, typer.Option("--n-labels", min=3, help="Labels in the holdout, public and fresh.")
    ] = 12000,
) -> None:
    """Honest teams and a boosting attacker on a Kaggle board and on the Ladder.

    Blum & Hardt 2015, Sec. 5.1: the attacker submits k random guesses and
    their majority. The Kaggle board (FullDisclosure) rewards it; the
    parameter-free Ladder does not.
    """
    from ladderboard.demo import demo_summary, demo_table, run_demo

    try:
        result = run_demo(n_labels=n_labels, n_public=n_public, k=k, seed=seed)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    console = Console()
    console.print(demo_table(result))
    console.print(demo_summary(result))


@app.command()
def verify(
    slug: Annotated[str, typer.Argument(help="The competition to audit.")],
    db: Annotated[
        str | None,
        typer.Option(
            "--db", envvar="LADDERBOARD_DATABASE_URL", help="The store's database URL."
        ),
    ] = None,
    key: Annotated[
        str | None,
        typer.Option("--key", help="The revealed random-stream key (default: the stored one)."),
    ] = None,
) -> None:
    """Replay every stored submission and check every released score bit for bit.

    Checks the published commitment against the stored solution, split and
    key, then replays each board in order; exits 1 on the first difference.
    """
    from ladderboard.competition.audit import verify as run_verify
    from ladderboard.competition.engine import Competitions
    from ladderboard.competition.errors import CompetitionError

    console = Console()
    store = Competitions.open(db, create_schema=False)
    try:
        report = run_verify(store, slug, key_hex=key)
    except CompetitionError as exc:
        console.print(f"[bold red]verification failed[/]: {exc}")
        raise typer.Exit(1) from None
    finally:
        store.engine.dispose()
    console.print(
        f"[green]verified[/] {report.slug}: {report.submissions} submissions on "
        f"{report.scopes} board(s) replay bit for bit; commitment {report.commitment}"
    )


@app.command()
def init(
    db: Annotated[
        str | None,
        typer.Option("--db", envvar="LADDERBOARD_DATABASE_URL", help="The store's database URL."),
    ] = None,
) -> None:
    """Create or migrate the store's schema and print the organiser's token.

    The token is LADDERBOARD_ADMIN_TOKEN when set, else a new random one; it
    is not stored anywhere: export it as LADDERBOARD_ADMIN_TOKEN for `serve`.
    """
    import os

    from sqlalchemy.engine import make_url

    from ladderboard.server.run import initialise

    try:
        result = initialise(db, os.environ.get("LADDERBOARD_ADMIN_TOKEN") or None)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    shown = make_url(result.url).render_as_string(hide_password=True)
    typer.echo(f"schema ready at {shown}")
    if result.generated:
        typer.echo(f"organiser token (shown once, stored nowhere): {result.token}")
        typer.echo(f"export LADDERBOARD_ADMIN_TOKEN='{result.token}' before `ladderboard serve`")
    else:
        typer.echo(
            f"using the organiser token in LADDERBOARD_ADMIN_TOKEN (sha256 {result.fingerprint}...)"
        )


@app.command()
def serve(
    db: Annotated[
        str | None,
        typer.Option("--db", envvar="LADDERBOARD_DATABASE_URL", help="The store's database URL."),
    ] = None,
    host: Annotated[str, typer.Option(help="The address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="The port.")] = 8000,
    workers: Annotated[int, typer.Option(min=1, help="Server processes (PostgreSQL: any).")] = 1,
) -> None:
    """Serve the competition API with uvicorn (organiser token from LADDERBOARD_ADMIN_TOKEN)."""
    from pydantic import ValidationError

    from ladderboard.server.run import serve as run_server

    try:
        run_server(db, host=host, port=port, workers=workers)
    except ValidationError as exc:
        messages = "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors())
        typer.echo(f"cannot start: {messages}", err=True)
        raise typer.Exit(2) from None
