"""What the organiser's forms send, read into the values the engine takes,
each refusal a sentence that names the field by its label.

A deadline is a browser's ``datetime-local`` value (no zone) and a time zone
chosen beside it; it is stored in UTC. A list of teams is a CSV of names.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from ladderboard.rules.text import TEAM_NAME_CHARS, check_text, name_key
from ladderboard.server.errors import ApiError

__all__ = [
    "DEFAULT_ZONE",
    "TeamList",
    "calendar_words",
    "deadline_in_utc",
    "invalid",
    "local_fields",
    "plain",
    "team_names",
    "time_zones",
    "whole_number",
]

DEFAULT_ZONE = "UTC"
MAX_IMPORT_BYTES = 1 << 20
MAX_IMPORT_TEAMS = 10_000


def invalid(message: str) -> ApiError:
    return ApiError(422, "invalid_request", message)


@cache
def time_zones() -> tuple[str, ...]:
    """UTC first, then every IANA zone by name (``Europe/Paris``, ...)."""
    zones = sorted(z for z in available_timezones() if "/" in z and not z.startswith("Etc/"))
    return (DEFAULT_ZONE, *zones)


def deadline_in_utc(local: str, zone: str, *, label: str = "the deadline") -> datetime | None:
    """The UTC time of the wall-clock ``local`` (``YYYY-MM-DDTHH:MM``) in
    ``zone``; ``None`` when ``local`` is empty. A time the zone skips (clocks
    moved forward) is refused; one it repeats is read as the first.

    >>> deadline_in_utc("2030-07-01T12:00", "Europe/Paris").isoformat()
    '2030-07-01T10:00:00+00:00'
    >>> deadline_in_utc("2030-03-31T02:30", "Europe/Paris")
    Traceback (most recent call last):
    ladderboard.server.errors.ApiError: 2030-03-31 02:30 does not exist in Europe/Paris: the clocks skip it; choose another time
    """  # noqa: E501
    local = local.strip()
    if not local:
        return None
    zone = zone.strip() or DEFAULT_ZONE
    try:
        tz = ZoneInfo(zone) if zone != DEFAULT_ZONE else UTC
    except (ZoneInfoNotFoundError, ValueError):
        raise invalid(f"{zone[:60]!r} is not a time zone; choose one from the list") from None
    try:
        wall = datetime.strptime(local[:16], "%Y-%m-%dT%H:%M")
    except ValueError:
        raise invalid(
            f"{label} must be a date and a time like 2030-12-31T23:59, got {local[:40]!r}"
        ) from None
    aware = wall.replace(tzinfo=tz)
    try:
        utc = aware.astimezone(UTC)
        back = utc.astimezone(tz).replace(tzinfo=None)
    except (OverflowError, ValueError):  # past the calendar's ends once in UTC
        raise invalid(
            f"{label} {wall:%Y-%m-%d %H:%M} is out of range: choose a date between the years "
            "2 and 9998"
        ) from None
    if back != wall:
        raise invalid(
            f"{wall:%Y-%m-%d %H:%M} does not exist in {zone}: the clocks skip it; "
            "choose another time"
        )
    return utc


def local_fields(moment: datetime | None, zone: str = DEFAULT_ZONE) -> str:
    """The ``datetime-local`` value showing ``moment`` in ``zone``."""
    if moment is None:
        return ""
    tz = UTC if zone == DEFAULT_ZONE else ZoneInfo(zone)
    return moment.astimezone(tz).strftime("%Y-%m-%dT%H:%M")


_CALENDAR_NAMES = (
    (re.compile(r"\bopens_at\b"), "the opening time"),
    (re.compile(r"\bfreeze_at\b"), "the freeze"),
    (re.compile(r"(?<!the )\bdeadline \("), "the deadline ("),
)


def calendar_words(message: str) -> str:
    """``message`` of the configuration's calendar check with its dates
    named as the forms label them.

    >>> calendar_words("freeze_at (2030-01-02 00:00 UTC) must come before deadline (2030-01-01 00:00 UTC)")
    'the freeze (2030-01-02 00:00 UTC) must come before the deadline (2030-01-01 00:00 UTC)'
    """  # noqa: E501
    for pattern, words in _CALENDAR_NAMES:
        message = pattern.sub(words, message)
    return message


def whole_number(
    label: str,
    text: str,
    *,
    default: int | None,
    allow_none: bool = False,
    low: int = 1,
    high: int | None = None,
) -> int | None:
    """A whole-number field: empty → ``default``; ``none`` (when allowed) →
    no limit; else an integer of at least ``low`` (and at most ``high``).

    >>> whole_number("Submissions a day", "", default=5), whole_number("Ranks", " 3 ", default=10)
    (5, 3)
    >>> whole_number("Submissions a day", "lots", default=5, allow_none=True)
    Traceback (most recent call last):
    ladderboard.server.errors.ApiError: Submissions a day must be a whole number or 'none', got 'lots'
    """  # noqa: E501
    value = text.strip()
    if not value:
        return default
    if allow_none and value.lower() == "none":
        return None
    wanted = "a whole number or 'none'" if allow_none else "a whole number"
    if not re.fullmatch(r"[+]?\d{1,9}", value):
        raise invalid(f"{label} must be {wanted}, got {value[:40]!r}")
    number = int(value)
    if number < low:
        raise invalid(f"{label} must be at least {low}, got {number}")
    if high is not None and number > high:
        raise invalid(f"{label} must be at most {high}, got {number}")
    return number


_TECHNICAL = re.compile(r"__\w+__|Traceback|keyword|argument|\bNoneType\b|\bdict\b|\bkwargs\b")


def plain(message: str, fallback: str) -> str:
    """``message`` unless it reads like Python's own words (an exception
    raised below the engine's checks), then ``fallback``: the organiser
    sees a sentence about the form, never the code's internals.

    >>> plain("eta must be > 0, got -1.0", "bad"), plain("__init__() got 2 arguments", "bad")
    ('eta must be > 0, got -1.0', 'bad')
    """
    return fallback if _TECHNICAL.search(message) else message


@dataclass(frozen=True)
class TeamList:
    """Team names read from a CSV, with the line each came from."""

    names: tuple[str, ...]
    lines: tuple[int, ...]


def team_names(data: bytes, taken: Sequence[str] = ()) -> TeamList:
    """The team names of a CSV file: one column, headed ``name`` or without
    a header, or the column ``name`` of a file with a header; blank lines are
    skipped. Refused, with the line's number, for a
    line of several columns, a name that is empty, too long or not plain
    text, a name repeated (under case and Unicode folding) or already
    ``taken``.

    >>> team_names(b"name\\nAda\\nBob\\n").names
    ('Ada', 'Bob')
    >>> team_names(b"Ada\\n\\nada\\n")
    Traceback (most recent call last):
    ladderboard.server.errors.ApiError: Line 3: 'ada' repeats the team on line 1
    """
    if len(data) > MAX_IMPORT_BYTES:
        raise invalid(f"the file is larger than {MAX_IMPORT_BYTES // 1024} KiB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise invalid(f"Line {line}: the file must be UTF-8 text") from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        rows = list(reader)
    except csv.Error as exc:
        raise invalid(f"Line {reader.line_num}: not a readable CSV line ({exc})") from None
    keys = {name_key(name): 0 for name in taken}
    names: list[str] = []
    lines: list[int] = []
    # A header with a column "name" among others (an export with e-mails, say)
    # picks that column; otherwise the file has the one column.
    header = [cell.strip().lower() for cell in rows[0]] if rows else []
    column = header.index("name") if "name" in header and len(header) > 1 else None
    for number, row in enumerate(rows, 1):
        cells = [cell.strip() for cell in row]
        if column is not None:
            if number == 1 or not any(cells):
                continue
            if column >= len(cells):
                raise invalid(f"Line {number} has no column 'name'")
            cells = [cells[column]]
        while cells and not cells[-1] and len(cells) > 1:
            cells.pop()
        if not cells or cells == [""]:
            continue
        if number == 1 and len(cells) == 1 and cells[0].lower() == "name":
            continue
        if len(cells) > 1:
            raise invalid(
                f"Line {number} has {len(cells)} columns; a file without a header 'name' has "
                "one column, the team's name"
            )
        name = cells[0]
        try:
            check_text("the name", name, max_chars=TEAM_NAME_CHARS)
        except ValueError as exc:
            raise invalid(f"Line {number}: {exc}") from None
        key = name_key(name)
        if key in keys:
            earlier = keys[key]
            where = f"the team on line {earlier}" if earlier else "a team already registered"
            raise invalid(f"Line {number}: {name!r} repeats {where}")
        keys[key] = number
        names.append(name)
        lines.append(number)
        if len(names) > MAX_IMPORT_TEAMS:
            raise invalid(f"at most {MAX_IMPORT_TEAMS} teams in one import")
    if not names:
        raise invalid("the file names no team: one name a line, under a header 'name' or none")
    return TeamList(tuple(names), tuple(lines))
