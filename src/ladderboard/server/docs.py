"""``/docs``: Swagger UI over the OpenAPI schema, every asset served locally.

FastAPI's default docs page loads Swagger UI from a CDN. The assets come
instead from the ``fastapi-offline`` package, which ships a current Swagger
UI 5 build (FastAPI's schema is OpenAPI 3.1, which Swagger UI 4 cannot
render); only its static files are used, through FastAPI's own
``get_swagger_ui_html``. ReDoc is not served: it would fetch web fonts.
"""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["DOCS_ASSETS", "install_docs"]

DOCS_ASSETS = "/static/docs"
_ASSETS_DIR = Path(fastapi_offline.__file__).parent / "static"


def install_docs(app: FastAPI, url: str = "/docs") -> None:
    """Serve Swagger UI at ``url`` from assets under :data:`DOCS_ASSETS`."""
    app.mount(DOCS_ASSETS, StaticFiles(directory=_ASSETS_DIR), name="docs-assets")

    @app.get(url, include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title}: API",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon.png",
        )
