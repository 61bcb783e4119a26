"""The REST API under ``/api``, and ``/healthz``.

Route functions are plain ``def``: the engine is synchronous, and FastAPI
runs such functions in its threadpool, off the event loop. Each returns one
of the explicit models of :mod:`ladderboard.server.schemas`.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import secrets
from typing import Annotated, Any, BinaryIO, Literal

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from fastapi.responses import Response
from pydantic import BaseModel, Field
from starlette.datastructures import UploadFile as StarletteUpload

from ladderboard.engine import Competitions
from ladderboard.engine.kept_board import KeptBoard
from ladderboard.engine.views import CompetitionInfo
from ladderboard.files.solution import Solution
from ladderboard.recommended import RECOMMENDED
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.explain import release_words
from ladderboard.rules.text import (
    FILE_NAME_CHARS,
    TEAM_NAME_CHARS,
    check_file_name,
    check_json,
)
from ladderboard.server.deps import (
    CallerDep,
    Competition,
    CompetitionsDep,
    OrganiserDep,
    SettingsDep,
    TeamDep,
    hash_token,
    no_store,
)
from ladderboard.server.errors import ApiError
from ladderboard.server.organiser_forms import team_names
from ladderboard.server.schemas import (
    CommitmentOut,
    CompetitionOut,
    CompetitionPatch,
    ErrorOut,
    FileOut,
    FlagOut,
    HealthOut,
    LeaderboardOut,
    MembershipOut,
    QuotaOut,
    RejectionOut,
    SelectionIn,
    SelectionOut,
    SubmissionOut,
    TeamCreated,
    TeamOut,
    TeamPatch,
    TeamStatusOut,
    TeamSummaryOut,
    WhoAmIOut,
)
from ladderboard.server.settings import Settings

__all__ = ["health", "router"]

router = APIRouter(prefix="/api")
health = APIRouter()

Board = Literal["public", "private"]


_ERRORS = {
    400: "The file cannot be read (a bad solution or submission file).",
    401: "The bearer token is missing or not valid here.",
    403: "The token's role may not do this (or the private board before the close).",
    404: "No such competition, team submission or page.",
    409: "A duplicate, a name or key already used, or the competition is closed.",
    413: "The file is larger than the server's or the competition's limit.",
    415: "The body is neither the file (text/csv, application/gzip) nor a multipart form.",
    422: "A form field, query parameter or JSON body is not valid.",
    429: (
        "The team's quota or a rate limit (the token's, or the address's reads without "
        "a token) is spent: Retry-After says when to ask again; without it (the total "
        "quota, the invalid-file cap) it is final."
    ),
    503: "The database cannot answer or write now: Retry-After says when to ask again.",
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI description of the error responses a route can give."""
    return {s: {"model": ErrorOut, "description": _ERRORS[s]} for s in statuses}


def responses(*statuses: int) -> dict[str, dict[str, Any]]:
    """:func:`errors` as an OpenAPI document spells them, for a route that
    FastAPI does not describe."""
    schema = {"$ref": "#/components/schemas/ErrorOut"}
    return {
        str(s): {"description": _ERRORS[s], "content": {"application/json": {"schema": schema}}}
        for s in statuses
    }


def document_shared_errors(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` (the OpenAPI schema) with the refusals any operation can
    give: 503 when the database cannot answer, and on reads the 429 of the
    limit on anonymous reads."""
    for operations in document.get("paths", {}).values():
        for method, operation in operations.items():
            answers = operation.setdefault("responses", {})
            shared = (429, 503) if method in ("get", "head") else (503,)
            for status, response in responses(*shared).items():
                answers.setdefault(status, response)
    return document


def invalid(message: str) -> ApiError:
    return ApiError(422, "invalid_request", message)


def read_upload(upload: BinaryIO, limit: int, what: str) -> bytes:
    """The uploaded file's bytes, refused with 413 beyond ``limit``."""
    data = upload.read(limit + 1)
    if len(data) > limit:
        raise ApiError(413, "too_large", f"the {what} is larger than the limit of {limit} bytes")
    return data


_DEFAULT = object()


def _optional_int(name: str, value: str | None) -> object:
    """A form value: absent → ``_DEFAULT``, ``none`` → no limit, else an integer."""
    if value is None or value.strip() == "":
        return _DEFAULT
    if value.strip().lower() == "none":
        return None
    try:
        return int(value)
    except ValueError:
        raise invalid(f"{name} must be an integer or 'none', got {value!r}") from None


def _json_object(name: str, value: str | None) -> dict[str, Any]:
    if value is None or value.strip() == "":
        return {}
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as exc:
        raise invalid(f"{name} must be a JSON object, not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise invalid(f"{name} is nested too deeply") from None
    if not isinstance(parsed, dict):
        raise invalid(f"{name} must be a JSON object, got {type(parsed).__name__}")
    try:
        return check_json(name, parsed)
    except ValueError as exc:
        raise invalid(str(exc)) from None


# ------------------------------------------------------------- competitions
MECHANISM_FIELD = (
    "A mechanism's registered name. Omitted: ladderboard's default, "
    f"{RECOMMENDED.label} (`{RECOMMENDED.mechanism}`), with its parameters at the "
    "solution's number of public rows."
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
            description="The largest submission file in bytes, compressed or not (default "
            "50 MiB; a file of ten million rows is about 100 MB of CSV). The server's "
            "max_upload_bytes bounds what it receives.",
        ),
    ] = None,
    files: Annotated[
        list[UploadFile] | None, File(description="Data files for the participants.")
    ] = None,
) -> CompetitionOut:
    params = _json_object("mechanism_params", mechanism_params)
    if mechanism is None or not mechanism.strip():
        if params:
            raise invalid(
                "the parameters in mechanism_params need the mechanism they set: name it "
                f"too, or send neither for ladderboard's default, {RECOMMENDED.label}"
            )
        mechanism = RECOMMENDED.mechanism
        defaulted = True
    else:
        defaulted = False
    options: dict[str, Any] = {
        "mechanism_params": params,
        "score_params": _json_object("score_params", score_params),
        "board": board,
        "auto_publish": auto_publish,
    }
    if ranks is not None:
        options["ranks"] = ranks
    for name, value in (
        ("daily_quota", daily_quota),
        ("total_quota", total_quota),
        ("invalid_quota", invalid_quota),
    ):
        parsed = _optional_int(name, value)
        if parsed is not _DEFAULT:
            options[name] = parsed
    if deadline:
        options["deadline"] = deadline
    if n_selections is not None:
        options["n_selections"] = n_selections
    if max_bytes is not None:
        options["max_bytes"] = max_bytes
    try:
        config = CompetitionConfig(score=score, mechanism=mechanism, **options)
    except (TypeError, ValueError) as exc:
        if defaulted:  # say why a mechanism nobody named was tried
            raise invalid(
                f"no mechanism was named, so ladderboard's default, {RECOMMENDED.label}, "
                f"was tried: {exc}"
            ) from None
        raise invalid(str(exc)) from None
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


def read_data_files(
    uploads: list[UploadFile] | list[StarletteUpload], settings: Settings
) -> list[tuple[str, bytes]]:
    """The data files uploaded with a form, each name checked and each within
    the upload limit, before anything is stored."""
    files, names = [], set()
    for upload in uploads:
        if not upload.filename:
            continue
        name = _file_name(upload.filename)
        if name in names:
            raise invalid(f"two data files are named {name!r}")
        names.add(name)
        files.append((name, read_upload(upload.file, settings.max_upload_bytes, "data file")))
    return files


def _file_name(name: str) -> str:
    try:
        return check_file_name(name)
    except ValueError as exc:
        raise invalid(str(exc)) from None


@router.get(
    "/whoami",
    responses=errors(401, 429),
    response_model=WhoAmIOut,
    summary="Whose token this is",
)
def whoami(competitions: CompetitionsDep, who: CallerDep) -> WhoAmIOut:
    """The organiser, or the team (and its competition) of a team token: 401
    for a request without a token the server knows. ``ladderboard login``
    checks a token with it before storing it."""
    if who.token is None:
        raise ApiError(
            401,
            "unauthorized",
            "this asks whose token it is: send one (Authorization: Bearer)",
            headers={"WWW-Authenticate": "Bearer"},
        )
    if who.is_organiser:
        return WhoAmIOut(role="organiser", teams=[])
    teams = [
        MembershipOut(competition=info.slug, team=team.name)
        for info in competitions.competitions()
        if (team := who.team(competitions, info.slug)) is not None
    ]
    return WhoAmIOut(role="team", teams=teams)


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
    summary="Edit the title, overview, rules or deadline (organiser)",
    description="A deadline changes only while the competition is open, and only to a "
    "time in the future (or null: none). The mechanism, score and quotas stay fixed.",
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
    try:
        return _out(competitions, competitions.update(competition.slug, **changes))
    except (TypeError, ValueError) as exc:
        raise invalid(str(exc)) from None


# -------------------------------------------------------------------- teams
class TeamIn(BaseModel):
    name: str = Field(min_length=1, max_length=TEAM_NAME_CHARS, description="The team's name.")


@router.post(
    "/competitions/{slug}/teams",
    responses=errors(401, 403, 404, 409, 422, 429),
    status_code=201,
    response_model=TeamCreated,
    summary="Register a team and return its token, once",
    description="The organiser's token is needed unless the server allows self-registration.",
)
def add_team(
    body: TeamIn,
    response: Response,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    who: CallerDep,
    competition: Competition,
) -> TeamCreated:
    if not who.is_organiser:
        if not settings.allow_self_registration:
            if who.token is not None and who.team(competitions, competition.slug) is not None:
                raise ApiError(403, "forbidden", "only the organiser may register teams here")
            raise ApiError(
                401,
                "unauthorized",
                "registering a team needs the organiser's token on this server",
                headers={"WWW-Authenticate": "Bearer"},
            )
        if competition.is_closed():
            raise ApiError(409, "closed", f"competition {competition.slug!r} is closed")
    token = secrets.token_urlsafe(32)
    try:
        team = competitions.add_team(competition.slug, body.name, token_hash=hash_token(token))
    except ValueError as exc:
        raise invalid(str(exc)) from None
    no_store(response)  # the token must not stay in any cache
    return TeamCreated(id=team.id, name=team.name, created_at=team.created_at, token=token)


@router.get(
    "/competitions/{slug}/teams",
    responses=errors(401, 403, 404, 422, 429),
    response_model=list[TeamSummaryOut],
    summary="Every team with its activity: the organiser's desk (organiser)",
)
def list_teams(
    competitions: CompetitionsDep, _: OrganiserDep, competition: Competition
) -> list[TeamSummaryOut]:
    return [TeamSummaryOut.of(t) for t in competitions.team_summaries(competition.slug)]


@router.post(
    "/competitions/{slug}/teams/import",
    responses=errors(401, 403, 404, 409, 413, 422, 429),
    status_code=201,
    response_model=list[TeamCreated],
    summary="Register every team of a CSV of names, all or none (organiser)",
    description="The CSV has a column `name` (or one column without a header). The tokens "
    "are in the response, once: only their SHA-256 is stored.",
)
def import_teams(
    response: Response,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    _: OrganiserDep,
    competition: Competition,
    file: Annotated[UploadFile, File(description="The CSV of team names.")],
) -> list[TeamCreated]:
    data = read_upload(file.file, settings.max_upload_bytes, "team list")
    taken = [team.name for team in competitions.teams(competition.slug)]
    names = list(team_names(data, taken).names)  # the organiser's page reads the same CSV
    return create_teams(competitions, competition.slug, names, response)


def create_teams(
    competitions: Competitions, slug: str, names: list[str], response: Response
) -> list[TeamCreated]:
    """Register ``names`` at once, each with a new token returned this once."""
    tokens = [secrets.token_urlsafe(32) for _ in names]
    try:
        teams = competitions.add_teams(slug, names, [hash_token(t) for t in tokens])
    except ValueError as exc:
        raise invalid(str(exc)) from None
    no_store(response)
    return [
        TeamCreated(id=t.id, name=t.name, created_at=t.created_at, token=token)
        for t, token in zip(teams, tokens, strict=True)
    ]


@router.post(
    "/competitions/{slug}/teams/{name:path}/token",
    responses=errors(401, 403, 404, 422, 429),
    response_model=TeamCreated,
    summary="Replace a team's token with a new one, returned once (organiser)",
    description="For a leaked token: the team keeps its place, submissions, quotas and "
    "selection; its old token is refused from now on, on every server of the store, and "
    "every browser signed in as the team is signed out. Only the new token's SHA-256 is "
    "stored.",
)
def reissue_token(
    name: str,
    response: Response,
    competitions: CompetitionsDep,
    _: OrganiserDep,
    competition: Competition,
) -> TeamCreated:
    token = secrets.token_urlsafe(32)
    team = competitions.reissue_token(competition.slug, name, hash_token(token))
    no_store(response)  # the token must not stay in any cache
    return TeamCreated(id=team.id, name=team.name, created_at=team.created_at, token=token)


@router.patch(
    "/competitions/{slug}/teams/{name:path}",
    responses=errors(401, 403, 404, 422, 429),
    response_model=TeamOut,
    summary="Disable a team, or enable it again (organiser)",
)
def update_team(
    name: str,
    body: TeamPatch,
    competitions: CompetitionsDep,
    _: OrganiserDep,
    competition: Competition,
) -> TeamOut:
    return TeamOut.of(competitions.set_team_disabled(competition.slug, name, body.disabled))


@router.get(
    "/competitions/{slug}/flags",
    responses=errors(401, 403, 404, 422, 429),
    response_model=list[FlagOut],
    summary="Submissions identical to another team's earlier one (organiser)",
)
def list_flags(
    competitions: CompetitionsDep, _: OrganiserDep, competition: Competition
) -> list[FlagOut]:
    return [FlagOut.of(f) for f in competitions.flags(competition.slug)]


@router.get(
    "/competitions/{slug}/team",
    responses=errors(401, 403, 404, 422, 429),
    response_model=TeamStatusOut,
    summary="The calling team's rank, quota and refused files",
)
def team_status(
    competitions: CompetitionsDep, team: TeamDep, competition: Competition
) -> TeamStatusOut:
    return status_of_team(competitions, competition.slug, team.name)


def status_of_team(competitions: Competitions, slug: str, team: str) -> TeamStatusOut:
    rank = next((r.rank for r in competitions.leaderboard(slug) if r.team == team), None)
    return TeamStatusOut(
        name=team,
        rank=rank,
        quota=QuotaOut.of(competitions.quota(slug, team)),
        rejections=[RejectionOut.of(r) for r in competitions.rejections(slug, team)],
    )


# --------------------------------------------------------------- data files
@router.get(
    "/competitions/{slug}/files",
    responses=errors(404, 422),
    response_model=list[FileOut],
    summary="The files participants download: the sample submission, then the data",
)
def list_files(competitions: CompetitionsDep, competition: Competition) -> list[FileOut]:
    return [FileOut.of(competition.slug, f) for f in competitions.files(competition.slug)]


_MEDIA_TYPES = {
    ".csv": "text/csv; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".json": "application/json",
    ".gz": "application/gzip",
    ".zip": "application/zip",
    ".parquet": "application/vnd.apache.parquet",
}
_BINARY = {"schema": {"type": "string", "format": "binary"}}
DATA_FILE_CONTENT = {
    kind.split(";")[0]: _BINARY for kind in [*_MEDIA_TYPES.values(), "application/octet-stream"]
}
"""The OpenAPI content of a data file: the type of its name's suffix, else
``application/octet-stream``."""


@router.get(
    "/competitions/{slug}/files/{name}",
    response_class=Response,
    responses={
        200: {"content": DATA_FILE_CONTENT, "description": "The file."},
        **errors(404, 422),
    },
    summary="Download one file",
)
def download_file(competitions: CompetitionsDep, competition: Competition, name: str) -> Response:
    if len(name) > FILE_NAME_CHARS:
        raise ApiError(404, "not_found", f"competition {competition.slug!r} has no such file")
    info, data = competitions.file(competition.slug, name)
    suffix = "." + info.name.rsplit(".", 1)[-1].lower() if "." in info.name else ""
    return Response(
        data,
        media_type=_MEDIA_TYPES.get(suffix, "application/octet-stream"),
        headers={
            "Content-Disposition": f'attachment; filename="{info.name}"',
            "ETag": f'"{info.sha256}"',
            "X-Content-Type-Options": "nosniff",
        },
    )


@router.put(
    "/competitions/{slug}/files/{name}",
    responses=errors(401, 403, 404, 413, 422, 429),
    response_model=FileOut,
    summary="Attach a data file, or replace the one of that name (organiser)",
)
def put_file(
    name: str,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    _: OrganiserDep,
    competition: Competition,
    file: Annotated[UploadFile, File(description="The file's content.")],
) -> FileOut:
    name = _file_name(name)
    data = read_upload(file.file, settings.max_upload_bytes, "data file")
    return FileOut.of(
        competition.slug, competitions.add_file(competition.slug, name, data, replace=True)
    )


@router.delete(
    "/competitions/{slug}/files/{name}",
    responses=errors(401, 403, 404, 422, 429),
    status_code=204,
    response_class=Response,
    summary="Remove a data file (organiser)",
)
def delete_file(
    name: str, competitions: CompetitionsDep, _: OrganiserDep, competition: Competition
) -> Response:
    if len(name) > FILE_NAME_CHARS:
        raise ApiError(404, "not_found", f"competition {competition.slug!r} has no such file")
    competitions.remove_file(competition.slug, name)
    return Response(status_code=204)


# -------------------------------------------------------------- submissions
# ``POST /competitions/{slug}/submissions`` is :mod:`ladderboard.server.submissions`.


@router.get(
    "/competitions/{slug}/submissions",
    responses=errors(401, 403, 404, 422, 429),
    response_model=list[SubmissionOut],
    summary="The calling team's own submissions",
)
def own_submissions(
    competitions: CompetitionsDep, team: TeamDep, competition: Competition
) -> list[SubmissionOut]:
    score_of = release_words(competition.config.mechanism, competition.config.board).of
    return [
        SubmissionOut.of(v, score_of=score_of)
        for v in competitions.submissions(competition.slug, team.name)
    ]


def submitted_file(slug: str, number: int, data: bytes) -> Response:
    """A submission's file as the team sent it: the bytes received, named
    after the competition and the submission's number, typed by what they
    are (gzip by its first bytes, CSV otherwise)."""
    gzipped = data[:2] == b"\x1f\x8b"
    name = f"{slug}-submission-{number}.csv" + (".gz" if gzipped else "")
    return Response(
        data,
        media_type="application/gzip" if gzipped else "text/csv",
        headers={
            "Content-Disposition": f'attachment; filename="{name}"',
            "Cache-Control": "private, no-cache",  # the team's own
            "X-Content-Type-Options": "nosniff",
        },
    )


SUBMITTED_FILE_CONTENT = {
    "text/csv": {"schema": {"type": "string", "format": "binary"}},
    "application/gzip": {"schema": {"type": "string", "format": "binary"}},
}
"""The OpenAPI content of a submitted file: CSV, or gzip-compressed CSV."""


@router.get(
    "/competitions/{slug}/submissions/{number}/file",
    response_class=Response,
    responses={
        200: {
            "content": SUBMITTED_FILE_CONTENT,
            "description": "The file, byte for byte as the server received it.",
        },
        **errors(401, 403, 404, 422, 429),
    },
    summary="Download one of the calling team's own submitted files",
)
def own_submission_file(
    competitions: CompetitionsDep, team: TeamDep, competition: Competition, number: int
) -> Response:
    data = competitions.submission_file(competition.slug, team.name, number)
    return submitted_file(competition.slug, number, data)


@router.put(
    "/competitions/{slug}/selection",
    responses=errors(401, 403, 404, 409, 422, 429),
    response_model=SelectionOut,
    summary="Choose the team's final submissions (replacing an earlier choice)",
)
def select_final(
    body: SelectionIn, competitions: CompetitionsDep, team: TeamDep, competition: Competition
) -> SelectionOut:
    try:
        competitions.select(competition.slug, team.name, body.submission_ids)
    except ValueError as exc:
        raise invalid(str(exc)) from None
    views = competitions.submissions(competition.slug, team.name)
    return SelectionOut(selected=[v.id for v in views if v.selected])


# ------------------------------------------------------------------- boards
def _kept_board(competitions, who, competition, board: str):
    """The board as the engine keeps it (:meth:`Competitions.kept_board`),
    if the caller may see it."""
    if board == "private" and not competition.is_published() and not who.is_organiser:
        raise ApiError(
            403,
            "private_board",
            "the private board is shown once the organiser publishes it after the close",
        )
    return competitions.kept_board(competition.slug, board, organiser=who.is_organiser)


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
    envelope = LeaderboardOut(
        slug=competition.slug,
        board=board,
        closed=competition.is_closed(),
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


def _cell(text: str) -> str:
    """A team's name made inert for spreadsheets (no formula from ``=``, ``+``, ``-``, ``@``).

    >>> _cell("=HYPERLINK(1)"), _cell("alpha")
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
        writer.writerow([row.rank, _cell(row.team), score, row.entries, last])
    filename = f"{competition.slug}-{board}.csv"
    return Response(
        out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


# ------------------------------------------------------------------- health
@health.get(
    "/healthz",
    response_model=HealthOut,
    responses=errors(503),
    summary="Whether the database answers",
)
def healthz(competitions: CompetitionsDep) -> HealthOut:
    try:
        competitions.ping()
    except Exception as exc:
        raise ApiError(503, "database_unavailable", "the database does not answer") from exc
    return HealthOut(status="ok", database="ok")
