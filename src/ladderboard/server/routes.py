"""Routers included in an application by route objects built once a process.

FastAPI includes a router lazily: the first requests an application answers
build each included route's dependant (its signature read and its pydantic
validators made), once for every application, whose cost is most of a test's
(about half a second for this site's routes on a 2-core machine). Every
application of a process includes the same module-level routers with the same
settings, so :func:`include` includes each once, into a holder router of its
own, and hands every application the holder's route objects: the first
application's requests build them, the others' find them built. A route
object serves any application (a request's application and router come with
the request); what shared routes do not consult is an application's
``dependency_overrides``, which the site does not use. A router with startup
or shutdown handlers is refused: ``include_router`` would hand them to the
application, and sharing its routes would not. Nor is a router's lifespan
handed on; none of the site's routers has one (FastAPI gives every router
that includes others a merged lifespan, so one cannot be told apart here).
"""

from __future__ import annotations

from fastapi import APIRouter, FastAPI
from starlette.routing import BaseRoute

__all__ = ["include"]

# By the router's id, with the router itself kept (so that its id is never
# another's): routers compare by value and cannot be keys.
_SHARED: dict[int, tuple[APIRouter, list[BaseRoute]]] = {}


def include(app: FastAPI, router: APIRouter) -> None:
    """Include ``router`` in ``app`` as ``app.include_router(router)`` would,
    with the route objects every application of this process shares."""
    if router.on_startup or router.on_shutdown:
        raise ValueError(
            "a router with startup or shutdown handlers cannot share its routes: include it "
            "with app.include_router"
        )
    shared = _SHARED.get(id(router))
    if shared is None:
        holder = APIRouter()
        holder.include_router(router)
        shared = _SHARED.setdefault(id(router), (router, list(holder.routes)))
    app.router.routes.extend(shared[1])
