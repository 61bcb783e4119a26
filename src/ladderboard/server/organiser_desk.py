"""The organiser's desk, one page per competition (``/organiser/c/{slug}``).

What an organiser of Kaggle, Codabench or EvalAI runs a competition from:
the teams with their activity (sortable by each column, 50 a page), the
duplicate flags, teams added one at a time or imported from a CSV (their
tokens shown once, never stored in clear), teams disabled and enabled, the
title, overview and rules edited, data files uploaded, replaced and removed,
the deadline moved, and the competition closed, its private board previewed,
then published with the audit key. Closing and publishing each take a
confirmation page first: neither can be undone.

Every form posts with the session's CSRF value (:func:`check_form`); a
refusal leaves the competition as it was and says why in one sentence.
"""

from __future__ import annotations

import base64
import csv
import io
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse

from ladderboard.engine import Competitions
from ladderboard.engine.views import CompetitionInfo, TeamSummary
from ladderboard.server import api
from ladderboard.server.deps import CompetitionsDep, SettingsDep, hash_token
from ladderboard.server.organiser_forms import (
    DEFAULT_ZONE,
    deadline_in_utc,
    invalid,
    local_fields,
    team_names,
    time_zones,
)
from ladderboard.server.organiser_session import (
    check_form,
    organiser_page,
    sign_in_page,
    signed_in,
)
from ladderboard.server.rendering import REFUSALS, find, not_found, refusal
from ladderboard.server.settings import Settings

__all__ = ["PAGE_SIZE", "SORTS", "router"]

logger = logging.getLogger(__name__)
router = APIRouter(include_in_schema=False)

PAGE_SIZE = 50


@dataclass(frozen=True)
class Column:
    """A column of the teams table: its heading, the key it sorts by, and
    the direction a first click sorts it in."""

    heading: str
    key: Callable[[TeamSummary], Any]
    first: str = "desc"
    numeric: bool = True


SORTS: dict[str, Column] = {
    "team": Column("Team", lambda t: (t.name.casefold(), t.name), "asc", numeric=False),
    "submissions": Column("Submissions", lambda t: t.submissions),
    "last": Column(
        "Last submission",
        lambda t: (t.last_submission is not None, t.last_submission),
        numeric=False,
    ),
    "today": Column("Used today", lambda t: t.used_today),
    "invalid": Column("Invalid files", lambda t: t.invalid),
    "flags": Column("Duplicate flags", lambda t: t.flags),
    "state": Column("State", lambda t: t.disabled, numeric=False),
}
DEFAULT_SORT = ("team", "asc")


@dataclass(frozen=True)
class View:
    """Which slice of the teams table is shown."""

    sort: str = DEFAULT_SORT[0]
    dir: str = DEFAULT_SORT[1]
    page: int = 1

    @classmethod
    def of(cls, sort: str, dir: str, page: str) -> View:
        """The view the query asks for; what it gets wrong falls back to the default."""
        if sort not in SORTS:
            sort, dir = DEFAULT_SORT
        if dir not in ("asc", "desc"):
            dir = SORTS[sort].first
        number = int(page) if page.isdigit() and len(page) < 7 else 1
        return cls(sort, dir, max(1, number))

    def query(self, **changes: Any) -> str:
        values = {"sort": self.sort, "dir": self.dir, "page": self.page, **changes}
        return "?" + urlencode(values)

    def link(self, column: str) -> str:
        """The link of a column's heading: the other direction when the table
        is sorted by it, else its first direction; back to page 1."""
        if column == self.sort:
            return self.query(dir="asc" if self.dir == "desc" else "desc", page=1)
        return self.query(sort=column, dir=SORTS[column].first, page=1)

    def aria_sort(self, column: str) -> str | None:
        if column != self.sort:
            return None
        return "ascending" if self.dir == "asc" else "descending"


def sorted_teams(teams: list[TeamSummary], view: View) -> list[TeamSummary]:
    """The teams in the view's order; ties in the order of their names."""
    by_name = sorted(teams, key=SORTS["team"].key)
    return sorted(by_name, key=SORTS[view.sort].key, reverse=view.dir == "desc")


def _status(info: CompetitionInfo) -> str:
    if info.is_published():
        return "published"
    return "closed" if info.is_closed() else "open"


def desk(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    info: CompetitionInfo,
    status: int = 200,
    view: View | None = None,
    **extra: Any,
) -> HTMLResponse:
    """The desk of ``info`` as it is now, with ``extra`` (a message, a form's values)."""
    info = competitions.competition(info.slug)
    view = view or View()
    teams = sorted_teams(competitions.team_summaries(info.slug), view)
    pages = max(1, -(-len(teams) // PAGE_SIZE))
    view = View(view.sort, view.dir, min(view.page, pages))
    start = (view.page - 1) * PAGE_SIZE
    private = None
    if info.is_closed():
        private = competitions.leaderboard(info.slug, "private", organiser=True)
    extra.setdefault("zone", DEFAULT_ZONE)
    return organiser_page(
        request,
        settings,
        "organiser_desk.html",
        status,
        competition=info,
        state=_status(info),
        teams=teams[start : start + PAGE_SIZE],
        team_count=len(teams),
        first_row=start + 1,
        pages=pages,
        view=view,
        columns=SORTS,
        flags=competitions.flags(info.slug),
        files=competitions.files(info.slug),
        private=private,
        precision=info.config.precision,
        zones=time_zones(),
        deadline_local=local_fields(info.deadline),
        **extra,
    )


def _find_signed_in(request: Request, competitions: Competitions, settings: Settings, slug: str):
    """The competition of the page, or the response to give instead (sign in, not found)."""
    if not signed_in(request, competitions, settings):
        return None, sign_in_page(request, 401, next_path=request.url.path)
    info = find(competitions, slug)
    if info is None:
        return None, not_found(request, slug)
    return info, None


def _refused(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    slug: str,
    exc: Exception,
    view: View | None = None,
    **extra: Any,
) -> HTMLResponse:
    """The refusal of a desk form: the sign-in page without a session, else the desk."""
    status, text = refusal(exc)
    if not signed_in(request, competitions, settings):
        return sign_in_page(request, status, error=text, next_path=f"/organiser/c/{slug}")
    info = find(competitions, slug)
    if info is None:
        return not_found(request, slug)
    return desk(request, competitions, settings, info, status, view, error=text, **extra)


# ---------------------------------------------------------------------- desk
@router.get("/organiser/c/{slug}", response_class=HTMLResponse)
def desk_page(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    sort: str = "",
    dir: str = "",
    page: str = "1",
) -> HTMLResponse:
    info, other = _find_signed_in(request, competitions, settings, slug)
    if info is None:
        return other
    return desk(request, competitions, settings, info, view=View.of(sort, dir, page))


# --------------------------------------------------------------------- teams
@router.post("/organiser/c/{slug}/teams", response_class=HTMLResponse)
def add_team(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
) -> HTMLResponse:
    """One team; its token is on this response only (the store keeps its SHA-256)."""
    try:
        check_form(request, competitions, settings, csrf)
        info = competitions.competition(slug)
        token = secrets.token_urlsafe(32)
        try:
            team = competitions.add_team(slug, name.strip(), token_hash=hash_token(token))
        except ValueError as exc:
            raise invalid(str(exc)) from None
    except REFUSALS as exc:
        return _refused(request, competitions, settings, slug, exc, team_name=name)
    created = api.TeamCreated(id=team.id, name=team.name, created_at=team.created_at, token=token)
    return desk(request, competitions, settings, info, 201, new_team=created)


def tokens_csv(rows: list[tuple[str, str]]) -> str:
    """The ``name,token`` CSV of an import as a ``data:`` URL: the tokens
    exist in clear only in this one response, never on the server."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["name", "token"])
    for name, token in rows:
        writer.writerow([api._cell(name), token])
    encoded = base64.b64encode(out.getvalue().encode("utf-8")).decode("ascii")
    return "data:text/csv;charset=utf-8;base64," + encoded


@router.post("/organiser/c/{slug}/teams/import", response_class=HTMLResponse)
def import_teams(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    teams: Annotated[UploadFile | None, File()] = None,
) -> HTMLResponse:
    """Teams from a CSV of names, all of them or none; their tokens once, as a CSV to download."""
    try:
        check_form(request, competitions, settings, csrf)
        info = competitions.competition(slug)
        if teams is None or not teams.filename:
            raise invalid("choose a CSV file of team names")
        data = api.read_upload(teams.file, settings.max_upload_bytes, "file of team names")
        existing = [team.name for team in competitions.teams(slug)]
        listed = team_names(data, existing)
        tokens = [secrets.token_urlsafe(32) for _ in listed.names]
        try:
            added = competitions.add_teams(slug, listed.names, [hash_token(t) for t in tokens])
        except ValueError as exc:
            raise invalid(str(exc)) from None
    except REFUSALS as exc:
        return _refused(request, competitions, settings, slug, exc)
    rows = [(team.name, token) for team, token in zip(added, tokens, strict=True)]
    return organiser_page(
        request,
        settings,
        "organiser_tokens.html",
        201,
        competition=info,
        names=[name for name, _ in rows],
        download=tokens_csv(rows),
        filename=f"{info.slug}-team-tokens.csv",
    )


def _set_disabled(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    slug: str,
    csrf: str,
    name: str,
    disabled: bool,
    view: View,
) -> HTMLResponse:
    try:
        check_form(request, competitions, settings, csrf)
        info = competitions.competition(slug)
        team = competitions.set_team_disabled(slug, name, disabled)
    except REFUSALS as exc:
        return _refused(request, competitions, settings, slug, exc, view)
    done = (
        "disabled: it cannot sign in or submit, and is off both boards"
        if disabled
        else ("enabled again: its submissions are back on the boards")
    )
    return desk(request, competitions, settings, info, view=view, done=f"Team {team.name} {done}.")


@router.post("/organiser/c/{slug}/teams/disable", response_class=HTMLResponse)
def disable_team(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
    sort: Annotated[str, Form()] = "",
    dir: Annotated[str, Form()] = "",
    page: Annotated[str, Form()] = "1",
) -> HTMLResponse:
    view = View.of(sort, dir, page)
    return _set_disabled(request, competitions, settings, slug, csrf, name, True, view)


@router.post("/organiser/c/{slug}/teams/enable", response_class=HTMLResponse)
def enable_team(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
    sort: Annotated[str, Form()] = "",
    dir: Annotated[str, Form()] = "",
    page: Annotated[str, Form()] = "1",
) -> HTMLResponse:
    view = View.of(sort, dir, page)
    return _set_disabled(request, competitions, settings, slug, csrf, name, False, view)


# ------------------------------------------------------------ what teams read
@router.post("/organiser/c/{slug}/details", response_class=HTMLResponse)
def edit_details(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    title: Annotated[str, Form()] = "",
    description: Annotated[str, Form()] = "",
    rules: Annotated[str, Form()] = "",
) -> HTMLResponse:
    """The title, the overview and the rules (Markdown), at any time."""
    values = {"title": title, "description": description, "rules": rules}
    try:
        check_form(request, competitions, settings, csrf)
        try:
            info = competitions.update(
                slug, title=title.strip(), description=description, rules=rules
            )
        except ValueError as exc:
            raise invalid(str(exc)) from None
    except REFUSALS as exc:
        return _refused(request, competitions, settings, slug, exc, details=values)
    return desk(
        request, competitions, settings, info, done="The title, overview and rules are saved."
    )


@router.post("/organiser/c/{slug}/deadline", response_class=HTMLResponse)
def change_deadline(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    deadline: Annotated[str, Form()] = "",
    zone: Annotated[str, Form()] = DEFAULT_ZONE,
    no_deadline: Annotated[str, Form()] = "",
) -> HTMLResponse:
    """A new deadline in the future (in ``zone``, stored in UTC), or none,
    while the competition is open."""
    try:
        check_form(request, competitions, settings, csrf)
        when = None if no_deadline else deadline_in_utc(deadline, zone)
        if when is None and not no_deadline:
            raise invalid("choose the new deadline's date and time, or tick 'No deadline'")
        try:
            info = competitions.update(slug, deadline=when)
        except ValueError as exc:
            raise invalid(str(exc)) from None
    except REFUSALS as exc:
        return _refused(
            request, competitions, settings, slug, exc, deadline_value=deadline, zone=zone
        )
    done = (
        "The competition has no deadline now: close it here."
        if when is None
        else (f"The deadline is now {when:%Y-%m-%d %H:%M} UTC.")
    )
    return desk(request, competitions, settings, info, done=done)


# ------------------------------------------------------------------ data files
@router.post("/organiser/c/{slug}/files", response_class=HTMLResponse)
def upload_files(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    files: Annotated[list[UploadFile], File()] = [],  # noqa: B006 (FastAPI copies it)
    replace: Annotated[str, Form()] = "",
) -> HTMLResponse:
    """Data files for the participants; a name already used is refused unless
    ``replace`` is ticked. The names are checked before any file is stored."""
    try:
        check_form(request, competitions, settings, csrf)
        info = competitions.competition(slug)
        chosen = [f for f in files if f.filename]
        if not chosen:
            raise invalid("choose one or more data files to upload")
        uploads = api.read_data_files(chosen, settings)
        if not replace:
            taken = {f.name for f in competitions.files(slug)} & {name for name, _ in uploads}
            if taken:
                raise invalid(
                    f"{', '.join(sorted(taken))} is already a file here: tick "
                    "'Replace files of the same name' to replace it"
                )
        for name, data in uploads:
            competitions.add_file(slug, name, data, replace=bool(replace))
    except REFUSALS as exc:
        return _refused(request, competitions, settings, slug, exc)
    names = ", ".join(name for name, _ in uploads)
    return desk(request, competitions, settings, info, done=f"Uploaded {names}.")


@router.post("/organiser/c/{slug}/files/remove", response_class=HTMLResponse)
def remove_file(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
) -> HTMLResponse:
    try:
        check_form(request, competitions, settings, csrf)
        info = competitions.competition(slug)
        competitions.remove_file(slug, name)
    except REFUSALS as exc:
        return _refused(request, competitions, settings, slug, exc)
    return desk(request, competitions, settings, info, done=f"Removed {name}.")


# ------------------------------------------------------- closing, publishing
_CONFIRM = {
    "close": (
        "Close {title}?",
        "Teams can no longer submit. Teams that selected no final submission get "
        "their best released ones. The private board stays hidden until you publish it.",
        "Close the competition",
    ),
    "publish": (
        "Publish the private board of {title}?",
        "Everyone will see the private board and the audit key, which lets anyone re-run "
        "the board. This cannot be undone.",
        "Publish the private board and the key",
    ),
}


def _confirmation(
    request: Request, competitions: Competitions, settings: Settings, slug: str, action: str
) -> HTMLResponse:
    info, other = _find_signed_in(request, competitions, settings, slug)
    if info is None:
        return other
    question, consequence, button = _CONFIRM[action]
    return organiser_page(
        request,
        settings,
        "organiser_confirm.html",
        competition=info,
        action=action,
        question=question.format(title=info.title),
        consequence=consequence,
        button=button,
    )


@router.get("/organiser/c/{slug}/close", response_class=HTMLResponse)
def confirm_close(
    request: Request, competitions: CompetitionsDep, settings: SettingsDep, slug: str
) -> HTMLResponse:
    return _confirmation(request, competitions, settings, slug, "close")


@router.post("/organiser/c/{slug}/close", response_class=HTMLResponse)
def close(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
) -> HTMLResponse:
    """Close now (the confirmation page's button); idempotent."""
    try:
        check_form(request, competitions, settings, csrf)
        info = competitions.close(slug)
    except REFUSALS as exc:
        return _refused(request, competitions, settings, slug, exc)
    return desk(
        request,
        competitions,
        settings,
        info,
        done=f"{info.title} is closed. Look over the private board below, then publish it.",
    )


@router.get("/organiser/c/{slug}/publish", response_class=HTMLResponse)
def confirm_publish(
    request: Request, competitions: CompetitionsDep, settings: SettingsDep, slug: str
) -> HTMLResponse:
    return _confirmation(request, competitions, settings, slug, "publish")


@router.post("/organiser/c/{slug}/publish", response_class=HTMLResponse)
def publish(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
) -> HTMLResponse:
    """Publish the private board and reveal the key, after the close."""
    try:
        check_form(request, competitions, settings, csrf)
        info = competitions.publish(slug)
    except REFUSALS as exc:
        return _refused(request, competitions, settings, slug, exc)
    return desk(
        request,
        competitions,
        settings,
        info,
        done=f"The private board of {info.title} and its audit key are public.",
    )
