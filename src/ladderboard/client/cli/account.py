"""The verbs of the "Log in and look around" panel: ``login`` and
``logout`` (the tokens stored per server, :mod:`ladderboard.client.credentials`)
and ``competitions``, which any token, or none, may ask for."""

from __future__ import annotations

from typing import Annotated

import typer

from ladderboard.client.cli.shared import (
    REFUSED,
    UNREACHABLE,
    USAGE,
    ServerOption,
    TokenOption,
    call,
    fail,
    show,
)
from ladderboard.terminal import CsvOption, JsonOption, output_format

__all__ = ["PANEL", "VERBS", "competitions", "login", "logout"]

PANEL = "Log in and look around"


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
        fail("no token given", USAGE)

    try:
        # No retries: a 429 here is most likely the limit on failed
        # authentications, which asking again with the same token only renews.
        with Client(url, token, retries=0) as client:
            who = client.whoami()
    except ServerError as exc:
        fail(str(exc), UNREACHABLE if exc.unreachable else REFUSED)
    try:
        stored = load(check=False)
        stored.tokens[url] = token
        stored.default = url
        path = save(stored)
    except (CredentialsError, OSError) as exc:
        fail(f"cannot store the token: {exc}", USAGE)
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
        fail(str(exc), USAGE)
    url = normal_server(server) if server else stored.default
    if url is None or url not in stored.tokens:
        fail(f"no token is stored for {url or 'any server'}", USAGE)
    del stored.tokens[url]
    if stored.default == url:
        stored.default = next(iter(stored.tokens), None)
    try:
        save(stored)
    except OSError as exc:
        fail(f"cannot rewrite the credentials file: {exc.strerror or exc}", USAGE)
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
    listed = call(server, token, lambda c: c.competitions())
    show(fmt, listed, lambda: competitions_table(listed))


VERBS = (login, logout, competitions)
"""The panel's verbs, in the order ``ladderboard --help`` lists them."""
