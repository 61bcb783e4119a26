"""``/healthz``: whether the database answers (outside ``/api``, for a load
balancer's checks)."""

from __future__ import annotations

from fastapi import APIRouter

from ladderboard.server.api.shared import errors
from ladderboard.server.deps import CompetitionsDep
from ladderboard.server.errors import ApiError
from ladderboard.server.schemas import HealthOut

__all__ = ["health"]

health = APIRouter()


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
