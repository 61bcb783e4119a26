"""Prometheus metrics of one application: ``GET /metrics`` in the text
format, for a scraper holding the metrics token.

What is counted:

- ``ladderboard_http_requests_total{method, route, status}``: every answer,
  by the route's template (``/api/competitions/{slug}/submissions``), not
  the path, so that a scan of random paths adds no series (``unmatched``);
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
import os
import time
from typing import Any

from fastapi import APIRouter, Request, Response

from ladderboard.server.credentials import bearer_token
from ladderboard.server.deps import failed_authentication
from ladderboard.server.errors import ApiError

__all__ = ["Measured", "Metrics", "metrics_router", "route_template"]

# The routes a participant's file is sent to: their answers count as submissions.
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
    """ASGI middleware, the outermost: counts and times every answer by its
    route's template, and each refusal by its code (which
    :func:`ladderboard.server.errors.respond` leaves in the request's state)."""

    def __init__(self, app: Any, *, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # what the client gets when the app raises before answering

        async def send_measured(message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_measured)
        finally:
            self._count(scope, status, time.perf_counter() - started)

    def _count(self, scope: dict[str, Any], status: int, seconds: float) -> None:
        route = route_template(scope)
        method = scope["method"]
        metrics = self.metrics
        metrics.requests.labels(method, route, str(status)).inc()
        metrics.request_seconds.labels(route).observe(seconds)
        code = (scope.get("state") or {}).get("error_code")
        if status >= 400:
            metrics.refusals.labels(code or f"http_{status}").inc()
        if (method, route) in _SUBMISSION_ROUTES:
            outcome = "scored" if status < 400 else (code or f"http_{status}")
            metrics.submissions.labels(outcome).inc()


def route_template(scope: dict[str, Any]) -> str:
    """The template of the route that answered (``unmatched`` for none), as
    the application serves it: a route keeps its path relative to the
    router it was declared on, and the literal prefixes it was included
    under (``/api``) are the request path's leading segments.

    >>> class Route:
    ...     path = "/competitions/{slug}/submissions"
    >>> route_template({"route": Route(), "path": "/api/competitions/demo/submissions"})
    '/api/competitions/{slug}/submissions'
    >>> route_template({"path": "/wp-admin"})
    'unmatched'
    """
    template = getattr(scope.get("route"), "path", None)
    if not isinstance(template, str) or not template.startswith("/"):
        return "unmatched"
    segments = scope["path"].strip("/").split("/")
    own = template.strip("/").split("/")
    prefix = segments[: max(len(segments) - len(own), 0)]
    return "/" + "/".join(prefix) + template if prefix else template


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
