"""Registration from the command line: ``ladderboard join`` (with an
account's personal token), and the organiser's ``competition invite``,
``competition invitations``, ``competition revoke-invitation`` and
``competition registrations``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from ladderboard.client.cli.competition import competition_app
from ladderboard.client.cli.shared import (
    EXIT_STATUS,
    REFUSED,
    ServerOption,
    SlugArgument,
    TokenOption,
    call,
    fail,
    show,
)
from ladderboard.terminal import CsvOption, JsonOption, output_format

if TYPE_CHECKING:
    from rich.table import Table

__all__ = ["join"]


def _table(title: str, rows: list[dict[str, Any]], columns: list[str]) -> Table:
    from rich.table import Table

    from ladderboard.client.tables import one_line

    table = Table(title=title)
    for column in columns:
        table.add_column(column.replace("_", " "))
    for row in rows:
        table.add_row(*(one_line("" if row[c] is None else row[c]) for c in columns))
    return table


def join(
    slug: SlugArgument,
    code: Annotated[
        str | None, typer.Option(help="The invitation code, for a competition by invitation.")
    ] = None,
    team: Annotated[
        str | None, typer.Option(help="Create your team at once, under this name.")
    ] = None,
    accept_rules: Annotated[
        bool,
        typer.Option("--accept-rules", help="Accept the competition's rules without being asked."),
    ] = False,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """Join a competition with your account's personal token, accepting its rules.

    Without --accept-rules, the rules are printed and you are asked."""
    fmt = output_format(as_json, as_csv)
    if not accept_rules:
        info = call(server, token, lambda c: c.competition(slug), competition=slug)
        typer.echo(f"The rules of {info['title']}:\n")
        typer.echo(info["rules"].strip() or "(the organiser wrote no rules beyond the board's)")
        typer.echo("")
        if not typer.confirm("Do you accept these rules?", default=False):
            fail("not joined: the rules were not accepted", REFUSED)
    joined = call(
        server,
        token,
        lambda c: c.join(slug, accept_rules=True, code=code, team=team),
        competition=slug,
    )
    columns = ["competition", "account", "team", "accepted_rules_at", "via"]
    show(fmt, joined, lambda: _table(f"{slug}: joined", [joined], columns))


_INVITATION_COLUMNS = ["id", "label", "state", "uses", "max_uses", "expires_at", "created_by"]


@competition_app.command("invite", epilog=EXIT_STATUS)
def invite(
    slug: SlugArgument,
    uses: Annotated[
        int | None, typer.Option(min=1, help="How many accounts it admits (default: any).")
    ] = None,
    days: Annotated[
        float | None,
        typer.Option(min=0, help="How many days it is valid (default: until revoked)."),
    ] = None,
    label: Annotated[str, typer.Option(help="A note for the organisers.")] = "",
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """Make an invitation to a competition and print its code and link, once (organiser)."""
    fmt = output_format(as_json, as_csv)
    made = call(
        server,
        token,
        lambda c: c.create_invitation(slug, label=label, uses=uses, days=days),
        organiser=True,
    )
    show(fmt, made, lambda: _table(f"{slug}: invitation", [made], [*_INVITATION_COLUMNS, "link"]))


@competition_app.command("invitations", epilog=EXIT_STATUS)
def invitations(
    slug: SlugArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """List a competition's invitations, without their codes (organiser)."""
    fmt = output_format(as_json, as_csv)
    rows = call(server, token, lambda c: c.invitations(slug), organiser=True)
    show(fmt, rows, lambda: _table(f"{slug}: invitations", rows, _INVITATION_COLUMNS))


@competition_app.command("revoke-invitation", epilog=EXIT_STATUS)
def revoke_invitation(
    slug: SlugArgument,
    invitation: Annotated[int, typer.Argument(help="The invitation's id.")],
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """Revoke an invitation: its code admits no one from now on (organiser)."""
    fmt = output_format(as_json, as_csv)
    row = call(server, token, lambda c: c.revoke_invitation(slug, invitation), organiser=True)
    show(fmt, row, lambda: _table(f"{slug}: invitation revoked", [row], _INVITATION_COLUMNS))


@competition_app.command("registrations", epilog=EXIT_STATUS)
def registrations(
    slug: SlugArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """List the accounts registered, their teams and their acceptance of the rules (organiser)."""
    fmt = output_format(as_json, as_csv)
    rows = call(server, token, lambda c: c.registrations(slug), organiser=True)
    columns = ["account", "team", "accepted_rules_at", "rules_current", "via", "invitation"]
    show(fmt, rows, lambda: _table(f"{slug}: registrations", rows, columns))
