"""Anyone's audit of a published audit bundle
(:meth:`ladderboard.engine.audits.Audits.audit_bundle`), with no store.

:func:`verify_bundle` checks the commitment published at creation against the
bundle's solution, split and key, every file against its recorded SHA-256,
and runs every board whose files are all at hand again bit for bit
(:func:`ladderboard.engine.rerun.rerun`): each release, decision, public and
private score, and the board's final state. A bundle of hashes holds no
files: a team passes its own (``own_files``) and its own board is re-run
when the board is the team's alone (a per-team board). The report says what
was proven and what was not.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ladderboard._blas import on_one_blas_thread
from ladderboard.engine.rerun import AuditedSubmission, check_commitment, draws_note, rerun
from ladderboard.files.solution import Solution
from ladderboard.rules.config import CompetitionConfig

__all__ = ["BUNDLE_FORMAT", "BundleReport", "verify_bundle"]

BUNDLE_FORMAT = "ladderboard-audit-1"
"""The audit bundle's format, written in its ``competition.json``
(:meth:`ladderboard.engine.audits.Audits.audit_bundle` writes it)."""


@dataclass(frozen=True)
class BundleReport:
    """What :func:`verify_bundle` proved, what it could not, and the
    differences it found (none when the bundle holds up)."""

    slug: str
    commitment: str
    files: str  # "full" or "hashes", as the bundle says
    submissions: int
    proven: list[str] = field(default_factory=list)
    not_proven: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        return not self.problems


class _Bundle:
    """A bundle's files by name, from its folder or its zip archive (read, never extracted)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.archive: zipfile.ZipFile | None = None
        if self.path.is_file():
            try:
                self.archive = zipfile.ZipFile(self.path)
            except zipfile.BadZipFile:
                raise ValueError(
                    f"{str(self.path)!r} is neither a folder nor a zip archive"
                ) from None
            names = self.archive.namelist()
            # An archive of the bundle's folder: its files one folder down.
            self.prefix = "" if "competition.json" in names else self._folder(names)
        elif not self.path.is_dir():
            raise ValueError(f"no audit bundle at {str(self.path)!r}")

    @staticmethod
    def _folder(names: list[str]) -> str:
        found = [n for n in names if n.endswith("/competition.json") and n.count("/") == 1]
        return found[0].removesuffix("competition.json") if found else ""

    def read(self, name: str) -> bytes | None:
        if self.archive is not None:
            try:
                return self.archive.read(self.prefix + name)
            except KeyError:
                return None
        path = self.path.joinpath(*name.split("/"))
        return path.read_bytes() if path.is_file() else None

    def close(self) -> None:
        if self.archive is not None:
            self.archive.close()


def _own_files(folder: Path) -> dict[str, bytes]:
    """The files of ``folder`` (not its subfolders) by their SHA-256."""
    if not folder.is_dir():
        raise ValueError(f"files must be a folder, got {str(folder)!r}")
    found = {}
    for path in sorted(folder.iterdir()):
        if path.is_file():
            data = path.read_bytes()
            found[hashlib.sha256(data).hexdigest()] = data
    return found


def _flag(text: str) -> bool:
    if text not in ("yes", "no"):
        raise ValueError(f"expected yes or no, got {text!r}")
    return text == "yes"


@on_one_blas_thread
def _plain_name(name: str) -> bool:
    """Whether ``name`` names a file of ``submissions/`` itself: no folder,
    no way out of it (a crafted index must not make the audit read files
    beyond the bundle)."""
    return name not in ("", ".", "..") and not any(c in name for c in "/\\\0")


def verify_bundle(
    path: Path,
    *,
    own_files: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> BundleReport:
    """Check the audit bundle at ``path`` (its folder or zip archive); with
    ``own_files``, a folder of one's own submitted files, matched by their
    SHA-256, to re-run what a bundle of hashes leaves out. Raises
    :class:`ValueError` for what is not an audit bundle at all; every
    difference is a problem of the report."""
    bundle = _Bundle(path)
    try:
        return _verify(bundle, own_files, progress)
    finally:
        bundle.close()


def _verify(
    bundle: _Bundle, own_files: Path | None, progress: Callable[[int, int], None] | None
) -> BundleReport:
    meta_bytes = bundle.read("competition.json")
    if meta_bytes is None:
        raise ValueError(f"{str(bundle.path)!r} holds no competition.json: not an audit bundle")
    meta: dict[str, Any] = json.loads(meta_bytes)
    if meta.get("format") != BUNDLE_FORMAT:
        raise ValueError(f"competition.json is not of the format {BUNDLE_FORMAT!r}")
    slug, commitment, mode = meta["slug"], meta["commitment"], meta.get("files", "")
    proven: list[str] = []
    not_proven: list[str] = []
    problems: list[str] = []
    solution_bytes = bundle.read("solution.csv")
    key = meta.get("key")
    index = bundle.read("submissions.csv")
    if solution_bytes is None:
        problems.append("the bundle holds no solution.csv")
    if not key:
        problems.append("competition.json holds no key")
    if index is None:
        problems.append("the bundle holds no submissions.csv")
    if solution_bytes is None or not key or index is None:
        return BundleReport(slug, commitment, mode, 0, proven, not_proven, problems)
    where = "the bundle's solution, split and key"
    mismatch = check_commitment(solution_bytes, key, commitment, where)
    if mismatch is None:
        when = (
            "published when the solution was last corrected"
            if bundle.read("corrections/1/correction.json") is not None
            else "published before the first submission"
        )
        proven.append(
            f"the commitment {commitment}, {when}, is the "
            "SHA-256 of this solution, its public/private split and this key"
        )
    else:
        problems.append(mismatch)
    solution = Solution.from_csv(solution_bytes)
    config = CompetitionConfig.from_json(meta["config"])
    mine = _own_files(Path(own_files)) if own_files is not None else {}
    submissions: list[AuditedSubmission] = []
    recorded: list[str | None] = []
    hashed = 0
    for line, row in enumerate(csv.DictReader(io.StringIO(index.decode("utf-8"))), 2):
        recorded.append(row.get("draw_versions"))
        label = f"{row['team']} #{row['number']} ({row['scope']}, {row['sequence']})"
        data: bytes | None = None
        if row["file"] and not _plain_name(row["file"]):
            problems.append(f"{label}: its file name {row['file']!r} is not a plain file name")
        elif row["file"]:
            data = bundle.read(f"submissions/{row['file']}")
            if data is None:
                problems.append(f"{label}: its file {row['file']} is not in the bundle")
        elif row["file_sha256"] in mine:
            data = mine[row["file_sha256"]]
        if data is not None:
            digest = hashlib.sha256(data).hexdigest()
            if digest != row["file_sha256"]:
                problems.append(
                    f"{label}: its file has SHA-256 {digest}, the bundle records "
                    f"{row['file_sha256']}"
                )
            else:
                hashed += 1
        try:
            submissions.append(
                AuditedSubmission(
                    label=label,
                    scope=row["scope"],
                    sequence=int(row["sequence"]),
                    team_id=int(row["team_id"]),
                    file=data,
                    released=float(row["released"]),
                    improved=_flag(row["improved"]),
                    public_raw=float(row["public_raw"]),
                    private=float(row["private_score"]),
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            problems.append(f"submissions.csv line {line}: {exc}")
    if hashed:
        proven.append(f"{hashed} file(s) are the ones recorded: their SHA-256 match")
    states_bytes = bundle.read("states.json")
    states = json.loads(states_bytes) if states_bytes is not None else None
    if states is None:
        problems.append("the bundle holds no states.json: the boards' final states are unchecked")
    result = rerun(solution, config, key, submissions, states=states, progress=progress)
    problems.extend(result.problems)
    note = draws_note(config, recorded, failed=bool(result.problems))
    if note is not None:
        (problems if note[1] else proven).append(note[0])
    if result.scopes:
        proven.append(
            f"{result.submissions} submission(s) on {len(result.scopes)} board(s) run again "
            "bit for bit with the key, in each board's order: every released score, decision, "
            "public and private score"
            + (", and each board's final state" if states is not None else "")
        )
    if result.not_run:
        left = sum(result.not_run.values())
        why = (
            "their files are not in this bundle of hashes"
            if mode == "hashes"
            else "some of their files are missing"
        )
        hint = (
            "; a team re-runs its own board with --files FOLDER of its own files"
            if mode == "hashes" and config.board == "per-team"
            else ""
        )
        not_proven.append(
            f"{left} submission(s) on {len(result.not_run)} board(s) not run again: {why}{hint}"
        )
    _verify_corrections(bundle, meta, config, submissions, proven, not_proven, problems)
    not_proven.append(
        "the ranking the boards show is not compared: it follows from the scores checked here"
    )
    return BundleReport(slug, commitment, mode, len(submissions), proven, not_proven, problems)


def _verify_corrections(
    bundle: _Bundle,
    meta: dict[str, Any],
    config: CompetitionConfig,
    submissions: list[AuditedSubmission],
    proven: list[str],
    not_proven: list[str],
    problems: list[str],
) -> None:
    """Check each correction of the solution the bundle holds
    (``corrections/N/``): the chain of commitments from the first to the
    bundle's, each replaced solution against its commitment, split and the
    key, and its releases (``releases.csv``) run again on it bit for bit,
    with the files of ``submissions`` (matched by board and place)."""
    files = {(s.scope, s.sequence): s for s in submissions}
    key = meta["key"]
    number = 1
    while (record := bundle.read(f"corrections/{number}/correction.json")) is not None:
        folder = f"corrections/{number}"
        correction = json.loads(record)
        following = bundle.read(f"corrections/{number + 1}/correction.json")
        after = json.loads(following)["old_commitment"] if following else meta["commitment"]
        if correction.get("new_commitment") != after:
            problems.append(
                f"correction {number}: its new commitment {correction.get('new_commitment')} "
                f"is not the one that follows it, {after}"
            )
        old_solution = bundle.read(f"{folder}/solution.csv")
        releases = bundle.read(f"{folder}/releases.csv")
        if old_solution is None or releases is None:
            problems.append(f"correction {number}: its solution.csv or releases.csv is missing")
            number += 1
            continue
        where = f"the solution correction {number} replaced, its split and the key"
        try:
            mismatch = check_commitment(old_solution, key, correction["old_commitment"], where)
        except (KeyError, ValueError) as exc:  # not a solution file, no commitment
            mismatch = f"{folder} cannot be checked: {exc}"
        if mismatch is not None:
            problems.append(f"correction {number}: {mismatch}")
            number += 1
            continue
        old: list[AuditedSubmission] = []
        for line, row in enumerate(csv.DictReader(io.StringIO(releases.decode("utf-8"))), 2):
            try:
                place = (row["scope"], int(row["sequence"]))
                now = files.get(place)
                if now is None:
                    raise ValueError(f"no submission {place[1]} on board {place[0]}")
                old.append(
                    AuditedSubmission(
                        label=f"correction {number}, {row['team']} #{row['number']}",
                        scope=place[0],
                        sequence=place[1],
                        team_id=now.team_id,
                        file=now.file,
                        released=float(row["released"]),
                        improved=_flag(row["improved"]),
                        public_raw=float(row["public_raw"]),
                        private=float(row["private_score"]),
                    )
                )
            except (KeyError, TypeError, ValueError) as exc:
                problems.append(f"{folder}/releases.csv line {line}: {exc}")
        result = rerun(Solution.from_csv(old_solution), config, key, old)
        problems.extend(result.problems)
        proven.append(
            f"correction {number} ({correction.get('reason', '')}): the solution it replaced is "
            f"the one committed to by {correction['old_commitment']}"
            + (
                f", and its {result.submissions} replaced release(s) are what that solution "
                "gives, run again bit for bit"
                if result.submissions
                else ""
            )
        )
        if result.not_run:
            not_proven.append(
                f"correction {number}: {sum(result.not_run.values())} replaced release(s) not "
                "run again: their files are not in this bundle"
            )
        number += 1
