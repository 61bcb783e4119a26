"""Which files make up a competition's history: team, time and order of each.

A history comes from an index file (``submissions.csv``: columns
``file,team,submitted_at``, ``submitted_at`` in ISO 8601 UTC) or, without one,
from the file names ``TEAM__YYYYMMDDTHHMMSSZ.csv`` (or ``.csv.gz``; two
underscores separate the team from the UTC time, and a team name never holds
two in a row). Submissions are replayed in time order; equal times keep the
index order (or, from file names, the order of the names).

What cannot be placed in the history is refused, each with a stable code:

=====================  ========================================================
code                   the entry ...
=====================  ========================================================
``bad_name``           has a file name that is not ``TEAM__YYYYMMDDTHHMMSSZ.csv``
``bad_time``           has a ``submitted_at`` that is not an ISO 8601 time
``missing_file``       is in the index, but the file is not in the directory
``duplicate_entry``    lists a file the index has already listed
``team_mismatch``      is indexed under a team other than the one its name says
``unknown_team``       belongs to a team that ``teams.csv`` does not list
``not_in_index``       is a file of the directory that the index does not list
=====================  ========================================================

``teams.csv`` (``team,...``) is read when it lies beside the index or the
directory; without it every team is known.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

__all__ = [
    "DISCOVERY_CODES",
    "Entry",
    "Skipped",
    "default_index",
    "discover",
    "parse_file_name",
]

DISCOVERY_CODES = (
    "bad_name",
    "bad_time",
    "missing_file",
    "duplicate_entry",
    "team_mismatch",
    "unknown_team",
    "not_in_index",
)
"""Every code :func:`discover` refuses an entry with."""

_NAME = re.compile(r"(?P<team>.+?)__(?P<time>\d{8}T\d{6}Z)\.csv(?:\.gz)?")
_SUFFIXES = (".csv", ".csv.gz")


@dataclass(frozen=True)
class Entry:
    """One submission of the history: its file, team and UTC time."""

    file: str
    path: Path
    team: str
    submitted_at: datetime


@dataclass(frozen=True)
class Skipped:
    """A file (or index row) left out of the replay, and why."""

    file: str
    team: str
    code: str
    message: str


def parse_file_name(name: str) -> tuple[str, datetime]:
    """The team and UTC time a file name states, or ``ValueError``.

    >>> parse_file_name("red_team__20260301T120000Z.csv")
    ('red_team', datetime.datetime(2026, 3, 1, 12, 0, tzinfo=datetime.timezone.utc))
    >>> parse_file_name("a__b__20260301T120000Z.csv")
    Traceback (most recent call last):
    ValueError: 'a__b__20260301T120000Z.csv' is not TEAM__YYYYMMDDTHHMMSSZ.csv (a team name \
never holds two underscores in a row)
    """
    match = _NAME.fullmatch(name)
    if match is None or "__" in match["team"]:
        raise ValueError(
            f"{name!r} is not TEAM__YYYYMMDDTHHMMSSZ.csv (a team name never holds two "
            "underscores in a row)"
        )
    try:
        when = datetime.strptime(match["time"], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    except ValueError:
        raise ValueError(f"{name!r} names an impossible time {match['time']!r}") from None
    return match["team"], when


def _parse_time(text: str) -> datetime:
    value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone")
    return value.astimezone(UTC)


def _known_teams(places: list[Path]) -> set[str] | None:
    for place in places:
        path = place / "teams.csv"
        if path.is_file():
            with path.open(newline="", encoding="utf-8-sig") as handle:
                return {row["team"] for row in csv.DictReader(handle) if row.get("team")}
    return None


def default_index(directory: Path) -> Path | None:
    """``submissions.csv`` beside the submissions directory, if there is one."""
    path = directory.parent / "submissions.csv"
    return path if path.is_file() else None


def discover(directory: Path, index: Path | None = None) -> tuple[list[Entry], list[Skipped]]:
    """The history in submission order, and the entries refused (module docstring).

    ``index`` is read when given; otherwise the file names are. Use
    :func:`default_index` to find the competition's own index.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise ValueError(f"submissions must be a directory, got {str(directory)!r}")
    files = sorted(
        p.name for p in directory.iterdir() if p.is_file() and p.name.endswith(_SUFFIXES)
    )
    places = [directory.parent] if index is None else [Path(index).parent, directory.parent]
    known = _known_teams(places)
    skipped: list[Skipped] = []
    entries: list[Entry] = []
    if index is None:
        for name in files:
            try:
                team, when = parse_file_name(name)
            except ValueError as exc:
                skipped.append(Skipped(name, "", "bad_name", str(exc)))
                continue
            entries.append(Entry(name, directory / name, team, when))
    else:
        entries = _from_index(Path(index), directory, set(files), skipped)
    kept = []
    for entry in entries:
        if known is not None and entry.team not in known:
            skipped.append(
                Skipped(
                    entry.file,
                    entry.team,
                    "unknown_team",
                    f"team {entry.team!r} is not listed in teams.csv",
                )
            )
        else:
            kept.append(entry)
    order = sorted(range(len(kept)), key=lambda i: (kept[i].submitted_at, i))
    return [kept[i] for i in order], skipped


def _from_index(
    index: Path, directory: Path, files: set[str], skipped: list[Skipped]
) -> list[Entry]:
    if not index.is_file():
        raise ValueError(f"index must be a file, got {str(index)!r}")
    text = index.read_text(encoding="utf-8-sig")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    names = [n.strip().lower() for n in reader.fieldnames or []]
    needed = ("file", "team", "submitted_at")
    if not all(column in names for column in needed):
        raise ValueError(f"index {str(index)!r} needs the columns {needed}, got {names}")
    reader.fieldnames = names
    entries: list[Entry] = []
    listed: set[str] = set()
    for row in reader:
        name, team = (row["file"] or "").strip(), (row["team"] or "").strip()
        if name in listed:
            skipped.append(
                Skipped(name, team, "duplicate_entry", "the index lists this file again")
            )
            continue
        listed.add(name)
        if name not in files:
            skipped.append(
                Skipped(name, team, "missing_file", f"{name!r} is not in {str(directory)!r}")
            )
            continue
        try:
            when = _parse_time(row["submitted_at"] or "")
        except ValueError:
            skipped.append(
                Skipped(
                    name,
                    team,
                    "bad_time",
                    f"submitted_at {row['submitted_at']!r} is not an ISO 8601 time",
                )
            )
            continue
        try:
            named_team, _ = parse_file_name(name)
        except ValueError:
            named_team = team  # an index may use any file name
        if named_team != team:
            skipped.append(
                Skipped(
                    name,
                    team,
                    "team_mismatch",
                    f"the index says team {team!r}, the file name says {named_team!r}",
                )
            )
            continue
        entries.append(Entry(name, directory / name, team, when))
    for name in sorted(files - listed):
        try:
            team, _ = parse_file_name(name)
        except ValueError:
            team = ""
        skipped.append(Skipped(name, team, "not_in_index", "the index does not list this file"))
    return entries
