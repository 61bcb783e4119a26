"""The verbs of the "Run a competition" panel, run with the organiser's
token: ``close``, ``publish``, ``flags``, ``rescore`` and ``export`` here, and the groups
``competition`` (:mod:`~ladderboard.client.cli.competition`), ``team``
(:mod:`~ladderboard.client.cli.team`), ``file``
(:mod:`~ladderboard.client.cli.file`) and ``audit``
(:mod:`~ladderboard.client.cli.audit`)."""

from __future__ import annotations

import enum
import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ladderboard.client.cli import competition_organisers  # noqa: F401 (adds its verb)
from ladderboard.client.cli.audit import audit_app
from ladderboard.client.cli.competition import Board, competition_app
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
from ladderboard.client.cli.team_members import team_create  # noqa: F401 (adds its verbs)
from ladderboard.terminal import (
    CsvOption,
    JsonOption,
    output_format,
    parse_params,
    print_json,
    stdout_is_terminal,
)

if TYPE_CHECKING:
    from ladderboard.client.http import Client

__all__ = ["GROUPS", "PANEL", "VERBS", "close", "export", "flags", "publish", "rescore"]

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
    found = call(server, token, lambda c: c.flags(slug), organiser=True)
    if not found and fmt == "table" and stdout_is_terminal():
        typer.echo(f"no duplicate submissions in {slug}")
        return
    show(fmt, found, lambda: flags_table(slug, found))


class Shown(enum.StrEnum):
    """The standings a what-if board returns."""

    public = "public"
    private = "private"


def _params(option: str, pairs: list[str] | None) -> dict[str, Any]:
    try:
        return parse_params(pairs or [])
    except ValueError as exc:
        fail(f"{option}: {exc}", USAGE)


def rescore(
    slug: SlugArgument,
    mechanism: Annotated[
        str, typer.Option("--mechanism", help="A registered mechanism, e.g. ladder, shaky-ladder.")
    ],
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            help="A parameter of --mechanism, KEY=VALUE (repeatable); those not given take "
            "the defaults a new competition would.",
        ),
    ] = None,
    board: Annotated[
        Shown, typer.Option(help="The standings: as released, or the private scores.")
    ] = Shown.public,
    mode: Annotated[
        Board, typer.Option(help="A mechanism per team, or one board of the top ranks.")
    ] = Board.per_team,
    ranks: Annotated[
        int | None, typer.Option(min=1, help="The ranks of a per-rank board (default: the live).")
    ] = None,
    score: Annotated[
        str | None, typer.Option(help="Another loss or metric (default: the competition's).")
    ] = None,
    score_param: Annotated[
        list[str] | None,
        typer.Option("--score-param", help="A parameter of --score, KEY=VALUE (repeatable)."),
    ] = None,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """Show the board the competition would have under another mechanism or
    score, beside the live one (organiser).

    The server scores every stored submission again, in order, and stores
    nothing: the live board, the teams' releases and what the teams see stay
    as they are, and only the organiser's token may ask. A noisy mechanism
    draws its noise from a key of its own, so its what-if scores differ from
    the live ones even under the competition's own configuration; a
    deterministic one (parameter-free-ladder) gives the live board back.
    """
    from ladderboard.client.tables import rescore_table

    fmt = output_format(as_json, as_csv)
    params = _params("--param", param)
    score_params = _params("--score-param", score_param) if score_param else None

    answer = call(
        server,
        token,
        lambda c: c.rescore(
            slug,
            mechanism=mechanism,
            mechanism_params=params,
            board=board.value,
            mode=mode.value,
            ranks=ranks,
            score=score,
            score_params=score_params,
        ),
        organiser=True,
    )
    show(fmt, answer, lambda: rescore_table(answer))


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
    (what `ladderboard replay` reads), late/ with late.csv (the files sent
    after the publication), refused.csv, teams.csv, data/ and
    competition.json.
    """
    from ladderboard.client.archive import ArchiveRefused, unpack_archive

    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not force)):
        what = "is not a folder" if not out.is_dir() else "is not empty (--force writes over it)"
        fail(f"{out} {what}", USAGE)
    with tempfile.TemporaryFile() as spool:
        call(server, token, lambda c: c.export(slug, spool), organiser=True)
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
    counted = ("submissions", "late")  # a line for each folder, not each file
    for path in written:
        if path.parent.name not in counted:
            typer.echo(f"wrote {path}")
    submitted = sum(1 for p in written if p.parent.name == "submissions")
    typer.echo(f"wrote {submitted} submitted file(s) to {out / 'submissions'}")
    late = sum(1 for p in written if p.parent.name == "late")
    if late:
        typer.echo(f"wrote {late} late file(s) to {out / 'late'}")
    score = json.loads((out / "competition.json").read_text())["config"]["score"]
    typer.echo(
        f"replay it with `ladderboard replay --solution {out / 'solution.csv'} "
        f"--submissions-dir {out / 'submissions'} --mechanism all --loss {score}`"
    )


VERBS = (close, publish, flags, rescore, export)
"""The panel's verbs, in the order ``ladderboard --help`` lists them."""

GROUPS = (
    ("competition", competition_app),
    ("team", team_app),
    ("file", file_app),
    ("audit", audit_app),
)
"""The panel's groups of verbs, by name, listed after the verbs."""
