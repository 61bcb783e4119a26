"""How a simulated team submits: its desk writes the team's files and shows the
team its board's releases.

A team (honest or adversary) hands the desk a vector of test-set probabilities.
The desk writes it as the team writes files (6 significant digits, the team's
row order, possibly one of the defects the plan gave this submission) into
``submissions/TEAM__YYYYMMDDTHHMMSSZ.csv`` at the team's next submission time,
scores what the file says on the public rows with the team's own board (one
mechanism per team, the per-team leaderboard of Blum & Hardt 2015, Sec. 2.1),
and returns the release, or ``None`` when the engine would refuse the file.
It records every submission, with the organiser-side truth (exact public and
private log loss) for tests and reports.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ladderboard.simulation.defects import inject_defect

if TYPE_CHECKING:
    import numpy as np

    from ladderboard.files import Solution

__all__ = [
    "DeskOracle",
    "SubmissionRecord",
    "TeamDesk",
    "file_name",
    "iso_time",
    "round_significant",
]


def iso_time(when: datetime) -> str:
    """``2026-03-01T12:00:00Z``."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def file_name(team: str, when: datetime, *, gz: bool = False) -> str:
    """``TEAM__YYYYMMDDTHHMMSSZ.csv`` (``.csv.gz`` when compressed).

    >>> file_name("quiet_heron", datetime(2026, 3, 1, 12, 0, 5, tzinfo=UTC))
    'quiet_heron__20260301T120005Z.csv'
    """
    if "__" in team or team.startswith("_") or team.endswith("_"):
        raise ValueError(f"team names must not hold '__' nor start or end with '_', got {team!r}")
    stamp = when.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{team}__{stamp}.csv" + (".gz" if gz else "")


@dataclass(frozen=True, slots=True)
class SubmissionRecord:
    """One submission as it happened (organiser-side truth, not written to the layout).

    ``release`` is what the team was shown (``None``: the file was refused);
    ``public_loss`` and ``private_loss`` are the exact log losses of what the
    file says (``None`` when it cannot be read); ``parent`` is the team's
    submission number (0-based) it was built from, the team's best by the
    public board at the time, or ``None``.
    """

    file: str
    team: str
    kind: str
    submitted_at: str
    number: int
    recipe: str
    release: float | None
    public_loss: float | None
    private_loss: float | None
    parent: int | None
    defect: str | None


class TeamDesk:
    """Where one team submits; see the module docstring."""

    def __init__(
        self,
        *,
        team: str,
        kind: str,
        times: list[datetime],
        mechanism: Any,
        solution: Solution,
        loss: Any,
        folder: Path,
        row_order: np.ndarray,
        defects: dict[int, str],
        rng: np.random.Generator,
    ):
        import pyarrow as pa

        self.team, self.kind, self.times = team, kind, times
        self.mechanism, self.solution, self.loss = mechanism, solution, loss
        self.folder, self.row_order, self.defects, self.rng = folder, row_order, defects, rng
        self._ids = pa.array(solution.ids[row_order].tolist(), type=pa.string())
        self._header = f"{solution.id_column},{solution.target_columns[0]}"
        self._labels = solution.targets
        self.records: list[SubmissionRecord] = []

    @property
    def budget(self) -> int:
        """Submissions the team will make in all."""
        return len(self.times)

    @property
    def remaining(self) -> int:
        return len(self.times) - len(self.records)

    def submit(self, prediction: np.ndarray, *, recipe: str, parent: int | None = None):
        """Write the file, score it on the team's board; the release or ``None``."""
        import numpy as np

        from ladderboard.files import SubmissionError, parse_submission

        number = len(self.records)
        if number >= len(self.times):
            raise RuntimeError(f"team {self.team} has used all {len(self.times)} submissions")
        prediction = np.asarray(prediction, dtype=np.float64)
        if prediction.shape != (self.solution.n,):
            raise ValueError(
                f"prediction must have shape ({self.solution.n},), got {prediction.shape}"
            )
        written = round_significant(prediction[self.row_order])
        body = self._body(written)
        defect = self.defects.get(number)
        when = self.times[number]
        name = file_name(self.team, when, gz=defect == "gzip")
        if defect is None:
            data = self._header.encode() + b"\n" + body
            values = np.empty(self.solution.n)
            values[self.row_order] = written  # what the file says, exactly
        else:
            rows = body.decode().splitlines()
            data = inject_defect(defect, self._header, rows, self.rng)
            try:
                values = parse_submission(data, self.solution, probabilities=True)
            except SubmissionError:
                values = None
        (self.folder / name).write_bytes(data)
        release = public = private = None
        if values is not None:
            losses = self.loss(self._labels, values)
            public_losses = losses[self.solution.public_mask]
            release = float(self.mechanism.submit(public_losses).score)
            public = float(np.mean(public_losses))
            private = float(np.mean(losses[self.solution.private_mask]))
        self.records.append(
            SubmissionRecord(
                file=name,
                team=self.team,
                kind=self.kind,
                submitted_at=iso_time(when),
                number=number,
                recipe=recipe,
                release=release,
                public_loss=public,
                private_loss=private,
                parent=parent,
                defect=defect,
            )
        )
        return release

    def _body(self, values: np.ndarray) -> bytes:
        """The rows ``id,value``: each value in the shortest decimal that reads back
        as that float (pyarrow's CSV writer), so a reader gets ``values`` exactly."""
        import pyarrow as pa
        import pyarrow.csv as pa_csv

        table = pa.table({"id": self._ids, "value": pa.array(values, type=pa.float64())})
        sink = io.BytesIO()
        pa_csv.write_csv(
            table, sink, pa_csv.WriteOptions(include_header=False, quoting_style="none")
        )
        return sink.getvalue()


def round_significant(values: np.ndarray, digits: int = 6) -> np.ndarray:
    """``values`` (positive) rounded to ``digits`` significant digits, like ``%.6g``.

    >>> import numpy as np
    >>> round_significant(np.array([0.123456789, 2.5e-7, 0.9999994])).tolist()
    [0.123457, 2.5e-07, 0.999999]
    """
    import numpy as np

    scale = 10.0 ** (digits - 1 - np.floor(np.log10(np.abs(values))))
    return np.round(values * scale) / scale


class DeskOracle:
    """A desk seen as an attack's oracle (:class:`ladderboard.attacks.HoldoutOracle`'s
    side the attacker uses): ``submit`` returns the release, ``mechanism`` and
    ``n_labels`` are the public rules. The attacks run through it unchanged."""

    def __init__(self, desk: TeamDesk, label: str):
        self.desk, self.label = desk, label
        self.mechanism = desk.mechanism
        self.n_labels = desk.solution.n
        self.greater_is_better = False

    def submit(self, prediction: Any) -> float:
        import numpy as np

        release = self.desk.submit(np.asarray(prediction, dtype=np.float64), recipe=self.label)
        return math.inf if release is None else release
