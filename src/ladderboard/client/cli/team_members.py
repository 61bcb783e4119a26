"""``ladderboard team create|invite|join|leave|merge|show``: a person's own
team, with their personal token (``ladderboard login`` with it, or
``--token``). An invitation code is shown once."""

from __future__ import annotations

from typing import Annotated, Any

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
)
from ladderboard.client.cli.team import team_app
from ladderboard.terminal import JsonOption, print_json

__all__ = ["team_create", "team_invite", "team_join", "team_leave", "team_merge", "team_show"]


def _describe(team: dict[str, Any]) -> None:
    typer.echo(f"team {team['name']}: you are its {team['role']}")
    for member in team["members"]:
        typer.echo(f"  {member['handle']} ({member['role']}), joined {member['joined_at']}")
    for invitation in team["invitations"]:
        typer.echo(f"  invitation {invitation['id']} valid until {invitation['expires_at']}")
    for merge in team["merges"]:
        typer.echo(
            f"  merge {merge['id']}: {merge['from_team']} into {merge['into_team']} "
            f"({merge['status']})"
        )


@team_app.command("create", epilog=EXIT_STATUS)
def team_create(
    slug: SlugArgument,
    name: TeamArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Create a team, with you as its captain (your personal token)."""
    team = call(server, token, lambda c: c.create_my_team(slug, name), competition=slug)
    print_json(team) if as_json else _describe(team)


@team_app.command("show", epilog=EXIT_STATUS)
def team_show(
    slug: SlugArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show your team: its members, live invitations and pending merges."""
    team = call(server, token, lambda c: c.my_team(slug), competition=slug)
    print_json(team) if as_json else _describe(team)


@team_app.command("invite", epilog=EXIT_STATUS)
def team_invite(
    slug: SlugArgument,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Print a new invitation code and link to your team (captain; shown once)."""
    invitation = call(server, token, lambda c: c.invite(slug), competition=slug)
    if as_json:
        print_json(invitation)
        return
    typer.echo(f"invitation code (shown once, for one person): {invitation['code']}")
    typer.echo(f"link: {invitation['link']}")
    typer.echo(f"valid until {invitation['expires_at']}")


@team_app.command("join", epilog=EXIT_STATUS)
def team_join(
    slug: SlugArgument,
    code: Annotated[str, typer.Argument(help="The invitation code the captain gave you.")],
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Join the team of an invitation code."""
    team = call(server, token, lambda c: c.join_team(slug, code), competition=slug)
    print_json(team) if as_json else _describe(team)


@team_app.command("leave", epilog=EXIT_STATUS)
def team_leave(slug: SlugArgument, server: ServerOption = None, token: TokenOption = None) -> None:
    """Leave your team (the captain leaves last)."""
    call(server, token, lambda c: c.leave_team(slug), competition=slug)
    typer.echo(f"you left your team of {slug}")


@team_app.command("merge", epilog=EXIT_STATUS)
def team_merge(
    slug: SlugArgument,
    into: Annotated[
        str | None, typer.Argument(help="The team to ask to merge into (captain).")
    ] = None,
    accept: Annotated[
        int | None, typer.Option("--accept", help="Accept this merge into your team (captain).")
    ] = None,
    refuse: Annotated[
        int | None, typer.Option("--refuse", help="Refuse this merge into your team (captain).")
    ] = None,
    withdraw: Annotated[
        int | None,
        typer.Option("--withdraw", help="Withdraw your team's merge request (captain)."),
    ] = None,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Ask for your team to merge into another, answer a merge into yours, or
    withdraw your team's request."""
    answers = {"accept": accept, "refuse": refuse, "withdraw": withdraw}
    given = {answer: merge_id for answer, merge_id in answers.items() if merge_id is not None}
    if len(given) + (into is not None) != 1:
        fail(
            "give a team to merge into, or one of --accept ID, --refuse ID, --withdraw ID",
            USAGE,
        )
    if into is not None:
        merge = call(server, token, lambda c: c.request_merge(slug, into), competition=slug)
    else:
        ((answer, merge_id),) = given.items()
        merge = call(
            server, token, lambda c: c.answer_merge(slug, merge_id, answer), competition=slug
        )
    if as_json:
        print_json(merge)
        return
    typer.echo(
        f"merge {merge['id']}: {merge['from_team']} into {merge['into_team']}, {merge['status']}"
    )
