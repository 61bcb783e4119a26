"""The desk's downloads of the whole competition and its audit bundle: the
export as a zip archive (:func:`ladderboard.server.api.exports.zip_download`)
and the publication of the audit bundle, behind the organiser's session."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, Response

from ladderboard.server.api.exports import zip_download
from ladderboard.server.deps import CompetitionsDep, SettingsDep
from ladderboard.server.organiser_desk import desk, find_signed_in, refused
from ladderboard.server.organiser_forms import invalid
from ladderboard.server.organiser_session import check_form, desk_acting
from ladderboard.server.rendering import REFUSALS

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


@router.get("/organiser/c/{slug}/export")
def export(
    request: Request, competitions: CompetitionsDep, settings: SettingsDep, slug: str
) -> Response:
    """The export as a zip archive, for a signed-in organiser (else the sign-in page)."""
    info, other = find_signed_in(request, competitions, settings, slug)
    if info is None:
        return other
    write = desk_acting(request, competitions, settings).export(info.slug)
    return zip_download(f"{info.slug}-export.zip", write, cache="private, no-store")


@router.post("/organiser/c/{slug}/audit", response_class=HTMLResponse)
def publish_audit(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    files: Annotated[str, Form()] = "full",
) -> HTMLResponse:
    """Publish the audit bundle, with the files or their hashes only."""
    try:
        acting = check_form(request, competitions, settings, csrf)
        if files not in ("full", "hashes"):
            raise invalid(f"files must be 'full' or 'hashes', got {files!r}")
        published = acting.publish_audit(slug, "full" if files == "full" else "hashes")
        info = competitions.competition(slug)
    except REFUSALS as exc:
        return refused(request, competitions, settings, slug, exc)
    held = "every submitted file" if published.files == "full" else "the files' SHA-256 only"
    done = f"The audit bundle of {info.title} is published, with {held}."
    return desk(request, competitions, settings, info, done=done)
