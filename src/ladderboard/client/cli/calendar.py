"""The calendar's options of ``ladderboard competition create`` and
``edit``: the opening time, the freeze (a time, or days before the
deadline) and late submissions, checked before any request."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any

import typer

from ladderboard.client.cli.shared import USAGE, fail

__all__ = [
    "FreezeDaysOption",
    "FreezeOption",
    "LateOption",
    "LateSwitchOption",
    "OpensOption",
    "calendar_fields",
    "iso_time",
]

OpensOption = Annotated[
    str | None,
    typer.Option(
        "--opens",
        help="When submissions open, ISO 8601 with a time zone; before it teams may sign in "
        "and download the data ('none': open now; edit: only before the opening).",
    ),
]
FreezeOption = Annotated[
    str | None,
    typer.Option(
        "--freeze",
        help="When the public board freezes until the close, ISO 8601 with a time zone "
        "('none': no freeze; edit: only before the freeze).",
    ),
]
FreezeDaysOption = Annotated[
    float | None,
    typer.Option(
        "--freeze-days", min=0, help="Freeze the public board this many days before the deadline."
    ),
]
LateOption = Annotated[
    bool,
    typer.Option(
        "--late-submissions", help="Score files sent after the publication on a late board."
    ),
]
LateSwitchOption = Annotated[
    bool | None,
    typer.Option(
        "--late-submissions/--no-late-submissions",
        help="Score files sent after the publication on a late board, or no longer.",
    ),
]


def iso_time(option: str, value: str | None) -> str | None:
    """An ISO 8601 time with its zone, checked before any request; ``none``
    stays as is."""
    if value is None or value.lower() == "none":
        return value
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        fail(
            f"{option}: not an ISO 8601 time: {value!r} (e.g. 2030-01-31T23:59:00+00:00, "
            "or 'none')",
            USAGE,
        )
    if parsed.tzinfo is None:
        fail(f"{option}: {value!r} has no time zone (add +00:00 or Z)", USAGE)
    return value


def calendar_fields(
    opens: str | None,
    freeze: str | None,
    freeze_days: float | None,
    late: bool | None,
    deadline: str | None,
) -> dict[str, Any]:
    """The calendar's fields as the API takes them (``None`` for a date
    given as 'none'; a field not given is left out). ``--freeze-days``
    counts back from ``deadline`` (the one given, or the competition's)."""
    if freeze is not None and freeze_days is not None:
        fail("give --freeze or --freeze-days, not both", USAGE)
    fields: dict[str, Any] = {}
    for name, option, value in (("opens_at", "--opens", opens), ("freeze_at", "--freeze", freeze)):
        checked = iso_time(option, value)
        if checked is not None:
            fields[name] = None if checked.lower() == "none" else checked
    if freeze_days is not None:
        if deadline is None or deadline.lower() == "none":
            fail("--freeze-days counts back from the deadline: the competition has none", USAGE)
        at = datetime.fromisoformat(deadline) - timedelta(days=freeze_days)
        fields["freeze_at"] = at.isoformat()
    if late is not None:
        fields["late_submissions"] = late
    return fields
