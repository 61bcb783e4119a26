"""The checks of a load balancer or an orchestrator, outside ``/api``:
``/livez`` (the process answers: restart it when it does not), ``/readyz``
(the store answers and holds the schema this version reads: send it
requests only then) and ``/healthz`` (the database answers)."""

from __future__ import annotations

from fastapi import APIRouter

from ladderboard.engine import StoreUnavailable
from ladderboard.server.api.shared import errors
from ladderboard.server.deps import CompetitionsDep
from ladderboard.server.errors import ApiError
from ladderboard.server.schemas import HealthOut, LiveOut

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


@health.get("/livez", response_model=LiveOut, summary="Whether the process answers")
def livez() -> LiveOut:
    return LiveOut(status="ok")


@health.get(
    "/readyz",
    response_model=HealthOut,
    responses=errors(503),
    summary="Whether the store answers and holds the schema this version reads",
)
def readyz(competitions: CompetitionsDep) -> HealthOut:
    """503 ``database_unavailable`` when the database does not answer, and
    ``store_not_ready`` when it holds no store or one at another schema
    revision (a migration under way on another host, or not yet run)."""
    try:
        competitions.check_schema()
    except StoreUnavailable as exc:
        # Said without the store's address, which is nobody's business here.
        words = {
            "missing": "the database holds no ladderboard store yet",
            "outdated": "the store's schema is not the one this server reads",
        }
        message = words.get(exc.reason, "the store cannot be opened")
        raise ApiError(503, "store_not_ready", message) from exc
    except Exception as exc:
        raise ApiError(503, "database_unavailable", "the database does not answer") from exc
    return HealthOut(status="ok", database="ok")
