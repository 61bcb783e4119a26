"""``ladderboard audit``: publish a competition's audit bundle (the
organiser's token), and download it (anyone), for ``ladderboard verify
--bundle``."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import typer

from ladderboard.client.cli.shared import (
    EXIT_STATUS,
    REFUSED,
    USAGE,
    ServerOption,
    SlugArgument,
    TokenOption,
    call,
    fail,
)
from ladderboard.terminal import JsonOption, print_json

__all__ = ["audit_app", "audit_download", "audit_publish"]

audit_app = typer.Typer(
    help="Publish a competition's audit bundle (organiser); download it (anyone).",
    no_args_is_help=True,
)


@audit_app.command("publish", epilog=EXIT_STATUS)
def audit_publish(
    slug: SlugArgument,
    hashes_only: Annotated[
        bool,
        typer.Option(
            "--hashes-only",
            help="Put only the SHA-256 of each submitted file in the bundle, not the files: "
            "each team re-runs its own board with its own files.",
        ),
    ] = False,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Publish the audit bundle, after the private board (organiser)."""
    files = "hashes" if hashes_only else "full"
    info = call(server, token, lambda c: c.publish_audit(slug, files), organiser=True)
    if as_json:
        print_json(info)
        return
    held = "every submitted file" if info["files"] == "full" else "the files' SHA-256 only"
    typer.echo(f"published the audit bundle of {slug} ({held}) at {info['published_at']}")
    typer.echo(
        f"anyone downloads it with `ladderboard audit download {slug} --out {slug}-audit.zip` "
        f"and checks it with `ladderboard verify --bundle {slug}-audit.zip`"
    )


@audit_app.command("download", epilog=EXIT_STATUS)
def audit_download(
    slug: SlugArgument,
    out: Annotated[
        Path | None,
        typer.Option("--out", dir_okay=False, help="The zip file (default: SLUG-audit.zip)."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace the file if it exists.")] = False,
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Download the published audit bundle, a zip archive (anyone)."""
    target = out or Path(f"{slug}-audit.zip")
    if target.exists() and not force:
        fail(f"{target} exists (--force replaces it)", USAGE)
    try:
        with tempfile.NamedTemporaryFile(dir=target.parent or ".", delete=False) as spool:
            staged = Path(spool.name)
            try:
                size = call(server, token, lambda c: c.audit_bundle(slug, spool), competition=slug)
            except BaseException:
                spool.close()
                staged.unlink(missing_ok=True)
                raise
        staged.replace(target)
    except OSError as exc:
        fail(f"cannot write {target}: {exc.strerror or exc}", REFUSED)
    typer.echo(f"saved the audit bundle of {slug} to {target} ({size} bytes)")
    typer.echo(f"check it with `ladderboard verify --bundle {target}`")
