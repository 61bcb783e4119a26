"""Reading a participant's submission file into predictions aligned with the holdout.

A submission is a CSV file, optionally gzip-compressed, with the solution's id
column and its target column(s), holding predictions, one row per solution id,
rows in any order. :func:`parse_submission` returns the predictions in solution
order, or raises :class:`SubmissionError`, whose ``code`` says what is wrong
and whose message tells the participant where: the column, the first few ids,
their 1-based line numbers in the (decompressed) file, and how many there are.

The checks, in the order they are made (the first failing one is reported):

====================================  ==============================================
code                                  the file ...
====================================  ==============================================
``too_large``                         is over the size limit, received or decompressed
``bad_gzip``                          starts like gzip but does not decompress
``empty``                             has no text at all
``not_utf8``                          is not UTF-8 text (a UTF-8 byte-order mark is fine)
``too_many_columns``                  has a header of more columns than the id, the
                                      targets and :data:`EXTRA_COLUMNS` more
``duplicate_column``                  names a column twice
``missing_column``, ``extra_column``  lacks a column, or has one it should not
``header_only``                       has a header and no rows
``bad_csv``                           has rows with the wrong number of fields
``not_a_number``                      has a prediction that is not a number, or empty
``duplicate_ids``                     lists an id more than once
``extra_ids``                         lists ids the solution does not have
``missing_ids``                       lacks ids of the solution (Ignored ones too)
``not_finite``                        has a NaN or infinite prediction
``probability_out_of_range``          has a prediction outside [0, 1], for a metric
                                      that takes probabilities
``not_a_class``                       has a prediction that is no class of the
                                      solution, for a score that compares labels
====================================  ==============================================

Column names match after stripping surrounding whitespace; ids match exactly,
as text. For speed the rows are read by ``pyarrow.csv`` with fixed column
types and aligned with a lookup built once per solution (see ``_ids``); only a
file that fails is read again, slowly, to find the offending lines.
"""

from __future__ import annotations

import hashlib
import numbers
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pv

from ladderboard.files import _csv
from ladderboard.files._csv import CsvProblem, show
from ladderboard.files.solution import Solution

__all__ = [
    "DEFAULT_MAX_BYTES",
    "SubmissionError",
    "canonical_predictions_hash",
    "parse_submission",
    "submission_sha256",
]

_SHOWN = 3
_CLASSES = 10  # the classes a not_a_class message lists
DEFAULT_MAX_BYTES = 50 * 2**20
"""The largest file, compressed or not, a submission, solution or data file
may be by default (50 MiB): a file of ten million rows is about 100 MB of
CSV, so a competition that large raises its own limit."""
# A gzip file this large or larger is parsed while it is decompressed (its
# header found in as much text).
_STREAMED_BYTES = 1 << 20
EXTRA_COLUMNS = 10
"""Columns a header may have beyond the id and the targets and still be told
which are extra; a wider one is refused (``too_many_columns``) before its
names are compared with anything, so that the cost and the message of a
refusal stay small whatever the header holds."""


class SubmissionError(ValueError):
    """A submission refused, with a short stable ``code`` and a message for the participant.

    >>> sol = Solution.from_labels([0, 1, 1], public_fraction=0.5, random_state=0)
    >>> try:
    ...     parse_submission(b"id,pred\\n0,1\\n1,0\\n2,1\\n", sol)
    ... except SubmissionError as error:
    ...     print(error.code, "|", error)  # doctest: +ELLIPSIS
    missing_column | column 'target' is missing and column 'pred' is not expected: ...
    """

    CODES = (
        "too_large",
        "bad_gzip",
        "empty",
        "not_utf8",
        "too_many_columns",
        "duplicate_column",
        "missing_column",
        "extra_column",
        "header_only",
        "bad_csv",
        "not_a_number",
        "duplicate_ids",
        "extra_ids",
        "missing_ids",
        "not_finite",
        "probability_out_of_range",
        "not_a_class",
        "undefined_score",
        "score_not_finite",
    )
    """Every code, in the order the checks are made (``undefined_score`` and
    ``score_not_finite`` by the scoring, after parsing)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    def __reduce__(self):  # keep the code through pickling (worker processes)
        return type(self), (self.code, str(self))


def submission_sha256(data: bytes) -> str:
    """Hex SHA-256 of the bytes received, as stored beside the file.

    >>> submission_sha256(b"id,target\\n")[:16]
    '43b5f7b105e7a990'
    """
    return hashlib.sha256(data).hexdigest()


def canonical_predictions_hash(predictions: Any) -> str:
    """Hex SHA-256 of aligned predictions, as little-endian float64 bytes.

    Two files with the same predictions hash the same whatever their row order
    or number formatting (``0.5``, ``5e-1``, ``-0`` and ``0``): the engine
    uses it to refuse a team's identical resubmission.

    >>> sol = Solution.from_labels([0, 1], public_fraction=0.5, random_state=0)
    >>> a = parse_submission(b"id,target\\n0,0.5\\n1,-0\\n", sol)
    >>> b = parse_submission(b"id,target\\n1,0\\n0,5e-1\\n", sol)
    >>> canonical_predictions_hash(a) == canonical_predictions_hash(b)
    True
    """
    values = np.add(np.asarray(predictions, dtype="<f8"), 0.0, order="C")  # -0.0 becomes 0.0
    return hashlib.sha256(values).hexdigest()  # the array's buffer, not a bytes copy


def parse_submission(
    data: bytes | bytearray | memoryview,
    solution: Solution,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    probabilities: bool = False,
    classes: np.ndarray | None = None,
) -> np.ndarray:
    """The predictions of a submission file, aligned with ``solution``'s rows.

    Parameters
    ----------
    data : bytes
        The file as received: CSV, or gzip-compressed CSV (detected by its
        first two bytes), with the solution's id column and target column(s).
    solution : Solution
        The holdout the predictions are for.
    max_bytes : int
        The size limit, applied to the bytes received and to the decompressed
        file (default :data:`DEFAULT_MAX_BYTES`).
    probabilities : bool
        Refuse predictions outside ``[0, 1]`` (for metrics of probabilities).
    classes : numpy.ndarray or None
        The values a prediction may take, sorted (:attr:`Solution.classes`),
        for a score that compares labels (``zero_one``, ``accuracy``); any
        other value is refused.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(n,)`` for one target column, ``(n, k)`` for ``k``,
        in solution row order.

    Raises
    ------
    SubmissionError
        With a ``code`` from :attr:`SubmissionError.CODES`.

    >>> sol = Solution.from_labels([1.0, 2.0, 3.0], public_fraction=0.4, random_state=0)
    >>> parse_submission(b"id,target\\n2,3.5\\n0,1.5\\n1,2.5\\n", sol)
    array([1.5, 2.5, 3.5])
    >>> parse_submission(b"id,target\\n0,1\\n1,2\\n", sol)
    Traceback (most recent call last):
    ...
    ladderboard.files.submission.SubmissionError: 1 id of the solution is missing: '2'
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"data must be bytes (the file as received), got {type(data).__name__}")
    if not isinstance(solution, Solution):
        raise TypeError(f"solution must be a Solution, got {type(solution).__name__}")
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, numbers.Integral):
        raise TypeError(f"max_bytes must be an integer, got {type(max_bytes).__name__}")
    if max_bytes < 1:
        raise ValueError(f"max_bytes must be an integer >= 1, got {max_bytes!r}")
    try:
        raw = data if isinstance(data, bytes | bytearray) else bytes(data)
        return _Reader(raw, solution, int(max_bytes), bool(probabilities), classes).read()
    except CsvProblem as problem:
        raise SubmissionError(problem.code, str(problem)) from None


class _Reader:
    """One submission being read; each step raises CsvProblem with its code."""

    def __init__(
        self,
        data: _csv.Text,
        solution: Solution,
        max_bytes: int,
        probabilities: bool,
        classes: np.ndarray | None = None,
    ):
        self.data, self.solution = data, solution
        self.max_bytes, self.probabilities = max_bytes, probabilities
        self.classes = None if classes is None else np.asarray(classes, dtype=np.float64)
        self.columns = (solution.id_column, *solution.target_columns)

    def read(self) -> np.ndarray:
        table = self._streamed() if len(self.data) >= _STREAMED_BYTES else None
        if table is None:
            table = self._read()
        return self._aligned(table)

    def _types(self) -> dict[str, pa.DataType]:
        types = {self.solution.id_column: pa.string()}
        types.update(dict.fromkeys(self.solution.target_columns, pa.float64()))
        return types

    def _read(self) -> pa.Table:
        """The rows, each check in turn on the whole text (what decides every refusal)."""
        body = self._text()
        self._check_width(_csv.header_width(body))
        header = _csv.split_header(body)
        self._check_columns(header)
        if not _csv.has_rows(body, header):
            raise CsvProblem(
                "header_only",
                f"the file has a header but no rows; it needs one row per id "
                f"({self.solution.n} rows)",
            )
        self.body, self.header = body, header
        try:
            return _csv.read_table(body, header, self._types())
        except pa.ArrowException as exc:
            problem = _csv.diagnose(
                body, header, self.solution.target_columns, self.solution.id_column
            )
            raise problem or CsvProblem("bad_csv", f"the file is not valid CSV: {exc}") from None

    def _streamed(self) -> pa.Table | None:
        """The rows of a large gzip file, parsed while it is decompressed; ``None``
        for anything else, and for any file this way would refuse: :meth:`_read`
        then reads it whole and says why, as it does for every file."""
        data = self.data
        if not data.startswith(_csv.GZIP_MAGIC) or len(data) > self.max_bytes:
            return None
        stream = _csv.GunzipStream(data, self.max_bytes)
        try:
            searched = 0  # the header's line, in the first pieces only
            while (end := stream.text.find(b"\n", searched)) == -1:
                searched = len(stream.text)
                if searched > _STREAMED_BYTES or not stream.more():
                    return None
            skip = len(_csv.BOM) if stream.text.startswith(_csv.BOM) else 0
            header = _csv.split_header(bytes(stream.text[skip : end + 1]))
            if sorted(header.names) != sorted(self.columns):
                return None
            stream.start = skip + header.end
            table = pv.read_csv(
                stream,
                read_options=pv.ReadOptions(column_names=header.names),
                convert_options=_csv.convert_options(self._types(), check_utf8=True),
            )
            # What follows the last row (trailing bytes, members), then every
            # byte UTF-8, as _read checks first.
            body = _csv.text_body(stream.rest())
        except (CsvProblem, pa.ArrowException, ValueError):
            return None
        if table.num_rows == 0:
            return None
        self.body, self.header = body, header
        return table

    def _aligned(self, table: pa.Table) -> np.ndarray:
        ids = table.column(self.solution.id_column)
        targets = self.solution.target_columns
        if len(targets) == 1:
            values = table.column(targets[0]).to_numpy()
        else:
            values = np.column_stack([table.column(c).to_numpy() for c in targets])
        positions = self.solution._id_index.positions(ids)
        if positions is not None:
            self._check_ids(positions, ids)
        self._check_values(values, ids)
        if positions is None:
            return values if values.flags.writeable else values.copy()
        aligned = np.empty_like(values)
        aligned[positions] = values
        return aligned

    # ------------------------------------------------------------------ bytes
    def _text(self) -> _csv.Text:
        data: _csv.Text = self.data
        if len(data) > self.max_bytes:
            raise CsvProblem(
                "too_large",
                f"the file is {_csv.megabytes(len(data))}, over the size limit of "
                f"{_csv.megabytes(self.max_bytes)}; compress it with gzip or submit fewer digits",
            )
        if not data:
            raise CsvProblem("empty", "the file is empty")
        if data.startswith(_csv.GZIP_MAGIC):
            data = _csv.gunzip_limited(data, self.max_bytes)
        return _csv.text_body(data)

    # ---------------------------------------------------------------- columns
    def _check_width(self, width: int) -> None:
        most = len(self.columns) + EXTRA_COLUMNS
        if width > most:
            raise CsvProblem(
                "too_many_columns",
                f"the header has {width} columns, more than the {most} a "
                f"submission may have; the columns must be "
                f"{', '.join(map(repr, self.columns))}",
            )

    def _check_columns(self, header: _csv.Header) -> None:
        names = header.names
        expected = ", ".join(map(repr, self.columns))
        found = _csv.listed(names)
        repeated = header.duplicates()
        if repeated:
            raise CsvProblem(
                "duplicate_column",
                f"column {show(repeated[0])} appears more than once in the header "
                f"({found}); the columns must be {expected}",
            )
        missing = [c for c in self.columns if c not in names]
        extra = [n for n in names if n not in self.columns]
        if not (missing or extra):
            return
        parts = []
        if missing:
            parts.append(f"{_columns(missing)} {_is(len(missing))} missing")
        if extra:
            parts.append(f"{_columns(extra)} {_is(len(extra))} not expected")
        raise CsvProblem(
            "missing_column" if missing else "extra_column",
            f"{' and '.join(parts)}: the header must be {expected} (in any order), got {found}",
        )

    # -------------------------------------------------------------------- ids
    def _lines(self, rows: list[int]) -> dict[int, int]:
        return _csv.line_numbers(self.body, self.header, rows)

    def _check_ids(self, positions: np.ndarray, ids: pa.ChunkedArray) -> None:
        n = self.solution.n
        if len(positions) == n and positions.min() >= 0:
            seen = np.zeros(n, dtype=bool)
            seen[positions] = True
            if seen.all():  # n ids, all known, none missing: a permutation
                return
        known = positions >= 0
        counts = np.bincount(positions[known], minlength=n)
        parts: list[tuple[str, str]] = []
        repeated = np.zeros(len(positions), dtype=bool)
        repeated[known] = counts[positions[known]] > 1
        if repeated.any():
            parts.append(("duplicate_ids", self._duplicates(positions, np.flatnonzero(repeated))))
        extra = np.flatnonzero(~known)
        if len(extra):
            at = self._lines(extra[:_SHOWN].tolist())
            shown = [
                f"{show(ids[int(r)].as_py())} (line {at.get(int(r), '?')})" for r in extra[:_SHOWN]
            ]
            parts.append(
                (
                    "extra_ids",
                    f"{_count(len(extra), 'id')} {_is(len(extra))} not in the solution"
                    f"{_csv.examples(shown, len(extra))}",
                )
            )
        missing = np.flatnonzero(counts == 0)
        if len(missing):
            # Sorted, not in the solution's order, which may put the Public
            # rows first: the examples must say nothing of the split.
            first = np.sort(np.asarray(self.solution.ids, dtype=object)[missing])[:_SHOWN]
            shown = [show(i) for i in first]
            parts.append(
                (
                    "missing_ids",
                    f"{_count(len(missing), 'id')} of the solution {_is(len(missing))} missing"
                    f"{_csv.examples(shown, len(missing))}",
                )
            )
        raise CsvProblem(parts[0][0], "; ".join(message for _, message in parts))

    def _duplicates(self, positions: np.ndarray, rows: np.ndarray) -> str:
        groups: dict[int, list[int]] = {}
        for r in rows.tolist():  # rows in file order: the first ids repeated come first
            groups.setdefault(int(positions[r]), []).append(r)
        first = list(groups.items())[:_SHOWN]
        at = self._lines([r for _, rs in first for r in rs[:_SHOWN]])
        shown = [
            f"{show(self.solution.ids[p])} (lines "
            f"{', '.join(str(at.get(r, '?')) for r in rs[:_SHOWN])}"
            f"{', ...' if len(rs) > _SHOWN else ''})"
            for p, rs in first
        ]
        return (
            f"{_count(len(groups), 'id')} {_is(len(groups))} listed more than once"
            f"{_csv.examples(shown, len(groups))}"
        )

    # ----------------------------------------------------------------- values
    def _check_values(self, values: np.ndarray, ids: pa.ChunkedArray) -> None:
        finite = np.isfinite(values)
        if not finite.all():
            bad, code = ~finite, "not_finite"
        elif self.probabilities and not ((values >= 0) & (values <= 1)).all():
            bad, code = (values < 0) | (values > 1), "probability_out_of_range"
        elif self.classes is not None and not (known := np.isin(values, self.classes)).all():
            bad, code = ~known, "not_a_class"
        else:
            return
        if bad.ndim == 1:
            bad, values = bad[:, None], values[:, None]
        column = int(np.flatnonzero(bad.any(axis=0))[0])
        rows = np.flatnonzero(bad[:, column])
        k = len(rows)
        if code == "not_finite":
            what = f"that {_is(k)} NaN or infinite (predictions must be finite numbers)"
        elif code == "probability_out_of_range":
            what = "outside [0, 1] (the metric takes probabilities)"
        else:
            what = (
                f"that {_is(k)} no class of the solution (the score compares labels; "
                f"the classes are {self._classes()})"
            )
        at = self._lines(rows[:_SHOWN].tolist())
        shown = [
            f"{float(values[r, column])!r} (id {show(ids[int(r)].as_py())}, "
            f"line {at.get(int(r), '?')})"
            for r in rows[:_SHOWN]
        ]
        name = self.solution.target_columns[column]
        raise CsvProblem(
            code,
            f"column {show(name)} has {_count(k, 'value')} {what}{_csv.examples(shown, k)}",
        )

    def _classes(self) -> str:
        """The solution's classes as the participant writes them: whole
        numbers without ``.0``; the first few when there are many."""
        classes = np.asarray(self.classes)
        shown = [str(int(c)) if c.is_integer() else repr(c) for c in classes[:_CLASSES].tolist()]
        more = len(classes) - len(shown)
        return ", ".join(shown) + (f" and {more} more" if more else "")


def _columns(names: list[str]) -> str:
    listed = ", ".join(show(n) for n in names)
    return f"column {listed}" if len(names) == 1 else f"columns {listed}"


def _count(k: int, noun: str) -> str:
    return f"{k} {noun}" if k == 1 else f"{k} {noun}s"


def _is(k: int) -> str:
    return "is" if k == 1 else "are"
