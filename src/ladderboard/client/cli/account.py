"""The verbs of the "Log in and look around" panel: ``login``, ``logout``
and ``whoami`` (the tokens stored per server and competition,
:mod:`ladderboard.client.credentials`) and ``competitions``, which any
token, or none, may ask for."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ladderboard.client.cli.shared import (
    EXIT_STATUS,
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

if TYPE_CHECKING:
    from ladderboard.client.credentials import ServerTokens

__all__ = [
    "GROUPS",
    "PANEL",
    "VERBS",
    "account_app",
    "competitions",
    "login",
    "logout",
    "whoami",
]

PANEL = "Log in and look around"

account_app = typer.Typer(
    help="Accounts: create one (administrator), list your personal tokens.",
    no_args_is_help=True,
)


class Role(enum.StrEnum):
    """What an account may do on the server."""

    participant = "participant"
    organiser = "organiser"
    admin = "admin"


def _store(kept: ServerTokens, token: str, who: dict[str, Any]) -> tuple[str, str]:
    """File ``token`` in ``kept`` as whose the server said it is (replacing
    what was stored for the same competition, or the organiser's); return
    what was stored, in words, and which commands use it."""
    kept.forget(token)  # a token re-filed, e.g. the one of unknown owner
    if who["role"] == "organiser":
        kept.organiser = token
        return "the organiser's token", "organiser commands"
    if who["role"] == "account":
        kept.personal = token
        handle = (who.get("account") or {}).get("handle", "?")
        return (
            f"the personal token of account {handle}",
            "commands for competitions without a token of their own",
        )
    from ladderboard.client.credentials import TeamToken

    memberships = who["teams"]
    if not memberships:  # a team token the server places in no competition
        kept.other = token
        return "a team token of no competition", "commands that no other token fits"
    for member in memberships:
        kept.competitions[member["competition"]] = TeamToken(member["team"], token)
    places = ", ".join(f"team {m['team']} in competition {m['competition']}" for m in memberships)
    slugs = ", ".join(m["competition"] for m in memberships)
    return f"the token of {places}", f"commands for {slugs}"


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
    """Check a token against the server and store it as the server says whose
    it is: a team's token for its competition, the organiser's for the
    organiser's verbs. The server becomes the default; the other verbs then
    need neither --server nor --token.

    Tokens of several competitions (and the organiser's) are kept side by
    side: each verb takes the one of the competition it names. The server is
    --server, else LADDERBOARD_SERVER, else the stored default, else
    http://127.0.0.1:8000.

    The file (in the user's configuration folder) is readable by you alone;
    one that others may read is refused until fixed. A token the server
    refuses, or a server that cannot be reached, stores nothing.
    """
    from ladderboard.client.credentials import CredentialsError, load, masked, normal_server, save
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
        kept = stored.of(url)
        whose, used_by = _store(kept, token, who)
        stored.default = url
        path = save(stored)
    except (CredentialsError, OSError) as exc:
        fail(f"cannot store the token: {exc}", USAGE)
    typer.echo(
        f"Stored {whose} ({masked(token)}) on {url}; {used_by} will use it; "
        f"tokens kept for {url}: {kept.kept()} (in {path}, mode 0600)"
    )


def logout(
    competition: Annotated[
        str | None,
        typer.Argument(
            help="Forget the team token of this competition only (default: every token "
            "of the server)."
        ),
    ] = None,
    organiser: Annotated[
        bool, typer.Option("--organiser", help="Forget the organiser's token only.")
    ] = False,
    server: Annotated[
        str | None,
        typer.Option("--server", help="The server whose tokens to forget (default: the default)."),
    ] = None,
    forget_all: Annotated[
        bool, typer.Option("--all", help="Forget every stored token, of every server.")
    ] = False,
) -> None:
    """Remove stored tokens: a competition's, the organiser's, or every token
    of a server (nothing is asked of the server)."""
    from ladderboard.client.credentials import (
        CredentialsError,
        ServerTokens,
        credentials_path,
        load,
        normal_server,
        save,
    )

    if forget_all:
        if competition is not None or organiser or server is not None:
            fail("--all forgets every token: give it alone", USAGE)
        credentials_path().unlink(missing_ok=True)
        typer.echo("forgot every stored token")
        return
    if competition is not None and organiser:
        fail("give a competition or --organiser, not both", USAGE)
    try:
        stored = load(check=False)
    except CredentialsError as exc:
        fail(str(exc), USAGE)
    url = normal_server(server) if server else stored.default
    if url is None:
        fail("no token is stored for any server", USAGE)
    kept = stored.servers.get(url, ServerTokens())
    if not kept.tokens():
        fail(f"no token is stored for {url}", USAGE)
    if competition is not None:
        if competition not in kept.competitions:
            fail(f"no token of {competition} is stored for {url} (kept: {kept.kept()})", USAGE)
        del kept.competitions[competition]
        what = f"the token of {competition}"
    elif organiser:
        if kept.organiser is None:
            fail(f"no organiser's token is stored for {url} (kept: {kept.kept()})", USAGE)
        kept.organiser = None
        what = "the organiser's token"
    else:
        stored.servers[url] = kept = ServerTokens()
        what = "every token"
    if not kept.tokens():
        del stored.servers[url]
        if stored.default == url:
            stored.default = next(iter(stored.servers), None)
    try:
        save(stored)
    except OSError as exc:
        fail(f"cannot rewrite the credentials file: {exc.strerror or exc}", USAGE)
    left = f"; still kept: {kept.kept()}" if kept.tokens() else ""
    typer.echo(f"forgot {what} of {url}{left}")


def whoami(as_json: JsonOption = False, as_csv: CsvOption = False) -> None:
    """List the stored tokens (masked): server, whose, competition, team, and
    which server is the default. Nothing is asked of any server."""
    from ladderboard.client.credentials import CredentialsError, credentials_path, load, masked
    from ladderboard.client.tables import identities_table

    fmt = output_format(as_json, as_csv)
    try:
        found = load().identities()
    except CredentialsError as exc:
        fail(str(exc), USAGE)
    rows = [
        {
            "server": i.server,
            "role": i.role,
            "competition": i.competition,
            "team": i.team,
            "token": masked(i.token),
            "default": i.default,
        }
        for i in found
    ]
    if not rows and fmt == "table":
        typer.echo(f"no token is stored ({credentials_path()})")
        return
    show(fmt, rows, lambda: identities_table(rows))


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


@account_app.command("create", epilog=EXIT_STATUS)
def create_account(
    handle: Annotated[str, typer.Argument(help="The new account's handle.")],
    email: Annotated[str | None, typer.Option("--email", help="Its owner's email address.")] = None,
    role: Annotated[
        Role,
        typer.Option("--role", help="organiser: may create competitions; admin: the server's."),
    ] = Role.participant,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Create an account (an administrator's token) and print the link that
    signs its owner in, once, within 7 days: give it to them."""
    made = call(
        server,
        token,
        lambda c: c.create_account(handle, email=email, role=role.value),
        organiser=True,
    )
    if as_json:
        from ladderboard.terminal import print_json

        print_json(made)
        return
    account = made["account"]
    typer.echo(
        f"Created account {account['handle']} ({account['role']}). Its owner signs in once "
        f"with this link, until {made['expires_at']}:\n{made['sign_in_link']}"
    )


@account_app.command("tokens", epilog=EXIT_STATUS)
def account_tokens(
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """List your account's personal tokens (label, created, last used,
    revoked); create, rotate and revoke them on the server's /account page."""
    from ladderboard.client.tables import account_tokens_table

    fmt = output_format(as_json, as_csv)
    listed = call(server, token, lambda c: c.account_tokens())
    show(fmt, listed, lambda: account_tokens_table(listed))


VERBS = (login, logout, whoami, competitions)
"""The panel's verbs, in the order ``ladderboard --help`` lists them."""

GROUPS = (("account", account_app),)
"""The panel's groups of verbs, by name, listed after the verbs."""
