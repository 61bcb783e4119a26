"""The public web pages: the competitions, and each competition's Overview,
Data, Rules and Leaderboard tabs (the Submit and My team tabs are
:mod:`ladderboard.server.team_pages`; the organiser's pages are
:mod:`ladderboard.server.organiser_pages`).

Pages call the engine and show only what a participant may see: the
released public scores, the private board once the organiser publishes it,
data files but never the solution. Tokens never go into URLs. Every path
here answers a refusal, an unknown page (404), a method it does not take
(405) and a server error (500) with an HTML page (see
:mod:`ladderboard.server.errors`).

Pages are left out of the OpenAPI schema; ``/docs`` is Swagger UI served
from the app itself (see :mod:`ladderboard.server.docs`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import SQLAlchemyError

from ladderboard.engine import Competitions
from ladderboard.engine.kept_board import KeptBoard
from ladderboard.engine.results import CompetitionInfo
from ladderboard.mechanisms.traits import competition_cards
from ladderboard.rules.boards import BoardRow
from ladderboard.rules.text import name_key
from ladderboard.server import (
    account_pages,
    join_pages,
    organiser_pages,
    routes,
    team_members_pages,
    team_pages,
)
from ladderboard.server.account_session import session_account
from ladderboard.server.deps import CompetitionsDep, ViewerDep
from ladderboard.server.docs import install_docs
from ladderboard.server.rendering import (
    STATIC_DIR,
    competition_context,
    find,
    mechanism_summary,
    not_found,
    render,
    templates,
)
from ladderboard.server.visibility import listed, may_view

__all__ = ["BOARD_PAGE", "error_page", "install_pages", "router"]

router = APIRouter(include_in_schema=False)
BOARD_PAGE = 100  # teams on one page of a board

_TITLES = {
    404: "Not found",
    405: "Method not allowed",
    413: "Too large",
    429: "Too many requests",
    500: "Something went wrong",
}


def error_page(request: Request, status: int, message: str) -> Response:
    """A refusal as a page: its status, a title and the sentence the API gives."""
    title = _TITLES.get(status, "Refused")
    return render(request, "message.html", status, title=title, message=message)


def install_pages(app: FastAPI) -> None:
    """Mount the static files, the pages and the local ``/docs`` on ``app``,
    and answer refusals on pages' paths with HTML."""
    install_docs(app)  # before /static, whose mount would shadow /static/docs
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    for shared in (
        router,
        team_pages.router,
        team_members_pages.router,
        join_pages.router,
        organiser_pages.router,
        account_pages.router,
    ):
        routes.include(app, shared)
    app.state.error_page = error_page
    templates.env.globals["site_account"] = _site_account


def _site_account(request: Request) -> Any:
    """The account the site header names ("Sign in" without one): read only
    when the browser sends a session cookie. A store that cannot answer
    leaves the header at "Sign in", so that the page saying so still renders."""
    try:
        return session_account(request, request.app.state.competitions)
    except SQLAlchemyError:
        return None


def _page(
    request: Request,
    competitions: Competitions,
    info: CompetitionInfo,
    name: str,
    tab: str,
    status: int = 200,
    **extra: Any,
) -> HTMLResponse:
    team = team_pages.signed_in_team(request, competitions, info.slug)
    context = competition_context(competitions, info, tab, team.name if team else None)
    context.update(extra)
    return render(request, name, status, **context)


# ------------------------------------------------------------------ public
@router.get("/", response_class=HTMLResponse)
def index(request: Request, competitions: CompetitionsDep, who: ViewerDep) -> HTMLResponse:
    """The competitions the visitor may find here: the public ones, and those
    it takes part in (:func:`~ladderboard.server.visibility.listed`)."""
    shown = listed(competitions, who, competitions.competitions())
    return render(request, "index.html", competitions=shown)


@router.get("/how", response_class=HTMLResponse)
def how(
    request: Request,
    competitions: CompetitionsDep,
    competition: Annotated[str | None, Query(max_length=200)] = None,
) -> HTMLResponse:
    """How this leaderboard works: one section per mechanism a competition can
    run. ``?competition=SLUG``, the link on a competition's pages, puts that
    competition's mechanism first, with its board and settings, then the final
    ranking, then the other mechanisms; an unknown slug gets every mechanism
    and a note saying so."""
    info = find(request, competitions, competition) if competition else None
    return render(
        request,
        "how.html",
        cards=competition_cards(),
        competition=info,
        settings=mechanism_summary(info.config) if info else None,
        unknown=competition if competition and info is None else None,
    )


@router.get("/c/{slug}", response_class=HTMLResponse)
def overview(
    request: Request, competitions: CompetitionsDep, who: ViewerDep, slug: str
) -> HTMLResponse:
    info = find(request, competitions, slug)
    if info is None:
        return not_found(request, slug)
    id_column, target_columns = competitions.columns(slug)
    key = competitions.reveal_key(slug) if info.is_published() else None
    # The phases of its series the visitor may see (a private phase is
    # left out for those who take no part in it).
    series = competitions.phases(slug)
    phases = [p for p in series if may_view(competitions, who, p)]
    first_phase = series[0] if series[0] in phases else None
    last_phase = series[-1] if series[-1] in phases else None
    return _page(
        request,
        competitions,
        info,
        "competition.html",
        "overview",
        id_column=id_column,
        target_columns=target_columns,
        mechanism=mechanism_summary(info.config),
        key=key,
        audit=competitions.audit_publication(slug) if key else None,
        phases=phases if len(series) > 1 else [],
        first_phase=first_phase,
        last_phase=last_phase,
    )


@router.get("/c/{slug}/data", response_class=HTMLResponse)
def data(request: Request, competitions: CompetitionsDep, slug: str) -> HTMLResponse:
    info = find(request, competitions, slug)
    if info is None:
        return not_found(request, slug)
    id_column, target_columns = competitions.columns(slug)
    return _page(
        request,
        competitions,
        info,
        "data.html",
        "data",
        files=competitions.files(slug),
        id_column=id_column,
        target_columns=target_columns,
    )


@router.get("/c/{slug}/rules", response_class=HTMLResponse)
def rules(request: Request, competitions: CompetitionsDep, slug: str) -> HTMLResponse:
    info = find(request, competitions, slug)
    if info is None:
        return not_found(request, slug)
    return _page(
        request, competitions, info, "rules.html", "rules", changes=competitions.history(slug)
    )


# -------------------------------------------------------------- leaderboard
def _page_number(value: str | None, pages: int) -> int:
    """The page asked for, within ``1..pages`` (the first for anything else)."""
    try:
        number = int(value or 1)
    except ValueError:
        return 1
    return min(max(number, 1), pages)


def _find_team(rows: Sequence[BoardRow], name: str) -> int | None:
    """The index of the team ``name`` on the board: its exact name under
    case and Unicode folding, or else the first name that contains it."""
    wanted = name_key(name.strip())
    if not wanted:
        return None
    keys = [name_key(row.team) for row in rows]
    exact = next((i for i, key in enumerate(keys) if key == wanted), None)
    if exact is not None:
        return exact
    return next((i for i, key in enumerate(keys) if wanted in key), None)


@router.get("/c/{slug}/leaderboard", response_class=HTMLResponse)
def leaderboard(
    request: Request,
    competitions: CompetitionsDep,
    slug: str,
    board: Annotated[str | None, Query()] = None,
    page: Annotated[str | None, Query()] = None,
    team: Annotated[str | None, Query(max_length=200)] = None,
) -> HTMLResponse:
    """A board, :data:`BOARD_PAGE` teams a page; ``?team=NAME`` opens the
    page with that team and marks it, as does the team signed in here. The
    private board once published (and then by default), else the public one."""
    info = find(request, competitions, slug)
    if info is None:
        return not_found(request, slug)
    published = info.is_published()
    if board not in ("public", "private"):
        board = "private" if published else "public"
    kept = competitions.kept_board(slug, board) if board == "public" or published else ()
    # A kept board's rows in order, some at the rank they were put at: the
    # page ranks only its own rows (a submission moves many teams a rank).
    rows = kept.placed if isinstance(kept, KeptBoard) else kept

    def ranked(start: int, stop: int) -> tuple[BoardRow, ...]:
        return kept.ranked(start, stop) if isinstance(kept, KeptBoard) else kept[start:stop]

    signed_in = team_pages.signed_in_team(request, competitions, slug)
    found = _find_team(rows, team) if team else None
    mine = next((i for i, row in enumerate(rows) if signed_in and row.team == signed_in.name), None)
    pages = max(1, -(-len(rows) // BOARD_PAGE))
    focus = found if found is not None else mine
    number = (
        focus // BOARD_PAGE + 1 if page is None and focus is not None else _page_number(page, pages)
    )
    start = (number - 1) * BOARD_PAGE
    return _page(
        request,
        competitions,
        info,
        "leaderboard.html",
        "leaderboard",
        board=board,
        rows=ranked(start, start + BOARD_PAGE),
        total=len(rows),
        page=number,
        pages=pages,
        query=team or "",
        found=ranked(found, found + 1)[0] if found is not None else None,
        found_page=found // BOARD_PAGE + 1 if found is not None else None,
        mine=ranked(mine, mine + 1)[0] if mine is not None else None,
        mine_page=mine // BOARD_PAGE + 1 if mine is not None else None,
        public_ranks=_public_ranks(competitions, slug)
        if board == "private" and published
        else None,
    )


@router.get("/c/{slug}/late", response_class=HTMLResponse)
def late(request: Request, competitions: CompetitionsDep, slug: str) -> HTMLResponse:
    """The late board: files sent after the publication, never the final ranking."""
    info = find(request, competitions, slug)
    if info is None:
        return not_found(request, slug)
    rows = competitions.late_board(slug)
    return _page(request, competitions, info, "late.html", "leaderboard", rows=rows)


def _public_ranks(competitions: Competitions, slug: str) -> dict[str, int]:
    """Each team's rank on the public board, which no longer changes once the
    private board is published: the shake-up column's reference."""
    return {row.team: row.rank for row in competitions.leaderboard(slug, "public")}
