"""The HTTP client of a ladderboard server (:class:`Client`), the rich
tables the ``ladderboard`` client verbs print of its answers, and the verbs
themselves (:mod:`ladderboard.client.cli`).

The names below load on first use: the ``ladderboard`` command imports
:mod:`ladderboard.client.cli` to list its verbs, and ``ladderboard --help``
should not wait for httpx and rich.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ladderboard.client.download import DownloadRefused, download_files
    from ladderboard.client.http import DEFAULT_SERVER, KEEP, Client, ServerError, parse_params
    from ladderboard.client.tables import (
        board_table,
        competition_table,
        competitions_table,
        files_table,
        flags_table,
        one_line,
        rejections_table,
        status_table,
        submission_table,
        submissions_table,
        teams_table,
        tokens_table,
    )

__all__ = [
    "DEFAULT_SERVER",
    "KEEP",
    "Client",
    "DownloadRefused",
    "ServerError",
    "board_table",
    "competition_table",
    "competitions_table",
    "download_files",
    "files_table",
    "flags_table",
    "one_line",
    "parse_params",
    "rejections_table",
    "status_table",
    "submission_table",
    "submissions_table",
    "teams_table",
    "tokens_table",
]

_HOMES = {
    "DownloadRefused": "download",
    "download_files": "download",
    **dict.fromkeys(("DEFAULT_SERVER", "KEEP", "Client", "ServerError", "parse_params"), "http"),
}


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{_HOMES.get(name, 'tables')}")
    return getattr(module, name)
