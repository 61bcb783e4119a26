"""The HTTP client of a ladderboard server (:class:`Client`) and the rich
tables the ``ladderboard`` client verbs print of its answers."""

from ladderboard.client.http import DEFAULT_SERVER, Client, ServerError, parse_params
from ladderboard.client.tables import (
    board_table,
    competition_table,
    submission_table,
    submissions_table,
)

__all__ = [
    "DEFAULT_SERVER",
    "Client",
    "ServerError",
    "board_table",
    "competition_table",
    "parse_params",
    "submission_table",
    "submissions_table",
]
