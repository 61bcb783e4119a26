"""``ladderboard file``: list a competition's files, attach and remove data
files (the organiser's token)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ladderboard.client.cli.shared import (
    BAR_BYTES,
    EXIT_STATUS,
    USAGE,
    ServerOption,
    SlugArgument,
    TokenOption,
    call,
    fail,
    show,
)
from ladderboard.terminal import CsvOption, JsonOption, output_format, print_json, progress

if TYPE_CHECKING:
    from ladderboard.client.http import Client

__all__ = ["file_add", "file_app", "file_list", "file_remove"]

file_app = typer.Typer(
    help="List a competition's files; attach and remove data files (organiser).",
    no_args_is_help=True,
)


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
    listed = call(server, token, lambda c: c.files(slug), competition=slug)
    show(fmt, listed, lambda: files_table(slug, listed))


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

        info = call(server, token, act, organiser=True)
    if info is None:
        fail(f"{slug} already has a file {name!r} (--replace replaces it)", USAGE)
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
    call(server, token, lambda c: c.remove_file(slug, name), organiser=True)
    typer.echo(f"removed {name} from {slug}")
