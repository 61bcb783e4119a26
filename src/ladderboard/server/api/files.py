"""The files participants download: the list, one file, and the
organiser's attaching, replacing and removing of data files."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, UploadFile
from fastapi.responses import Response

from ladderboard.rules.text import FILE_NAME_CHARS
from ladderboard.server.api.shared import errors, file_name, read_upload
from ladderboard.server.deps import ActingDep, Competition, CompetitionsDep, SettingsDep
from ladderboard.server.errors import ApiError
from ladderboard.server.schemas import FileOut

__all__ = ["DATA_FILE_CONTENT", "router"]

router = APIRouter()


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
    settings: SettingsDep,
    acting: ActingDep,
    competition: Competition,
    file: Annotated[UploadFile, File(description="The file's content.")],
) -> FileOut:
    name = file_name(name)
    data = read_upload(file.file, settings.max_upload_bytes, "data file")
    return FileOut.of(competition.slug, acting.add_file(competition.slug, name, data, replace=True))


@router.delete(
    "/competitions/{slug}/files/{name}",
    responses=errors(401, 403, 404, 422, 429),
    status_code=204,
    response_class=Response,
    summary="Remove a data file (organiser)",
)
def delete_file(name: str, acting: ActingDep, competition: Competition) -> Response:
    if len(name) > FILE_NAME_CHARS:
        raise ApiError(404, "not_found", f"competition {competition.slug!r} has no such file")
    acting.remove_file(competition.slug, name)
    return Response(status_code=204)
