"""The REST API under ``/api``, and ``/healthz``: one module a resource.

Route functions are plain ``def``: the engine is synchronous, and FastAPI
runs such functions in its threadpool, off the event loop. Each returns one
of the explicit models of :mod:`ladderboard.server.schemas`. A submission is
the exception (:mod:`.submissions`): its route receives the body as it
streams in.
"""

from __future__ import annotations

from fastapi import APIRouter

from ladderboard.server.api import (
    accounts,
    boards,
    competitions,
    corrections,
    exports,
    files,
    look_alikes,
    organisers,
    registrations,
    submissions,
    team_members,
    teams,
)
from ladderboard.server.api.health import health
from ladderboard.server.api.shared import document_shared_errors

__all__ = ["document_shared_errors", "health", "router"]

router = APIRouter(prefix="/api")
for _resource in (
    competitions,
    corrections,
    teams,
    team_members,
    look_alikes,
    registrations,
    files,
    submissions,
    boards,
    exports,
    organisers,
    accounts,
):
    router.include_router(_resource.router)
