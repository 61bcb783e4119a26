"""The holdout of a competition: ids, targets and the public/private split.

A Kaggle-style ``solution.csv`` has an id column, one or more target columns
and a ``Usage`` column saying which rows score the public board (``Public``),
which the private board (``Private``), and which none (``Ignored``). Hugging
Face's ``split`` column with ``public`` / ``private`` values is accepted in its
place. The leaderboard mechanisms see only the public rows (Blum & Hardt 2015,
Sec. 2: the holdout behind the public board); the private rows decide the
final ranking after the close.

Targets are numbers: class labels written as strings must be encoded as
integers (``0, 1, ...``) before the file is loaded.

>>> sol = Solution.from_csv(
...     b"id,target,Usage\\n1,0,Public\\n2,1,Private\\n3,1,Private\\n4,0,Ignored\\n"
... )
>>> sol
Solution(n=4, n_public=1, n_private=2, id_column='id', target_columns=('target',))
>>> print(sol.sample_submission_csv().decode(), end="")
id,target
1,0
2,0
3,0
4,0
"""

from __future__ import annotations

import hashlib
import numbers
import os
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ladderboard._validation import check_real
from ladderboard.files import _csv
from ladderboard.files._csv import CsvProblem, show
from ladderboard.files._ids import IdIndex

__all__ = ["USAGE_VALUES", "Solution", "SolutionError"]

USAGE_VALUES = ("Public", "Private", "Ignored")
"""The values of the ``Usage`` column, in their canonical spelling."""
_USAGE_COLUMNS = ("usage", "split")  # case-insensitive; split is Hugging Face's alias
_SHOWN = 3
_ROWS_AT_ONCE = 1 << 20  # rows whose text split_sha256 and to_csv hold at once


class SolutionError(ValueError):
    """A solution file or solution arrays that cannot define a holdout.

    >>> Solution.from_csv(b"id,target\\n1,0\\n")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ladderboard.files.solution.SolutionError: the solution has no Usage column ...
    """

    code = "bad_solution"  # ``too_large`` for a file over the size limit


def _check_name(what: str, name: object) -> str:
    if not isinstance(name, str):
        raise TypeError(f"{what} must be a str, got {type(name).__name__} {name!r}")
    if not name or name != name.strip() or any(c in name for c in "\r\n"):
        raise SolutionError(
            f"{what} must be a non-empty name without surrounding whitespace or line "
            f"breaks, got {name!r}"
        )
    if name.lower() in _USAGE_COLUMNS:
        raise SolutionError(f"{what} must not be {name!r}: that name marks the usage column")
    return name


def _needs_quotes(text: str) -> bool:
    return "," in text or '"' in text


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"' if _needs_quotes(text) else text


class Solution:
    """The holdout: ids, numeric targets and the usage of each row.

    Parameters
    ----------
    ids : array of str
        One unique, non-empty id per row, without line breaks (a pyarrow
        string array too).
    targets : array of float
        Shape ``(n,)`` for one target column, ``(n, k)`` for ``k``; finite.
    usage : array of str
        ``"Public"``, ``"Private"`` or ``"Ignored"`` per row (a pyarrow string
        or dictionary array too); at least one public and one private row.
    id_column : str
        The name of the id column (default ``"id"``).
    target_columns : tuple of str
        The names of the target columns (default ``("target",)``).

    The arrays are copied and made read-only, and a solution cannot be
    changed once built. The ids are kept as one Arrow string array and the
    usage as one byte per row: :attr:`ids` and :attr:`usage`, NumPy arrays of
    Python strings, are built on first use (for a million rows they cost more
    than reading the file). Build solutions with :meth:`from_csv` or
    :meth:`from_labels`; ``to_csv`` writes the canonical file whose SHA-256
    (:attr:`sha256`) the audit commitment covers.

    >>> sol = Solution.from_labels([0, 1, 1, 0, 1], public_fraction=0.4, random_state=0)
    >>> sol.n, sol.n_public, sol.n_private
    (5, 2, 3)
    >>> sol.targets[sol.public_mask]
    array([0., 1.])
    >>> Solution.from_csv(sol.to_csv()) == sol
    True
    >>> sol.n = 3
    Traceback (most recent call last):
    ...
    AttributeError: a Solution cannot be changed; build another
    """

    targets: np.ndarray
    id_column: str
    target_columns: tuple[str, ...]
    _index: IdIndex
    _usage_codes: np.ndarray  # uint8: USAGE_VALUES.index(usage) per row

    def __init__(
        self,
        *,
        ids: Any,
        targets: Any,
        usage: Any,
        id_column: str = "id",
        target_columns: tuple[str, ...] = ("target",),
    ) -> None:
        _check_name("id_column", id_column)
        columns = target_columns
        if isinstance(columns, str) or not isinstance(columns, tuple | list):
            raise TypeError(
                f"target_columns must be a tuple of str, got {type(columns).__name__} {columns!r}"
            )
        columns = tuple(_check_name("each target column", c) for c in columns)
        if not columns:
            raise SolutionError("target_columns must name at least one column, got ()")
        names = (id_column, *columns)
        if len(set(names)) != len(names):
            raise SolutionError(f"column names must be distinct, got {names}")

        arrow_ids = self._checked_ids(ids)
        n = len(arrow_ids)
        index = IdIndex(arrow_ids)
        if not index.unique:
            raise _DuplicateIds(_duplicates(arrow_ids.to_numpy(zero_copy_only=False)))
        checked_targets = self._checked_targets(targets, n, len(columns))
        codes = self._checked_usage(usage, n)
        for array in (checked_targets, codes):
            array.setflags(write=False)
        for name, value in (
            ("targets", checked_targets),
            ("id_column", id_column),
            ("target_columns", columns),
            ("_index", index),
            ("_usage_codes", codes),
        ):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Solution cannot be changed; build another")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a Solution cannot be changed; build another")

    # ------------------------------------------------------------ validation
    @staticmethod
    def _checked_ids(ids: Any) -> pa.Array:
        if isinstance(ids, str | bytes):
            raise TypeError(f"ids must be an array of str, got {type(ids).__name__}")
        if isinstance(ids, pa.ChunkedArray):
            ids = ids.combine_chunks()
        if isinstance(ids, pa.Array) and ids.type == pa.string():
            values, arrow = ids, ids  # from_csv's column, already text
        else:
            values = np.asarray(ids, dtype=object)
            if values.ndim != 1:
                raise SolutionError(f"ids must be 1-D, got shape {values.shape}")
        try:
            arrow = pa.array(values, type=pa.string())
        except (pa.ArrowTypeError, pa.ArrowInvalid):
            first = next(i for i, v in enumerate(values) if not isinstance(v, str))
            raise TypeError(
                f"ids must be str, got {type(values[first]).__name__} {values[first]!r} "
                f"at index {first}"
            ) from None
        if len(arrow) == 0:
            raise SolutionError("the solution has no rows")
        if arrow.null_count:
            first = int(np.flatnonzero(arrow.is_null().to_numpy(zero_copy_only=False))[0])
            raise TypeError(f"ids must be str, got None at index {first}")
        empty = pc.equal(pc.binary_length(arrow), 0).to_numpy(zero_copy_only=False)
        if empty.any():
            rows = np.flatnonzero(empty)
            raise SolutionError(
                f"ids must not be empty: {len(rows)} empty id(s), at index "
                f"{', '.join(map(str, rows[:_SHOWN].tolist()))}"
            )
        # One scan of the ids' bytes; the slower search by id only when one may break.
        data = arrow.buffers()[2]
        text = np.frombuffer(data, dtype=np.uint8) if data is not None else np.empty(0)
        if ((text == ord("\n")) | (text == ord("\r"))).any():
            for brk in ("\n", "\r"):
                broken = pc.match_substring(arrow, brk).to_numpy(zero_copy_only=False)
                if broken.any():
                    i = int(np.flatnonzero(broken)[0])
                    raise SolutionError(
                        f"ids must not contain line breaks, got {arrow[i].as_py()!r}"
                    )
        return arrow

    @staticmethod
    def _checked_targets(targets: Any, n: int, k: int) -> np.ndarray:
        array = np.array(targets, copy=True)
        if array.dtype.kind not in "biuf":
            raise TypeError(
                f"targets must be numeric (encode class labels as integers), got dtype "
                f"{array.dtype}"
            )
        array = array.astype(np.float64)
        if k == 1 and array.ndim == 2 and array.shape[1] == 1:
            array = array[:, 0].copy()
        shape = (n,) if k == 1 else (n, k)
        if array.shape != shape:
            raise SolutionError(
                f"targets must have shape {shape} ({n} ids, {k} target column(s)), "
                f"got {array.shape}"
            )
        bad = ~np.isfinite(array)
        if bad.any():
            i = int(np.argwhere(bad)[0][0])
            raise SolutionError(
                f"targets must be finite, got {array[i]!r} at index {i} "
                f"({int(bad.any(axis=-1).sum() if k > 1 else bad.sum())} row(s))"
            )
        return np.ascontiguousarray(array)

    @staticmethod
    def _checked_usage(usage: Any, n: int) -> np.ndarray:
        """The usage as codes, ``USAGE_VALUES.index(value)`` per row (uint8)."""
        if isinstance(usage, pa.ChunkedArray):
            usage = usage.combine_chunks()
        if isinstance(usage, pa.Array):
            if len(usage) != n:
                raise SolutionError(f"usage must have shape ({n},), got ({len(usage)},)")
            codes = _arrow_usage_codes(usage)
        else:
            usage = np.asarray(usage)
            if usage.dtype.kind not in "UO":
                raise TypeError(f"usage must be an array of str, got dtype {usage.dtype}")
            if usage.shape != (n,):
                raise SolutionError(f"usage must have shape ({n},), got {usage.shape}")
            codes = np.full(n, _UNKNOWN_USAGE, dtype=np.uint8)
            for code, value in enumerate(USAGE_VALUES):
                codes[usage == value] = code
        unknown = np.flatnonzero(codes == _UNKNOWN_USAGE)
        if len(unknown):
            i = int(unknown[0])
            value = usage[i].as_py() if isinstance(usage, pa.Array) else usage[i]
            raise SolutionError(
                f"usage must hold only {', '.join(USAGE_VALUES)}, got {str(value)!r} at index {i}"
            )
        for code, value in enumerate(USAGE_VALUES[:2]):
            if not (codes == code).any():
                raise SolutionError(
                    f"the solution has no {value} row: the {value.lower()} board would have "
                    "nothing to score"
                )
        return codes

    # ------------------------------------------------------------ properties
    @cached_property
    def ids(self) -> np.ndarray:
        """The ids as a read-only NumPy array of ``str``, in row order."""
        ids = self._index.ids.to_numpy(zero_copy_only=False)
        ids.setflags(write=False)
        return ids

    @cached_property
    def usage(self) -> np.ndarray:
        """``"Public"``, ``"Private"`` or ``"Ignored"`` per row (read-only)."""
        usage = np.array(USAGE_VALUES, dtype="<U7")[self._usage_codes]
        usage.setflags(write=False)
        return usage

    @property
    def n(self) -> int:
        """The number of rows, Ignored ones included (every row must be submitted)."""
        return len(self._index.ids)

    @cached_property
    def public_mask(self) -> np.ndarray:
        """Boolean mask of the rows that score the public board."""
        mask = self._usage_codes == 0
        mask.setflags(write=False)
        return mask

    @cached_property
    def private_mask(self) -> np.ndarray:
        """Boolean mask of the rows that score the private board."""
        mask = self._usage_codes == 1
        mask.setflags(write=False)
        return mask

    @cached_property
    def public_rows(self) -> np.ndarray:
        """The row numbers of :attr:`public_mask`, in order (indexing by them is
        several times faster than by the mask)."""
        rows = np.flatnonzero(self.public_mask)
        rows.setflags(write=False)
        return rows

    @cached_property
    def private_rows(self) -> np.ndarray:
        """The row numbers of :attr:`private_mask`, in order."""
        rows = np.flatnonzero(self.private_mask)
        rows.setflags(write=False)
        return rows

    @cached_property
    def classes(self) -> np.ndarray:
        """The distinct target values, sorted (read-only): the classes a
        prediction must be one of when the score compares labels.

        >>> Solution.from_labels([2, 0, 2, 1], public_fraction=0.5, random_state=0).classes
        array([0., 1., 2.])
        """
        classes = np.unique(self.targets)
        classes.setflags(write=False)
        return classes

    @property
    def n_public(self) -> int:
        """The number of public rows."""
        return int(self.public_mask.sum())

    @property
    def n_private(self) -> int:
        """The number of private rows."""
        return int(self.private_mask.sum())

    @cached_property
    def sha256(self) -> str:
        """Hex SHA-256 of :meth:`to_csv`: ids, targets and the split, as committed to.

        >>> sol = Solution.from_labels([0.5, 1.5], public_fraction=0.5, random_state=1)
        >>> sol.sha256 == hashlib.sha256(sol.to_csv()).hexdigest()
        True
        """
        return hashlib.sha256(self._canonical_csv).hexdigest()

    @cached_property
    def split_sha256(self) -> str:
        """Hex SHA-256 of the ids and their usage, row by row: of the lines
        ``f"{id}\\t{usage}\\n"`` one after another (the split the audit
        commitment covers). Arrow writes the lines, a million rows at a time.

        >>> sol = Solution.from_labels([0.5, 1.5], public_fraction=0.5, random_state=1)
        >>> lines = "".join(f"{i}\\t{u}\\n" for i, u in zip(sol.ids, sol.usage))
        >>> sol.split_sha256 == hashlib.sha256(lines.encode()).hexdigest()
        True
        """
        digest = hashlib.sha256()
        for rows in _row_blocks(self.n):
            ids = self._index.ids.slice(rows.start, rows.stop - rows.start)
            digest.update(_joined([ids, self._written_usage(rows, "\t")], ""))
        return digest.hexdigest()

    def _written_usage(self, rows: slice, before: str) -> pa.Array:
        """The ``rows``' usage as the lines' ends ``f"{before}{usage}\n"``."""
        endings = pa.array([f"{before}{value}\n" for value in USAGE_VALUES])
        return pc.take(endings, pa.array(self._usage_codes[rows]))

    @property
    def _id_index(self) -> IdIndex:
        """Row positions by id (see ``_ids``), built with the solution."""
        return self._index

    def __repr__(self) -> str:
        return (
            f"Solution(n={self.n}, n_public={self.n_public}, n_private={self.n_private}, "
            f"id_column={self.id_column!r}, target_columns={self.target_columns!r})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Solution):
            return NotImplemented
        return (
            self.id_column == other.id_column
            and self.target_columns == other.target_columns
            and self._index.ids.equals(other._index.ids)
            and np.array_equal(self._usage_codes, other._usage_codes)
            and np.array_equal(self.targets, other.targets)
        )

    def __hash__(self) -> int:
        return hash(self.sha256)

    # ---------------------------------------------------------------- writing
    @cached_property
    def _canonical_csv(self) -> bytes:
        """The rows ``id,target...,Usage``, each value as Python writes it
        (``repr`` of a float), joined by Arrow a million rows at a time."""
        header = ",".join(_quote(c) for c in (self.id_column, *self.target_columns, "Usage"))
        targets = self.targets.reshape(self.n, -1)
        pieces = [(header + "\n").encode("utf-8")]
        ids = self._written_id_array()
        for rows in _row_blocks(self.n):
            columns = [ids.slice(rows.start, rows.stop - rows.start)]
            columns += [_written_floats(targets[rows, j]) for j in range(targets.shape[1])]
            columns.append(self._written_usage(rows, ""))
            pieces.append(bytes(_joined(columns, ",")))
        return b"".join(pieces)

    def _written_id_array(self) -> pa.Array:
        """The ids as written in a CSV file: quoted where they hold ``,`` or ``"``."""
        ids = self._index.ids
        if not pc.any(pc.match_substring_regex(ids, '[,"]')).as_py():
            return ids
        return pa.array([_quote(i) for i in ids.to_pylist()], type=pa.string())

    def to_csv(self) -> bytes:
        """The canonical solution file: ``id_column,targets...,Usage``, ``\\n`` line ends.

        Floats are written with ``repr``, so :meth:`from_csv` reads back the
        same solution, bit for bit.

        >>> sol = Solution.from_labels([0.1, 2.0], public_fraction=0.5, random_state=0)
        >>> print(sol.to_csv().decode(), end="")
        id,target,Usage
        0,0.1,Public
        1,2.0,Private
        """
        return self._canonical_csv

    def sample_submission_csv(self, fill: float = 0.0) -> bytes:
        """The file participants start from: every id, every target column set to ``fill``.

        Rows are in solution order; it parses as a valid submission. A whole
        ``fill`` is written as an integer (``0``, as class labels are
        written, not ``0.0``).

        >>> sol = Solution.from_labels([[1, 0], [0, 1]], public_fraction=0.5, random_state=0,
        ...                            target_columns=("cat", "dog"))
        >>> print(sol.sample_submission_csv(0.5).decode(), end="")
        id,cat,dog
        0,0.5,0.5
        1,0.5,0.5
        """
        number = check_real("fill", fill)
        whole = float(number).is_integer() and abs(number) < 1e16
        value = str(int(number)) if whole else repr(float(number))
        header = ",".join(_quote(c) for c in (self.id_column, *self.target_columns))
        row_tail = "," + ",".join([value] * len(self.target_columns)) + "\n"
        ids = self._written_id_array().to_pylist()
        return (header + "\n" + "".join(i + row_tail for i in ids)).encode()

    # ---------------------------------------------------------------- reading
    @classmethod
    def from_csv(
        cls,
        data: bytes | str | os.PathLike[str],
        *,
        id_column: str | None = None,
        max_bytes: int | None = None,
    ) -> Solution:
        """Read a solution file (gzip-compressed or not) from bytes or a path.

        ``data`` is the file's content as ``bytes``, or a path as ``str`` or
        :class:`os.PathLike` (pass CSV text as ``text.encode()``). The id column
        is ``id_column`` (default: the first column); the usage column is
        ``Usage`` or Hugging Face's ``split`` (names and values matched without
        regard to case); every other column is a target. Ids are read as text,
        exactly as written. ``max_bytes`` bounds the file and, for gzip, what
        it decompresses to (a server passes its upload limit, so that a small
        gzip bomb cannot fill its memory). Problems raise :class:`SolutionError`
        naming lines, ids and columns.

        >>> sol = Solution.from_csv(b"Id,y,split\\na,1.5,public\\nb,2,private\\n")
        >>> sol.id_column, sol.target_columns, sol.usage.tolist()
        ('Id', ('y',), ['Public', 'Private'])
        >>> Solution.from_csv(b"id,y,Usage\\na,1,Public\\nb,x,Private\\n")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ladderboard.files.solution.SolutionError: column 'y' has 1 value that is not ...
        """
        return read_solution(data, id_column=id_column, max_bytes=max_bytes)

    @classmethod
    def from_labels(
        cls,
        labels: Any,
        *,
        public_fraction: float,
        random_state: int | None,
        ids: Any = None,
        id_column: str = "id",
        target_columns: tuple[str, ...] | None = None,
    ) -> Solution:
        """A solution whose split is drawn here: ``round(public_fraction * n)`` public rows.

        The public rows are the first ``n_public`` of
        ``numpy.random.default_rng(random_state).permutation(n)``; the others
        are private (none is Ignored). ``ids`` default to ``"0" .. "n-1"``;
        ``target_columns`` to ``("target",)`` for 1-D labels and
        ``("target_0", ...)`` for 2-D ones.

        >>> a = Solution.from_labels(np.arange(10) % 2, public_fraction=0.3, random_state=7)
        >>> b = Solution.from_labels(np.arange(10) % 2, public_fraction=0.3, random_state=7)
        >>> a.n_public, a == b
        (3, True)
        """
        y = np.array(labels, copy=True)
        if y.dtype.kind not in "biuf":
            raise TypeError(
                f"labels must be numeric (encode class labels as integers), got dtype {y.dtype}"
            )
        if y.ndim not in (1, 2) or y.shape[0] == 0:
            raise SolutionError(f"labels must be a non-empty 1-D or 2-D array, got {y.shape}")
        n = y.shape[0]
        fraction = check_real("public_fraction", public_fraction, low=0, high=1)
        if random_state is not None and (
            isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral)
        ):
            raise TypeError(
                f"random_state must be an int or None, got {type(random_state).__name__}"
            )
        n_public = round(fraction * n)
        if not 0 < n_public < n:
            raise SolutionError(
                f"public_fraction={fraction!r} of {n} rows gives {n_public} public rows; "
                "both boards need at least one row"
            )
        if ids is None:
            ids = [str(i) for i in range(n)]
        elif isinstance(ids, str | bytes):
            raise TypeError(f"ids must be a sequence, got {type(ids).__name__}")
        else:
            ids = [i if isinstance(i, str) else str(i) for i in ids]
            if len(ids) != n:
                raise SolutionError(f"ids must have one id per label ({n}), got {len(ids)}")
        if target_columns is None:
            target_columns = (
                ("target",) if y.ndim == 1 else tuple(f"target_{j}" for j in range(y.shape[1]))
            )
        usage = np.full(n, "Private", dtype="<U7")
        usage[np.random.default_rng(random_state).permutation(n)[:n_public]] = "Public"
        return cls(
            ids=np.array(ids, dtype=object),
            targets=y,
            usage=usage,
            id_column=id_column,
            target_columns=tuple(target_columns),
        )


# --------------------------------------------------------------------- helpers
def _row_blocks(n: int) -> Iterator[slice]:
    """The rows in blocks of ``_ROWS_AT_ONCE``: the text Arrow writes at once."""
    for start in range(0, n, _ROWS_AT_ONCE):
        yield slice(start, min(start + _ROWS_AT_ONCE, n))


def _joined(columns: list[pa.Array], separator: str) -> memoryview:
    """The text of each row, ``columns``' values joined by ``separator``, one
    row after another, as a view of Arrow's buffer. The columns are taken as
    ``large_string`` (64-bit offsets): a block of a wide solution's rows may
    pass the 2 GiB that ``string`` holds."""
    wide = [c.cast(pa.large_string()) for c in columns]
    lines = pc.binary_join_element_wise(*wide, pa.scalar(separator, pa.large_string()))
    _, offsets, data = lines.buffers()
    if data is None:  # no rows
        return memoryview(b"")
    bounds = np.frombuffer(offsets, dtype=np.int64, count=len(lines) + 1, offset=8 * lines.offset)
    return memoryview(data)[bounds[0] : bounds[-1]]


def _written_floats(values: np.ndarray) -> pa.Array:
    """``repr`` of each float, as Arrow strings. Whole numbers below 1e16 in
    magnitude (class labels, counts) are written as their integer and
    ``.0``, as ``repr`` writes them, without a Python string per row."""
    whole = np.all(values == np.trunc(values)) and np.all(np.abs(values) < 1e16)
    if whole and not np.any(np.signbit(values) & (values == 0)):  # repr(-0.0) is "-0.0"
        digits = pc.cast(pa.array(values.astype(np.int64)), pa.string())
        return pc.binary_join_element_wise(digits, pa.scalar(".0"), "")
    return pa.array([repr(x) for x in values.tolist()], type=pa.string())


_UNKNOWN_USAGE = len(USAGE_VALUES)  # the code of a value that is none of them


def _arrow_usage_codes(usage: pa.Array) -> np.ndarray:
    """Codes of an Arrow string (or dictionary of strings) array; unknown values,
    nulls included, get ``_UNKNOWN_USAGE``."""
    if isinstance(usage, pa.DictionaryArray):
        table = np.r_[_arrow_usage_codes(usage.dictionary), _UNKNOWN_USAGE].astype(np.uint8)
        indices = pc.fill_null(usage.indices, len(usage.dictionary))
        return table[indices.to_numpy().astype(np.intp)]
    if pa.types.is_large_string(usage.type) or pa.types.is_string_view(usage.type):
        usage = usage.cast(pa.string())
    if not pa.types.is_string(usage.type):
        raise TypeError(f"usage must be an array of str, got Arrow type {usage.type}")
    found = pc.index_in(usage, value_set=pa.array(USAGE_VALUES))
    return pc.fill_null(found, _UNKNOWN_USAGE).to_numpy().astype(np.uint8)


class _DuplicateIds(SolutionError):
    """Repeated ids, with the indices where each appears (from_csv adds line numbers)."""

    def __init__(self, duplicates: list[tuple[str, list[int]]]) -> None:
        self.duplicates = duplicates
        super().__init__(
            f"ids must be unique: {len(duplicates)} id(s) appear more than once, e.g. "
            + ", ".join(
                f"{show(value)} (index {', '.join(map(str, where[:_SHOWN]))})"
                for value, where in duplicates[:_SHOWN]
            )
        )


def _duplicates(ids: np.ndarray) -> list[tuple[str, list[int]]]:
    """Each id seen more than once, with the indices where it appears (first seen first)."""
    where: dict[str, list[int]] = {}
    for i, value in enumerate(ids.tolist()):
        where.setdefault(value, []).append(i)
    return [(value, at) for value, at in where.items() if len(at) > 1]


# ---------------------------------------------------------- reading the file
# The steps of :meth:`Solution.from_csv`: the bytes go through the shared
# checks of ``_csv`` (gzip, UTF-8, header), the rows are read by
# ``pyarrow.csv`` (ids and usage as text, targets as float64), and each
# refusal names the column, the ids and the file lines concerned.


def read_solution(
    data: bytes | str | os.PathLike[str], *, id_column: str | None, max_bytes: int | None = None
) -> Solution:
    """The solution in ``data`` (see :meth:`Solution.from_csv`, which calls this),
    refused once it or its decompressed form passes ``max_bytes`` (``None``: no limit).

    >>> read_solution(b"id,y,Usage\\na,1,Public\\nb,2,Private\\n", id_column=None).n
    2
    """
    raw: _csv.Text = _load(data)
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
        diagnosis = _csv.diagnose(body, header, targets, id_name)
        raise SolutionError(
            str(diagnosis) if diagnosis else f"the solution is not valid CSV: {exc}"
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
    usage = next(iter(found["usage"] or found["split"]), None)
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
    body: _csv.Text,
    header: _csv.Header,
    usage_column: str,
    id_name: str,
    targets: list[str],
) -> Solution:
    ids = table.column(id_name).combine_chunks()

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
    raw = table.column(usage_column).combine_chunks()
    codes = _arrow_usage_codes(raw)
    if (codes == _UNKNOWN_USAGE).any():  # values not in their canonical spelling
        written = pc.utf8_lower(pc.utf8_trim_whitespace(raw))
        found = pc.index_in(written, value_set=pa.array([v.lower() for v in USAGE_VALUES]))
        codes = pc.fill_null(found, _UNKNOWN_USAGE).to_numpy().astype(np.uint8)
    unknown = np.flatnonzero(codes == _UNKNOWN_USAGE)
    if len(unknown):
        found = lines(unknown[:_SHOWN])
        shown = ", ".join(
            f"{show(raw[int(r)].as_py())} (id {show(ids[int(r)].as_py())}, line {at(r)})"
            for r in unknown[:_SHOWN]
        )
        raise SolutionError(
            f"column {usage_column!r} must hold Public, Private or Ignored (any case); "
            f"{len(unknown)} row(s) do not, e.g. {shown}"
        )
    for code, value in enumerate(USAGE_VALUES[:2]):
        if not (codes == code).any():
            raise SolutionError(
                f"the solution has no {value} row in column {usage_column!r}: the "
                f"{value.lower()} board would have nothing to score"
            )
    try:
        return Solution(
            ids=ids,
            targets=values[:, 0] if len(targets) == 1 else values,
            usage=pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(USAGE_VALUES)),
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
