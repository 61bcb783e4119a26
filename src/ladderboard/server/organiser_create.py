"""The form that creates a competition (``/organiser/new``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse

from ladderboard.losses import LOSSES, METRICS
from ladderboard.mechanisms import MECHANISMS
from ladderboard.server import api
from ladderboard.server.deps import Caller, CompetitionsDep, SettingsDep
from ladderboard.server.errors import ApiError
from ladderboard.server.organiser_desk import desk
from ladderboard.server.organiser_session import (
    check_form,
    organiser_page,
    sign_in_page,
    signed_in,
)
from ladderboard.server.rendering import REFUSALS, refusal

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


def _form(request, settings, status=200, **extra):
    return organiser_page(
        request,
        settings,
        "organiser_create.html",
        status,
        losses=sorted(LOSSES),
        metrics=sorted(METRICS),
        mechanisms={name: klass.input_kind for name, klass in sorted(MECHANISMS.items())},
        **extra,
    )


@router.get("/organiser/new", response_class=HTMLResponse)
def new_competition(
    request: Request, competitions: CompetitionsDep, settings: SettingsDep
) -> HTMLResponse:
    if not signed_in(request, competitions, settings):
        return sign_in_page(request, 401, next_path="/organiser/new")
    return _form(request, settings)


@router.post("/organiser/competitions", response_class=HTMLResponse)
def organiser_create(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    csrf: Annotated[str, Form()] = "",
    solution: Annotated[UploadFile | None, File()] = None,
    slug: Annotated[str, Form()] = "",
    title: Annotated[str, Form()] = "",
    description: Annotated[str, Form()] = "",
    score: Annotated[str, Form()] = "",
    mechanism: Annotated[str, Form()] = "",
    mechanism_params: Annotated[str, Form()] = "",
    score_params: Annotated[str, Form()] = "",
    board: Annotated[str, Form()] = "per-team",
    daily_quota: Annotated[str, Form()] = "",
    total_quota: Annotated[str, Form()] = "",
    invalid_quota: Annotated[str, Form()] = "",
    deadline: Annotated[str, Form()] = "",
    n_selections: Annotated[str, Form()] = "",
) -> HTMLResponse:
    try:
        check_form(request, competitions, settings, csrf)
        if solution is None or not solution.filename:
            raise ApiError(422, "invalid_request", "choose a solution file")
        if board not in ("per-team", "per-rank"):
            raise ApiError(422, "invalid_request", f"board must be per-team or per-rank: {board!r}")
        selections = api._optional_int("n_selections", n_selections)
        created = api.create_competition(
            competitions,
            settings,
            Caller(None, True),
            solution,
            slug.strip(),
            score,
            mechanism,
            title=title.strip() or None,
            description=description,
            mechanism_params=mechanism_params,
            score_params=score_params,
            board=board,  # type: ignore[arg-type]
            daily_quota=daily_quota,
            total_quota=total_quota,
            invalid_quota=invalid_quota,
            deadline=deadline.strip() or None,
            n_selections=selections if isinstance(selections, int) else None,
        )
    except REFUSALS as exc:
        status, text = refusal(exc)
        if not signed_in(request, competitions, settings):
            return sign_in_page(request, status, error=text, next_path="/organiser/new")
        return _form(request, settings, status, error=text)
    info = competitions.competition(created.slug)
    return desk(request, competitions, settings, info, 201, created=created)
