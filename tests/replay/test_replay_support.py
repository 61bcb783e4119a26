"""Writing small competition directories for the replay tests (no tests of the replay here).

The layout is the one ``ladderboard replay`` reads: ``solution.csv``,
``submissions/TEAM__YYYYMMDDTHHMMSSZ.csv``, the index ``submissions.csv``
(``file,team,submitted_at``) and, optionally, ``teams.csv``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import typer
from typer.testing import CliRunner

from ladderboard.files import Solution
from ladderboard.replay.cli import register


def file_name(team: str, when: datetime) -> str:
    return f"{team}__{when:%Y%m%dT%H%M%SZ}.csv"


def submission_bytes(solution: Solution, predictions, order=None) -> bytes:
    """A clean submission file: ``id,target`` and one row per id, floats by ``repr``."""
    values = np.asarray(predictions, dtype=float).tolist()
    rows = range(solution.n) if order is None else order
    body = "".join(f"{solution.ids[i]},{values[i]!r}\n" for i in rows)
    return f"{solution.id_column},{solution.target_columns[0]}\n{body}".encode()


def write_competition(
    root: Path,
    solution: Solution,
    submissions: list[tuple[str, datetime, object]],
    *,
    index: bool = True,
    teams: list[str] | None = None,
) -> Path:
    """Write ``root`` with the solution, one file per ``(team, time, predictions)``
    (predictions as an array, or the file's bytes), the index and ``teams.csv``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "solution.csv").write_bytes(solution.to_csv())
    folder = root / "submissions"
    folder.mkdir(exist_ok=True)
    rows = []
    for team, when, predictions in submissions:
        name = file_name(team, when)
        if isinstance(predictions, bytes):
            data = predictions
            if data[:2] == b"\x1f\x8b":
                name += ".gz"
        else:
            data = submission_bytes(solution, predictions)
        (folder / name).write_bytes(data)
        rows.append(f"{name},{team},{when:%Y-%m-%dT%H:%M:%SZ}\n")
    if index:
        (root / "submissions.csv").write_text("file,team,submitted_at\n" + "".join(rows))
    if teams is not None:
        (root / "teams.csv").write_text(
            "team,kind,strategy\n" + "".join(f"{t},honest,x\n" for t in teams)
        )
    return root


def at(day: int, hour: int = 12) -> datetime:
    return datetime(2026, 3, day, hour, tzinfo=UTC)


def run_cli(args: list[str]):
    """``ladderboard replay ARGS`` on a fresh app, as the project's CLI registers it."""
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """ladderboard"""

    register(app)
    return CliRunner().invoke(app, ["replay", *args])


def read_csv(path: Path) -> list[dict[str, str]]:
    import csv

    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))
