"""The verbs of the "Run a competition" panel, run with the organiser's
token: ``close``, ``publish``, ``flags`` and ``export`` here, and the groups
``competition`` (:mod:`~ladderboard.client.cli.competition`), ``team``
(:mod:`~ladderboard.client.cli.team`), ``file``
(:mod:`~ladderboard.client.cli.file`) and ``audit``
(:mod:`~ladderboard.client.cli.audit`)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ladderboard.client.cli.audit import audit_app
from ladderboard.client.cli.competition import competition_app
from ladderboard.client.cli.file import file_app
from ladderboard.client.cli.shared import (
    REFUSED,
    USAGE,
    ServerOption,
    SlugArgument,
    TokenOption,
    call,
    fail,
    show,
)
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

__all__ = ["GROUPS", "PANEL", "VERBS", "close", "export", "flags", "publish"]

PANEL = "Run a competition (the organiser's token)"


def close(
    slug: SlugArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Close a competition now (organiser): no more submissions; `publish` follows."""
    info = call(server, token, lambda c: c.close(slug))
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

    info, commitment = call(server, token, act)
    if as_json:
        print_json({"competition": info, "commitment": commitment})
        return
    typer.echo(f"published {info['slug']} at {info['published_at']}: the private board is public")
    typer.echo(
        f"audit key: {commitment['key']} (with the store, `ladderboard verify {slug} "
        f"--key {commitment['key']}` checks every released score)"
    )
    typer.echo(
        f"`ladderboard audit publish {slug}` publishes the audit bundle, with which anyone "
        "checks them without the store"
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
    found = call(server, token, lambda c: c.flags(slug))
    if not found and fmt == "table" and stdout_is_terminal():
        typer.echo(f"no duplicate submissions in {slug}")
        return
    show(fmt, found, lambda: flags_table(slug, found))


def export(
    slug: SlugArgument,
    out: Annotated[
        Path, typer.Option("--out", file_okay=False, help="The folder to unpack the export into.")
    ],
    force: Annotated[
        bool,
        typer.Option("--force", help="Unpack into a folder that is not empty, over its files."),
    ] = False,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Download a competition's whole record and unpack it into a folder (organiser).

    The folder holds solution.csv, submissions/ with the index submissions.csv
    (what `ladderboard replay` reads), refused.csv, teams.csv, data/ and
    competition.json.
    """
    from ladderboard.client.archive import ArchiveRefused, unpack_archive

    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not force)):
        what = "is not a folder" if not out.is_dir() else "is not empty (--force writes over it)"
        fail(f"{out} {what}", USAGE)
    with tempfile.TemporaryFile() as spool:
        call(server, token, lambda c: c.export(slug, spool))
        spool.seek(0)
        try:
            written = unpack_archive(spool, out, force=force)
        except ArchiveRefused as exc:
            fail(f"{exc}: nothing was written", USAGE if exc.by == "usage" else REFUSED)
        except OSError as exc:
            fail(f"cannot write to {out}: {exc.strerror or exc}", USAGE)
    if as_json:
        print_json({"slug": slug, "folder": str(out), "files": [str(p) for p in written]})
        return
    submitted = sum(1 for p in written if p.parent.name == "submissions")
    for path in written:
        if path.parent.name != "submissions":
            typer.echo(f"wrote {path}")
    typer.echo(f"wrote {submitted} submitted file(s) to {out / 'submissions'}")
    score = json.loads((out / "competition.json").read_text())["config"]["score"]
    typer.echo(
        f"replay it with `ladderboard replay --solution {out / 'solution.csv'} "
        f"--submissions-dir {out / 'submissions'} --mechanism all --loss {score}`"
    )


VERBS = (close, publish, flags, export)
"""The panel's verbs, in the order ``ladderboard --help`` lists them."""

GROUPS = (
    ("competition", competition_app),
    ("team", team_app),
    ("file", file_app),
    ("audit", audit_app),
)
"""The panel's groups of verbs, by name, listed after the verbs."""
