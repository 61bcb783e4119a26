"""The boards: the public one, and the private one (the organiser's preview
before it is published, everyone's after), as JSON or CSV; and the
organiser's what-if boards, rescored under another mechanism or score."""

from __future__ import annotations

import csv
import hashlib
import io
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from ladderboard.engine.audit import what_if
from ladderboard.engine.kept_board import KeptBoard
from ladderboard.rules.text import check_json
from ladderboard.server.api.shared import errors, invalid
from ladderboard.server.deps import CallerDep, Competition, CompetitionsDep, OrganiserDep, no_store
from ladderboard.server.errors import ApiError
from ladderboard.server.schemas import (
    LateBoardOut,
    LateBoardRowOut,
    LeaderboardOut,
    RescoreIn,
    RescoreOut,
    RescoreRowOut,
)

__all__ = ["router", "spreadsheet_cell"]

router = APIRouter()

Board = Literal["public", "private", "participants"]
"""The boards: ``participants`` is the public board as participants see it
(the frozen board during a freeze), which the organiser asks for beside the
live one."""


def _organises(competitions, who, competition) -> bool:
    """Whether the caller organises the competition, in any role: the
    private board before its publication and the live board during a
    freeze are every organiser's reads."""
    return who.role(competitions, competition.slug) is not None


def _kept_board(competitions, who, competition, board: str):
    """The board as the engine keeps it (:meth:`Competitions.kept_board`),
    if the caller may see it."""
    organiser = _organises(competitions, who, competition)
    if board == "participants":
        return competitions.kept_board(competition.slug, "public")
    if board == "private" and not competition.is_published() and not organiser:
        raise ApiError(
            403,
            "private_board",
            "the private board is shown once the organiser publishes it after the close",
        )
    return competitions.kept_board(competition.slug, board, organiser=organiser)


def _board_rows(competitions, who, competition, board: str):
    """The board's rows, each at its rank, if the caller may see them."""
    kept = _kept_board(competitions, who, competition, board)
    return kept.rows if isinstance(kept, KeptBoard) else kept


@router.get(
    "/competitions/{slug}/leaderboard",
    responses=errors(401, 403, 404, 422, 429),
    response_model=LeaderboardOut,
    summary="The public board, or the private one (the organiser's preview, all once published)",
)
def leaderboard(
    request: Request,
    competitions: CompetitionsDep,
    who: CallerDep,
    competition: Competition,
    board: Annotated[Board, Query()] = "public",
) -> Response:
    shown = _kept_board(competitions, who, competition, board)
    # The envelope is small and changes with the time (``closed``); the rows,
    # serialised once per board the engine keeps, go in its empty list, the
    # last field: the envelope ends with '[]}'.
    frozen = board == "participants" or (
        board == "public" and not _organises(competitions, who, competition)
    )
    envelope = LeaderboardOut(
        slug=competition.slug,
        board=board,
        closed=competition.is_closed(),
        frozen_since=competition.frozen_since() if frozen else None,
        decimals=competitions.decimals(competition),
        rows=[],
    ).model_dump_json()
    kept = request.app.state.board_json
    # A client that polls the board sends back the ETag it was given and is
    # answered 304, without the body, while the board stays the same.
    tag = hashlib.blake2b(f"{envelope}{kept.digest(shown)}".encode(), digest_size=16).hexdigest()
    headers = {
        "ETag": f'"{tag}"',
        # The private board before it is published is the organiser's alone.
        "Cache-Control": "no-cache" if board == "public" else "private, no-cache",
    }
    if _matches(request.headers.get("if-none-match"), tag):
        return Response(status_code=304, headers=headers)
    body = envelope[:-3].encode() + kept.rows(shown) + b"}"
    return Response(body, media_type="application/json", headers=headers)


@router.get(
    "/competitions/{slug}/late-board",
    responses=errors(404, 422, 429),
    response_model=LateBoardOut,
    summary="The late board: files sent after the publication, never in the final ranking",
)
def late_board(competitions: CompetitionsDep, competition: Competition) -> LateBoardOut:
    rows = competitions.late_board(competition.slug)
    return LateBoardOut(
        slug=competition.slug,
        decimals=competition.config.precision,
        rows=[LateBoardRowOut(**row.__dict__) for row in rows],
    )


def _matches(if_none_match: str | None, tag: str) -> bool:
    """Whether an ``If-None-Match`` header names the entity tag ``tag``
    (weak or strong, as the weak comparison of RFC 9110 §13.1.2 does).

    >>> _matches('W/"ab", "cd"', "cd"), _matches("*", "cd"), _matches(None, "cd")
    (True, True, False)
    """
    if if_none_match is None:
        return False
    if if_none_match.strip() == "*":
        return True
    return any(
        candidate.strip().removeprefix("W/") == f'"{tag}"' for candidate in if_none_match.split(",")
    )


def spreadsheet_cell(text: str) -> str:
    """A team's name made inert for spreadsheets (no formula from ``=``, ``+``, ``-``, ``@``).

    >>> spreadsheet_cell("=HYPERLINK(1)"), spreadsheet_cell("alpha")
    ("'=HYPERLINK(1)", 'alpha')
    """
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@router.get(
    "/competitions/{slug}/leaderboard.csv",
    response_class=Response,
    responses={
        200: {"content": {"text/csv": {}}, "description": "The board as CSV."},
        **errors(401, 403, 404, 422, 429),
    },
    summary="The board as CSV",
)
def leaderboard_csv(
    competitions: CompetitionsDep,
    who: CallerDep,
    competition: Competition,
    board: Annotated[Board, Query()] = "public",
) -> Response:
    rows = _board_rows(competitions, who, competition, board)
    decimals = competitions.decimals(competition)  # as the board's pages show the scores
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["rank", "team", "score", "entries", "last_submission"])
    for row in rows:
        last = "" if row.last_submission is None else row.last_submission.isoformat()
        score = f"{row.score:.{decimals}f}"
        writer.writerow([row.rank, spreadsheet_cell(row.team), score, row.entries, last])
    filename = f"{competition.slug}-{board}.csv"
    return Response(
        out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@router.post(
    "/competitions/{slug}/rescore",
    responses=errors(401, 403, 404, 422, 429),
    response_model=RescoreOut,
    summary="A what-if board: the submissions scored again under another mechanism (organiser)",
)
def rescore(
    competitions: CompetitionsDep,
    _: OrganiserDep,
    competition: Competition,
    body: RescoreIn,
    response: Response,
) -> RescoreOut:
    """The board the competition would show under another mechanism (or
    score), for the organiser alone: nothing is stored, no board or cache
    changes, and the answer is marked for no cache to keep. The
    configuration is checked as a creation checks it (422 with the same
    message).

    It costs what the audit costs: every stored file of the competition is
    read, parsed and scored again (:func:`ladderboard.engine.audit.what_if`),
    in the threadpool (a plain ``def`` route), never on the event loop."""
    no_store(response)
    try:
        check_json("mechanism_params", body.mechanism_params)
        check_json("score_params", body.score_params)
        board = what_if(competitions, competition.slug, **body.model_dump())
    except (TypeError, ValueError) as exc:
        raise invalid(str(exc)) from None
    return RescoreOut(
        slug=competition.slug,
        board=body.board,
        mode=body.mode,
        mechanism=board.config.mechanism,
        mechanism_params=dict(board.config.mechanism_params),
        score=board.config.score,
        decimals=board.decimals,
        live_decimals=board.live_decimals,
        rows=[RescoreRowOut.compared(c) for c in board.compared()],
    )
