"""The desk's "Correct the solution" form: a solution with a mistake (a wrong
label) replaced by its corrected file, with the reason, before the private
board is published (:mod:`ladderboard.engine.corrections`). Every stored
file is scored again, as the audit does it; the route is a plain ``def``,
run in the threadpool, and asks for the session's CSRF value like every
desk form."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse

from ladderboard.files.solution import Solution
from ladderboard.server.api.competitions import ORGANISER
from ladderboard.server.api.shared import read_upload
from ladderboard.server.deps import CompetitionsDep, SettingsDep
from ladderboard.server.organiser_desk import desk, refused
from ladderboard.server.organiser_forms import invalid
from ladderboard.server.organiser_session import check_form
from ladderboard.server.rendering import REFUSALS

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


@router.post("/organiser/c/{slug}/correction", response_class=HTMLResponse)
def correct_solution(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    reason: Annotated[str, Form()] = "",
    solution: Annotated[UploadFile | None, File()] = None,
) -> HTMLResponse:
    """Correct the solution's labels; a refusal keeps the reason typed."""
    try:
        acting = check_form(request, competitions, settings, csrf)
        if solution is None or not solution.filename:
            raise invalid("choose the corrected solution file")
        data = read_upload(solution.file, settings.max_upload_bytes, "solution file")
        parsed = Solution.from_csv(data, max_bytes=settings.max_upload_bytes)
        try:
            correction = acting.correct_solution(slug, parsed, reason, actor=ORGANISER)
        except ValueError as exc:
            raise invalid(str(exc)) from None
    except REFUSALS as exc:
        return refused(request, competitions, settings, slug, exc, correction_reason=reason)
    changed = correction.changed
    done = (
        f"The solution is corrected: {changed} released score{'' if changed == 1 else 's'} "
        f"changed; the new commitment is {correction.new_commitment}."
    )
    return desk(request, competitions, settings, competitions.competition(slug), done=done)
