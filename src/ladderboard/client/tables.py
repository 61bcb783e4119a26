"""Rich tables of the REST API's answers, for the ``ladderboard`` client verbs.

Each function takes the JSON the server returned (see :class:`ladderboard.client.Client`).
Text that teams or the organiser chose (names, messages, titles) is shown as
plain text, never read as rich markup: a team named ``[/]`` must not break
the board, nor one named ``[blink]`` restyle it.

>>> from rich.console import Console
>>> console = Console(width=60)
>>> console.print(board_table({"slug": "demo", "board": "public", "closed": False,
...     "decimals": 3, "rows": [{"rank": 1, "team": "alpha", "score": 0.25, "entries": 3,
...               "last_submission": "2026-01-02T03:04:05Z"}]}))
              demo: public board (open)
┏━━━━━━┳━━━━━━━┳━━━━━━━┳━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━┓
┃ rank ┃ team  ┃ score ┃ entries ┃ last submission     ┃
┡━━━━━━╇━━━━━━━╇━━━━━━━╇━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━┩
│    1 │ alpha │ 0.250 │       3 │ 2026-01-02 03:04:05 │
└──────┴───────┴───────┴─────────┴─────────────────────┘
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

__all__ = [
    "board_table",
    "competition_table",
    "competitions_table",
    "files_table",
    "flags_table",
    "identities_table",
    "look_alikes_table",
    "number",
    "one_line",
    "organisers_table",
    "rejections_table",
    "rescore_table",
    "status_table",
    "submission_table",
    "submissions_table",
    "teams_table",
    "tokens_table",
]


def number(submission: dict[str, Any]) -> int:
    """A submission's number among its team's own (1, 2, ...), as the server
    names it (``number``; a server from before that name sends ``id``)."""
    return int(submission["number"] if "number" in submission else submission["id"])


def one_line(value: object) -> str:
    """``value`` as one printable line: each run of whitespace one space, any
    other control character escaped (a terminal would obey it).

    >>> one_line("two\\nlines and \\x1b[31m red")
    'two lines and \\\\x1b[31m red'
    """
    text = " ".join(str(value).split())
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def _plain(value: object) -> Text:
    """A cell shown as it is: no markup, no control codes."""
    return Text(one_line(value))


def _when(value: str | None) -> str:
    """An ISO timestamp, to the second, without its zone."""
    if not value:
        return ""
    return value.replace("T", " ")[:19]


_DECIMALS = 5  # a server that does not say how many decimals its scores carry


def _score(value: float | None, decimals: int | None) -> str:
    """A release with the decimals the server's pages show it with (the
    mechanism's, :func:`ladderboard.rules.explain.display_decimals`), so
    that a table and the sentence beside it never print it differently."""
    if value is None:
        return ""
    return f"{value:.{_DECIMALS if decimals is None else decimals}f}"


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
            _plain(row["team"]),
            _score(row["score"], board.get("decimals")),
            str(row["entries"]),
            _when(row["last_submission"]),
        )
    return table


def _moved(places: int | None) -> str:
    """A what-if row's move from the team's live rank, in words.

    >>> _moved(2), _moved(-1), _moved(0), _moved(None)
    ('up 2', 'down 1', 'same', 'not on the live board')
    """
    if places is None:
        return "not on the live board"
    if places == 0:
        return "same"
    return f"up {places}" if places > 0 else f"down {-places}"


def rescore_table(what_if: dict[str, Any]) -> Table:
    """The organiser's what-if board beside the live one: each row with the
    team's live score and how its rank moves (``POST .../rescore``)."""
    params = ", ".join(f"{k}={v}" for k, v in sorted(what_if["mechanism_params"].items()))
    table = Table(
        title=f"{what_if['slug']}: what if {what_if['mechanism']}"
        + (f" ({params})" if params else "")
        + f", {what_if['score']}, {what_if['mode']}: {what_if['board']} board"
    )
    table.add_column("rank", justify="right")
    table.add_column("team")
    table.add_column("what-if score", justify="right")
    table.add_column("live score", justify="right")
    table.add_column("rank change")
    for row in what_if["rows"]:
        live = row["live_score"]
        table.add_row(
            str(row["rank"]),
            _plain(row["team"]),
            _score(row["score"], what_if.get("decimals")),
            "" if live is None else _score(live, what_if.get("live_decimals")),
            _moved(row["moved"]),
        )
    return table


def _limit(value: int | None) -> str:
    return "no limit" if value is None else str(value)


def _score_header(row: dict[str, Any]) -> str:
    """The column of a release: a file's own score under full disclosure, the
    team's board score after the file on a ladder (``score_of``)."""
    return "file's public score" if row.get("score_of") == "file" else "board score after file"


def submission_table(slug: str, result: dict[str, Any]) -> Table:
    table = Table(title=f"{slug}: submission {result['id']}")
    table.add_column("submission", justify="right")
    table.add_column(_score_header(result), justify="right")
    table.add_column("before", justify="right")
    table.add_column("status")
    table.add_column("left today", justify="right")
    table.add_row(
        str(number(result)),
        _score(result["public_score"], result.get("decimals")),
        _score(result.get("previous_score"), result.get("decimals")),
        result["status"],
        _limit(result["remaining_today"]),
    )
    return table


def submissions_table(slug: str, rows: list[dict[str, Any]], decimals: int | None = None) -> Table:
    """The team's submissions, their scores with the competition's ``decimals``."""
    table = Table(title=f"{slug}: your submissions")
    table.add_column("number", justify="right")
    table.add_column("when")
    table.add_column("message")
    table.add_column(_score_header(rows[0]) if rows else "public", justify="right")
    table.add_column("private", justify="right")
    table.add_column("selected")
    table.add_column("final")
    table.add_column("held best")
    # Only a competition whose solution was corrected has scores to mark.
    corrected = any(row.get("corrected") for row in rows)
    if corrected:
        table.add_column("corrected")
    for row in rows:
        best = row.get("best")
        cells: list[str | Text] = [
            str(number(row)),
            _when(row["created_at"]),
            _plain(row["message"]),
            _score(row["public_score"], decimals),
            _score(row["private_score"], decimals),
            "yes" if row["selected"] else "",
            "yes" if row.get("final") else "",
            "" if best is None else "yes" if best else "no",
        ]
        if corrected:
            cells.append("yes" if row.get("corrected") else "")
        table.add_row(*cells)
    return table


def correction_table(slug: str, correction: dict[str, Any]) -> Table:
    """A correction of the competition's solution."""
    table = Table(title=f"{slug}: solution corrected", show_header=False)
    table.add_column("field")
    table.add_column("value")
    table.add_row("correction", str(correction["number"]))
    table.add_row("at", _when(correction["at"]))
    table.add_row("reason", _plain(correction["reason"]))
    table.add_row("old commitment", correction["old_commitment"])
    table.add_row("new commitment", correction["new_commitment"])
    if correction.get("changed") is not None:
        table.add_row("scores changed", str(correction["changed"]))
    return table


def _state(info: dict[str, Any]) -> str:
    return "published" if info.get("published") else "closed" if info.get("closed") else "open"


def competitions_table(competitions: list[dict[str, Any]]) -> Table:
    """The server's competitions, one a row."""
    table = Table(title="competitions")
    table.add_column("slug", no_wrap=True)
    table.add_column("title")
    table.add_column("score")
    table.add_column("mechanism")
    table.add_column("state")
    table.add_column("deadline")
    for info in competitions:
        table.add_row(
            _plain(info["slug"]),
            _plain(info["title"]),
            _plain(info["score"]),
            _plain(info["mechanism"]),
            _state(info),
            _when(info.get("deadline")) or "none",
        )
    return table


def competition_table(info: dict[str, Any]) -> Table:
    table = Table(title=f"competition {info['slug']}", show_header=False)
    table.add_column("field")
    table.add_column("value")
    table.add_row("slug", _plain(info["slug"]))
    for name in ("title", "score", "mechanism", "board", "n_public", "n_private"):
        table.add_row(name, _plain(info[name]))
    for name in ("daily_quota", "total_quota", "invalid_quota"):
        if name in info:
            table.add_row(name, "none" if info[name] is None else str(info[name]))
    for name in ("n_selections", "max_bytes", "precision"):
        if name in info:
            table.add_row(name, str(info[name]))
    if info["mechanism_params"]:
        table.add_row("mechanism_params", _plain(info["mechanism_params"]))
    if info.get("board") == "per-rank":
        table.add_row("ranks", str(info["ranks"]))
    table.add_row("deadline", _when(info.get("deadline")) or "none")
    if info.get("auto_publish"):
        table.add_row("auto_publish", "at the deadline")
    if info.get("visibility", "public") != "public":
        table.add_row("visibility", info["visibility"])
    table.add_row("state", _state(info))
    table.add_row("commitment", info["commitment"])
    return table


def files_table(slug: str, files: list[dict[str, Any]]) -> Table:
    """The files participants download, with size and SHA-256."""
    table = Table(title=f"{slug}: files")
    table.add_column("name", no_wrap=True)
    table.add_column("bytes", justify="right")
    table.add_column("sha256", no_wrap=True)
    table.add_column("added", no_wrap=True)
    for entry in files:
        table.add_row(
            _plain(entry["name"]),
            str(entry["size"]),
            _plain(entry["sha256"]),
            _when(entry["created_at"])[:10],
        )
    return table


def organisers_table(slug: str, organisers: list[dict[str, Any]]) -> Table:
    """A competition's organisers, owners first."""
    table = Table(title=f"{slug}: organisers")
    for name in ("account", "role", "added", "by"):
        table.add_column(name, no_wrap=True)
    for entry in organisers:
        table.add_row(
            _plain(entry["handle"]),
            entry["role"],
            _when(entry["added_at"])[:16],
            _plain(entry["added_by"]),
        )
    return table


def identities_table(identities: list[dict[str, Any]]) -> Table:
    """The tokens ``ladderboard login`` stored, masked, server by server."""
    table = Table(title="stored tokens")
    for name in ("server", "whose", "competition", "team", "token"):
        table.add_column(name)
    for who in identities:
        whose = {"team": "a team", "organiser": "the organiser", "account": "your account"}.get(
            who["role"], "unknown"
        )
        table.add_row(
            _plain(who["server"] + (" (default)" if who["default"] else "")),
            whose,
            _plain(who["competition"] or ""),
            _plain(who["team"] or ""),
            who["token"],
        )
    return table


def account_tokens_table(tokens: list[dict[str, Any]]) -> Table:
    """An account's personal tokens (never their secrets)."""
    table = Table(title="personal tokens")
    for name in ("id", "label", "created", "last used", "revoked"):
        table.add_column(name, justify="right" if name == "id" else "left")
    for token in tokens:
        table.add_row(
            str(token["id"]),
            _plain(token["label"]),
            token["created_at"],
            token["last_used_at"] or "never",
            token["revoked_at"] or "",
        )
    return table


def teams_table(slug: str, teams: list[dict[str, Any]]) -> Table:
    """The organiser's desk: each team's activity."""
    table = Table(title=f"{slug}: teams")
    table.add_column("team")
    table.add_column("submissions", justify="right")
    table.add_column("last submission")
    table.add_column("invalid", justify="right")
    table.add_column("today", justify="right")
    table.add_column("flags", justify="right")
    table.add_column("disabled")
    for team in teams:
        table.add_row(
            _plain(team["name"]),
            str(team["submissions"]),
            _when(team["last_submission"]),
            str(team["invalid"]),
            str(team["used_today"]),
            str(team["flags"]) if team["flags"] else "",
            "disabled" if team["disabled"] else "",
        )
    return table


def tokens_table(slug: str, teams: list[dict[str, Any]]) -> Table:
    """New teams and their tokens, shown this once."""
    table = Table(title=f"{slug}: new teams (tokens shown once)")
    table.add_column("team")
    table.add_column("token", no_wrap=True)
    for team in teams:
        table.add_row(_plain(team["name"]), _plain(team["token"]))
    return table


def flags_table(slug: str, flags: list[dict[str, Any]]) -> Table:
    """Submissions identical to another team's earlier one."""
    table = Table(title=f"{slug}: duplicate submissions")
    table.add_column("team")
    table.add_column("submission", justify="right")
    table.add_column("repeats team")
    table.add_column("its submission", justify="right")
    for flag in flags:
        table.add_row(
            _plain(flag["team"]),
            str(flag["number"]),
            _plain(flag["earlier_team"]),
            str(flag["earlier_number"]),
        )
    return table


def look_alikes_table(slug: str, flags: list[dict[str, Any]]) -> Table:
    """Accounts that look like one person's: the rule, the accounts with
    their teams, and the evidence."""
    table = Table(title=f"{slug}: look-alike accounts")
    table.add_column("rule", no_wrap=True)
    table.add_column("accounts (team)")
    table.add_column("evidence")
    for flag in flags:
        accounts = ", ".join(
            f"{a['handle']} ({a['team'] if a['team'] is not None else 'no team'})"
            for a in flag["accounts"]
        )
        rule = flag["rule"] + (" (dismissed)" if flag.get("dismissed") else "")
        table.add_row(_plain(rule), _plain(accounts), _plain(flag["evidence"]))
    return table


def status_table(slug: str, status: dict[str, Any]) -> Table:
    """The team's rank and what is left of its quotas."""
    quota = status["quota"]
    table = Table(title=_plain(f"{slug}: team {status['name']}"), show_header=False)
    table.add_column("field")
    table.add_column("value")
    table.add_row("team", _plain(status["name"]))
    rank = status["rank"]
    table.add_row("public rank", "none yet" if rank is None else str(rank))
    table.add_row(
        "today", _used(quota["used_today"], quota["daily_quota"], quota["remaining_today"])
    )
    if quota["daily_quota"] is not None:
        table.add_row("resets at", _when(quota["resets_at"]) + " UTC")
    table.add_row("in all", _used(quota["used_total"], quota["total_quota"]))
    table.add_row("refused files", _used(quota["invalid"], quota["invalid_quota"]))
    return table


def _used(used: int, limit: int | None, left: int | None = None) -> str:
    """``2 of 5 used, 3 left``, or ``2 used, no limit``."""
    if limit is None and left is None:
        return f"{used} used, no limit"
    text = f"{used} used" if limit is None else f"{used} of {limit} used"
    return text if left is None else f"{text}, {left} left"


def rejections_table(slug: str, rejections: list[dict[str, Any]]) -> Table:
    """The team's refused files, newest first, with the reason."""
    table = Table(title=f"{slug}: refused files")
    table.add_column("when")
    table.add_column("file")
    table.add_column("reason")
    table.add_column("bytes", justify="right")
    for rejection in rejections:
        table.add_row(
            _when(rejection["created_at"]),
            _plain(rejection.get("filename") or "-"),
            _plain(f"{rejection['code']}: {rejection['message']}"),
            str(rejection["size"]),
        )
    return table
