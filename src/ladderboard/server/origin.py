"""Whether a form post comes from a page of this server: the check every
form that changes state makes, the organiser's desk and an account's pages
alike (a cross-site post fails it)."""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import Request

__all__ = ["same_origin"]


def same_origin(request: Request) -> bool:
    """Whether a form post comes from a page of this server: its ``Origin``
    (or ``Referer``) names this host. Browsers send ``Origin`` with every
    form post; a request with neither is refused."""
    source = request.headers.get("origin") or request.headers.get("referer")
    if not source or source == "null":
        return False
    return urlsplit(source).netloc.lower() == request.url.netloc.lower()
