"""Reading a solution file: columns, rows and the refusals, with their line numbers.

:meth:`Solution.from_csv <ladderboard.competition.solution.Solution.from_csv>`
is the public entry; this module holds its steps. The bytes go through the
shared checks of ``_csv`` (gzip, UTF-8, header), the rows are read by
``pyarrow.csv`` (ids and usage as text, targets as float64), and each refusal
names the column, the ids and the file lines concerned.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ladderboard.competition import _csv
from ladderboard.competition._csv import CsvProblem, show
from ladderboard.competition.solution import (
    _SHOWN,
    _USAGE_COLUMNS,
    USAGE_VALUES,
    Solution,
    SolutionError,
    _DuplicateIds,
)

__all__ = ["read_solution"]


def read_solution(
    data: bytes | str | os.PathLike[str], *, id_column: str | None, max_bytes: int | None = None
) -> Solution:
    """The solution in ``data`` (see :meth:`Solution.from_csv`, which calls this),
    refused once it or its decompressed form passes ``max_bytes`` (``None``: no limit).

    >>> read_solution(b"id,y,Usage\\na,1,Public\\nb,2,Private\\n", id_column=None).n
    2
    """
    raw = _load(data)
    try:
        if max_bytes is not None and len(raw) > max_bytes:
            raise CsvProblem(
                "too_large", f"the file is larger than {_csv.megabytes(max_bytes)}, the size limit"
            )
        if raw.startswith(_csv.GZIP_MAGIC):
            raw = _csv.gunzip_limited(raw, max_bytes)
        body = _csv.text_body(raw)
        header = _csv.split_header(body)
    except CsvProblem as problem:
        error = SolutionError(f"cannot read the solution: {problem}")
        if problem.code == "too_large":
            error.code = "too_large"
        raise error from None
    usage_column, id_name, targets = _columns(header, id_column)
    if not _csv.has_rows(body, header):
        raise SolutionError("the solution has a header but no rows")
    types = {id_name: pa.string(), usage_column: pa.string()}
    types.update(dict.fromkeys(targets, pa.float64()))
    try:
        table = _csv.read_table(body, header, types)
    except pa.ArrowException as exc:
        problem = _csv.diagnose(body, header, targets, id_name)
        raise SolutionError(
            str(problem) if problem else f"the solution is not valid CSV: {exc}"
        ) from None
    return _from_table(table, body, header, usage_column, id_name, targets)


def _load(data: bytes | str | os.PathLike[str]) -> bytes:
    if isinstance(data, bytes | bytearray | memoryview):
        raw = bytes(data)
    elif isinstance(data, str | os.PathLike):
        path = Path(data)
        if not path.is_file():
            hint = " (to pass CSV text, give bytes: text.encode())" if "\n" in str(data) else ""
            raise SolutionError(f"no solution file at {show(str(data))}{hint}")
        raw = path.read_bytes()
    else:
        raise TypeError(
            f"data must be bytes or a path (str or os.PathLike), got {type(data).__name__}"
        )
    if not raw:
        raise SolutionError("the solution file is empty")
    return raw


def _columns(header: _csv.Header, id_column: str | None) -> tuple[str, str, list[str]]:
    names = header.names
    listed = _csv.listed(names)
    duplicates = header.duplicates()
    if duplicates:
        raise SolutionError(
            f"the solution's header repeats column(s) {', '.join(map(repr, duplicates))} "
            f"(columns: {listed})"
        )
    found = {kind: [n for n in names if n.lower() == kind] for kind in _USAGE_COLUMNS}
    if found["usage"] and found["split"]:
        raise SolutionError(
            f"the solution has both a Usage column and a split column ({listed}); keep one"
        )
    usage = (found["usage"] or found["split"] or [None])[0]
    if usage is None:
        raise SolutionError(
            "the solution has no Usage column (Public/Private/Ignored) nor a Hugging Face "
            f"split column (public/private); its columns are {listed}"
        )
    if id_column is None:
        id_name = names[0]
    elif isinstance(id_column, str):
        id_name = id_column.strip()
        if id_name not in names:
            raise SolutionError(f"the solution has no id column {id_column!r}; columns: {listed}")
    else:
        raise TypeError(f"id_column must be a str or None, got {type(id_column).__name__}")
    if id_name == usage:
        raise SolutionError(
            f"the id column cannot be the usage column {usage!r}; columns: {listed}"
        )
    targets = [n for n in names if n not in (id_name, usage)]
    if not targets:
        raise SolutionError(f"the solution has no target column besides {id_name!r} and {usage!r}")
    for name in (id_name, *targets):
        if not name:
            raise SolutionError(f"the solution's header has an empty column name: {listed}")
    return usage, id_name, targets


def _from_table(
    table: pa.Table,
    body: bytes,
    header: _csv.Header,
    usage_column: str,
    id_name: str,
    targets: list[str],
) -> Solution:
    ids = table.column(id_name).combine_chunks()
    n = len(ids)

    def lines(rows: Any) -> dict[int, int]:
        return _csv.line_numbers(body, header, [int(r) for r in rows])

    def at(r: Any) -> str:
        return str(found.get(int(r), "?"))

    empty = np.flatnonzero(pc.equal(pc.binary_length(ids), 0).to_numpy(zero_copy_only=False))
    if len(empty):
        found = lines(empty[:_SHOWN])
        raise SolutionError(
            f"{len(empty)} row(s) have an empty id in column {id_name!r}, on line(s) "
            + ", ".join(at(r) for r in empty[:_SHOWN])
        )
    values = np.column_stack([table.column(c).to_numpy() for c in targets])
    bad = ~np.isfinite(values)
    if bad.any():
        col = int(np.flatnonzero(bad.any(axis=0))[0])
        rows = np.flatnonzero(bad[:, col])
        found = lines(rows[:_SHOWN])
        shown = ", ".join(
            f"{float(values[r, col])!r} (id {show(ids[int(r)].as_py())}, line {at(r)})"
            for r in rows[:_SHOWN]
        )
        raise SolutionError(
            f"column {targets[col]!r} has {len(rows)} value(s) that are NaN or infinite, "
            f"e.g. {shown}; targets must be finite numbers"
        )
    written = pc.utf8_lower(pc.utf8_trim_whitespace(table.column(usage_column)))
    usage = np.full(n, "", dtype="<U7")
    for value in USAGE_VALUES:
        usage[pc.equal(written, value.lower()).to_numpy(zero_copy_only=False)] = value
    unknown = np.flatnonzero(usage == "")
    if len(unknown):
        raw = table.column(usage_column)
        found = lines(unknown[:_SHOWN])
        shown = ", ".join(
            f"{show(raw[int(r)].as_py())} (id {show(ids[int(r)].as_py())}, line {at(r)})"
            for r in unknown[:_SHOWN]
        )
        raise SolutionError(
            f"column {usage_column!r} must hold Public, Private or Ignored (any case); "
            f"{len(unknown)} row(s) do not, e.g. {shown}"
        )
    for value in ("Public", "Private"):
        if not (usage == value).any():
            raise SolutionError(
                f"the solution has no {value} row in column {usage_column!r}: the "
                f"{value.lower()} board would have nothing to score"
            )
    try:
        return Solution(
            ids=ids,
            targets=values[:, 0] if len(targets) == 1 else values,
            usage=usage,
            id_column=id_name,
            target_columns=tuple(targets),
        )
    except _DuplicateIds as error:
        found = lines(r for _, where in error.duplicates[:_SHOWN] for r in where[:_SHOWN])
        shown = "; ".join(
            f"{show(value)} on lines {', '.join(at(r) for r in where[:_SHOWN])}"
            for value, where in error.duplicates[:_SHOWN]
        )
        raise SolutionError(
            f"ids must be unique: {len(error.duplicates)} id(s) in column {id_name!r} appear "
            f"more than once: {shown}"
        ) from None
