"""``ladderboard team``: register, import, list, disable and enable teams,
and reissue their tokens (the organiser's token); a person's own team's
verbs are :mod:`~ladderboard.client.cli.team_members`'s.

A new token is shown once: on the screen, or with ``team import
--tokens-out`` in a new file only its owner can read."""

from __future__ import annotations

import contextlib
import csv
import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from ladderboard.client.cli.shared import (
    EXIT_STATUS,
    USAGE,
    ServerOption,
    SlugArgument,
    TeamArgument,
    TokenOption,
    call,
    fail,
    show,
)
from ladderboard.terminal import CsvOption, JsonOption, output_format, print_json, print_table

__all__ = [
    "team_add",
    "team_app",
    "team_disable",
    "team_enable",
    "team_import",
    "team_list",
    "team_reissue",
]

team_app = typer.Typer(
    help="Register, list, disable and enable teams, and reissue their tokens (organiser); "
    "create, show, invite to, join, leave and merge your own team (your personal token).",
    no_args_is_help=True,
)


@team_app.command("add", epilog=EXIT_STATUS)
def team_add(
    slug: SlugArgument,
    name: TeamArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Register a team and print its token (shown this once)."""
    team = call(server, token, lambda c: c.add_team(slug, name), organiser=True)
    if as_json:
        print_json(team)
        return
    typer.echo(f"team {team['name']} registered in {slug}")
    typer.echo(f"token (shown once): {team['token']}")


@contextlib.contextmanager
def _new_secret_file(path: Path | None) -> Iterator[io.TextIOWrapper | None]:
    """``path`` created for writing, readable by its owner only (mode 0600),
    before anything is asked of the server: a file already there is refused,
    and the file is removed again if the command fails."""
    if path is None:
        yield None
        return
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        fail(f"{path} exists: the tokens are shown once, so they go to a new file", USAGE)
    except OSError as exc:
        fail(f"cannot create {path}: {exc.strerror or exc}", USAGE)
    kept = False
    try:
        with open(descriptor, "w", encoding="utf-8", newline="") as file:
            yield file
        kept = True
    finally:
        if not kept:
            path.unlink(missing_ok=True)


@team_app.command("import", epilog=EXIT_STATUS)
def team_import(
    slug: SlugArgument,
    names_csv: Annotated[
        Path,
        typer.Argument(
            exists=True, dir_okay=False, help="A CSV of names: a column 'name', or one column."
        ),
    ],
    tokens_out: Annotated[
        Path | None,
        typer.Option(
            "--tokens-out",
            dir_okay=False,
            help="Write name,token to this new file (mode 0600) instead of the screen.",
        ),
    ] = None,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print the new teams as JSON (without tokens with --tokens-out)."
        ),
    ] = False,
    as_csv: Annotated[
        bool,
        typer.Option("--csv", help="Print the names and tokens as CSV (not with --tokens-out)."),
    ] = False,
) -> None:
    """Register every team of a CSV, all or none; their tokens are shown once."""
    from ladderboard.client.tables import tokens_table

    fmt = output_format(as_json, as_csv)
    if as_csv and tokens_out is not None:
        fail("--csv prints the tokens: give it or --tokens-out, not both", USAGE)
    data = names_csv.read_bytes()
    with _new_secret_file(tokens_out) as out:
        teams = call(server, token, lambda c: c.import_teams(slug, data), organiser=True)
        if out is not None:
            try:
                writer = csv.writer(out, lineterminator="\n")
                writer.writerow(["name", "token"])
                writer.writerows([team["name"], team["token"]] for team in teams)
                out.flush()
            except OSError as exc:  # the teams exist now: their tokens must not be lost
                print_table(tokens_table(slug, teams))
                fail(
                    f"cannot write {tokens_out}: {exc.strerror or exc}; the tokens are above",
                    USAGE,
                )
    if tokens_out is None:
        show(fmt, teams, lambda: tokens_table(slug, teams))
        typer.echo(
            f"registered {len(teams)} teams in {slug}; their tokens are shown once", err=True
        )
    elif as_json:
        print_json([{k: v for k, v in team.items() if k != "token"} for team in teams])
    else:
        typer.echo(
            f"registered {len(teams)} teams in {slug}; their tokens (shown once) are in "
            f"{tokens_out}, readable by you alone"
        )


@team_app.command("list", epilog=EXIT_STATUS)
def team_list(
    slug: SlugArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """List every team with its activity: submissions, invalid files, flags (organiser)."""
    from ladderboard.client.tables import teams_table

    fmt = output_format(as_json, as_csv)
    teams = call(server, token, lambda c: c.teams(slug), organiser=True)
    show(fmt, teams, lambda: teams_table(slug, teams))


def _set_disabled(
    slug: str, name: str, disabled: bool, server: str | None, token: str | None, as_json: bool
) -> None:
    team = call(server, token, lambda c: c.set_team_disabled(slug, name, disabled), organiser=True)
    if as_json:
        print_json(team)
    elif team["disabled"]:
        typer.echo(
            f"team {team['name']} of {slug} is disabled: no sign-in, submission or place "
            "on the boards (its submissions are kept)"
        )
    else:
        typer.echo(f"team {team['name']} of {slug} is enabled")


@team_app.command("disable", epilog=EXIT_STATUS)
def team_disable(
    slug: SlugArgument,
    name: TeamArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Disable a team: no sign-in, submission or place on the boards (organiser)."""
    _set_disabled(slug, name, True, server, token, as_json)


@team_app.command("enable", epilog=EXIT_STATUS)
def team_enable(
    slug: SlugArgument,
    name: TeamArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Enable a disabled team again, with its submissions (organiser)."""
    _set_disabled(slug, name, False, server, token, as_json)


@team_app.command("reissue", epilog=EXIT_STATUS)
def team_reissue(
    slug: SlugArgument,
    name: TeamArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Give a team a new token for a leaked one, and print it (organiser).

    The team keeps its place and submissions; its old token is refused at
    once and its browsers are signed out."""
    team = call(server, token, lambda c: c.reissue_token(slug, name), organiser=True)
    if as_json:
        print_json(team)
        return
    typer.echo(f"team {team['name']} of {slug} has a new token; the old one is refused")
    typer.echo(f"token (shown once): {team['token']}")
