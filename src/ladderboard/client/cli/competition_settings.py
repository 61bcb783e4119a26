"""The options of a competition's settings, shared by ``competition create``
and ``competition edit``, and the one function that reads them into the
values the API takes (:func:`setting_fields`), which a competition described
in a file can use as well.

A limit is a whole number or ``none`` (no limit), as on the web form; the
server checks each value as :class:`~ladderboard.rules.config.CompetitionConfig`
does, so a value refused here or there is refused with the same words."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ladderboard.client.cli.shared import USAGE, fail
from ladderboard.terminal import parse_params

__all__ = [
    "AutoPublishEditOption",
    "DailyQuotaOption",
    "InvalidQuotaOption",
    "MaxBytesOption",
    "MaxTeamSizeOption",
    "MergerDeadlineOption",
    "PrecisionOption",
    "ScoreParamOption",
    "SelectionsOption",
    "TotalQuotaOption",
    "form_fields",
    "setting_fields",
]

_LIMIT = "a whole number, or 'none' for no limit"

DailyQuotaOption = Annotated[
    str | None,
    typer.Option("--daily-quota", help=f"Valid submissions a team a UTC day: {_LIMIT}."),
]
TotalQuotaOption = Annotated[
    str | None,
    typer.Option("--total-quota", help=f"Valid submissions a team in all: {_LIMIT}."),
]
InvalidQuotaOption = Annotated[
    str | None,
    typer.Option("--invalid-quota", help=f"Refused files a team may send in all: {_LIMIT}."),
]
SelectionsOption = Annotated[
    int | None,
    typer.Option("--n-selections", help="Final submissions a team may select (default 2)."),
]
MaxBytesOption = Annotated[
    int | None,
    typer.Option(
        "--max-bytes", help="The largest submission file in bytes, compressed or not (50 MiB)."
    ),
]
MaxTeamSizeOption = Annotated[
    str | None,
    typer.Option("--max-team-size", help=f"Most members of a team of accounts: {_LIMIT}."),
]
MergerDeadlineOption = Annotated[
    str | None,
    typer.Option(
        "--merger-deadline",
        help="Last moment two teams may merge, ISO 8601 with a time zone, before the "
        "deadline; 'none': until the close.",
    ),
]
PrecisionOption = Annotated[
    int | None, typer.Option("--precision", help="The most decimals a score shows (default 5).")
]
ScoreParamOption = Annotated[
    list[str] | None,
    typer.Option(
        "--score-param",
        help="A parameter of --score's loss, KEY=VALUE (repeatable), e.g. clip=[0.01,0.99].",
    ),
]
AutoPublishEditOption = Annotated[
    bool | None,
    typer.Option(
        "--auto-publish/--no-auto-publish",
        help="Publish the private board and the key at the deadline, or wait for you.",
        show_default=False,
    ),
]


def _limit(option: str, value: str) -> int | None:
    text = value.strip()
    if text.lower() == "none":
        return None
    try:
        return int(text)
    except ValueError:
        fail(f"{option}: {_LIMIT}, got {value!r}", USAGE)


def setting_fields(
    *,
    daily_quota: str | None = None,
    total_quota: str | None = None,
    invalid_quota: str | None = None,
    n_selections: int | None = None,
    max_bytes: int | None = None,
    precision: int | None = None,
    auto_publish: bool | None = None,
    score_param: list[str] | None = None,
    max_team_size: str | None = None,
    merger_deadline: str | None = None,
) -> dict[str, Any]:
    """The settings given (``None``: not given), under the names of the
    competition's JSON, as the API's ``PATCH`` takes them: a limit ``none``
    becomes ``None`` (no limit), ``--score-param`` pairs ``score_params``.

    >>> setting_fields(daily_quota="3", total_quota="none", precision=2)
    {'daily_quota': 3, 'total_quota': None, 'precision': 2}
    >>> setting_fields(score_param=["clip=1e-15"])
    {'score_params': {'clip': 1e-15}}
    >>> setting_fields(max_team_size="4", merger_deadline="none")
    {'max_team_size': 4, 'merger_deadline': None}
    """
    fields: dict[str, Any] = {}
    for name, value in (
        ("daily_quota", daily_quota),
        ("total_quota", total_quota),
        ("invalid_quota", invalid_quota),
        ("max_team_size", max_team_size),
    ):
        if value is not None:
            fields[name] = _limit("--" + name.replace("_", "-"), value)
    for name, number in (
        ("n_selections", n_selections),
        ("max_bytes", max_bytes),
        ("precision", precision),
        ("auto_publish", auto_publish),
    ):
        if number is not None:
            fields[name] = number
    if merger_deadline is not None:
        text = merger_deadline.strip()
        fields["merger_deadline"] = None if text.lower() == "none" else text
    if score_param:
        try:
            fields["score_params"] = parse_params(score_param)
        except ValueError as exc:
            fail(f"--score-param: {exc}", USAGE)
    return fields


def form_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """:func:`setting_fields` as the creation form takes them: no limit is
    the word ``none`` (a field left out takes its default).

    >>> form_fields({"daily_quota": None, "n_selections": 1})
    {'daily_quota': 'none', 'n_selections': 1}
    """
    return {name: "none" if value is None else value for name, value in fields.items()}
