"""The app factory: ``create_app(settings, competitions=...)``.

Nothing is built at import time: each call makes its own settings (from the
environment when not given) and its own engine over the store, kept on
``app.state``; rate
limits and the organiser's sign-ins live in the store, shared by every
worker. ``uvicorn --factory ladderboard.server.app:served_app`` (or
``ladderboard serve``) calls :func:`served_app` once per worker.

>>> from ladderboard.engine import Competitions
>>> app = create_app(Settings(environment="development", database_url="sqlite://"),
...                  competitions=Competitions.open("sqlite://"))
>>> sorted(app.openapi()["paths"])[:3]
['/api/account', '/api/account/tokens', '/api/account/tokens/{token_id}']
"""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastapi import FastAPI

from ladderboard import __version__
from ladderboard.engine import Competitions
from ladderboard.server import routes
from ladderboard.server.anonymous import AnonymousReads
from ladderboard.server.api import (
    document_shared_errors,
    health,
    router,
)
from ladderboard.server.board_json import BoardJson
from ladderboard.server.errors import install_error_handlers
from ladderboard.server.limits import RequestGate
from ladderboard.server.metrics import Measured, Metrics, metrics_router
from ladderboard.server.pages import install_pages
from ladderboard.server.settings import Settings

__all__ = ["create_app", "served_app"]


def create_app(
    settings: Settings | None = None, *, competitions: Competitions | None = None
) -> FastAPI:
    """A new application over the engine ``competitions`` (default: opened,
    and its store migrated, from
    ``settings.database_url``; then disposed of at shutdown)."""
    settings = settings if settings is not None else Settings()
    owns_competitions = competitions is None
    if competitions is None:
        competitions = Competitions.open(settings.database_url)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        if owns_competitions:
            competitions.dispose()

    app = FastAPI(
        title="ladderboard",
        version=__version__,
        summary="Competitions whose public board resists overfitting to the holdout.",
        description=(
            "Organisers create competitions from a solution file; teams submit predictions "
            "and see only what the board's mechanism releases. Authenticate with "
            "`Authorization: Bearer <token>`. Every error is JSON "
            '`{"error": code, "message": sentence}`.'
        ),
        lifespan=lifespan,
        docs_url=None,  # served from local assets by install_pages
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.submission_slots = anyio.CapacityLimiter(settings.submission_slots)
    app.state.competitions = competitions
    app.state.board_json = BoardJson()
    install_error_handlers(app)

    app.state.metrics = Metrics()
    app.add_middleware(RequestGate, settings=settings)
    app.add_middleware(AnonymousReads, per_minute=settings.anonymous_reads_per_minute)
    # The outermost: sees every answer (but the 500s, which are answered outside it).
    metrics = app.state.metrics
    app.add_middleware(Measured, metrics=metrics, prefix=router.prefix, mounts=("/static",))
    for shared in (router, health, metrics_router):
        routes.include(app, shared)
    install_pages(app)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = document_shared_errors(FastAPI.openapi(app))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


def served_app() -> FastAPI:
    """:func:`create_app` for a server process of its own (``ladderboard
    serve``, one call a worker), whose heap it then tidies: what the imports
    and the app made lives as long as the process, so it is collected once
    and frozen out of the collector's sight (``gc.freeze``). A full
    collection then scans what requests make (a board of 10,000 teams), not
    the 200,000 objects of the libraries, which cost a board read 100 ms
    whenever one ran. Not done by :func:`create_app`, which may be embedded
    in a process that is not ours. With JSON log lines, Python's warnings
    go to the logs too (:func:`ladderboard.server.logs.json_log_config`)."""
    app = create_app()
    if app.state.settings.log_format == "json":
        logging.captureWarnings(True)
    gc.collect()
    gc.freeze()
    return app
