"""Corrections of a competition's solution (organiser): a corrected solution
file and the reason, and the list of corrections made."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, UploadFile

from ladderboard.files.solution import Solution
from ladderboard.server.api.competitions import ORGANISER
from ladderboard.server.api.shared import errors, invalid, read_upload
from ladderboard.server.deps import ActingDep, Competition, CompetitionsDep, SettingsDep
from ladderboard.server.schemas.corrections import CorrectionOut

__all__ = ["router"]

router = APIRouter()


@router.post(
    "/competitions/{slug}/corrections",
    status_code=201,
    responses=errors(400, 401, 403, 404, 409, 413, 422, 429),
    response_model=CorrectionOut,
    summary="Correct the solution's labels (organiser)",
    description="A solution with the same ids, columns and public/private split, its labels "
    "corrected, and the reason: every submission is scored again, each board run again with "
    "the competition's key, under a new commitment; the old solution, commitment and "
    "releases are kept, shown in the history and checked by `ladderboard verify`. Refused "
    "(409) once the private board is published.",
)
def correct_solution(
    competitions: CompetitionsDep,
    settings: SettingsDep,
    acting: ActingDep,
    competition: Competition,
    solution: Annotated[UploadFile, File(description="The corrected solution CSV.")],
    reason: Annotated[str, Form(description="What was wrong with the solution.")],
) -> CorrectionOut:
    data = read_upload(solution.file, settings.max_upload_bytes, "solution file")
    # SolutionError → 400; over the limit, compressed or not → 413
    parsed = Solution.from_csv(data, max_bytes=settings.max_upload_bytes)
    try:
        correction = acting.correct_solution(competition.slug, parsed, reason, actor=ORGANISER)
    except (TypeError, ValueError) as exc:
        raise invalid(str(exc)) from None
    return CorrectionOut.of(correction, with_count=True)


@router.get(
    "/competitions/{slug}/corrections",
    responses=errors(404, 422),
    response_model=list[CorrectionOut],
    summary="The corrections of the competition's solution, oldest first",
)
def list_corrections(
    competitions: CompetitionsDep, competition: Competition
) -> list[CorrectionOut]:
    return [CorrectionOut.of(c) for c in competitions.corrections(competition.slug)]
