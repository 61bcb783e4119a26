"""``ladderboard competition organisers SLUG [add HANDLE --role ROLE | remove
HANDLE]``: list a competition's organisers, make an account one (or give it
another role), or remove one; the last owner stays. Adding and removing are
the owners'; listing, every organiser's."""

from __future__ import annotations

import enum
from typing import Annotated, Any

import typer

from ladderboard.client.cli.competition import competition_app
from ladderboard.client.cli.shared import (
    EXIT_STATUS,
    USAGE,
    ServerOption,
    SlugArgument,
    TokenOption,
    call,
    fail,
    show,
)
from ladderboard.terminal import CsvOption, JsonOption, output_format

__all__ = ["OrganiserRole", "competition_organisers"]


class OrganiserRole(enum.StrEnum):
    """A role in one competition."""

    owner = "owner"
    co_organiser = "co-organiser"


@competition_app.command("organisers", epilog=EXIT_STATUS)
def competition_organisers(
    slug: SlugArgument,
    action: Annotated[
        str | None, typer.Argument(help="add or remove; without it, the list.", show_default=False)
    ] = None,
    handle: Annotated[
        str | None, typer.Argument(help="The account's handle.", show_default=False)
    ] = None,
    role: Annotated[
        OrganiserRole, typer.Option("--role", help="The role given by add.")
    ] = OrganiserRole.co_organiser,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """List the organisers of SLUG; `add HANDLE --role co-organiser|owner` makes
    an account one (or changes its role), `remove HANDLE` removes one (owner)."""
    from ladderboard.client.tables import organisers_table

    fmt = output_format(as_json, as_csv)
    if action is None:
        if handle is not None:
            fail("give add or remove before the handle", USAGE)
        listed: list[dict[str, Any]] = call(
            server, token, lambda c: c.organisers(slug), organiser=True
        )
        show(fmt, listed, lambda: organisers_table(slug, listed))
        return
    if action not in ("add", "remove"):
        fail(f"the action is add or remove, got {action!r}", USAGE)
    if not handle:
        fail(f"{action} needs the account's handle", USAGE)
    if action == "add":
        call(server, token, lambda c: c.add_organiser(slug, handle, role.value), organiser=True)
        typer.echo(f"{handle} is now {role.value} of {slug}")
        return
    call(server, token, lambda c: c.remove_organiser(slug, handle), organiser=True)
    typer.echo(f"{handle} no longer organises {slug}")
