"""The ``ladderboard`` verbs that talk to a server over its REST API.

``login`` and ``logout``, ``competitions``, a team's verbs (``submit``,
``submissions``, ``select``, ``status``, ``leaderboard``, ``download``) and
the organiser's (``competition``, ``team`` and ``file``, ``close``,
``publish``, ``flags``) are thin wrappers around
:class:`~ladderboard.client.Client`.

The server and the token come from ``--server`` and ``--token``, else
``LADDERBOARD_SERVER`` and ``LADDERBOARD_TOKEN``, else what ``ladderboard
login`` stored for that server (:mod:`ladderboard.client.credentials`);
``--token ''`` asks as nobody.

Every verb that prints data takes ``--json`` (the server's JSON) and every
one that prints a table ``--csv``; a table goes whole, as tab-separated
values, to a pipe or a file (:func:`ladderboard.terminal.print_table`). A
busy server (429, 503) is asked again as the client allows, with a note on
stderr at each wait; uploads and downloads of a megabyte or more show a
progress bar on stderr at a terminal.

Every failure is one line on stderr, and the exit status says whose it is
(:data:`EXIT_STATUS`, in every verb's ``--help``). Only typer, the standard
library, :mod:`ladderboard.terminal` and :mod:`ladderboard.recommended` (the
default ``competition create --help`` names; the standard library alone) are
imported at module level; httpx and rich load when a verb runs, so that
``ladderboard --help`` stays fast.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import enum
import io
import os
import secrets
import sys
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer

from ladderboard.recommended import RECOMMENDED
from ladderboard.terminal import (
    CsvOption,
    JsonOption,
    note,
    output_format,
    parse_params,
    print_csv,
    print_json,
    print_table,
    progress,
    stdout_is_terminal,
)

if TYPE_CHECKING:
    from rich.table import Table

    from ladderboard.client.http import Client
    from ladderboard.client.transport import ServerError

__all__ = ["EXIT_STATUS", "register"]

EXIT_STATUS = (
    "Exit status: 0 done; 1 refused, by the server (its message follows) or by a check "
    "of its answer (a download whose SHA-256 differs from the listing); 2 a wrong command "
    "line, or a local file in the way; 3 the server (or the database) cannot be reached "
    "or cannot answer."
)
"""The exit statuses of every verb, for the command's ``--help``."""

REFUSED, USAGE, UNREACHABLE = 1, 2, 3

ACCOUNT_PANEL = "Log in and look around"
TEAM_PANEL = "Take part (a team's token)"
ORGANISER_PANEL = "Run a competition (the organiser's token)"

ServerOption = Annotated[
    str | None,
    typer.Option(
        "--server",
        envvar="LADDERBOARD_SERVER",
        help="The server's URL (default: the last one logged in to, else http://127.0.0.1:8000).",
    ),
]
TokenOption = Annotated[
    str | None,
    typer.Option(
        "--token",
        envvar="LADDERBOARD_TOKEN",
        help="Your bearer token (default: the one `ladderboard login` stored for the server).",
    ),
]
SlugArgument = Annotated[str, typer.Argument(help="The competition's slug.")]
TeamArgument = Annotated[str, typer.Argument(help="The team's name.")]

T = TypeVar("T")

BAR_BYTES = 1 << 20
"""Uploads and downloads of this many bytes or more show a progress bar."""


class Board(enum.StrEnum):
    per_team = "per-team"
    per_rank = "per-rank"


competition_app = typer.Typer(
    help="Create and edit competitions (organiser).", no_args_is_help=True
)
team_app = typer.Typer(
    help="Register, list, disable and enable teams, and reissue their tokens (organiser).",
    no_args_is_help=True,
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


def _note_wait(retries: int) -> Callable[[float, ServerError, int], None]:
    def note(seconds: float, refusal: ServerError, retry: int) -> None:
        from ladderboard.client.tables import one_line

        typer.echo(
            f"note: {one_line(refusal)}; asking again in {seconds:g} s "
            f"(retry {retry} of {retries})",
            err=True,
        )

    return note


def _client(server: str | None, token: str | None) -> Client:
    """A client of the server and token chosen as the module's docstring
    says; unusable stored credentials are a usage error."""
    from ladderboard.client.credentials import CredentialsError, resolve
    from ladderboard.client.http import Client
    from ladderboard.client.transport import RETRIES

    try:
        server, token = resolve(server, token)
    except CredentialsError as exc:
        _fail(str(exc), USAGE)
    return Client(server, token or "", on_wait=_note_wait(RETRIES))


def _call(server: str | None, token: str | None, action: Callable[[Client], T]) -> T:
    """``action(client)``; a refusal is one line with the server's message,
    exit status 1, and a server that cannot answer exit status 3."""
    from ladderboard.client.transport import ServerError

    client = _client(server, token)
    try:
        with client:
            return action(client)
    except ServerError as exc:
        _fail(str(exc), UNREACHABLE if exc.unreachable else REFUSED)


def _show(fmt: str, data: Any, table: Callable[[], Table]) -> None:
    """``data`` as JSON, or ``table()`` as CSV or drawn (TSV when piped)."""
    if fmt == "json":
        print_json(data)
    elif fmt == "csv":
        print_csv(table())
    else:
        print_table(table())


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


# ------------------------------------------------------------- credentials
def login(
    server: ServerOption = None,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            help="The token to store (default: asked for, not echoed; never taken from "
            "LADDERBOARD_TOKEN, which may be another server's).",
        ),
    ] = None,
) -> None:
    """Check a token against the server and store it for that server, which
    becomes the default; the other verbs then need neither --server nor --token.

    The server is --server, else LADDERBOARD_SERVER, else the stored default,
    else http://127.0.0.1:8000.

    The file (in the user's configuration folder) is readable by you alone;
    one that others may read is refused until fixed. A token the server
    refuses, or a server that cannot be reached, stores nothing.
    """
    from ladderboard.client.credentials import (
        CredentialsError,
        load,
        masked,
        normal_server,
        save,
    )
    from ladderboard.client.http import Client
    from ladderboard.client.transport import DEFAULT_SERVER, ServerError

    try:
        default = load(check=False).default
    except (CredentialsError, OSError):
        default = None
    url = normal_server(server or default or DEFAULT_SERVER)
    if token is None:
        token = typer.prompt(f"token for {url}", hide_input=True)
    token = token.strip()
    if not token:
        _fail("no token given", USAGE)

    try:
        # No retries: a 429 here is most likely the limit on failed
        # authentications, which asking again with the same token only renews.
        with Client(url, token, retries=0) as client:
            who = client.whoami()
    except ServerError as exc:
        _fail(str(exc), UNREACHABLE if exc.unreachable else REFUSED)
    try:
        stored = load(check=False)
        stored.tokens[url] = token
        stored.default = url
        path = save(stored)
    except (CredentialsError, OSError) as exc:
        _fail(f"cannot store the token: {exc}", USAGE)
    if who["role"] == "organiser":
        whose = "the organiser's token"
    else:
        teams = ", ".join(f"{m['team']} in {m['competition']}" for m in who["teams"])
        whose = f"the token of team {teams}" if teams else "a team token"
    typer.echo(f"logged in to {url} with {whose} ({masked(token)}), stored in {path} (mode 0600)")


def logout(
    server: Annotated[
        str | None,
        typer.Option("--server", help="The server to forget (default: the default server)."),
    ] = None,
    forget_all: Annotated[bool, typer.Option("--all", help="Forget every stored token.")] = False,
) -> None:
    """Remove the token stored for a server (nothing is asked of the server)."""
    from ladderboard.client.credentials import (
        CredentialsError,
        credentials_path,
        load,
        normal_server,
        save,
    )

    if forget_all:
        credentials_path().unlink(missing_ok=True)
        typer.echo("forgot every stored token")
        return
    try:
        stored = load(check=False)
    except CredentialsError as exc:
        _fail(str(exc), USAGE)
    url = normal_server(server) if server else stored.default
    if url is None or url not in stored.tokens:
        _fail(f"no token is stored for {url or 'any server'}", USAGE)
    del stored.tokens[url]
    if stored.default == url:
        stored.default = next(iter(stored.tokens), None)
    try:
        save(stored)
    except OSError as exc:
        _fail(f"cannot rewrite the credentials file: {exc.strerror or exc}", USAGE)
    typer.echo(f"forgot the token of {url}")


def competitions(
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """List the server's competitions: slug, title, score, mechanism, state, deadline."""
    from ladderboard.client.tables import competitions_table

    fmt = output_format(as_json, as_csv)
    listed = _call(server, token, lambda c: c.competitions())
    _show(fmt, listed, lambda: competitions_table(listed))


# ---------------------------------------------------------------- a team's
def submit(
    slug: SlugArgument,
    file: Annotated[
        Path, typer.Option("-f", "--file", exists=True, dir_okay=False, help="Predictions CSV.")
    ],
    message: Annotated[str, typer.Option("-m", "--message", help="A note to yourself.")] = "",
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """Submit a predictions file; print the released public score and what it means.

    The file carries a fresh Idempotency-Key, so that a request sent again
    after a busy answer cannot make two submissions.
    """
    from ladderboard.client.tables import one_line, submission_table

    fmt = output_format(as_json, as_csv)
    data = file.read_bytes()
    key = secrets.token_urlsafe(24)
    with progress(f"sending {file.name}", enabled=len(data) >= BAR_BYTES) as advance:
        result = _call(
            server,
            token,
            lambda c: c.submit(
                slug,
                data,
                message=message,
                idempotency_key=key,
                progress=advance,
                filename=file.name,
            ),
        )
    _show(fmt, result, lambda: submission_table(slug, result))
    if fmt == "table" and result.get("explanation"):
        note(one_line(result["explanation"]))


def submissions(
    slug: SlugArgument,
    download: Annotated[
        Path | None,
        typer.Option(
            "--download",
            file_okay=False,
            help="Save each submitted file, as the server received it, into this folder.",
        ),
    ] = None,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """List your team's submissions (or, with --download, save their files)."""
    from ladderboard.client.tables import submissions_table

    fmt = output_format(as_json, as_csv)
    if download is not None:
        if fmt != "table":
            _fail("--download saves the files: give it without --json or --csv", USAGE)
        _download_submissions(slug, download, server, token)
        return
    rows, decimals = _call(
        server, token, lambda c: (c.submissions(slug), c.competition(slug).get("decimals"))
    )
    _show(fmt, rows, lambda: submissions_table(slug, rows, decimals))


def _download_submissions(slug: str, folder: Path, server: str | None, token: str | None) -> None:
    """Save each of the team's submitted files into ``folder`` (made if
    missing) as ``<slug>-submission-<number>.csv`` (``.csv.gz`` for a file
    sent compressed), byte for byte as the server received it."""

    def fetch(client: Client) -> list[tuple[int, bytes]]:
        return [(s["id"], client.submission_file(slug, s["id"])) for s in client.submissions(slug)]

    files = _call(server, token, fetch)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for number, data in files:
            gzipped = data[:2] == b"\x1f\x8b"
            path = folder / f"{slug}-submission-{number}.csv{'.gz' if gzipped else ''}"
            path.write_bytes(data)
    except OSError as exc:
        _fail(f"cannot write into {folder}: {exc.strerror or exc}", USAGE)
    count = len(files)
    typer.echo(f"saved {count} file{'' if count == 1 else 's'} of {slug} into {folder}")


def select(
    slug: SlugArgument,
    numbers: Annotated[
        list[int], typer.Argument(help="Your submissions' numbers, as `submissions` lists them.")
    ],
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Choose your final submissions (replacing an earlier choice)."""
    answer = _call(server, token, lambda c: c.select(slug, numbers))
    if as_json:
        print_json(answer)
        return
    typer.echo(f"your final submissions in {slug}: {', '.join(map(str, answer['selected']))}")


def status(
    slug: SlugArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: Annotated[
        bool, typer.Option("--csv", help="Print the standing as CSV (refused files: --json).")
    ] = False,
) -> None:
    """Show your team's rank, the quota left and when it resets, and your refused files."""
    from ladderboard.client.tables import rejections_table, status_table

    fmt = output_format(as_json, as_csv)
    standing = _call(server, token, lambda c: c.team_status(slug))
    _show(fmt, standing, lambda: status_table(slug, standing))
    if fmt != "table":
        return
    if not standing["rejections"]:
        note("no refused files")
    elif stdout_is_terminal():
        typer.echo()
        print_table(rejections_table(slug, standing["rejections"]))
    else:  # stdout carries the standing alone; the refused files are in --json too
        print_table(rejections_table(slug, standing["rejections"]), file=sys.stderr)


def leaderboard(
    slug: SlugArgument,
    private: Annotated[bool, typer.Option("--private", help="The private board.")] = False,
    download: Annotated[
        Path | None,
        typer.Option("--download", dir_okay=False, help="Save the server's CSV of the board."),
    ] = None,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """Show a competition's board (the private one once published)."""
    from ladderboard.client.tables import board_table

    fmt = output_format(as_json, as_csv)
    board = "private" if private else "public"
    if download is not None:
        if fmt != "table":
            _fail("--download saves the board as CSV: give it without --json or --csv", USAGE)
        data = _call(server, token, lambda c: c.leaderboard_csv(slug, board))
        try:
            download.write_bytes(data)
        except OSError as exc:
            _fail(f"cannot write {download}: {exc.strerror or exc}", USAGE)
        typer.echo(f"saved the {board} board of {slug} to {download}")
        return
    shown = _call(server, token, lambda c: c.leaderboard(slug, board))
    _show(fmt, shown, lambda: board_table(shown))


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
    as_json: JsonOption = False,
) -> None:
    """Download a competition's files, each checked against its listed SHA-256."""
    from ladderboard.client.download import DownloadRefused, download_files

    def bar(size: int) -> contextlib.AbstractContextManager[Callable[[int, int], None]]:
        return progress(f"downloading {slug}'s files", enabled=size >= BAR_BYTES)

    def fetch(client: Client) -> list[Any]:
        return download_files(client, slug, path, names=names, force=force, progress=bar)

    try:
        done = _call(server, token, fetch)
    except DownloadRefused as exc:
        _fail(str(exc), USAGE if exc.by == "usage" else REFUSED)
    except OSError as exc:
        _fail(f"cannot write to {path}: {exc.strerror or exc}: nothing was written", USAGE)
    if as_json:
        print_json([dataclasses.asdict(f) | {"path": str(f.path)} for f in done])
        return
    for file in done:
        if file.state == "written":
            typer.echo(f"{file.path}: {file.size} bytes, SHA-256 {file.sha256} as listed")
        else:
            typer.echo(f"{file.path}: already there, {file.size} bytes, SHA-256 as listed")


# ------------------------------------------------------------ the organiser's
def close(
    slug: SlugArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Close a competition now (organiser): no more submissions; `publish` follows."""
    info = _call(server, token, lambda c: c.close(slug))
    if as_json:
        print_json(info)
        return
    typer.echo(f"closed {info['slug']} at {info['closed_at']}")
    if not info["published"]:
        typer.echo(
            "the private board is yours to review; `ladderboard publish "
            f"{info['slug']}` shows it to everyone and reveals the audit key"
        )


def publish(
    slug: SlugArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print the competition and its commitment (with the key) as JSON."
        ),
    ] = False,
) -> None:
    """Publish the private board and reveal the audit key, after the close (organiser)."""

    def act(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        return client.publish(slug), client.commitment(slug)

    info, commitment = _call(server, token, act)
    if as_json:
        print_json({"competition": info, "commitment": commitment})
        return
    typer.echo(f"published {info['slug']} at {info['published_at']}: the private board is public")
    typer.echo(
        f"audit key: {commitment['key']} (with the store, `ladderboard verify {slug} "
        f"--key {commitment['key']}` checks every released score)"
    )


def flags(
    slug: SlugArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """List submissions identical to another team's earlier one (organiser)."""
    from ladderboard.client.tables import flags_table

    fmt = output_format(as_json, as_csv)
    found = _call(server, token, lambda c: c.flags(slug))
    if not found and fmt == "table" and stdout_is_terminal():
        typer.echo(f"no duplicate submissions in {slug}")
        return
    _show(fmt, found, lambda: flags_table(slug, found))


@competition_app.command("create", epilog=EXIT_STATUS)
def competition_create(
    slug: SlugArgument,
    solution: Annotated[
        Path,
        typer.Option("--solution", exists=True, dir_okay=False, help="The solution CSV."),
    ],
    score: Annotated[
        str,
        typer.Option("--score", help="A registered loss or metric, e.g. zero_one, log_loss."),
    ],
    mechanism: Annotated[
        str | None,
        typer.Option(
            "--mechanism",
            help=(
                "A registered mechanism, e.g. ladder-boot, shaky-ladder. Omitted: "
                f"ladderboard's default, {RECOMMENDED.label} ({RECOMMENDED.mechanism}), "
                "with its parameters at the solution's number of public rows."
            ),
        ),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            help=(
                "A parameter of --mechanism, KEY=VALUE (repeatable); those not given take "
                "their defaults, and the competition stores every one."
            ),
        ),
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
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """Create a competition from a solution file."""
    from ladderboard.client.tables import competition_table

    fmt = output_format(as_json, as_csv)
    try:
        params = parse_params(param or [])
    except ValueError as exc:
        _fail(f"--param: {exc}", USAGE)
    if params and mechanism is None:
        _fail(
            "--param sets a parameter of --mechanism: name the mechanism too, or give "
            f"neither for ladderboard's default, {RECOMMENDED.label}",
            USAGE,
        )
    description = _read_text(overview_file, "--overview-file")
    rules = _read_text(rules_file, "--rules-file")
    files = [(path.name, path.read_bytes()) for path in data_file or []]
    content = solution.read_bytes()
    checked = _deadline(deadline)
    size = len(content) + sum(len(data) for _, data in files)
    with progress(f"sending {slug}'s files", enabled=size >= BAR_BYTES) as advance:
        info = _call(
            server,
            token,
            lambda c: c.create_competition(
                slug,
                content,
                score=score,
                mechanism=mechanism,
                mechanism_params=params,
                data_files=files,
                progress=advance,
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
    _show(fmt, info, lambda: competition_table(info))


@competition_app.command("edit", epilog=EXIT_STATUS)
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
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """Edit a competition's title, overview, rules or deadline (organiser)."""
    from ladderboard.client.http import KEEP
    from ladderboard.client.tables import competition_table

    fmt = output_format(as_json, as_csv)
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
    _show(fmt, info, lambda: competition_table(info))


@team_app.command("add", epilog=EXIT_STATUS)
def team_add(
    slug: SlugArgument,
    name: TeamArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Register a team and print its token (shown this once)."""
    team = _call(server, token, lambda c: c.add_team(slug, name))
    if as_json:
        print_json(team)
        return
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


@team_app.command("import", epilog=EXIT_STATUS)
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
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print the new teams as JSON (without tokens with --tokens-out)."
        ),
    ] = False,
    as_csv: Annotated[
        bool,
        typer.Option("--csv", help="Print the names and tokens as CSV (not with --tokens-out)."),
    ] = False,
) -> None:
    """Register every team of a CSV, all or none; their tokens are shown once."""
    from ladderboard.client.tables import tokens_table

    fmt = output_format(as_json, as_csv)
    if as_csv and tokens_out is not None:
        _fail("--csv prints the tokens: give it or --tokens-out, not both", USAGE)
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
                print_table(tokens_table(slug, teams))
                _fail(f"cannot write {tokens_out}: {exc.strerror or exc}; the tokens are above", 2)
    if tokens_out is None:
        _show(fmt, teams, lambda: tokens_table(slug, teams))
        typer.echo(
            f"registered {len(teams)} teams in {slug}; their tokens are shown once", err=True
        )
    elif as_json:
        print_json([{k: v for k, v in team.items() if k != "token"} for team in teams])
    else:
        typer.echo(
            f"registered {len(teams)} teams in {slug}; their tokens (shown once) are in "
            f"{tokens_out}, readable by you alone"
        )


@team_app.command("list", epilog=EXIT_STATUS)
def team_list(
    slug: SlugArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """List every team with its activity: submissions, invalid files, flags (organiser)."""
    from ladderboard.client.tables import teams_table

    fmt = output_format(as_json, as_csv)
    teams = _call(server, token, lambda c: c.teams(slug))
    _show(fmt, teams, lambda: teams_table(slug, teams))


def _set_disabled(
    slug: str, name: str, disabled: bool, server: str | None, token: str | None, as_json: bool
) -> None:
    team = _call(server, token, lambda c: c.set_team_disabled(slug, name, disabled))
    if as_json:
        print_json(team)
    elif team["disabled"]:
        typer.echo(
            f"team {team['name']} of {slug} is disabled: no sign-in, submission or place "
            "on the boards (its submissions are kept)"
        )
    else:
        typer.echo(f"team {team['name']} of {slug} is enabled")


@team_app.command("disable", epilog=EXIT_STATUS)
def team_disable(
    slug: SlugArgument,
    name: TeamArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Disable a team: no sign-in, submission or place on the boards (organiser)."""
    _set_disabled(slug, name, True, server, token, as_json)


@team_app.command("enable", epilog=EXIT_STATUS)
def team_enable(
    slug: SlugArgument,
    name: TeamArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Enable a disabled team again, with its submissions (organiser)."""
    _set_disabled(slug, name, False, server, token, as_json)


@team_app.command("reissue", epilog=EXIT_STATUS)
def team_reissue(
    slug: SlugArgument,
    name: TeamArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Give a team a new token for a leaked one, and print it (organiser).

    The team keeps its place and submissions; its old token is refused at
    once and its browsers are signed out."""
    team = _call(server, token, lambda c: c.reissue_token(slug, name))
    if as_json:
        print_json(team)
        return
    typer.echo(f"team {team['name']} of {slug} has a new token; the old one is refused")
    typer.echo(f"token (shown once): {team['token']}")


@file_app.command("list", epilog=EXIT_STATUS)
def file_list(
    slug: SlugArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """List a competition's files with their size and SHA-256."""
    from ladderboard.client.tables import files_table

    fmt = output_format(as_json, as_csv)
    listed = _call(server, token, lambda c: c.files(slug))
    _show(fmt, listed, lambda: files_table(slug, listed))


@file_app.command("add", epilog=EXIT_STATUS)
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
    as_json: JsonOption = False,
) -> None:
    """Attach a data file for the teams (organiser)."""
    name = name or path.name
    data = path.read_bytes()

    with progress(f"sending {name}", enabled=len(data) >= BAR_BYTES) as advance:

        def act(client: Client) -> dict[str, Any] | None:
            if not replace and any(f["name"] == name for f in client.files(slug)):
                return None
            return client.put_file(slug, name, data, progress=advance)

        info = _call(server, token, act)
    if info is None:
        _fail(f"{slug} already has a file {name!r} (--replace replaces it)", USAGE)
    if as_json:
        print_json(info)
        return
    typer.echo(f"attached {info['name']} to {slug}: {info['size']} bytes, SHA-256 {info['sha256']}")


@file_app.command("remove", epilog=EXIT_STATUS)
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
    panels of their own; each verb's help ends with the exit statuses."""
    panels: list[tuple[str, tuple[Callable[..., None], ...]]] = [
        (ACCOUNT_PANEL, (login, logout, competitions)),
        (TEAM_PANEL, (submit, submissions, select, status, leaderboard, download)),
        (ORGANISER_PANEL, (close, publish, flags)),
    ]
    for panel, verbs in panels:
        for verb in verbs:
            app.command(rich_help_panel=panel, epilog=EXIT_STATUS)(verb)
    for name, sub_app in (("competition", competition_app), ("team", team_app), ("file", file_app)):
        app.add_typer(sub_app, name=name, rich_help_panel=ORGANISER_PANEL)
