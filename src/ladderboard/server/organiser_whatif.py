"""The desk's "What if" form: the competition's submissions scored again
under another mechanism (or score), shown beside the live board, for the
organiser alone (``ladderboard rescore`` and ``POST .../rescore`` give the
same board).

Nothing is stored: the live board, its releases and what the teams see stay
as they are. It costs what the audit costs, every stored file read and
scored again (:func:`ladderboard.engine.audit.what_if`); the route is a plain
``def``, run in the threadpool, and asks for the session's CSRF value like
every desk form, so that no link can make a browser start one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse

from ladderboard.engine import Competitions
from ladderboard.engine.audit import Compared, WhatIf, what_if
from ladderboard.mechanisms import COMPETITION_MECHANISMS
from ladderboard.server.api.shared import json_object
from ladderboard.server.deps import CompetitionsDep, SettingsDep
from ladderboard.server.organiser_desk import desk, refused
from ladderboard.server.organiser_forms import invalid, whole_number
from ladderboard.server.organiser_session import check_form
from ladderboard.server.rendering import REFUSALS

__all__ = ["WhatIfRow", "rank_change", "router"]

router = APIRouter(include_in_schema=False)

BOARDS = ("public", "private")
MODES = ("per-team", "per-rank")


def rank_change(moved: int | None) -> str:
    """A what-if row's move from the team's live rank, in words.

    >>> rank_change(2), rank_change(-1), rank_change(0), rank_change(None)
    ('up 2', 'down 1', 'same', 'not on the live board')
    """
    if moved is None:
        return "not on the live board"
    if moved == 0:
        return "same"
    return f"up {moved}" if moved > 0 else f"down {-moved}"


@dataclass(frozen=True)
class WhatIfRow:
    """A row of the what-if board, with the team's live score and move."""

    rank: int
    team: str
    score: float
    live_score: float | None
    change: str

    @classmethod
    def of(cls, compared: Compared) -> WhatIfRow:
        live = None if compared.live is None else compared.live.score
        row = compared.row
        return cls(row.rank, row.team, row.score, live, rank_change(compared.moved))


def _run(
    competitions: Competitions, slug: str, values: dict[str, str]
) -> tuple[WhatIf, list[WhatIfRow]]:
    """The what-if board the form's ``values`` ask for, and its rows."""
    mechanism = values["mechanism"]
    if mechanism not in COMPETITION_MECHANISMS:
        raise invalid(f"choose a mechanism a competition can run, not {mechanism!r}")
    if values["board"] not in BOARDS or values["mode"] not in MODES:
        raise invalid("choose the board (public or private) and the mode (per team or per rank)")
    ranks = whole_number("Ranks", values["ranks"], default=None)
    try:
        board = what_if(
            competitions,
            slug,
            mechanism=mechanism,
            mechanism_params=json_object("the mechanism's parameters", values["mechanism_params"]),
            board=values["board"],
            mode=values["mode"],
            ranks=ranks,
            score=values["score"].strip() or None,
        )
    except (TypeError, ValueError) as exc:
        raise invalid(str(exc)) from None
    return board, [WhatIfRow.of(c) for c in board.compared()]


@router.post("/organiser/c/{slug}/whatif", response_class=HTMLResponse)
def rescore_form(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    mechanism: Annotated[str, Form()] = "",
    mechanism_params: Annotated[str, Form()] = "",
    board: Annotated[str, Form()] = "public",
    mode: Annotated[str, Form()] = "per-team",
    ranks: Annotated[str, Form()] = "",
    score: Annotated[str, Form()] = "",
) -> HTMLResponse:
    values = {
        "mechanism": mechanism,
        "mechanism_params": mechanism_params,
        "board": board,
        "mode": mode,
        "ranks": ranks,
        "score": score,
    }
    try:
        check_form(request, competitions, settings, csrf)
        info = competitions.competition(slug)
        result, rows = _run(competitions, slug, values)
    except REFUSALS as exc:
        return refused(request, competitions, settings, slug, exc, whatif_values=values)
    shown = {"result": result, "rows": rows, "values": values}
    return desk(request, competitions, settings, info, whatif=shown, whatif_values=values)
