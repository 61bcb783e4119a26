"""The HTTP client of a ladderboard server (:class:`Client`, over the
retrying connection of :mod:`ladderboard.client.transport`), the rich tables
the ``ladderboard`` client verbs print of its answers, and the verbs
themselves (:mod:`ladderboard.client.cli`, a module per help panel).

The names below load on first use: the ``ladderboard`` command imports
:mod:`ladderboard.client.cli` to list its verbs, and ``ladderboard --help``
should not wait for httpx2 and rich.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ladderboard.client.download import DownloadRefused, download_files
    from ladderboard.client.http import KEEP, Client, parse_params
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
    from ladderboard.client.transport import DEFAULT_SERVER, ServerError

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
    **dict.fromkeys(("KEEP", "Client", "parse_params"), "http"),
    **dict.fromkeys(("DEFAULT_SERVER", "ServerError"), "transport"),
}


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{_HOMES.get(name, 'tables')}")
    return getattr(module, name)
