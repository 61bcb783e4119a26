"""Rich tables of the REST API's answers, for the ``ladderboard`` client verbs.

Each function takes the JSON the server returned (see :class:`ladderboard.client.Client`).

>>> from rich.console import Console
>>> console = Console(width=60)
>>> console.print(board_table({"slug": "demo", "board": "public", "closed": False,
...     "rows": [{"rank": 1, "team": "alpha", "score": 0.25, "entries": 3,
...               "last_submission": "2026-01-02T03:04:05Z"}]}))
              demo: public board (open)
┏━━━━━━┳━━━━━━━┳━━━━━━━━━┳━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━┓
┃ rank ┃ team  ┃   score ┃ entries ┃ last submission     ┃
┡━━━━━━╇━━━━━━━╇━━━━━━━━━╇━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━┩
│    1 │ alpha │ 0.25000 │       3 │ 2026-01-02 03:04:05 │
└──────┴───────┴─────────┴─────────┴─────────────────────┘
"""

from __future__ import annotations

from typing import Any

from rich.table import Table

__all__ = ["board_table", "competition_table", "submission_table", "submissions_table"]


def _when(value: str | None) -> str:
    """An ISO timestamp, to the second, without its zone."""
    if not value:
        return ""
    return value.replace("T", " ")[:19]


def _score(value: float | None) -> str:
    return "" if value is None else f"{value:.5f}"


def board_table(board: dict[str, Any]) -> Table:
    state = "closed" if board["closed"] else "open"
    table = Table(title=f"{board['slug']}: {board['board']} board ({state})")
    table.add_column("rank", justify="right")
    table.add_column("team")
    table.add_column("score", justify="right")
    table.add_column("entries", justify="right")
    table.add_column("last submission")
    for row in board["rows"]:
        table.add_row(
            str(row["rank"]),
            row["team"],
            _score(row["score"]),
            str(row["entries"]),
            _when(row["last_submission"]),
        )
    return table


def submission_table(slug: str, result: dict[str, Any]) -> Table:
    table = Table(title=f"{slug}: submission {result['id']}")
    table.add_column("public score", justify="right")
    table.add_column("status")
    table.add_column("left today", justify="right")
    left = result["remaining_today"]
    table.add_row(
        _score(result["public_score"]), result["status"], "no limit" if left is None else str(left)
    )
    return table


def submissions_table(slug: str, rows: list[dict[str, Any]]) -> Table:
    table = Table(title=f"{slug}: your submissions")
    table.add_column("id", justify="right")
    table.add_column("when")
    table.add_column("message")
    table.add_column("public", justify="right")
    table.add_column("private", justify="right")
    table.add_column("selected")
    for row in rows:
        table.add_row(
            str(row["id"]),
            _when(row["created_at"]),
            row["message"],
            _score(row["public_score"]),
            _score(row["private_score"]),
            "yes" if row["selected"] else "",
        )
    return table


def competition_table(info: dict[str, Any]) -> Table:
    table = Table(title=f"competition {info['slug']}", show_header=False)
    table.add_column("field")
    table.add_column("value")
    for name in ("title", "score", "mechanism", "board", "daily_quota", "n_public", "n_private"):
        table.add_row(name, str(info[name]))
    if info["mechanism_params"]:
        table.add_row("mechanism_params", str(info["mechanism_params"]))
    table.add_row("commitment", info["commitment"])
    return table
