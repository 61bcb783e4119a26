"""The competitions: their creation from a solution file (organiser), the
list, one competition, its edits, its close, its publication and its audit
commitment."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, File, Form, UploadFile

from ladderboard.engine import Competitions
from ladderboard.engine.results import CompetitionInfo
from ladderboard.files import DEFAULT_MAX_BYTES
from ladderboard.files.solution import Solution
from ladderboard.recommended import RECOMMENDED
from ladderboard.rules.config import CompetitionConfig
from ladderboard.server.api.shared import (
    DEFAULT,
    errors,
    invalid,
    json_object,
    optional_int,
    read_data_files,
    read_upload,
)
from ladderboard.server.deps import Competition, CompetitionsDep, OrganiserDep, SettingsDep
from ladderboard.server.schemas import CommitmentOut, CompetitionOut, CompetitionPatch

__all__ = ["MECHANISM_FIELD", "MECHANISM_PARAMS_FIELD", "competition_config", "router"]

router = APIRouter()

MECHANISM_FIELD = (
    "A mechanism's registered name. Omitted: ladderboard's default, "
    f"{RECOMMENDED.label} (`{RECOMMENDED.mechanism}`), with its parameters at the "
    "solution's number of public rows."
)
MAX_BYTES_FIELD = (
    "The largest submission file in bytes, compressed or not (default "
    f"{DEFAULT_MAX_BYTES // 2**20} MiB; a file of ten million rows is about 100 MB of CSV). "
    "The server's max_upload_bytes bounds what it receives."
)
MECHANISM_PARAMS_FIELD = (
    "A JSON object of the mechanism's parameters; those left out take their defaults "
    f"(on `{RECOMMENDED.mechanism}`, {RECOMMENDED.label}'s). The competition stores "
    "and returns every parameter with the value it runs with."
)


@router.post(
    "/competitions",
    responses=errors(400, 401, 403, 409, 413, 422, 429),
    status_code=201,
    response_model=CompetitionOut,
    summary="Create a competition from a solution file (organiser)",
)
def create_competition(
    competitions: CompetitionsDep,
    settings: SettingsDep,
    _: OrganiserDep,
    solution: Annotated[UploadFile, File(description="The solution CSV (id, targets, Usage).")],
    slug: Annotated[str, Form(description="1-64 letters, digits, '-' or '_'.")],
    score: Annotated[str, Form(description="A loss or a metric.")],
    mechanism: Annotated[str | None, Form(description=MECHANISM_FIELD)] = None,
    title: Annotated[str | None, Form()] = None,
    description: Annotated[str, Form()] = "",
    mechanism_params: Annotated[str | None, Form(description=MECHANISM_PARAMS_FIELD)] = None,
    score_params: Annotated[str | None, Form(description="A JSON object.")] = None,
    board: Annotated[Literal["per-team", "per-rank"], Form()] = "per-team",
    daily_quota: Annotated[str | None, Form(description="An integer, or 'none'.")] = None,
    total_quota: Annotated[str | None, Form(description="An integer, or 'none'.")] = None,
    invalid_quota: Annotated[str | None, Form(description="An integer, or 'none'.")] = None,
    deadline: Annotated[str | None, Form(description="ISO 8601 with a time zone.")] = None,
    opens_at: Annotated[
        str | None, Form(description="When submissions open: ISO 8601 with a time zone.")
    ] = None,
    freeze_at: Annotated[
        str | None,
        Form(description="When the public board freezes: ISO 8601 with a time zone."),
    ] = None,
    late_submissions: Annotated[
        bool, Form(description="Score files sent after the publication, on the late board.")
    ] = False,
    n_selections: Annotated[int | None, Form(ge=1)] = None,
    rules: Annotated[str, Form(description="The rules, Markdown.")] = "",
    ranks: Annotated[int | None, Form(ge=1, description="Ranks of a per-rank board.")] = None,
    auto_publish: Annotated[
        bool, Form(description="Publish the private board and the key at the deadline.")
    ] = False,
    max_bytes: Annotated[
        int | None,
        Form(
            ge=1,
            description=MAX_BYTES_FIELD,
        ),
    ] = None,
    files: Annotated[
        list[UploadFile] | None, File(description="Data files for the participants.")
    ] = None,
) -> CompetitionOut:
    config = competition_config(
        score,
        mechanism,
        {
            "mechanism_params": mechanism_params,
            "score_params": score_params,
            "board": board,
            "auto_publish": auto_publish,
            "ranks": ranks,
            "daily_quota": daily_quota,
            "total_quota": total_quota,
            "invalid_quota": invalid_quota,
            "deadline": deadline,
            "n_selections": n_selections,
            "max_bytes": max_bytes,
            "opens_at": opens_at,
            "freeze_at": freeze_at,
            "late_submissions": late_submissions,
        },
    )
    data = read_upload(solution.file, settings.max_upload_bytes, "solution file")
    # SolutionError → 400; over the limit, compressed or not → 413
    parsed_solution = Solution.from_csv(data, max_bytes=settings.max_upload_bytes)
    attached = read_data_files(files or [], settings)
    try:
        info = competitions.create(
            slug,
            parsed_solution,
            config,
            title=title or None,
            description=description,
            rules=rules,
            files=attached,
        )
    except (TypeError, ValueError) as exc:
        raise invalid(str(exc)) from None
    return CompetitionOut.of(info, competitions.decimals(info))


def _out(competitions: Competitions, info: CompetitionInfo) -> CompetitionOut:
    return CompetitionOut.of(info, competitions.decimals(info))


@router.get("/competitions", response_model=list[CompetitionOut], summary="All competitions")
def list_competitions(competitions: CompetitionsDep) -> list[CompetitionOut]:
    return [
        CompetitionOut.of(info, competitions.decimals(info)) for info in competitions.competitions()
    ]


@router.get(
    "/competitions/{slug}",
    responses=errors(404, 422),
    response_model=CompetitionOut,
    summary="One competition",
)
def get_competition(competitions: CompetitionsDep, competition: Competition) -> CompetitionOut:
    return CompetitionOut.of(competition, competitions.decimals(competition))


@router.post(
    "/competitions/{slug}/close",
    responses=errors(401, 403, 404, 422, 429),
    response_model=CompetitionOut,
    summary="Close the competition now (organiser); idempotent",
)
def close_competition(
    competitions: CompetitionsDep, _: OrganiserDep, competition: Competition
) -> CompetitionOut:
    return _out(competitions, competitions.close(competition.slug))


@router.get(
    "/competitions/{slug}/commitment",
    responses=errors(404, 422),
    response_model=CommitmentOut,
    summary="The audit commitment, and the key once closed",
)
def get_commitment(competitions: CompetitionsDep, competition: Competition) -> CommitmentOut:
    published = competition.is_published()
    return CommitmentOut(
        slug=competition.slug,
        commitment=competition.commitment,
        closed=competition.is_closed(),
        published=published,
        key=competitions.reveal_key(competition.slug) if published else None,
    )


@router.post(
    "/competitions/{slug}/publish",
    responses=errors(401, 403, 404, 409, 422, 429),
    response_model=CompetitionOut,
    summary="Publish the private board and reveal the audit key (organiser); idempotent",
    description="Only after the close (by hand or at the deadline): until then the organiser "
    "alone sees the private board, to look it over.",
)
def publish_competition(
    competitions: CompetitionsDep, _: OrganiserDep, competition: Competition
) -> CompetitionOut:
    return _out(competitions, competitions.publish(competition.slug))


@router.patch(
    "/competitions/{slug}",
    responses=errors(401, 403, 404, 409, 422, 429),
    response_model=CompetitionOut,
    summary="Edit the title, overview, rules or calendar (organiser)",
    description="A deadline changes only while the competition is open, and only to a "
    "time in the future (or null: none); the opening time and the freeze, only while they "
    "are still in the future. The mechanism, score and quotas stay fixed.",
)
def update_competition(
    body: CompetitionPatch, competitions: CompetitionsDep, _: OrganiserDep, competition: Competition
) -> CompetitionOut:
    changes: dict[str, Any] = {
        name: getattr(body, name)
        for name in ("title", "description", "rules")
        if getattr(body, name) is not None
    }
    if "deadline" in body.model_fields_set:
        changes["deadline"] = body.deadline
    for name in ("opens_at", "freeze_at"):
        if name in body.model_fields_set:
            changes[name] = getattr(body, name)
    if body.late_submissions is not None:
        changes["late_submissions"] = body.late_submissions
    try:
        return _out(competitions, competitions.update(competition.slug, **changes))
    except (TypeError, ValueError) as exc:
        raise invalid(str(exc)) from None


def competition_config(
    score: str, mechanism: str | None, form: dict[str, Any]
) -> CompetitionConfig:
    """The configuration the creation form's values describe: ``form`` holds
    the fields after the score and the mechanism, ``None`` (or, for the
    quotas and the deadline, blank) where the form left one out. The
    mechanism left out is ladderboard's default (:data:`RECOMMENDED`), whose
    refusal says it was tried for want of a named one."""
    params = json_object("mechanism_params", form["mechanism_params"])
    defaulted = mechanism is None or not mechanism.strip()
    if defaulted and params:
        raise invalid(
            "the parameters in mechanism_params need the mechanism they set: name it "
            f"too, or send neither for ladderboard's default, {RECOMMENDED.label}"
        )
    named = RECOMMENDED.mechanism if defaulted or mechanism is None else mechanism
    options: dict[str, Any] = {
        "mechanism_params": params,
        "score_params": json_object("score_params", form["score_params"]),
        "board": form["board"],
        "auto_publish": form["auto_publish"],
    }
    for name in ("daily_quota", "total_quota", "invalid_quota"):
        parsed = optional_int(name, form[name])
        if parsed is not DEFAULT:
            options[name] = parsed
    for name in ("deadline", "opens_at", "freeze_at"):
        if form.get(name):
            options[name] = form[name]
    if form.get("late_submissions"):
        options["late_submissions"] = True
    for name in ("ranks", "n_selections", "max_bytes"):
        if form[name] is not None:
            options[name] = form[name]
    try:
        return CompetitionConfig(score=score, mechanism=named, **options)
    except (TypeError, ValueError) as exc:
        if defaulted:  # say why a mechanism nobody named was tried
            raise invalid(
                f"no mechanism was named, so ladderboard's default, {RECOMMENDED.label}, "
                f"was tried: {exc}"
            ) from None
        raise invalid(str(exc)) from None
