"""The ``ladderboard`` command."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from ladderboard import __version__
from ladderboard.advisor.cli import register as register_advise  # these four: typer only
from ladderboard.experiments.cli import experiment_app
from ladderboard.replay.cli import register as register_replay
from ladderboard.simulation.cli import register as register_simulation

if TYPE_CHECKING:
    from ladderboard.engine import StoreUnavailable

app = typer.Typer(
    help="Leaderboards that resist overfitting to the holdout.",
    no_args_is_help=True,
    add_completion=True,
)
app.add_typer(experiment_app, name="experiment")
register_advise(app)
register_replay(app)
register_simulation(app)


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
    k: Annotated[int, typer.Option("--k", min=1, help="The attacker's random guesses.")] = 150,
    teams: Annotated[
        int | None, typer.Option("--teams", min=1, hidden=True, help="Honest teams (at most 4).")
    ] = None,
    serve: Annotated[
        bool, typer.Option("--serve", help="Leave the server up afterwards, to browse.")
    ] = False,
) -> None:
    """A competition served over HTTP: honest scikit-learn teams and a boosting
    attacker, on a Kaggle board and on the Ladder.

    Starts the real server on a free loopback port with a fresh SQLite file,
    plays both competitions through the REST API, closes them and prints
    their public and private boards (Blum & Hardt 2015, Sec. 5).
    """
    from ladderboard.demo import demo_summary, demo_table, run_demo

    console = Console()

    def keep_serving(result, server, tokens) -> None:
        show(result)
        console.print(f"\nThe server is up at [bold]{server.url}[/] (Ctrl-C stops it).")
        console.print(f"organiser token: {server.admin_token}")
        for name, token in tokens.items():
            console.print(f"{name}: {token}")
        with contextlib.suppress(KeyboardInterrupt):
            server.wait()

    def show(result) -> None:
        console.print(demo_table(result))
        console.print(demo_summary(result))

    try:
        result = run_demo(k=k, n_teams=teams, seed=seed, serve=keep_serving if serve else None)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    if not serve:
        show(result)


def _store_problem(exc: StoreUnavailable) -> typer.Exit:
    """One line for a store that cannot be opened, and its exit code: 2 for
    a URL that is not a database URL, 3 for a store missing or not answering."""
    typer.echo(f"error: {exc}", err=True)
    return typer.Exit(2 if exc.reason == "url" else 3)


@app.command()
def verify(
    slug: Annotated[str, typer.Argument(help="The competition to audit.")],
    db: Annotated[
        str | None,
        typer.Option("--db", envvar="LADDERBOARD_DATABASE_URL", help="The store's database URL."),
    ] = None,
    key: Annotated[
        str | None,
        typer.Option("--key", help="The revealed random-stream key (default: the stored one)."),
    ] = None,
) -> None:
    """Run every stored submission again and check every released score bit for bit.

    Checks the published commitment against the stored solution, split and
    key, then runs each board again in order; exits 1 on the first difference.
    """
    from ladderboard.engine import Competitions, StoreUnavailable
    from ladderboard.engine.audit import verify as run_verify
    from ladderboard.engine.errors import CompetitionError

    console = Console()
    try:
        store = Competitions.open(db, create_schema=False)
    except StoreUnavailable as exc:
        raise _store_problem(exc) from None
    try:
        report = run_verify(store, slug, key_hex=key)
    except CompetitionError as exc:
        console.print(f"[bold red]verification failed[/]: {exc}")
        raise typer.Exit(1) from None
    finally:
        store.dispose()
    console.print(
        f"[green]verified[/] {report.slug}: {report.submissions} submissions on "
        f"{report.scopes} board(s) agree bit for bit; commitment {report.commitment}"
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

    from ladderboard.engine import StoreUnavailable
    from ladderboard.server.run import initialise

    try:
        result = initialise(db, os.environ.get("LADDERBOARD_ADMIN_TOKEN") or None)
    except StoreUnavailable as exc:
        raise _store_problem(exc) from None
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
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            help="Reverse proxies (comma-separated addresses) trusted to give the client's "
            "address in X-Forwarded-For (default 127.0.0.1)."
        ),
    ] = None,
) -> None:
    """Serve the competition API with uvicorn (organiser token from LADDERBOARD_ADMIN_TOKEN)."""
    from pydantic import ValidationError

    from ladderboard.engine import StoreUnavailable
    from ladderboard.server.run import serve as run_server

    try:
        run_server(
            db, host=host, port=port, workers=workers, forwarded_allow_ips=forwarded_allow_ips
        )
    except StoreUnavailable as exc:
        raise _store_problem(exc) from None
    except ValidationError as exc:
        messages = "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors())
        typer.echo(f"cannot start: {messages}", err=True)
        raise typer.Exit(2) from None


# ------------------------------------------------- the REST API's client verbs
# Server and token: --server/--token, else LADDERBOARD_SERVER/LADDERBOARD_TOKEN.
ServerOption = Annotated[
    str | None,
    typer.Option(
        "--server", envvar="LADDERBOARD_SERVER", help="The server's URL (http://127.0.0.1:8000)."
    ),
]
TokenOption = Annotated[
    str | None,
    typer.Option("--token", envvar="LADDERBOARD_TOKEN", help="Your bearer token."),
]
SlugArgument = Annotated[str, typer.Argument(help="The competition's slug.")]

competition_app = typer.Typer(help="Create competitions (organiser).", no_args_is_help=True)
team_app = typer.Typer(help="Register teams (organiser).", no_args_is_help=True)
app.add_typer(competition_app, name="competition")
app.add_typer(team_app, name="team")


def _call(server: str | None, token: str | None, action):
    """``action(client)``, with the server's refusal printed and exit status 1."""
    from ladderboard.client import Client, ServerError

    try:
        with Client(server, token) as client:
            return action(client)
    except ServerError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None


@app.command()
def submit(
    slug: SlugArgument,
    file: Annotated[
        Path, typer.Option("-f", "--file", exists=True, dir_okay=False, help="Predictions CSV.")
    ],
    message: Annotated[str, typer.Option("-m", "--message", help="A note to yourself.")] = "",
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Submit a predictions file; print the released public score."""
    from ladderboard.client import submission_table

    result = _call(server, token, lambda c: c.submit(slug, file.read_bytes(), message=message))
    Console().print(submission_table(slug, result))


@app.command()
def leaderboard(
    slug: SlugArgument,
    private: Annotated[bool, typer.Option("--private", help="The private board.")] = False,
    download: Annotated[
        Path | None, typer.Option("--download", dir_okay=False, help="Save the board as CSV.")
    ] = None,
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Show a competition's board (the private one after the close)."""
    from ladderboard.client import board_table

    board = "private" if private else "public"
    if download is not None:
        data = _call(server, token, lambda c: c.leaderboard_csv(slug, board))
        download.write_bytes(data)
        typer.echo(f"saved the {board} board of {slug} to {download}")
        return
    Console().print(board_table(_call(server, token, lambda c: c.leaderboard(slug, board))))


@app.command()
def submissions(slug: SlugArgument, server: ServerOption = None, token: TokenOption = None) -> None:
    """List your team's submissions."""
    from ladderboard.client import submissions_table

    rows = _call(server, token, lambda c: c.submissions(slug))
    Console().print(submissions_table(slug, rows))


@app.command()
def close(slug: SlugArgument, server: ServerOption = None, token: TokenOption = None) -> None:
    """Close a competition now (organiser): the private board opens."""
    info = _call(server, token, lambda c: c.close(slug))
    typer.echo(f"closed {info['slug']} at {info['closed_at']}")


@competition_app.command("create")
def competition_create(
    slug: SlugArgument,
    solution: Annotated[
        Path,
        typer.Option("--solution", exists=True, dir_okay=False, help="The solution CSV."),
    ],
    metric: Annotated[str, typer.Option("--metric", help="A loss or metric, e.g. zero_one.")],
    mechanism: Annotated[
        str, typer.Option("--mechanism", help="e.g. parameter-free-ladder, full-disclosure.")
    ],
    param: Annotated[
        list[str] | None,
        typer.Option("--param", help="A mechanism parameter KEY=VALUE (repeatable)."),
    ] = None,
    title: Annotated[str | None, typer.Option(help="The title (default: the slug).")] = None,
    daily_quota: Annotated[
        str | None, typer.Option("--daily-quota", help="Submissions per day, or 'none'.")
    ] = None,
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Create a competition from a solution file."""
    from ladderboard.client import competition_table, parse_params

    try:
        params = parse_params(param or [])
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--param") from None
    info = _call(
        server,
        token,
        lambda c: c.create_competition(
            slug,
            solution.read_bytes(),
            score=metric,
            mechanism=mechanism,
            mechanism_params=params,
            title=title,
            daily_quota=daily_quota,
        ),
    )
    Console().print(competition_table(info))


@team_app.command("add")
def team_add(
    slug: SlugArgument,
    name: Annotated[str, typer.Argument(help="The team's name.")],
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Register a team and print its token (shown this once)."""
    team = _call(server, token, lambda c: c.add_team(slug, name))
    typer.echo(f"team {team['name']} registered in {slug}")
    typer.echo(f"token (shown once): {team['token']}")
