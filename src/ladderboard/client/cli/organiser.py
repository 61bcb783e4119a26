"""The verbs of the "Run a competition" panel, run with the organiser's
token: ``close``, ``publish`` and ``flags`` here, and the groups
``competition`` (:mod:`~ladderboard.client.cli.competition`), ``team``
(:mod:`~ladderboard.client.cli.team`) and ``file``
(:mod:`~ladderboard.client.cli.file`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from ladderboard.client.cli.competition import competition_app
from ladderboard.client.cli.file import file_app
from ladderboard.client.cli.shared import ServerOption, SlugArgument, TokenOption, call, show
from ladderboard.client.cli.team import team_app
from ladderboard.terminal import (
    CsvOption,
    JsonOption,
    output_format,
    print_json,
    stdout_is_terminal,
)

if TYPE_CHECKING:
    from ladderboard.client.http import Client

__all__ = ["GROUPS", "PANEL", "VERBS", "close", "flags", "publish"]

PANEL = "Run a competition (the organiser's token)"


def close(
    slug: SlugArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Close a competition now (organiser): no more submissions; `publish` follows."""
    info = call(server, token, lambda c: c.close(slug), organiser=True)
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

    info, commitment = call(server, token, act, organiser=True)
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
    found = call(server, token, lambda c: c.flags(slug), organiser=True)
    if not found and fmt == "table" and stdout_is_terminal():
        typer.echo(f"no duplicate submissions in {slug}")
        return
    show(fmt, found, lambda: flags_table(slug, found))


VERBS = (close, publish, flags)
"""The panel's verbs, in the order ``ladderboard --help`` lists them."""

GROUPS = (("competition", competition_app), ("team", team_app), ("file", file_app))
"""The panel's groups of verbs, by name, listed after the verbs."""
