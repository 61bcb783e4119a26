"""Formatting defects of the kind real submission files have, injected on purpose.

A small share of the simulated files is spoiled in one of these ways, and each
is recorded in ``defects.csv`` so that a reader's tolerance can be tested
against the truth. Some defects leave a file the engine accepts (a byte-order
mark, Windows line ends, gzip); the others make
:func:`~ladderboard.files.parse_submission` refuse it, and the team sees
no score for that submission.

==================  ==========================================================
``bom``             a UTF-8 byte-order mark before the header
``crlf``            ``\\r\\n`` line ends
``header_case``     the header in upper case (``ID,PURCHASE``)
``index_column``    an unnamed leading index column, as ``DataFrame.to_csv`` writes
``missing_rows``    one to five rows left out
``duplicate_id``    one row written twice
``nan_value``       one prediction written as ``nan``
``out_of_range``    one prediction written as ``1.0000001``
``semicolon``       ``;`` as the field separator
``empty``           a file of zero bytes
``gzip``            the file gzip-compressed (named ``.csv.gz``)
==================  ==========================================================
"""

from __future__ import annotations

import gzip
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


__all__ = ["DEFECTS", "inject_defect"]

DEFECTS = (
    "bom",
    "crlf",
    "header_case",
    "index_column",
    "missing_rows",
    "duplicate_id",
    "nan_value",
    "out_of_range",
    "semicolon",
    "empty",
    "gzip",
)
"""Every defect, by the name ``defects.csv`` gives it."""


def inject_defect(kind: str, header: str, rows: list[str], rng: np.random.Generator) -> bytes:
    """The file with ``header`` and ``rows`` (each ``"id,value"``), spoiled by ``kind``.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> inject_defect("header_case", "id,Purchase", ["1,0.5", "2,0.25"], rng)
    b'ID,PURCHASE\\n1,0.5\\n2,0.25\\n'
    >>> inject_defect("index_column", "id,Purchase", ["1,0.5"], rng)
    b',id,Purchase\\n0,1,0.5\\n'
    """
    rows = list(rows)
    pick = int(rng.integers(len(rows)))
    if kind == "header_case":
        header = header.upper()
    elif kind == "index_column":
        header = "," + header
        rows = [f"{i},{row}" for i, row in enumerate(rows)]
    elif kind == "missing_rows":
        drop = rng.choice(
            len(rows), size=min(int(rng.integers(1, 6)), len(rows) - 1), replace=False
        )
        rows = [row for i, row in enumerate(rows) if i not in set(drop.tolist())]
    elif kind == "duplicate_id":
        rows.insert(int(rng.integers(len(rows) + 1)), rows[pick])
    elif kind in ("nan_value", "out_of_range"):
        value = "nan" if kind == "nan_value" else "1.0000001"
        rows[pick] = rows[pick].rsplit(",", 1)[0] + "," + value
    elif kind == "semicolon":
        header, rows = header.replace(",", ";"), [row.replace(",", ";") for row in rows]
    elif kind == "empty":
        return b""
    elif kind not in ("bom", "crlf", "gzip"):
        raise ValueError(f"unknown defect {kind!r}; known defects: {', '.join(DEFECTS)}")
    end = "\r\n" if kind == "crlf" else "\n"
    data = (header + end + end.join(rows) + end).encode()
    if kind == "bom":
        return b"\xef\xbb\xbf" + data
    if kind == "gzip":
        return gzip.compress(data, compresslevel=6, mtime=0)
    return data
