"""The ``ladderboard`` verbs that talk to a server over its REST API.

A team's verbs (``submit``, ``submissions``, ``select``, ``status``,
``leaderboard``, ``download``) and the organiser's (``competition``,
``team`` and ``file``, ``close``, ``publish``, ``flags``) are thin wrappers
around :class:`~ladderboard.client.Client`. The server and the token come
from ``--server`` and ``--token``, else ``LADDERBOARD_SERVER`` and
``LADDERBOARD_TOKEN``.

Every failure is one line on stderr, and the exit status says whose it is
(:data:`EXIT_STATUS`). Only typer and the standard library are imported at
module level; httpx and rich load when a verb runs, so that ``ladderboard
--help`` stays fast.
"""

from __future__ import annotations

import contextlib
import csv
import enum
import io
import os
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from ladderboard.client.http import Client

__all__ = ["EXIT_STATUS", "register"]

EXIT_STATUS = (
    "Exit status: 0 done; 1 refused, by the server (its message follows) or by a check "
    "of its answer (a download whose SHA-256 differs from the listing); 2 a wrong command "
    "line, or a local file in the way; 3 the server (or the database) cannot be reached "
    "or cannot answer."
)
"""The exit statuses of every verb, for the command's ``--help``."""

REFUSED, USAGE, UNREACHABLE = 1, 2, 3

TEAM_PANEL = "Take part (a team's token)"
ORGANISER_PANEL = "Run a competition (the organiser's token)"

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
TeamArgument = Annotated[str, typer.Argument(help="The team's name.")]

T = TypeVar("T")


class Board(enum.StrEnum):
    per_team = "per-team"
    per_rank = "per-rank"


competition_app = typer.Typer(
    help="Create and edit competitions (organiser).", no_args_is_help=True
)
team_app = typer.Typer(
    help="Register, list, disable and enable teams (organiser).", no_args_is_help=True
)
file_app = typer.Typer(
    help="List a competition's files; attach and remove data files (organiser).",
    no_args_is_help=True,
)


def _fail(message: str, status: int) -> NoReturn:
    """One line on stderr, and the exit status. The message may quote what a
    server sent: its line breaks become spaces and other control characters
    are escaped, so that it cannot move the cursor or recolour the terminal."""
    from ladderboard.client.tables import one_line

    typer.echo(f"error: {one_line(message)}", err=True)
    raise typer.Exit(status)


def _call(server: str | None, token: str | None, action: Callable[[Client], T]) -> T:
    """``action(client)``; a refusal is one line with the server's message,
    exit status 1, and a server that cannot answer exit status 3."""
    from ladderboard.client.http import Client, ServerError

    try:
        with Client(server, token) as client:
            return action(client)
    except ServerError as exc:
        _fail(str(exc), UNREACHABLE if exc.unreachable else REFUSED)


def _console() -> Console:
    from rich.console import Console

    return Console()


def _read_text(path: Path | None, option: str) -> str | None:
    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        _fail(f"{option} {path} is not UTF-8 text", USAGE)


def _deadline(value: str | None) -> str | None:
    """An ISO 8601 time with its zone, checked before any request; ``none``
    stays as is."""
    if value is None or value.lower() == "none":
        return value
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        _fail(
            f"--deadline: not an ISO 8601 time: {value!r} (e.g. 2030-01-31T23:59:00+00:00, "
            "or 'none')",
            USAGE,
        )
    if parsed.tzinfo is None:
        _fail(f"--deadline: {value!r} has no time zone (add +00:00 or Z)", USAGE)
    return value


# ---------------------------------------------------------------- a team's
def submit(
    slug: SlugArgument,
    file: Annotated[
        Path, typer.Option("-f", "--file", exists=True, dir_okay=False, help="Predictions CSV.")
    ],
    message: Annotated[str, typer.Option("-m", "--message", help="A note to yourself.")] = "",
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Submit a predictions file; print the released public score and what it means."""
    from ladderboard.client.tables import one_line, submission_table

    result = _call(server, token, lambda c: c.submit(slug, file.read_bytes(), message=message))
    console = _console()
    console.print(submission_table(slug, result))
    if result.get("explanation"):
        console.print(one_line(result["explanation"]), markup=False, highlight=False)


def submissions(slug: SlugArgument, server: ServerOption = None, token: TokenOption = None) -> None:
    """List your team's submissions."""
    from ladderboard.client.tables import submissions_table

    rows = _call(server, token, lambda c: c.submissions(slug))
    _console().print(submissions_table(slug, rows))


def select(
    slug: SlugArgument,
    numbers: Annotated[
        list[int], typer.Argument(help="Your submissions' numbers, as `submissions` lists them.")
    ],
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Choose your final submissions (replacing an earlier choice)."""
    chosen = _call(server, token, lambda c: c.select(slug, numbers))["selected"]
    typer.echo(f"your final submissions in {slug}: {', '.join(map(str, chosen))}")


def status(slug: SlugArgument, server: ServerOption = None, token: TokenOption = None) -> None:
    """Show your team's rank, the quota left and when it resets, and your refused files."""
    from ladderboard.client.tables import rejections_table, status_table

    standing = _call(server, token, lambda c: c.team_status(slug))
    console = _console()
    console.print(status_table(slug, standing))
    if standing["rejections"]:
        console.print(rejections_table(slug, standing["rejections"]))
    else:
        console.print("no refused files")


def leaderboard(
    slug: SlugArgument,
    private: Annotated[bool, typer.Option("--private", help="The private board.")] = False,
    download: Annotated[
        Path | None, typer.Option("--download", dir_okay=False, help="Save the board as CSV.")
    ] = None,
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Show a competition's board (the private one once published)."""
    from ladderboard.client.tables import board_table

    board = "private" if private else "public"
    if download is not None:
        data = _call(server, token, lambda c: c.leaderboard_csv(slug, board))
        download.write_bytes(data)
        typer.echo(f"saved the {board} board of {slug} to {download}")
        return
    _console().print(board_table(_call(server, token, lambda c: c.leaderboard(slug, board))))


def download(
    slug: SlugArgument,
    names: Annotated[
        list[str] | None,
        typer.Option("--file", help="A file's name (repeatable; default: every file)."),
    ] = None,
    path: Annotated[
        Path, typer.Option("--path", file_okay=False, help="The folder to write to.")
    ] = Path(),
    force: Annotated[
        bool, typer.Option("--force", help="Replace a local file that differs.")
    ] = False,
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Download a competition's files, each checked against its listed SHA-256."""
    from ladderboard.client.download import DownloadRefused, download_files

    try:
        done = _call(
            server, token, lambda c: download_files(c, slug, path, names=names, force=force)
        )
    except DownloadRefused as exc:
        _fail(str(exc), USAGE if exc.by == "usage" else REFUSED)
    except OSError as exc:
        _fail(f"cannot write to {path}: {exc.strerror or exc}: nothing was written", USAGE)
    for file in done:
        if file.state == "written":
            typer.echo(f"{file.path}: {file.size} bytes, SHA-256 {file.sha256} as listed")
        else:
            typer.echo(f"{file.path}: already there, {file.size} bytes, SHA-256 as listed")


# ------------------------------------------------------------ the organiser's
def close(slug: SlugArgument, server: ServerOption = None, token: TokenOption = None) -> None:
    """Close a competition now (organiser): no more submissions; `publish` follows."""
    info = _call(server, token, lambda c: c.close(slug))
    typer.echo(f"closed {info['slug']} at {info['closed_at']}")
    if not info["published"]:
        typer.echo(
            "the private board is yours to review; `ladderboard publish "
            f"{info['slug']}` shows it to everyone and reveals the audit key"
        )


def publish(slug: SlugArgument, server: ServerOption = None, token: TokenOption = None) -> None:
    """Publish the private board and reveal the audit key, after the close (organiser)."""

    def act(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        return client.publish(slug), client.commitment(slug)

    info, commitment = _call(server, token, act)
    typer.echo(f"published {info['slug']} at {info['published_at']}: the private board is public")
    typer.echo(
        f"audit key: {commitment['key']} (with the store, `ladderboard verify {slug} "
        f"--key {commitment['key']}` checks every released score)"
    )


def flags(slug: SlugArgument, server: ServerOption = None, token: TokenOption = None) -> None:
    """List submissions identical to another team's earlier one (organiser)."""
    from ladderboard.client.tables import flags_table

    found = _call(server, token, lambda c: c.flags(slug))
    if not found:
        typer.echo(f"no duplicate submissions in {slug}")
        return
    _console().print(flags_table(slug, found))


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
    overview_file: Annotated[
        Path | None,
        typer.Option(exists=True, dir_okay=False, help="The overview, a Markdown file."),
    ] = None,
    rules_file: Annotated[
        Path | None,
        typer.Option(exists=True, dir_okay=False, help="The rules, a Markdown file."),
    ] = None,
    data_file: Annotated[
        list[Path] | None,
        typer.Option(
            "--data-file", exists=True, dir_okay=False, help="A file for the teams (repeatable)."
        ),
    ] = None,
    daily_quota: Annotated[
        str | None, typer.Option("--daily-quota", help="Submissions per day, or 'none'.")
    ] = None,
    deadline: Annotated[
        str | None, typer.Option(help="ISO 8601 with a time zone (default: none).")
    ] = None,
    board: Annotated[
        Board | None,
        typer.Option(help="One score per team (the default), or a board of ranks."),
    ] = None,
    ranks: Annotated[
        int | None, typer.Option(min=1, help="The ranks of a per-rank board (default 10).")
    ] = None,
    auto_publish: Annotated[
        bool,
        typer.Option(
            "--auto-publish", help="Publish the private board and the key at the deadline."
        ),
    ] = False,
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Create a competition from a solution file."""
    from ladderboard.client.http import parse_params
    from ladderboard.client.tables import competition_table

    try:
        params = parse_params(param or [])
    except ValueError as exc:
        _fail(f"--param: {exc}", USAGE)
    description = _read_text(overview_file, "--overview-file")
    rules = _read_text(rules_file, "--rules-file")
    files = [(path.name, path.read_bytes()) for path in data_file or []]
    checked = _deadline(deadline)
    info = _call(
        server,
        token,
        lambda c: c.create_competition(
            slug,
            solution.read_bytes(),
            score=metric,
            mechanism=mechanism,
            mechanism_params=params,
            data_files=files,
            title=title,
            description=description,
            rules=rules,
            daily_quota=daily_quota,
            deadline=None if checked is None or checked.lower() == "none" else checked,
            board=None if board is None else board.value,
            ranks=ranks,
            auto_publish=auto_publish or None,
        ),
    )
    _console().print(competition_table(info))


@competition_app.command("edit")
def competition_edit(
    slug: SlugArgument,
    title: Annotated[str | None, typer.Option(help="A new title.")] = None,
    overview_file: Annotated[
        Path | None,
        typer.Option(exists=True, dir_okay=False, help="A new overview, a Markdown file."),
    ] = None,
    rules_file: Annotated[
        Path | None,
        typer.Option(exists=True, dir_okay=False, help="New rules, a Markdown file."),
    ] = None,
    deadline: Annotated[
        str | None,
        typer.Option(help="A later deadline, ISO 8601 with a time zone, or 'none' (open only)."),
    ] = None,
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Edit a competition's title, overview, rules or deadline (organiser)."""
    from ladderboard.client.http import KEEP
    from ladderboard.client.tables import competition_table

    if title is None and overview_file is None and rules_file is None and deadline is None:
        _fail("nothing to change: give --title, --overview-file, --rules-file or --deadline", USAGE)
    description = _read_text(overview_file, "--overview-file")
    rules = _read_text(rules_file, "--rules-file")
    checked = _deadline(deadline)
    new_deadline = KEEP if checked is None else None if checked.lower() == "none" else checked
    info = _call(
        server,
        token,
        lambda c: c.update_competition(
            slug, title=title, description=description, rules=rules, deadline=new_deadline
        ),
    )
    _console().print(competition_table(info))


@team_app.command("add")
def team_add(
    slug: SlugArgument,
    name: TeamArgument,
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Register a team and print its token (shown this once)."""
    team = _call(server, token, lambda c: c.add_team(slug, name))
    typer.echo(f"team {team['name']} registered in {slug}")
    typer.echo(f"token (shown once): {team['token']}")


@contextlib.contextmanager
def _new_secret_file(path: Path | None) -> Iterator[io.TextIOWrapper | None]:
    """``path`` created for writing, readable by its owner only (mode 0600),
    before anything is asked of the server: a file already there is refused,
    and the file is removed again if the command fails."""
    if path is None:
        yield None
        return
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        _fail(f"{path} exists: the tokens are shown once, so they go to a new file", USAGE)
    except OSError as exc:
        _fail(f"cannot create {path}: {exc.strerror or exc}", USAGE)
    kept = False
    try:
        with open(descriptor, "w", encoding="utf-8", newline="") as file:
            yield file
        kept = True
    finally:
        if not kept:
            path.unlink(missing_ok=True)


@team_app.command("import")
def team_import(
    slug: SlugArgument,
    names_csv: Annotated[
        Path,
        typer.Argument(
            exists=True, dir_okay=False, help="A CSV of names: a column 'name', or one column."
        ),
    ],
    tokens_out: Annotated[
        Path | None,
        typer.Option(
            "--tokens-out",
            dir_okay=False,
            help="Write name,token to this new file (mode 0600) instead of the screen.",
        ),
    ] = None,
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Register every team of a CSV, all or none; their tokens are shown once."""
    from ladderboard.client.tables import tokens_table

    data = names_csv.read_bytes()
    with _new_secret_file(tokens_out) as out:
        teams = _call(server, token, lambda c: c.import_teams(slug, data))
        if out is not None:
            try:
                writer = csv.writer(out, lineterminator="\n")
                writer.writerow(["name", "token"])
                writer.writerows([team["name"], team["token"]] for team in teams)
                out.flush()
            except OSError as exc:  # the teams exist now: their tokens must not be lost
                _console().print(tokens_table(slug, teams))
                _fail(f"cannot write {tokens_out}: {exc.strerror or exc}; the tokens are above", 2)
    if tokens_out is None:
        _console().print(tokens_table(slug, teams))
    else:
        typer.echo(
            f"registered {len(teams)} teams in {slug}; their tokens (shown once) are in "
            f"{tokens_out}, readable by you alone"
        )


@team_app.command("list")
def team_list(slug: SlugArgument, server: ServerOption = None, token: TokenOption = None) -> None:
    """List every team with its activity: submissions, invalid files, flags (organiser)."""
    from ladderboard.client.tables import teams_table

    _console().print(teams_table(slug, _call(server, token, lambda c: c.teams(slug))))


def _set_disabled(
    slug: str, name: str, disabled: bool, server: str | None, token: str | None
) -> None:
    team = _call(server, token, lambda c: c.set_team_disabled(slug, name, disabled))
    if team["disabled"]:
        typer.echo(
            f"team {team['name']} of {slug} is disabled: no sign-in, submission or place "
            "on the boards (its submissions are kept)"
        )
    else:
        typer.echo(f"team {team['name']} of {slug} is enabled")


@team_app.command("disable")
def team_disable(
    slug: SlugArgument, name: TeamArgument, server: ServerOption = None, token: TokenOption = None
) -> None:
    """Disable a team: no sign-in, submission or place on the boards (organiser)."""
    _set_disabled(slug, name, True, server, token)


@team_app.command("enable")
def team_enable(
    slug: SlugArgument, name: TeamArgument, server: ServerOption = None, token: TokenOption = None
) -> None:
    """Enable a disabled team again, with its submissions (organiser)."""
    _set_disabled(slug, name, False, server, token)


@file_app.command("list")
def file_list(slug: SlugArgument, server: ServerOption = None, token: TokenOption = None) -> None:
    """List a competition's files with their size and SHA-256."""
    from ladderboard.client.tables import files_table

    _console().print(files_table(slug, _call(server, token, lambda c: c.files(slug))))


@file_app.command("add")
def file_add(
    slug: SlugArgument,
    path: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="The file.")],
    name: Annotated[
        str | None, typer.Option(help="Its name for the teams (default: the file's).")
    ] = None,
    replace: Annotated[
        bool, typer.Option("--replace", help="Replace the file of that name.")
    ] = False,
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Attach a data file for the teams (organiser)."""
    name = name or path.name
    data = path.read_bytes()

    def act(client: Client) -> dict[str, Any] | None:
        if not replace and any(f["name"] == name for f in client.files(slug)):
            return None
        return client.put_file(slug, name, data)

    info = _call(server, token, act)
    if info is None:
        _fail(f"{slug} already has a file {name!r} (--replace replaces it)", USAGE)
    typer.echo(f"attached {info['name']} to {slug}: {info['size']} bytes, SHA-256 {info['sha256']}")


@file_app.command("remove")
def file_remove(
    slug: SlugArgument,
    name: Annotated[str, typer.Argument(help="The file's name.")],
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Remove a data file (organiser)."""
    _call(server, token, lambda c: c.remove_file(slug, name))
    typer.echo(f"removed {name} from {slug}")


def register(app: typer.Typer) -> None:
    """Add the client verbs to ``app``, a team's and the organiser's in
    panels of their own."""
    for verb in (submit, submissions, select, status, leaderboard, download):
        app.command(rich_help_panel=TEAM_PANEL)(verb)
    for verb in (close, publish, flags):
        app.command(rich_help_panel=ORGANISER_PANEL)(verb)
    for name, sub_app in (("competition", competition_app), ("team", team_app), ("file", file_app)):
        app.add_typer(sub_app, name=name, rich_help_panel=ORGANISER_PANEL)
