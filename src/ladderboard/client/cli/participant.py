"""The verbs of the "Take part" panel, run with a team's token: ``submit``,
``submissions``, ``select``, ``status``, ``leaderboard`` and ``download``.

Uploads and downloads of :data:`~ladderboard.client.cli.shared.BAR_BYTES`
or more show a progress bar on stderr at a terminal."""

from __future__ import annotations

import contextlib
import dataclasses
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ladderboard.client.cli.registration import join
from ladderboard.client.cli.shared import (
    BAR_BYTES,
    REFUSED,
    USAGE,
    ServerOption,
    SlugArgument,
    TokenOption,
    call,
    fail,
    show,
)
from ladderboard.terminal import (
    CsvOption,
    JsonOption,
    note,
    output_format,
    print_json,
    print_table,
    progress,
    stdout_is_terminal,
)

if TYPE_CHECKING:
    from ladderboard.client.http import Client

__all__ = [
    "PANEL",
    "VERBS",
    "download",
    "join",
    "leaderboard",
    "select",
    "status",
    "submissions",
    "submit",
]

PANEL = "Take part (a team's token)"


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
        result = call(
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
            competition=slug,
        )
    show(fmt, result, lambda: submission_table(slug, result))
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
            fail("--download saves the files: give it without --json or --csv", USAGE)
        _download_submissions(slug, download, server, token)
        return
    rows, decimals = call(
        server,
        token,
        lambda c: (c.submissions(slug), c.competition(slug).get("decimals")),
        competition=slug,
    )
    show(fmt, rows, lambda: submissions_table(slug, rows, decimals))


def _download_submissions(slug: str, folder: Path, server: str | None, token: str | None) -> None:
    """Save each of the team's submitted files into ``folder`` (made if
    missing) as ``<slug>-submission-<number>.csv`` (``.csv.gz`` for a file
    sent compressed), byte for byte as the server received it."""

    def fetch(client: Client) -> list[tuple[int, bytes]]:
        from ladderboard.client.tables import number

        return [
            (number(s), client.submission_file(slug, number(s))) for s in client.submissions(slug)
        ]

    files = call(server, token, fetch, competition=slug)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for number, data in files:
            gzipped = data[:2] == b"\x1f\x8b"
            path = folder / f"{slug}-submission-{number}.csv{'.gz' if gzipped else ''}"
            path.write_bytes(data)
    except OSError as exc:
        fail(f"cannot write into {folder}: {exc.strerror or exc}", USAGE)
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
    answer = call(server, token, lambda c: c.select(slug, numbers), competition=slug)
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
    standing = call(server, token, lambda c: c.team_status(slug), competition=slug)
    show(fmt, standing, lambda: status_table(slug, standing))
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
            fail("--download saves the board as CSV: give it without --json or --csv", USAGE)
        data = call(server, token, lambda c: c.leaderboard_csv(slug, board), competition=slug)
        try:
            download.write_bytes(data)
        except OSError as exc:
            fail(f"cannot write {download}: {exc.strerror or exc}", USAGE)
        typer.echo(f"saved the {board} board of {slug} to {download}")
        return
    shown = call(server, token, lambda c: c.leaderboard(slug, board), competition=slug)
    show(fmt, shown, lambda: board_table(shown))


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
        done = call(server, token, fetch, competition=slug)
    except DownloadRefused as exc:
        fail(str(exc), USAGE if exc.by == "usage" else REFUSED)
    except OSError as exc:
        fail(f"cannot write to {path}: {exc.strerror or exc}: nothing was written", USAGE)
    if as_json:
        print_json([dataclasses.asdict(f) | {"path": str(f.path)} for f in done])
        return
    for file in done:
        if file.state == "written":
            typer.echo(f"{file.path}: {file.size} bytes, SHA-256 {file.sha256} as listed")
        else:
            typer.echo(f"{file.path}: already there, {file.size} bytes, SHA-256 as listed")


VERBS = (join, submit, submissions, select, status, leaderboard, download)
"""The panel's verbs, in the order ``ladderboard --help`` lists them."""
