"""What every client verb shares: the ``--server`` and ``--token`` options,
the exit statuses, the call to the server and the printing of its answer.

Only typer, the standard library and :mod:`ladderboard.terminal` load here;
httpx2 and rich load inside the functions, when a verb runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer

from ladderboard.terminal import print_csv, print_json, print_table

if TYPE_CHECKING:
    from rich.table import Table

    from ladderboard.client.http import Client
    from ladderboard.client.transport import ServerError

__all__ = [
    "BAR_BYTES",
    "EXIT_STATUS",
    "REFUSED",
    "UNREACHABLE",
    "USAGE",
    "ServerOption",
    "SlugArgument",
    "TeamArgument",
    "TokenOption",
    "call",
    "fail",
    "show",
]

EXIT_STATUS = (
    "Exit status: 0 done; 1 refused, by the server (its message follows) or by a check "
    "of its answer (a download whose SHA-256 differs from the listing); 2 a wrong command "
    "line, or a local file in the way; 3 the server (or the database) cannot be reached "
    "or cannot answer."
)
"""The exit statuses of every verb, for the command's ``--help``."""

REFUSED, USAGE, UNREACHABLE = 1, 2, 3

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
        help="Your bearer token (default: the one `ladderboard login` stored on the server for "
        "the competition, or the organiser's for an organiser's verb).",
    ),
]
SlugArgument = Annotated[str, typer.Argument(help="The competition's slug.")]
TeamArgument = Annotated[str, typer.Argument(help="The team's name.")]

T = TypeVar("T")

BAR_BYTES = 1 << 20
"""Uploads and downloads of this many bytes or more show a progress bar."""


def fail(message: str, status: int) -> NoReturn:
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


def _client(
    server: str | None, token: str | None, competition: str | None, organiser: bool
) -> Client:
    """A client of the server and token chosen as
    :mod:`ladderboard.client.credentials` says; unusable stored credentials
    are a usage error."""
    from ladderboard.client.credentials import CredentialsError, resolve
    from ladderboard.client.http import Client
    from ladderboard.client.transport import RETRIES

    try:
        server, token = resolve(server, token, competition=competition, organiser=organiser)
    except CredentialsError as exc:
        fail(str(exc), USAGE)
    return Client(server, token or "", on_wait=_note_wait(RETRIES))


def call(
    server: str | None,
    token: str | None,
    action: Callable[[Client], T],
    *,
    competition: str | None = None,
    organiser: bool = False,
) -> T:
    """``action(client)``, with the token of ``competition`` (the slug the
    verb names) or, for an ``organiser`` verb, the organiser's, unless
    ``--token`` gives one. A refusal is one line with the server's message,
    exit status 1, and a server that cannot answer exit status 3; a 401 to a
    request sent without a token says how to store one."""
    from ladderboard.client.transport import ServerError

    client = _client(server, token, competition, organiser)
    try:
        with client:
            return action(client)
    except ServerError as exc:
        message = str(exc)
        if exc.status == 401 and not client.token and token is None:
            stored = f"no token of {competition}" if competition else "no token this verb may use"
            message += (
                f" ({stored} is stored for {client.server}: `ladderboard login` with it, "
                "or give --token)"
            )
        fail(message, UNREACHABLE if exc.unreachable else REFUSED)


def show(fmt: str, data: Any, table: Callable[[], Table]) -> None:
    """``data`` as JSON, or ``table()`` as CSV or drawn (TSV when piped)."""
    if fmt == "json":
        print_json(data)
    elif fmt == "csv":
        print_csv(table())
    else:
        print_table(table())
