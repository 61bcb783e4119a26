"""The teams of a competition, from its desk: one added (its token shown
once), many imported from a CSV of names (all or none; their tokens once, as
a CSV in the response, never stored in clear), a team disabled or enabled
again, a team's leaked token replaced (the new one shown once), and one
team's page (its submissions, the files the server refused and why, the
duplicate flags naming it)."""

from __future__ import annotations

import base64
import csv
import io
import secrets
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse

from ladderboard.engine import Competitions
from ladderboard.engine.results import CompetitionInfo
from ladderboard.server.api.boards import spreadsheet_cell
from ladderboard.server.api.shared import read_upload
from ladderboard.server.deps import CompetitionsDep, SettingsDep, hash_token
from ladderboard.server.organiser_desk import View, desk, find_signed_in, refused
from ladderboard.server.organiser_forms import invalid, team_names
from ladderboard.server.organiser_session import check_form, organiser_page
from ladderboard.server.rendering import REFUSALS
from ladderboard.server.schemas import TeamCreated
from ladderboard.server.settings import Settings

__all__ = ["router", "tokens_csv"]

router = APIRouter(include_in_schema=False)


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
        acting = check_form(request, competitions, settings, csrf)
        info = competitions.competition(slug)
        token = secrets.token_urlsafe(32)
        try:
            team = acting.add_team(slug, name.strip(), token_hash=hash_token(token))
        except ValueError as exc:
            raise invalid(str(exc)) from None
    except REFUSALS as exc:
        return refused(request, competitions, settings, slug, exc, team_name=name)
    created = TeamCreated(id=team.id, name=team.name, created_at=team.created_at, token=token)
    return desk(request, competitions, settings, info, 201, new_team=created)


def tokens_csv(rows: list[tuple[str, str]]) -> str:
    """The ``name,token`` CSV of an import as a ``data:`` URL: the tokens
    exist in clear only in this one response, never on the server."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["name", "token"])
    for name, token in rows:
        writer.writerow([spreadsheet_cell(name), token])
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
        acting = check_form(request, competitions, settings, csrf)
        info = competitions.competition(slug)
        if teams is None or not teams.filename:
            raise invalid("choose a CSV file of team names")
        data = read_upload(teams.file, settings.max_upload_bytes, "file of team names")
        existing = [team.name for team in competitions.teams(slug)]
        listed = team_names(data, existing)
        tokens = [secrets.token_urlsafe(32) for _ in listed.names]
        try:
            added = acting.add_teams(slug, listed.names, [hash_token(t) for t in tokens])
        except ValueError as exc:
            raise invalid(str(exc)) from None
    except REFUSALS as exc:
        return refused(request, competitions, settings, slug, exc)
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
    back: str = "",
) -> HTMLResponse:
    try:
        acting = check_form(request, competitions, settings, csrf)
        info = competitions.competition(slug)
        team = acting.set_team_disabled(slug, name, disabled)
    except REFUSALS as exc:
        return refused(request, competitions, settings, slug, exc, view)
    done = (
        "disabled: it cannot sign in or submit, and is off both boards"
        if disabled
        else ("enabled again: its submissions are back on the boards")
    )
    if back == "team":
        return team_view(request, competitions, settings, info, team.name, done=f"Team {done}.")
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
    back: Annotated[str, Form()] = "",
) -> HTMLResponse:
    view = View.of(sort, dir, page)
    return _set_disabled(request, competitions, settings, slug, csrf, name, True, view, back)


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
    back: Annotated[str, Form()] = "",
) -> HTMLResponse:
    view = View.of(sort, dir, page)
    return _set_disabled(request, competitions, settings, slug, csrf, name, False, view, back)


@router.post("/organiser/c/{slug}/teams/token", response_class=HTMLResponse)
def reissue_token(
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
    """A new token for a team whose token leaked, shown on this response only;
    the team keeps its place and submissions, its old token and its browsers'
    sign-ins end at once."""
    view = View.of(sort, dir, page)
    try:
        acting = check_form(request, competitions, settings, csrf)
        info = competitions.competition(slug)
        token = secrets.token_urlsafe(32)
        team = acting.reissue_token(slug, name, hash_token(token))
    except REFUSALS as exc:
        return refused(request, competitions, settings, slug, exc, view)
    done = (
        f"Team {team.name} has a new token, shown this once (only its SHA-256 is stored): "
        f"{token}. Its old token is refused from now on and its browsers are signed out."
    )
    return desk(request, competitions, settings, info, view=view, done=done)


@router.get("/organiser/c/{slug}/team", response_class=HTMLResponse)
def team_page(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    name: str = "",
) -> HTMLResponse:
    """One team as the organiser sees it: its activity, its submissions, the
    files the server refused (with the reason the team was given) and the
    duplicate flags naming it."""
    info, other = find_signed_in(request, competitions, settings, slug)
    if info is None:
        return other
    return team_view(request, competitions, settings, info, name)


def team_view(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    info: CompetitionInfo,
    name: str,
    **extra: Any,
) -> HTMLResponse:
    slug = info.slug
    summary = next((t for t in competitions.team_summaries(slug) if t.name == name), None)
    if summary is None:
        missing = f"Competition {slug!r} has no team {name[:120]!r}."
        return desk(request, competitions, settings, info, 404, error=missing)
    flags = [f for f in competitions.flags(slug) if name in (f.team, f.earlier_team)]
    return organiser_page(
        request,
        settings,
        "organiser_team.html",
        competition=info,
        team=summary,
        submissions=competitions.submissions(slug, name, organiser=True),
        rejections=competitions.rejections(slug, name),
        flags=flags,
        precision=info.config.precision,
        **extra,
    )
