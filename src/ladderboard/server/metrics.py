"""Prometheus metrics of one application: ``GET /metrics`` in the text
format, for a scraper holding the metrics token.

What is counted:

- ``ladderboard_http_requests_total{method, route, status}``: every answer,
  by the route's template (``/api/competitions/{slug}/submissions``), not
  the path, so that a scan of random paths adds no series (``unmatched``;
  the static files count as ``/static``, and a method outside HTTP's usual
  ones as ``other``);
- ``ladderboard_http_request_seconds{route}``: how long each took;
- ``ladderboard_refusals_total{code}``: every refusal by its error code
  (``unauthorized`` for a failed authentication, ``rate_limited``,
  ``quota``, ``duplicate``, ...), the code of the JSON body;
- ``ladderboard_submissions_total{outcome}``: each file sent to a
  competition, ``scored`` or the code it was refused with;
- ``ladderboard_scoring_seconds``: the time a file admitted through the
  API took to score and store, and
  ``ladderboard_scoring_slot_wait_seconds`` the time it waited for one of
  the worker's scoring slots first.

Each application has a registry of its own. A server of several worker
processes counts in each: with ``PROMETHEUS_MULTIPROC_DIR`` set to an
empty folder before the workers start (prometheus_client's multiprocess
mode), ``/metrics`` adds up every worker's counts.

``/metrics`` is off (404) unless ``LADDERBOARD_METRICS_TOKEN`` is set, and
then asks for that token as a bearer: the counts say how busy each route
and refusal is, which is the operator's business, and the organiser's
token, which changes competitions, need not sit in a scraper's
configuration.
"""

from __future__ import annotations

import hmac
import logging
import os
import time
from typing import Any

from fastapi import APIRouter, Request, Response
from starlette.datastructures import MutableHeaders

from ladderboard.rules.text import printable
from ladderboard.server.credentials import bearer_token
from ladderboard.server.deps import failed_authentication
from ladderboard.server.errors import ApiError
from ladderboard.server.logs import ACCESS, request_id_of

__all__ = ["Measured", "Metrics", "metrics_router", "route_template"]

# The routes a participant's file is sent to: their answers count as submissions.
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
"""The methods counted by name; any other (a client may send any word) is ``other``."""

_SUBMISSION_ROUTES = frozenset(
    {
        ("POST", "/api/competitions/{slug}/submissions"),
        ("POST", "/c/{slug}/submit"),
    }
)


class Metrics:
    """The counters and histograms of one application (see the module)."""

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Histogram

        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "ladderboard_http_requests",
            "Answers, by method, route template and status.",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.request_seconds = Histogram(
            "ladderboard_http_request_seconds",
            "Time to answer, by route template.",
            ["route"],
            registry=self.registry,
        )
        self.refusals = Counter(
            "ladderboard_refusals",
            "Refusals, by error code.",
            ["code"],
            registry=self.registry,
        )
        self.submissions = Counter(
            "ladderboard_submissions",
            "Files sent to a competition, by outcome: scored or the refusal's code.",
            ["outcome"],
            registry=self.registry,
        )
        self.scoring_seconds = Histogram(
            "ladderboard_scoring_seconds",
            "Time an admitted file took to score and store.",
            registry=self.registry,
        )
        self.slot_wait_seconds = Histogram(
            "ladderboard_scoring_slot_wait_seconds",
            "Time an admitted file waited for a scoring slot of its worker.",
            registry=self.registry,
        )

    def exposition(self) -> tuple[bytes, str]:
        """The metrics in Prometheus' text format, and its content type:
        this process's, or every worker's in multiprocess mode."""
        from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

        registry = self.registry
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            from prometheus_client import multiprocess

            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST


class Measured:
    """ASGI middleware, the outermost: gives every request its id
    (:mod:`ladderboard.server.logs`: in the request's state and the answer's
    ``X-Request-ID``), counts and times every answer by its route's
    template, and each refusal by its code (which
    :func:`ladderboard.server.errors.respond` leaves in the request's
    state), and logs the request's line."""

    def __init__(self, app: Any, *, metrics: Metrics, prefix: str, mounts: tuple[str, ...]) -> None:
        self.app = app
        self.metrics = metrics
        self.prefix = prefix
        self.mounts = mounts

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = request_id_of(scope["headers"])
        scope.setdefault("state", {})["request_id"] = request_id
        status = 500  # what the client gets when the app raises before answering

        async def send_measured(message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                MutableHeaders(scope=message).append("X-Request-ID", request_id)
            await send(message)

        raised = False
        try:
            await self.app(scope, receive, send_measured)
        except Exception:
            # Answered by the 500 handler, outside every middleware
            # (:func:`ladderboard.server.errors.install_error_handlers`).
            raised = True
            raise
        finally:
            self._count(scope, status, time.perf_counter() - started, raised)

    def _count(self, scope: dict[str, Any], status: int, seconds: float, raised: bool) -> None:
        route = route_template(scope, self.prefix, self.mounts)
        method = scope["method"] if scope["method"] in _METHODS else "other"
        metrics = self.metrics
        metrics.requests.labels(method, route, str(status)).inc()
        metrics.request_seconds.labels(route).observe(seconds)
        state = scope.get("state") or {}
        code = "internal" if raised else state.get("error_code")
        if status >= 400:
            metrics.refusals.labels(code or f"http_{status}").inc()
        if (method, route) in _SUBMISSION_ROUTES:
            outcome = "scored" if status < 400 else (code or f"http_{status}")
            metrics.submissions.labels(outcome).inc()
        if ACCESS.isEnabledFor(logging.INFO):
            competition = (scope.get("path_params") or {}).get("slug")
            ACCESS.info(
                "%s %s %d %.1f ms",
                method,
                route,
                status,
                seconds * 1000,
                extra={
                    "request_id": state.get("request_id"),
                    "method": method,
                    "route": route,
                    "status": status,
                    "duration_ms": round(seconds * 1000, 1),
                    "competition": printable(competition) if competition else None,
                    "team": state.get("team"),
                },
            )


def route_template(scope: dict[str, Any], prefix: str, mounts: tuple[str, ...]) -> str:
    """The template of the route that answered, as the application serves
    it: a route under ``prefix`` (the API's ``/api``, which its routes'
    own paths leave out) with it; a file under one of ``mounts`` (the
    static files) as the mount; and ``unmatched`` for no route. Never a
    piece of the path the client chose.

    >>> class Route:
    ...     path = "/competitions/{slug}/teams/{name:path}/history"
    >>> route_template(
    ...     {"route": Route(), "path": "/api/competitions/a/teams/b/c/history"}, "/api", ()
    ... )
    '/api/competitions/{slug}/teams/{name:path}/history'
    >>> route_template({"path": "/static/site.css"}, "/api", ("/static",))
    '/static'
    >>> route_template({"path": "/wp-admin"}, "/api", ("/static",))
    'unmatched'
    """
    path = scope["path"]
    template = getattr(scope.get("route"), "path", None)
    if isinstance(template, str) and template.startswith("/"):
        under = path == prefix or path.startswith(prefix + "/")
        return prefix + template if under and not template.startswith(prefix) else template
    return next((mount for mount in mounts if path.startswith(mount + "/")), "unmatched")


metrics_router = APIRouter(include_in_schema=False)


@metrics_router.get("/metrics")
def metrics(request: Request) -> Response:
    """The metrics, for a bearer of ``LADDERBOARD_METRICS_TOKEN`` (404
    without one set: the route is off)."""
    settings = request.app.state.settings
    expected = settings.metrics_token.get_secret_value()
    if not expected:
        raise ApiError(404, "not_found", "there is no page at /metrics")
    token = bearer_token(request) or ""
    if not hmac.compare_digest(token.encode(), expected.encode()):
        # Counted against the address as every failed authentication is.
        raise failed_authentication(
            request, settings, "send the metrics token (Authorization: Bearer)"
        )
    body, content_type = request.app.state.metrics.exposition()
    return Response(body, media_type=content_type)
