"""The competitions: their creation from a solution file (organiser), the
list, one competition, its edits, its close, its publication, its audit
commitment and its solution file (organiser)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, File, Form, UploadFile
from fastapi.responses import Response

from ladderboard.engine import Competitions
from ladderboard.engine.errors import NotFound
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
from ladderboard.server.deps import (
    ActingDep,
    Competition,
    CompetitionsDep,
    OrganiserDep,
    SettingsDep,
    ViewerDep,
    require_role,
)
from ladderboard.server.schemas import (
    CommitmentOut,
    CompetitionOut,
    CompetitionPatch,
    SettingChangeOut,
)
from ladderboard.server.schemas.competitions import VISIBILITY_FIELD
from ladderboard.server.visibility import listed

__all__ = ["MECHANISM_FIELD", "MECHANISM_PARAMS_FIELD", "competition_config", "router"]

router = APIRouter()

ORGANISER = "organiser"
"""Who a change made with the organiser's token is recorded as."""
_NULL_MEANS_NONE = frozenset(
    {
        "deadline",
        "opens_at",
        "freeze_at",
        "daily_quota",
        "total_quota",
        "invalid_quota",
        "max_team_size",
        "merger_deadline",
    }
)

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
    acting: ActingDep,
    who: OrganiserDep,
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
    visibility: Annotated[
        Literal["public", "unlisted", "private"], Form(description=VISIBILITY_FIELD)
    ] = "public",
    max_team_size: Annotated[
        str | None, Form(description="Most members of a team: an integer, or 'none'.")
    ] = None,
    merger_deadline: Annotated[
        str | None,
        Form(description="Last moment two teams may merge: ISO 8601 with a time zone."),
    ] = None,
    registration: Annotated[
        Literal["list", "open", "invitation"] | None,
        Form(
            description="How accounts join: the organiser's list (the default), open to "
            "any account, or by invitation."
        ),
    ] = None,
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
    precision: Annotated[
        int | None, Form(ge=0, description="The most decimals a score shows (default 5).")
    ] = None,
    phase_of: Annotated[
        str | None,
        Form(
            description="Make the competition a later phase of this one's series: it shares "
            "the first phase's teams (the caller must be an owner of that competition)."
        ),
    ] = None,
    files: Annotated[
        list[UploadFile] | None, File(description="Data files for the participants.")
    ] = None,
) -> CompetitionOut:
    if phase_of:
        # Joining a series changes what its teams take part in: the decision
        # of its first phase's owner (403, or 404 for a private one the
        # caller cannot see), whichever of its phases is named.
        try:
            first = competitions.phases(phase_of)[0].slug
        except NotFound:
            first = phase_of  # refused below, or by the creation (no such competition)
        require_role(competitions, who, "PATCH", "/api/competitions/{slug}", first)
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
            "precision": precision,
            "opens_at": opens_at,
            "freeze_at": freeze_at,
            "late_submissions": late_submissions,
            "visibility": visibility,
            "max_team_size": max_team_size,
            "merger_deadline": merger_deadline,
            "registration": registration,
            "phase_of": phase_of or None,
        },
    )
    data = read_upload(solution.file, settings.max_upload_bytes, "solution file")
    # SolutionError → 400; over the limit, compressed or not → 413
    parsed_solution = Solution.from_csv(data, max_bytes=settings.max_upload_bytes)
    attached = read_data_files(files or [], settings)
    try:
        info = acting.create(
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


@router.get(
    "/competitions",
    response_model=list[CompetitionOut],
    summary="The competitions listed for the caller",
    description="The public competitions, and the unlisted and private ones the caller "
    "takes part in (a team's token, the organiser's).",
)
def list_competitions(competitions: CompetitionsDep, who: ViewerDep) -> list[CompetitionOut]:
    return [
        CompetitionOut.of(info, competitions.decimals(info))
        for info in listed(competitions, who, competitions.competitions())
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
    competitions: CompetitionsDep, acting: ActingDep, competition: Competition
) -> CompetitionOut:
    return _out(competitions, acting.close(competition.slug))


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


@router.get(
    "/competitions/{slug}/solution",
    response_class=Response,
    responses={
        200: {
            "content": {"text/csv": {"schema": {"type": "string", "format": "binary"}}},
            "description": "The solution CSV.",
        },
        **errors(401, 403, 404, 422, 429),
    },
    summary="The solution file the commitment holds (organiser)",
    description="The bytes whose SHA-256 the commitment holds: a competition created from "
    "them again has the same solution and split (`ladderboard competition dump`).",
)
def get_solution(
    competitions: CompetitionsDep, _: OrganiserDep, competition: Competition
) -> Response:
    return Response(
        competitions.solution_file(competition.slug),
        media_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": 'attachment; filename="solution.csv"',
            "Cache-Control": "no-store",
            "X-Content-Type-Options": "nosniff",
        },
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
    competitions: CompetitionsDep, acting: ActingDep, competition: Competition
) -> CompetitionOut:
    return _out(competitions, acting.publish(competition.slug))


@router.patch(
    "/competitions/{slug}",
    responses=errors(401, 403, 404, 409, 422, 429),
    response_model=CompetitionOut,
    summary="Change the settings, texts or deadline (organiser)",
    description="The texts change at any time; the deadline, the quotas, the final "
    "selections, the file size, the precision and automatic publication while the "
    "competition is open (409 after the close); the opening time and the freeze while they are "
    "still to come; late submissions and the visibility at any time. The score, the "
    "mechanism, their parameters and the board are fixed at creation (409). Fields left "
    "out stay as they are; each change is recorded in the competition's history.",
)
def update_competition(
    body: CompetitionPatch,
    competitions: CompetitionsDep,
    acting: ActingDep,
    competition: Competition,
) -> CompetitionOut:
    # A field sent as null means "no limit" (or "no deadline") where it may;
    # a text or a setting that takes no null is left as it is.
    changes: dict[str, Any] = {
        name: getattr(body, name)
        for name in body.model_fields_set
        if getattr(body, name) is not None or name in _NULL_MEANS_NONE
    }
    try:
        return _out(competitions, acting.update(competition.slug, actor=ORGANISER, **changes))
    except (TypeError, ValueError) as exc:
        raise invalid(str(exc)) from None


@router.get(
    "/competitions/{slug}/history",
    responses=errors(404, 422),
    response_model=list[SettingChangeOut],
    summary="The changes of the competition's settings, oldest first",
    description="What the Rules page lists under 'Changes to these rules': each change's "
    "time, setting, values before and after, and the change in plain words.",
)
def competition_history(
    competitions: CompetitionsDep, competition: Competition
) -> list[SettingChangeOut]:
    return [SettingChangeOut.of(change) for change in competitions.history(competition.slug)]


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
    for name in ("daily_quota", "total_quota", "invalid_quota", "max_team_size"):
        parsed = optional_int(name, form.get(name))
        if parsed is not DEFAULT:
            options[name] = parsed
    for name in ("deadline", "opens_at", "freeze_at"):
        if form.get(name):
            options[name] = form[name]
    merger = form.get("merger_deadline")
    if merger and str(merger).strip().lower() != "none":  # "none": until the close
        options["merger_deadline"] = merger
    if form.get("late_submissions"):
        options["late_submissions"] = True
    if form.get("visibility"):
        options["visibility"] = form["visibility"]
    if form.get("registration"):
        options["registration"] = form["registration"]
    if form.get("phase_of"):
        options["phase_of"] = form["phase_of"].strip()
    for name in ("ranks", "n_selections", "max_bytes", "precision"):
        if form.get(name) is not None:
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
