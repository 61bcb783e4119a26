"""Reading the CSV files of a competition: the steps shared by solution and submission.

Bytes become a table in four checked steps, each raising :class:`CsvProblem`
with a stable ``code`` and a message that names lines (1-based, as an editor
shows them) and values:

1. :func:`gunzip_limited` undoes gzip (detected by its magic bytes), one
   bounded piece at a time, so a small file that inflates to gigabytes
   (a gzip bomb) is refused once it passes the limit;
2. :func:`text_body` drops a UTF-8 byte-order mark and refuses bytes that are
   not UTF-8;
3. :func:`split_header` finds the header (the first non-blank line) and strips
   the whitespace around its names;
4. :func:`read_table` hands the rows to ``pyarrow.csv`` with fixed column types.

When pyarrow refuses the rows, :func:`diagnose` reads them again with Python's
``csv`` module to say which line and which value is wrong; :func:`scan_rows`
and :func:`line_numbers` map row indices back to file lines the same way.
Both readers skip blank lines and split rows identically.
"""

from __future__ import annotations

import csv
import io
import re
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.csv as pv

__all__ = [
    "BOM",
    "GZIP_MAGIC",
    "CsvProblem",
    "GunzipStream",
    "Header",
    "convert_options",
    "diagnose",
    "examples",
    "gunzip_limited",
    "header_width",
    "line_numbers",
    "listed",
    "megabytes",
    "parse_number",
    "plural",
    "read_table",
    "scan_rows",
    "show",
    "split_header",
    "text_body",
]

GZIP_MAGIC = b"\x1f\x8b"
BOM = b"\xef\xbb\xbf"  # the UTF-8 byte-order mark a file may start with
Text = bytes | bytearray  # a file's text: gunzip_limited grows a bytearray
_STEP = 1 << 20  # bytes of output per decompression step
_NOT_BLANK = re.compile(rb"[^\s]")
_EXAMPLES = 3

# What pyarrow's float parser accepts, once surrounding spaces and tabs are
# stripped: decimal numbers with an optional exponent, nan and inf.
_NUMBER = re.compile(
    r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|(nan(?:\(\w*\))?|inf(?:inity)?))",
    re.IGNORECASE | re.ASCII,
)


class CsvProblem(ValueError):
    """A file that cannot be read, with a short stable ``code``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    def __reduce__(self):  # keep the code through pickling (worker processes)
        return type(self), (self.code, str(self))


# ------------------------------------------------------------------------- bytes
def megabytes(n: int) -> str:
    return f"{n / 2**20:.1f} MB" if n >= 2**20 else f"{n} bytes"


def gunzip_limited(data: Text, limit: int | None) -> bytearray:
    """The decompressed gzip ``data`` (all members), refusing more than ``limit`` bytes.

    The text grows in one ``bytearray`` (returned as is): a list of pieces
    joined at the end would hold the whole text twice at its peak, 200 MB
    for a file of ten million rows.

    >>> import gzip
    >>> gunzip_limited(gzip.compress(b"id,target\\n1,0.5\\n"), 100)
    bytearray(b'id,target\\n1,0.5\\n')
    >>> gunzip_limited(gzip.compress(b"0" * 1000), 100)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ladderboard.files._csv.CsvProblem: the file decompresses to more than 100 bytes, ...
    """
    return GunzipStream(data, limit).rest()


class GunzipStream(io.RawIOBase):
    """Gzip ``data`` (all members) decompressed as it is read, refusing more
    than ``limit`` bytes (:class:`CsvProblem` ``too_large``, ``bad_gzip``).

    ``text`` holds everything decompressed so far; :meth:`readinto` serves it
    from ``start`` on, decompressing more as the reader asks. ``pyarrow.csv``
    reading from it parses blocks while the next ones are decompressed
    (zlib lets go of the GIL), where decompressing first and parsing after
    would take the two one after the other.

    >>> import gzip
    >>> stream = GunzipStream(gzip.compress(b"id,target\\n1,0.5\\n"), None)
    >>> stream.start = 10
    >>> stream.read(), bytes(stream.text)
    (b'1,0.5\\n', b'id,target\\n1,0.5\\n')
    """

    def __init__(self, data: Text, limit: int | None) -> None:
        super().__init__()
        self.text = bytearray()
        self.start = 0
        self._limit = limit
        self._decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._pending: Text = data
        self._done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while len(self.text) - self.start < len(buffer) and self.more():
            pass
        n = min(len(buffer), len(self.text) - self.start)
        with memoryview(self.text) as view:  # released before the text grows again
            buffer[:n] = view[self.start : self.start + n]
        self.start += n
        return n

    def rest(self) -> bytearray:
        """``text`` once all of ``data`` is decompressed."""
        while self.more():
            pass
        return self.text

    def more(self) -> bool:
        """Decompress one more piece into ``text``; ``False`` once all is."""
        if self._done:
            return False
        limit, total = self._limit, len(self.text)
        try:
            step = _STEP if limit is None else min(_STEP, limit - total + 1)
            piece = self._decoder.decompress(self._pending, step)
            if limit is not None and total + len(piece) > limit:
                raise CsvProblem(
                    "too_large",
                    f"the file decompresses to more than {megabytes(limit)}, the size limit; "
                    "submit fewer or shorter rows",
                )
            self.text += piece
            self._pending = self._decoder.unconsumed_tail
            if self._decoder.eof:
                rest = self._decoder.unused_data
                if rest.startswith(GZIP_MAGIC):  # a further gzip member
                    self._decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    self._pending = rest
                elif rest.strip(b"\0"):
                    raise CsvProblem(
                        "bad_gzip",
                        f"the gzip file is followed by {len(rest)} bytes that are not gzip",
                    )
                else:
                    self._done = True
            elif not piece and not self._pending:
                raise CsvProblem(
                    "bad_gzip", "the gzip file is truncated (it ends in the middle of its data)"
                )
        except zlib.error as exc:
            raise CsvProblem(
                "bad_gzip", f"the file starts like gzip but is not valid gzip: {exc}"
            ) from None
        return True


def _line_of(body: Text, offset: int) -> int:
    """The 1-based line of byte ``offset`` (line breaks: \\n, \\r\\n and \\r)."""
    head = body[:offset]
    return head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n") + 1


def text_body(data: Text) -> Text:
    """``data`` without a UTF-8 byte-order mark, after checking that it is UTF-8 text.

    >>> text_body(b"\\xef\\xbb\\xbfid,target\\n")
    b'id,target\\n'
    >>> text_body(b"id,target\\n1,\\xff\\n")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ladderboard.files._csv.CsvProblem: the file is not UTF-8 text: byte 0xff on line 2 ...
    """
    body = data[len(BOM) :] if data.startswith(BOM) else data
    if not body.isascii():
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CsvProblem(
                "not_utf8",
                f"the file is not UTF-8 text: byte 0x{body[exc.start]:02x} on line "
                f"{_line_of(body, exc.start)} cannot be decoded; save the file as UTF-8",
            ) from None
    return body


# ------------------------------------------------------------------------ header
class Header:
    """The names of the header line, where it is, and where the rows start.

    ``names`` are stripped of surrounding whitespace; ``line`` is the header's
    1-based line; ``end`` the byte offset just past its line break.
    """

    __slots__ = ("end", "line", "names")

    def __init__(self, names: list[str], line: int, end: int) -> None:
        self.names, self.line, self.end = names, line, end

    def duplicates(self) -> list[str]:
        """Names that appear more than once, each listed once, in header order.

        One count of all names (linear in their number): a header of tens of
        thousands of columns is checked as fast as it is read.

        >>> Header(["b", "a", "b", "c", "a", "b"], 1, 0).duplicates()
        ['b', 'a']
        """
        counts = Counter(self.names)
        return [name for name, count in counts.items() if count > 1]


def _header_span(body: Text) -> tuple[int, int]:
    """Where the header line (the first non-blank one) starts and ends, its
    line break left out; raise ``empty`` when the file has no text at all."""
    first = _NOT_BLANK.search(body)
    if first is None:
        raise CsvProblem("empty", "the file is empty")
    start = body.rfind(b"\n", 0, first.start()) + 1
    start = max(start, body.rfind(b"\r", 0, first.start()) + 1)
    end = len(body)
    for sep in (b"\n", b"\r"):
        at = body.find(sep, start)
        if at != -1:
            end = min(end, at)
    return start, end


def header_width(body: Text) -> int:
    """The number of fields of the header line, counted without reading them
    when it has no quotes (one byte count, however wide the header).

    >>> header_width(b"\\nid,target,x\\n1,2,3\\n"), header_width(b'id,"a,b"\\n')
    (3, 2)
    """
    start, end = _header_span(body)
    if body.find(b'"', start, end) == -1:
        return body.count(b",", start, end) + 1
    return len(split_header(body).names)


def split_header(body: Text) -> Header:
    """The header of ``body``; raise ``empty`` when the file has no text at all.

    >>> h = split_header(b"\\n id , target\\r\\n1,0.5\\n")
    >>> h.names, h.line, h.end
    (['id', 'target'], 2, 15)
    """
    start, end = _header_span(body)
    line_text = body[start:end].decode("utf-8")
    try:
        names = next(csv.reader([line_text]))
    except csv.Error as exc:
        raise CsvProblem(
            "bad_csv", f"the header (line {_line_of(body, start)}) is not CSV: {exc}"
        ) from None
    stop = end + 2 if body[end : end + 2] == b"\r\n" else end + 1
    return Header([name.strip() for name in names], _line_of(body, start), min(stop, len(body)))


# -------------------------------------------------------------------------- rows
_THREADED_BYTES = 4 << 20


def read_table(body: Text, header: Header, types: dict[str, pa.DataType]) -> pa.Table:
    """The rows after ``header`` as a table of ``types`` (pyarrow errors propagate).

    Cells are never null: an empty cell in a float column is a conversion error.
    """
    rows = pa.py_buffer(body)[header.end :]
    # pyarrow parses 1 MiB blocks on its own threads. A file of a few blocks
    # gains little from them, and they compete with the file's hashing and
    # compression on another thread and with other requests
    # (benchmarks/bench_parse.py).
    threads = rows.size > _THREADED_BYTES
    return pv.read_csv(
        pa.BufferReader(rows),
        read_options=pv.ReadOptions(column_names=header.names, use_threads=threads),
        # text_body has checked the whole file
        convert_options=convert_options(types, check_utf8=False),
    )


def convert_options(types: dict[str, pa.DataType], *, check_utf8: bool) -> pv.ConvertOptions:
    """pyarrow's conversion of the rows to ``types``: no cell is ever null (an
    empty cell in a float column is a conversion error)."""
    return pv.ConvertOptions(
        column_types=types,
        null_values=[],
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
        check_utf8=check_utf8,
    )


def has_rows(body: Text, header: Header) -> bool:
    return _NOT_BLANK.search(body, header.end) is not None


def scan_rows(body: Text, header: Header) -> Iterator[tuple[int, list[str]]]:
    """``(line, fields)`` of every non-blank row after the header, read by Python's csv."""
    text = body[header.end :].decode("utf-8")
    reader = csv.reader(io.StringIO(text, newline=""))
    before = 0
    for row in reader:
        line = header.line + 1 + before
        before = reader.line_num
        if row:
            yield line, row


def line_numbers(body: Text, header: Header, rows: Iterable[int]) -> dict[int, int]:
    """The file line of each 0-based data row index in ``rows``."""
    wanted = set(rows)
    found: dict[int, int] = {}
    if not wanted:
        return found
    last = max(wanted)
    try:
        for index, (line, _) in enumerate(scan_rows(body, header)):
            if index in wanted:
                found[index] = line
            if index >= last:
                break
    except csv.Error:
        pass
    return found


def parse_number(cell: str) -> float | None:
    """The float a numeric cell holds (nan and inf included), or ``None``.

    >>> parse_number(" 1e-3 "), parse_number("NaN"), parse_number("1_0"), parse_number("")
    (0.001, nan, None, None)
    """
    match = _NUMBER.fullmatch(cell.strip(" \t"))
    if match is None:
        return None
    if match.group(1) is not None:  # nan / inf, spelt any way pyarrow accepts
        word = match.group(1).lower()
        sign = -1.0 if match.group(0).startswith("-") else 1.0
        return float("nan") if word.startswith("nan") else sign * float("inf")
    return float(match.group(0))


def diagnose(
    body: Text, header: Header, numeric: Sequence[str], id_column: str
) -> CsvProblem | None:
    """Why pyarrow refused the rows: the first rows with the wrong number of fields,
    else the first non-numbers in ``numeric`` columns; ``None`` if Python finds neither."""
    width = len(header.names)
    columns = [header.names.index(name) for name in numeric]
    id_at = header.names.index(id_column)
    ragged: list[tuple[int, int]] = []
    n_ragged = 0
    bad: dict[int, list[tuple[str, str, int]]] = {c: [] for c in columns}
    n_bad = dict.fromkeys(columns, 0)
    try:
        for line, row in scan_rows(body, header):
            if len(row) != width:
                n_ragged += 1
                if len(ragged) < _EXAMPLES:
                    ragged.append((line, len(row)))
                continue
            for c in columns:
                if parse_number(row[c]) is None:
                    n_bad[c] += 1
                    if len(bad[c]) < _EXAMPLES:
                        bad[c].append((row[c], row[id_at], line))
    except csv.Error as exc:
        return CsvProblem("bad_csv", f"the file is not valid CSV: {exc}")
    if n_ragged:
        shown = [f"line {line} has {plural(k, 'field')}" for line, k in ragged]
        return CsvProblem(
            "bad_csv",
            f"{plural(n_ragged, 'row')} {'does' if n_ragged == 1 else 'do'} not have the "
            f"header's {width} fields ({', '.join(header.names)}){examples(shown, n_ragged)}",
        )
    for c in columns:
        if n_bad[c]:
            shown = [f"{show(cell)} (id {show(id_)}, line {line})" for cell, id_, line in bad[c]]
            return CsvProblem(
                "not_a_number",
                f"column {show(header.names[c])} has {plural(n_bad[c], 'value')} that "
                f"{'is' if n_bad[c] == 1 else 'are'} not a number{examples(shown, n_bad[c])}",
            )
    return None


# -------------------------------------------------------------------- messages
def show(value: object, width: int = 40) -> str:
    """``repr`` of a value for a message, shortened past ``width`` characters.

    >>> show("17"), show("x" * 50)
    ("'17'", "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...")
    """
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def examples(items: Sequence[str], total: int) -> str:
    """The tail of a message listing the first few of ``total`` items.

    >>> examples(["'a'"], 1), examples(["'a'", "'b'", "'c'"], 5)
    (": 'a'", ", e.g. 'a', 'b', 'c', ...")
    """
    listed = ", ".join(items[:_EXAMPLES]) + (", ..." if total > _EXAMPLES else "")
    return f": {listed}" if total == 1 else f", e.g. {listed}"


def listed(names: Sequence[str], most: int = 10) -> str:
    """Names for a message, quoted, at most ``most`` of them.

    >>> listed(["id", "target"]), listed([str(i) for i in range(12)], most=2)
    ("'id', 'target'", "'0', '1', ... (12 columns)")
    """
    shown = ", ".join(show(n) for n in names[:most])
    return shown if len(names) <= most else f"{shown}, ... ({len(names)} columns)"


def plural(k: int, noun: str) -> str:
    """``1 row``, ``2 rows``."""
    return f"{k} {noun}" if k == 1 else f"{k} {noun}s"
