"""A past competition of another platform as the folder ``ladderboard replay``
reads: ``submissions/`` with one file a submission, and ``submissions.csv``
(``file,team,submitted_at``) beside it.

Each platform's export, as its organiser downloads it:

Codabench (``codalab/codabench``)
    The organiser's submissions page gives two downloads. "Download as CSV"
    lists the submissions of a phase with the columns ``Submission ID``,
    ``File Name``, ``Owner``, ``Created When`` (ISO 8601, UTC), ``Status``
    and ``Phase`` (``SubmissionViewSet``'s CSV labels). "Download selected
    submissions" saves ``bulk_submissions.zip``, one entry a submission,
    named ``<id>_<owner>_PhaseId<phase>_<date>_<stored name>`` (the
    ``download_many`` action; the browser replaces ``:`` and ``/`` by
    ``_``), each the zip the participant uploaded. A submission is its
    entry's prediction file: the one CSV inside, or the member named with
    ``member``.
EvalAI (``Cloud-CV/EvalAI``)
    The host's "download all submissions" CSV of a phase has ``id``,
    ``Team Name``, ``Status``, ``Submitted File`` (the file's address) and
    ``Submitted At`` (``YYYY-MM-DD HH:MM:SS[.ffffff]+00:00``; with fields
    chosen by the host, ``Submitted At (mm/dd/yyyy hh:mm:ss)`` in UTC)
    (``download_all_submissions``). The files themselves are downloaded
    from those addresses into a folder, under the address's last part (a
    ``wget -i`` of the column does that) or as ``<id>`` with any extension.

Only the submissions the platform scored are taken (Codabench's
``Finished``, EvalAI's ``finished``): the others are listed in
``skipped.csv`` with the reason, as is a submission whose file is missing
or cannot be read. The team is the Codabench owner or the EvalAI team name.
An export is untrusted input (a participant's zip is the participant's):
each file is read with a bound on its size, the whole import with a bound
on what it writes, and the folder is written apart and put in place only
once the whole export has been read, so that a refused export leaves
nothing behind.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

__all__ = ["PLATFORMS", "Imported", "UnreadableExport", "import_codabench", "import_evalai"]

PLATFORMS = ("codabench", "evalai")
MAX_BYTES = 256 << 20
"""The largest prediction file read, after decompression (256 MiB)."""
MAX_TOTAL = 20 << 30
"""The most an import writes in all (20 GiB)."""

_SUFFIXES = (".csv.gz", ".csv")
_CODABENCH_ENTRY = re.compile(r"(?P<id>\d+)_.*_PhaseId\d+_.*")


class UnreadableExport(ValueError):
    """An export that cannot be read at all (a missing column, a bad archive)."""


@dataclass(frozen=True)
class Imported:
    """What an import wrote: the submissions taken and those left out."""

    folder: Path
    taken: int
    skipped: tuple[tuple[str, str, str], ...]  # (platform id, team, reason)

    @property
    def submissions_dir(self) -> Path:
        return self.folder / "submissions"


def _rows(path: Path, required: Iterable[str], where: str) -> list[dict[str, str]]:
    with Path(path).open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        columns = [c.strip() for c in reader.fieldnames or ()]
        rows = [{k.strip(): (v or "").strip() for k, v in row.items() if k} for row in reader]
    missing = [c for c in required if c not in columns]
    if missing:
        raise UnreadableExport(
            f"{where}: {path} has no column {', '.join(repr(c) for c in missing)} "
            f"(its columns: {', '.join(columns) or 'none'})"
        )
    return rows


def _utc(text: str, formats: tuple[str, ...] = ()) -> datetime:
    """A time as the platforms write it: ISO 8601 with a zone, or one of
    ``formats`` read as UTC."""
    for pattern in formats:
        try:
            return datetime.strptime(text, pattern).replace(tzinfo=UTC)
        except ValueError:
            continue
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone")
    return value.astimezone(UTC)


def _bounded(read: Any, name: str) -> bytes:
    data = read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"{name} is larger than {MAX_BYTES} bytes")
    return data


def _prediction(data: bytes, name: str, member: str | None) -> tuple[bytes, str]:
    """The prediction file of a Codabench entry (a zip), and its suffix."""
    if not zipfile.is_zipfile(io.BytesIO(data)):
        if member is not None:
            raise ValueError(f"{name} is not a zip, so it has no member {member!r}")
        return data, ".csv.gz" if data[:2] == b"\x1f\x8b" else ".csv"
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = [i.filename for i in archive.infolist() if not i.is_dir()]
        if member is not None:
            chosen = [n for n in names if n == member or n.rsplit("/", 1)[-1] == member]
        else:
            chosen = [n for n in names if n.lower().endswith(_SUFFIXES)]
        if len(chosen) != 1:
            what = f"a member {member!r}" if member is not None else "one CSV file"
            raise ValueError(
                f"{name} holds {len(chosen)} matches, not {what} (its files: "
                f"{', '.join(names[:10]) or 'none'}); name the prediction file with --member"
            )
        with archive.open(chosen[0]) as handle:
            body = _bounded(handle.read, f"{name}:{chosen[0]}")
        return body, ".csv.gz" if chosen[0].lower().endswith(".gz") else ".csv"


class _Folder:
    """The replay folder being written: the files go to a folder apart as
    they are read, which becomes ``out/submissions`` once all are read."""

    def __init__(self, out: Path, max_total: int) -> None:
        self.out = Path(out)
        target = self.out / "submissions"
        if target.exists() and any(target.iterdir()):
            raise UnreadableExport(f"{target} already holds files: import into an empty folder")
        self.out.mkdir(parents=True, exist_ok=True)
        self.partial = Path(tempfile.mkdtemp(prefix=".import-", dir=self.out))
        self.max_total = self.left = max_total
        self.rows: list[tuple[datetime, str, str, str]] = []  # (time, id, file, team)
        self.skipped: list[tuple[str, str, str]] = []
        self.seen: set[str] = set()

    def skip(self, pid: str, team: str, reason: str) -> None:
        self.skipped.append((pid, team, reason))

    def fresh(self, pid: str, team: str) -> bool:
        """Whether ``pid`` is a new submission id (a repeated one is skipped)."""
        if pid in self.seen:
            self.skip(pid, team, "listed twice: its first row is taken")
            return False
        self.seen.add(pid)
        return True

    def add(self, pid: str, team: str, when: datetime, body: bytes, suffix: str) -> None:
        if len(body) > self.left:
            raise UnreadableExport(
                f"the import would write more than its {self.max_total} bytes: stopped at {pid}"
            )
        self.left -= len(body)
        name = f"{pid}{suffix}"
        (self.partial / name).write_bytes(body)
        self.rows.append((when, pid, name, team))

    def finish(self) -> Imported:
        target = self.out / "submissions"
        if target.exists():
            target.rmdir()  # empty: checked when the import began
        self.partial.rename(target)
        with (self.out / "submissions.csv").open("w", newline="") as index:
            writer = csv.writer(index, lineterminator="\n")
            writer.writerow(["file", "team", "submitted_at"])
            for when, _, name, team in sorted(self.rows):
                writer.writerow([name, team, when.isoformat().replace("+00:00", "Z")])
        with (self.out / "skipped.csv").open("w", newline="") as out:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(["id", "team", "reason"])
            writer.writerows(self.skipped)
        return Imported(self.out, len(self.rows), tuple(self.skipped))

    def abandon(self) -> None:
        shutil.rmtree(self.partial, ignore_errors=True)


def import_codabench(
    bulk: Path,
    listing: Path,
    out: Path,
    *,
    phase: str | None = None,
    member: str | None = None,
    max_total: int = MAX_TOTAL,
) -> Imported:
    """Codabench's ``bulk_submissions.zip`` (or the folder it was unzipped
    to) and its "Download as CSV" list, as a replay folder ``out``; only
    ``phase``'s submissions when it is given."""
    rows = _rows(listing, ("Submission ID", "Owner", "Created When", "Status"), "codabench")
    entries: dict[str, tuple[str, Any]] = {}
    archive = None
    bulk = Path(bulk)
    if bulk.is_dir():
        for path in sorted(bulk.iterdir()):
            match = _CODABENCH_ENTRY.fullmatch(path.name)
            if path.is_file() and match:
                entries[match["id"]] = (path.name, path)
    else:
        try:
            archive = zipfile.ZipFile(bulk)
        except (OSError, zipfile.BadZipFile) as exc:
            raise UnreadableExport(f"codabench: {bulk} is not a zip: {exc}") from None
        for info in archive.infolist():
            match = _CODABENCH_ENTRY.fullmatch(info.filename.rsplit("/", 1)[-1])
            if not info.is_dir() and match:
                entries[match["id"]] = (info.filename, info)
    folder = _Folder(out, max_total)
    try:
        for row in rows:
            pid, team = row["Submission ID"], row["Owner"]
            if phase is not None and row.get("Phase") != phase:
                continue
            if not folder.fresh(pid, team):
                continue
            if row["Status"] != "Finished":
                folder.skip(pid, team, f"status {row['Status']}: not scored by Codabench")
                continue
            if pid not in entries:
                folder.skip(pid, team, "no entry of this submission in the bulk download")
                continue
            name, source = entries[pid]
            try:
                when = _utc(row["Created When"])
                if archive is not None:
                    with archive.open(source) as handle:
                        data = _bounded(handle.read, name)
                else:
                    with open(source, "rb") as handle:
                        data = _bounded(handle.read, name)
                body, suffix = _prediction(data, name, member)
            except (ValueError, OSError, zipfile.BadZipFile) as exc:
                folder.skip(pid, team, str(exc))
                continue
            folder.add(pid, team, when, body, suffix)
        return folder.finish()
    except BaseException:
        folder.abandon()
        raise
    finally:
        if archive is not None:
            archive.close()


_EVALAI_TIME = "Submitted At (mm/dd/yyyy hh:mm:ss)"


def import_evalai(listing: Path, files: Path, out: Path, *, max_total: int = MAX_TOTAL) -> Imported:
    """EvalAI's host CSV of a phase's submissions and the folder its files
    were downloaded to, as a replay folder ``out``."""
    rows = _rows(listing, ("id", "Team Name", "Status"), "evalai")
    time_column = "Submitted At"
    if rows and time_column not in rows[0] and _EVALAI_TIME in rows[0]:
        time_column = _EVALAI_TIME
    if rows and time_column not in rows[0]:
        raise UnreadableExport(f"evalai: {listing} has no column 'Submitted At'")
    files_dir = Path(files)
    if not files_dir.is_dir():
        raise UnreadableExport(f"evalai: {files_dir} is not a folder of downloaded files")
    # A file saved by ``wget -i`` from a signed address keeps the query in its name.
    by_name = {p.name.split("?", 1)[0]: p for p in files_dir.iterdir() if p.is_file()}
    by_stem = {name.split(".", 1)[0]: p for name, p in by_name.items()}
    folder = _Folder(out, max_total)
    try:
        for row in rows:
            pid, team = row["id"], row["Team Name"]
            if not pid.isdigit():  # EvalAI's ids are integers; the id names the file written
                folder.skip(pid, team, "its id is not a whole number")
                continue
            if not folder.fresh(pid, team):
                continue
            if row["Status"].lower() != "finished":
                folder.skip(pid, team, f"status {row['Status']}: not scored by EvalAI")
                continue
            url = row.get("Submitted File", "")
            path = by_name.get(Path(urlparse(url).path).name) if url else None
            path = path or by_stem.get(pid)
            if path is None:
                folder.skip(pid, team, "its file is not in the folder of downloaded files")
                continue
            try:
                when = _utc(row[time_column], ("%m/%d/%Y %H:%M:%S",))
                with open(path, "rb") as handle:
                    body = _bounded(handle.read, path.name)
            except (ValueError, OSError) as exc:
                folder.skip(pid, team, str(exc))
                continue
            folder.add(pid, team, when, body, ".csv.gz" if body[:2] == b"\x1f\x8b" else ".csv")
        return folder.finish()
    except BaseException:
        folder.abandon()
        raise
