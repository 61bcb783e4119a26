"""``/docs``: Swagger UI over the OpenAPI schema, every asset served locally.

FastAPI's default docs page loads Swagger UI from a CDN. The assets come
instead from the ``fastapi-offline`` package, which ships a current Swagger
UI 5 build (FastAPI's schema is OpenAPI 3.1, which Swagger UI 4 cannot
render); only its static files are used, through FastAPI's own
``get_swagger_ui_html``. ReDoc is not served: it would fetch web fonts.

People paste their tokens into this page, so it gets the headers of every
other page, with a Content-Security-Policy of its own (:func:`docs_policy`):
the page starts Swagger UI with an inline script, allowed by its SHA-256
alone, and Swagger UI draws its icons from ``data:`` images (its styles it
sets through the DOM, which the policy does not restrict); nothing else is
loaded from anywhere but this server, and no other site may frame the page.
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["DOCS_ASSETS", "docs_policy", "install_docs"]

DOCS_ASSETS = "/static/docs"
_ASSETS_DIR = Path(fastapi_offline.__file__).parent / "static"
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)


def docs_policy(html: str) -> str:
    """The Content-Security-Policy of the docs page ``html``: its inline
    scripts allowed by their hashes, everything else from this server only.

    >>> docs_policy("<script>go()</script>")  # doctest: +ELLIPSIS
    "default-src 'self'; script-src 'self' 'sha256-...'; ...; frame-ancestors 'none'; ..."
    """
    digests = (hashlib.sha256(body.encode()).digest() for body in _INLINE_SCRIPT.findall(html))
    hashes = " ".join(f"'sha256-{base64.b64encode(d).decode()}'" for d in digests)
    return (
        f"default-src 'self'; script-src 'self' {hashes}; style-src 'self'; "
        "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        "frame-ancestors 'none'; form-action 'self'"
    )


def install_docs(app: FastAPI, url: str = "/docs") -> None:
    """Serve Swagger UI at ``url`` from assets under :data:`DOCS_ASSETS`."""
    app.mount(DOCS_ASSETS, StaticFiles(directory=_ASSETS_DIR), name="docs-assets")

    @app.get(url, include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        page = get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title}: API",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon.png",
        )
        page.headers.update(
            {
                "Content-Security-Policy": docs_policy(bytes(page.body).decode()),
                "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "same-origin",
                "Cache-Control": "no-store",
            }
        )
        return page
