"""The verbs of the "Run a competition" panel, run with the organiser's
token: ``close``, ``publish``, ``flags`` and ``rescore`` here, and the groups
``competition`` (:mod:`~ladderboard.client.cli.competition`), ``team``
(:mod:`~ladderboard.client.cli.team`) and ``file``
(:mod:`~ladderboard.client.cli.file`)."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ladderboard.client.cli.competition import Board, competition_app
from ladderboard.client.cli.file import file_app
from ladderboard.client.cli.shared import (
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
    parse_params,
    print_json,
    stdout_is_terminal,
)

if TYPE_CHECKING:
    from ladderboard.client.http import Client

__all__ = ["GROUPS", "PANEL", "VERBS", "close", "flags", "publish", "rescore"]

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


VERBS = (close, publish, flags, rescore)
"""The panel's verbs, in the order ``ladderboard --help`` lists them."""

GROUPS = (("competition", competition_app), ("team", team_app), ("file", file_app))
"""The panel's groups of verbs, by name, listed after the verbs."""
