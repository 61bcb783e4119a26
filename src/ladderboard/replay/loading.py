"""Reading real submission files: repair what is safe to repair, refuse the rest.

:func:`load_submission` puts a tolerant layer in front of
:func:`ladderboard.files.parse_submission`, which stays the judge of
everything else. The catalogue:

Repaired (the file is scored, and the repair is reported):

========================  =====================================================
defect                    repair
========================  =====================================================
``gzip``                  decompressed (bounded, as the engine does)
``bom``                   a UTF-8 byte-order mark is dropped
``crlf``                  Windows line ends are read as line ends
``header_whitespace``     spaces around the column names are stripped
``header_case``           column names matched without regard to case
                          (``ID,Target`` for ``id,target``), when that is unique
``index_column``          a leading unnamed column (``""``, ``Unnamed: 0``,
                          ``index``), as ``pandas.DataFrame.to_csv`` writes
                          by default, is dropped
``semicolon``             ``;`` separators (and then ``,`` decimal marks), the
                          spreadsheet export of many locales, read as ``,``
                          and ``.``
``clipped_probabilities`` probabilities at most :data:`PROBABILITY_SLACK` below
                          0 or above 1 (rounding in the writer) are clipped
                          into ``[0, 1]``
========================  =====================================================

Refused (the file is skipped, with the code of
:class:`~ladderboard.files.SubmissionError`): ``bad_gzip`` (does not
decompress), ``empty``, ``header_only``, ``not_utf8``, ``too_many_columns``,
``duplicate_column``, ``missing_column``, ``extra_column``, ``bad_csv`` (ragged
rows), ``not_a_number``, ``not_finite`` (NaN or infinite), ``missing_ids``,
``duplicate_ids``, ``extra_ids``, ``probability_out_of_range`` (beyond the
slack), ``too_large``. None of them can be repaired without guessing what the
team meant: a missing id has no prediction, a duplicated one two.

>>> from ladderboard.files import Solution
>>> sol = Solution.from_labels([0, 1, 1], public_fraction=0.5, random_state=0)
>>> data = b"\\xef\\xbb\\xbf;ID;Target\\r\\n0;2;0,9\\r\\n1;0;0,2\\r\\n2;1;1,0000001\\r\\n"
>>> loaded = load_submission(data, sol, probabilities=True)
>>> loaded.predictions.tolist(), loaded.repairs
([0.2, 1.0, 0.9], ('bom', 'crlf', 'semicolon', 'index_column', 'header_case', \
'clipped_probabilities'))
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass

import numpy as np

from ladderboard.files import (
    BOM,
    DEFAULT_MAX_BYTES,
    GZIP_MAGIC,
    CsvProblem,
    Solution,
    SubmissionError,
    gunzip_limited,
    parse_submission,
)

__all__ = [
    "PROBABILITY_SLACK",
    "REFUSED",
    "REPAIRS",
    "Loaded",
    "load_submission",
]

PROBABILITY_SLACK = 1e-6
"""How far outside ``[0, 1]`` a probability may be and still be clipped."""

REPAIRS = (
    "gzip",
    "bom",
    "crlf",
    "semicolon",
    "header_whitespace",
    "index_column",
    "header_case",
    "clipped_probabilities",
)
"""Every repair :func:`load_submission` can report, in the order it makes them."""

REFUSED = SubmissionError.CODES
"""Every code a file is refused with."""

_INDEX_NAME = re.compile(r"|index|unnamed:\s*\d+", re.IGNORECASE)
_FIRST_FIELD = re.compile(rb"(?m)^[^,\r\n]*,")
MAX_BYTES = DEFAULT_MAX_BYTES  # a file's largest size, compressed or not, by default


@dataclass(frozen=True)
class Loaded:
    """Predictions in solution order, and the repairs made to read them."""

    predictions: np.ndarray
    repairs: tuple[str, ...]


def _header_line(body: bytes | bytearray) -> tuple[bytes | bytearray, int]:
    """The first line (without its line end) and the offset just past its end."""
    end = body.find(b"\n")
    if end == -1:
        return body.rstrip(b"\r"), len(body)
    return body[:end].rstrip(b"\r"), end + 1


def _repair_text(
    body: bytes | bytearray, solution: Solution, repairs: list[str]
) -> bytes | bytearray:
    line, end = _header_line(body)
    if b"\r\n" in body[: end + 1]:
        repairs.append("crlf")
    if b";" in line and b"," not in line:
        body = body.replace(b",", b".").replace(b";", b",")
        repairs.append("semicolon")
        line, end = _header_line(body)
    try:
        names = next(csv.reader([line.decode("utf-8")]))
    except (UnicodeDecodeError, csv.Error, StopIteration):
        return body  # parse_submission says what is wrong
    expected = (solution.id_column, *solution.target_columns)
    if any(n != n.strip() for n in names):
        repairs.append("header_whitespace")
    names = [n.strip() for n in names]
    changed = False
    if len(names) == len(expected) + 1 and _INDEX_NAME.fullmatch(names[0]):
        body = _FIRST_FIELD.sub(b"", body)
        names = names[1:]
        line, end = _header_line(body)
        repairs.append("index_column")
    if names != list(expected) and sorted(names) != sorted(expected):
        lower = {e.lower(): e for e in expected}
        if len(lower) == len(expected) and sorted(n.lower() for n in names) == sorted(lower):
            names = [lower[n.lower()] for n in names]
            repairs.append("header_case")
            changed = True
    if changed:
        header = ",".join(f'"{n}"' if ("," in n or '"' in n) else n for n in names)
        body = header.encode() + b"\n" + body[end:]
    return body


def load_submission(
    data: bytes,
    solution: Solution,
    *,
    probabilities: bool,
    max_bytes: int = MAX_BYTES,
) -> Loaded:
    """Read ``data`` tolerantly (module docstring); raise ``SubmissionError`` if refused.

    ``probabilities`` says that predictions are probabilities (the loss or
    metric takes them): values just outside ``[0, 1]`` are clipped, values
    further out refused.
    """
    repairs: list[str] = []
    body: bytes | bytearray = bytes(data)
    if body.startswith(GZIP_MAGIC):
        try:
            body = gunzip_limited(body, max_bytes)
        except CsvProblem as problem:
            raise SubmissionError(problem.code, str(problem)) from None
        repairs.append("gzip")
    if body.startswith(BOM):
        body = body[len(BOM) :]
        repairs.append("bom")
    body = _repair_text(body, solution, repairs)
    predictions = parse_submission(body, solution, max_bytes=max_bytes)
    if probabilities:
        low, high = float(predictions.min()), float(predictions.max())
        if low < 0.0 or high > 1.0:
            if low < -PROBABILITY_SLACK or high > 1.0 + PROBABILITY_SLACK:
                bad = predictions[(predictions < 0) | (predictions > 1)]
                raise SubmissionError(
                    "probability_out_of_range",
                    f"{bad.size} prediction(s) outside [0, 1] by more than "
                    f"{PROBABILITY_SLACK:g}, e.g. {float(bad.flat[0])!r}",
                )
            np.clip(predictions, 0.0, 1.0, out=predictions)
            repairs.append("clipped_probabilities")
    order = {r: i for i, r in enumerate(REPAIRS)}
    return Loaded(predictions, tuple(sorted(repairs, key=order.__getitem__)))
